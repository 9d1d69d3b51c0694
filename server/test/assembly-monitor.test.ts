/**
 * The automatic-assembly monitor (docs/rules.md, "Assembly"): at most four opted-in books a cycle,
 * series not opted in untouched, deferred while a download of the series is active; a real loop
 * started by the server with a configurable interval, observable over REST and GraphQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDownload } from "./audit-fixtures.ts";
import { createSeriesWithFiles, expectJson, scanLibrary } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let seq = 0;

/** Chapters 1–n on disk, book k = chapter k in the operator map; opted in when asked. */
async function series(app: TestApp, n: number, optIn: boolean) {
  const chapters = Array.from({ length: n }, (_, i) => i + 1);
  const s = await createSeriesWithFiles(app, `Monitor ${++seq}`, { books: [], chapters });
  await scanLibrary(app);
  await expectJson(
    await app.api(`/api/manga/${s.id}/chapter-map`, {
      method: "PUT",
      json: { revision: 0, entries: chapters.map((c) => ({ volume: String(c), chapters: [String(c)] })) },
    }),
    200,
  );
  if (optIn)
    await expectJson(
      await app.api(`/api/manga/${s.id}`, { method: "PATCH", json: { assemble_books_automatically: true } }),
      200,
    );
  return s.id;
}

const owned = async (app: TestApp, id: number) =>
  app.ctx.db.libraryFile.count({ where: { seriesId: id, origin: "assembled", state: "active" } });
const RUN = `mutation { runAssemblyMonitor { lastRun nextRun running lastOutcome { attempted assembled deferred failed books { seriesId volume outcome code } } } }`;

describe("assembly monitor, run now", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app?.dispose();
  });

  it("assembles four books of an opted-in series in one cycle and the fifth in the next; a series not opted in is untouched", async () => {
    const other = await series(app, 2, false);
    const id = await series(app, 5, true);
    const first = await app.gql<{
      runAssemblyMonitor: {
        lastRun: string;
        lastOutcome: {
          attempted: number;
          assembled: number;
          books: { seriesId: number; volume: string; outcome: string }[];
        };
      };
    }>(RUN);
    expect(first.errors).toBeUndefined();
    expect(first.data!.runAssemblyMonitor.lastOutcome).toMatchObject({
      attempted: 4,
      assembled: 4,
      deferred: 0,
      failed: 0,
    });
    expect(first.data!.runAssemblyMonitor.lastOutcome.books.map((b) => [b.seriesId, b.volume, b.outcome])).toEqual(
      ["1", "2", "3", "4"].map((v) => [id, v, "assembled"]),
    );
    expect(await owned(app, id)).toBe(4);
    const rest = await expectJson<{ last_run: string; last_outcome: { assembled: number } }>(
      await app.api("/api/monitor/assembly"),
      200,
    );
    expect(rest.last_run).toBe(first.data!.runAssemblyMonitor.lastRun);
    expect(rest.last_outcome.assembled).toBe(4);

    const second = await app.gql<{
      runAssemblyMonitor: { lastOutcome: { assembled: number; books: { volume: string }[] } };
    }>(RUN);
    expect(second.data!.runAssemblyMonitor.lastOutcome.assembled).toBe(1);
    expect(second.data!.runAssemblyMonitor.lastOutcome.books.map((b) => b.volume)).toEqual(["5"]);
    expect(await owned(app, id)).toBe(5);
    expect(await owned(app, other)).toBe(0);
  });

  it("defers, without an attempt, while a download of the series is active", async () => {
    const id = await series(app, 2, true);
    const download = await addDownload(app, id, { state: "fetching" });
    const r = await expectJson<{
      last_outcome: {
        attempted: number;
        deferred: number;
        books: { series_id: number; outcome: string; code: string }[];
      };
    }>(await app.api("/api/monitor/assembly/run", { method: "POST", json: {} }), 200);
    expect(r.last_outcome.attempted).toBe(0);
    expect(r.last_outcome.deferred).toBe(2);
    expect(r.last_outcome.books.every((b) => b.series_id === id && b.outcome === "deferred")).toBe(true);
    expect(await owned(app, id)).toBe(0);
    await app.ctx.db.download.update({ where: { id: download.id }, data: { state: "published" } });
    const g = await app.gql<{ runAssemblyMonitor: { lastOutcome: { assembled: number } } }>(RUN);
    expect(g.data!.runAssemblyMonitor.lastOutcome.assembled).toBe(2);
  });

  it("defers while a torrent of the series is being imported (prepared state: the job's row)", async () => {
    const id = await series(app, 1, true);
    const job = await app.ctx.db.torrentJob.create({
      data: { seriesId: id, infoHash: "a".repeat(40), title: "Monitor v01-02", books: '["1","2"]', state: "importing" },
    });
    const r = await expectJson<{
      last_outcome: {
        attempted: number;
        deferred: number;
        books: { series_id: number; outcome: string; code: string }[];
      };
    }>(await app.api("/api/monitor/assembly/run", { method: "POST", json: {} }), 200);
    expect(r.last_outcome).toMatchObject({ attempted: 0, deferred: 1 });
    expect(r.last_outcome.books).toEqual([{ series_id: id, volume: "1", outcome: "deferred", code: "import_active" }]);
    expect(await owned(app, id)).toBe(0);
    await app.ctx.db.torrentJob.update({ where: { id: job.id }, data: { state: "imported" } });
    const g = await app.gql<{ runAssemblyMonitor: { lastOutcome: { assembled: number } } }>(RUN);
    expect(g.data!.runAssemblyMonitor.lastOutcome.assembled).toBe(1);
  });
});

describe("assembly monitor, scheduled", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ env: { ASSEMBLY_MONITOR_INTERVAL_SECONDS: "1" } });
  });
  afterAll(async () => {
    await app?.dispose();
  });

  it("the server runs cycles on its interval and reports last run, next run and outcome", async () => {
    const id = await series(app, 1, true);
    const before = await expectJson<{ next_run: string | null }>(await app.api("/api/monitor/assembly"), 200);
    expect(before.next_run).not.toBeNull();
    // The book is owned as soon as its publication commits; the cycle records its end just after.
    const deadline = Date.now() + 8000;
    const finished = async () =>
      (await owned(app, id)) === 1 &&
      (await expectJson<{ last_run: string | null }>(await app.api("/api/monitor/assembly"), 200)).last_run !== null;
    while (!(await finished()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await owned(app, id)).toBe(1);
    const g = await app.gql<{ assemblyMonitor: { lastRun: string | null; nextRun: string | null } }>(
      `{ assemblyMonitor { lastRun nextRun } }`,
    );
    expect(g.data!.assemblyMonitor.lastRun).not.toBeNull();
    expect(g.data!.assemblyMonitor.nextRun).not.toBeNull();
  });
});
