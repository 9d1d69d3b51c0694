/**
 * Downloads across several instances: processes of the built service (server/dist/main.js) on one
 * PostgreSQL database, one library root, one data dir and one Redis, with a Suwayomi-compatible
 * server on 127.0.0.1. Only the public API (REST) is used, from an empty database.
 *
 * Two `api` instances (X, Y) take the settings, the search, the link and the Wanted passes; they
 * queue downloads and fetch nothing. A `worker` (W) started afterwards fetches and publishes what
 * they queued. Then W dies with SIGKILL in the middle of a download (its pages held by the fake
 * source), and a second worker (S) takes the download over once W's claim ran out. Last, S stalls
 * (SIGSTOP) past its claim in the middle of a download, a third worker (T) takes it over, and S
 * wakes up (SIGCONT) with its pages still coming: the download is published once, by T.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from "vitest";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  heldPage,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
  type FakeWork,
} from "../server/test/fakes/suwayomi-server.ts";
import { startInstance, startRedis, type Instance, type RedisServer } from "../server/test/instances.ts";
import { expectJson } from "../server/test/expect-json.ts";
import { startPostgres, type PostgresCluster } from "../server/test/postgres.ts";

const SOURCE: FakeSource = { id: "7301", name: "Relay Scans", lang: "en" };
const TITLE = "Lantern Relay";
/** Rounds of two passes at once (each pass queues two chapters: WANTED_MAX_DOWNLOADS). */
const ROUNDS = 4;
/** The chapters the source lists at first: two passes before the rounds (the link's, one more) and the rounds. */
const CHAPTERS = Array.from({ length: 4 + 4 * ROUNDS }, (_, i) => String(i + 1));
/** The chapter that appears at the source later (the one whose worker dies). */
const LATE = String(CHAPTERS.length + 1);

interface Download {
  id: number;
  chapter: string | null;
  state: string;
  attempts: number;
  pages_done: number;
  file_id: number | null;
  error: string | null;
}
interface Units {
  units: { kind: string; number: string; owned: boolean; extra: boolean }[];
}

let pg: PostgresCluster;
let redis: RedisServer;
let fake: FakeSuwayomi;
let work: FakeWork;
let dir: string;
let env: Record<string, string>;
let x: Instance;
let y: Instance;
const workers: Instance[] = [];
let seriesId: number;

const json = <T>(res: Response, status = 200): Promise<T> => expectJson<T>(res, status);

const downloads = async (i: Instance) => json<Download[]>(await i.api(`/api/manga/${seriesId}/downloads`));
const ownedChapters = async (i: Instance) =>
  (await json<Units>(await i.api(`/api/manga/${seriesId}/units`))).units
    .filter((u) => u.kind === "chapter" && u.owned)
    .map((u) => u.number);
const settled = (rows: Download[]) =>
  rows.every((r) => ["published", "degraded", "failed", "cancelled"].includes(r.state));
/** Requests that only a download job makes: the page list of a chapter and its pages. */
const fetchRequests = (requests: readonly string[]) =>
  requests.filter((r) => r.includes("fetchChapterPages") || r.startsWith("GET /api/v1/manga/"));
/** The chapter files of the series in the library folder. */
const libraryFiles = () => readdirSync(path.join(dir, "library", TITLE)).filter((n) => n.endsWith(".cbz"));
/** The staging folders of downloads (one per download being fetched). */
const stagedDownloads = () => {
  try {
    return readdirSync(path.join(dir, "library", ".staging", "downloads"));
  } catch {
    return [];
  }
};
const byNumber = (a: string, b: string) => Number(a) - Number(b);

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "mls-instances-dl-"));
  work = fakeWork({
    id: 731,
    title: TITLE,
    source: SOURCE,
    chapters: await Promise.all(
      CHAPTERS.map(async (n) =>
        fakeChapter({ chapterNumber: Number(n), pages: await drawnChapter(4, 300 + Number(n)) }),
      ),
    ),
  });
  [pg, redis, fake] = await Promise.all([
    startPostgres(),
    startRedis(),
    startFakeSuwayomi({ works: [work], sources: [SOURCE] }),
  ]);
  await pg.sql("CREATE DATABASE library");
  env = {
    DATABASE_URL: pg.url("library"),
    REDIS_URL: redis.url,
    LIBRARY_ROOT: path.join(dir, "library"),
    DATA_DIR: path.join(dir, "data"),
    DEMO_LIBRARY: "0",
    // Short leases: a dead worker's download is taken over within seconds.
    LEASE_SECONDS: "4",
    // Two downloads per pass: every pass has chapters left to queue, so passes at once could collide.
    WANTED_MAX_DOWNLOADS: "2",
    DOWNLOAD_POLL_MS: "100",
  };
  [x, y] = await Promise.all([
    startInstance("X api", { ...env, INSTANCE_ROLE: "api" }),
    startInstance("Y api", { ...env, INSTANCE_ROLE: "api" }),
  ]);
});

afterAll(async () => {
  await Promise.allSettled([x?.stop(), y?.stop(), ...workers.map((w) => w.stop())]);
  await Promise.allSettled([redis?.stop(), pg?.stop(), fake?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("downloads across instances (PostgreSQL + Redis)", () => {
  // A failure (a timeout included) prints what the instances said: they run as child processes.
  beforeEach(() => {
    onTestFailed(() => {
      for (const i of [x, y, ...workers])
        if (i) console.error(`--- output of ${i.name} (last 6000 characters)\n${i.output().slice(-6000)}`);
    });
  });

  it("Wanted passes on two api instances at once queue each chapter once; the api instances fetch nothing", async () => {
    await json(
      await x.api("/api/settings/sources", {
        method: "PUT",
        body: JSON.stringify({ suwayomi: { enabled: true, url: fake.url, auth: "none" } }),
      }),
    );
    seriesId = (
      await json<{ id: number }>(
        await y.api("/api/manga", { method: "POST", body: JSON.stringify({ title: TITLE }) }),
        201,
      )
    ).id;
    // Settings saved through X are read by Y from the database.
    const found = await json<{ works: { source_id: string; title: string }[] }>(
      await y.api(`/api/manga/${seriesId}/sources/search`, {
        method: "POST",
        body: JSON.stringify({ provider: SOURCE.id }),
      }),
    );
    const sourceId = found.works.find((w) => w.title === TITLE)?.source_id;
    expect(sourceId).toBe(String(work.id));
    const linked = await json<{ refresh: { offers: number } }>(
      await x.api(`/api/manga/${seriesId}/sources`, {
        method: "POST",
        body: JSON.stringify({ provider: SOURCE.id, source_id: sourceId, language: "en" }),
      }),
      201,
    );
    expect(linked.refresh.offers).toBe(CHAPTERS.length);
    // The link runs a pass on X; a pass requested on X joins it while it is under way, so once this
    // one answered no pass runs anywhere.
    await json(await x.api(`/api/manga/${seriesId}/wanted/run`, { method: "POST" }));
    const before = (await downloads(x)).length;
    expect(before).toBeLessThanOrEqual(4);

    // Both instances run a pass for the series at once, round after round; each has two chapters to queue.
    let rows: Download[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const answers = await Promise.all(
        [x, y].map(async (i) =>
          json<{ queued: number }>(await i.api(`/api/manga/${seriesId}/wanted/run`, { method: "POST" })),
        ),
      );
      // One pass plans after the other queued: each chapter is queued once.
      expect(answers.map((a) => a.queued)).toEqual([2, 2]);
      rows = await downloads(x);
      expect(rows).toHaveLength(before + 4 * round);
      expect(rows.map((r) => r.chapter ?? "?").sort(byNumber)).toEqual(CHAPTERS.slice(0, before + 4 * round));
    }
    expect(rows.every((r) => r.state === "queued")).toBe(true);

    // No worker runs: nothing was fetched, and nothing is, while the rows wait in the queue.
    for (let k = 0; k < 10; k++) {
      expect(fetchRequests(fake.requests)).toEqual([]);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await downloads(y)).map((r) => r.state)).toEqual(rows.map(() => "queued"));
  });

  it("a worker fetches what the api instances queued: every chapter published once", async () => {
    const before = fake.requests.length;
    workers.push(await startInstance("W worker", { ...env, INSTANCE_ROLE: "worker" }));
    // Passes through X until nothing is left to queue (two per pass); the worker takes each row.
    await expect
      .poll(
        async () => {
          await json(await x.api(`/api/manga/${seriesId}/wanted/run`, { method: "POST" }));
          return (await ownedChapters(y)).sort(byNumber);
        },
        { timeout: 60_000, interval: 500 },
      )
      .toEqual(CHAPTERS);
    await expect.poll(() => downloads(x), { timeout: 30_000, interval: 200 }).toSatisfy(settled);
    const final = await downloads(x);
    expect(final.map((r) => `${r.chapter} ${r.state}`).sort((a, b) => parseFloat(a) - parseFloat(b))).toEqual(
      CHAPTERS.map((n) => `${n} published`),
    );
    const files = libraryFiles();
    expect(files).toHaveLength(CHAPTERS.length);
    for (const n of CHAPTERS)
      expect(
        files.filter((f) => f.includes(`c${n.padStart(3, "0")}`)),
        String(n),
      ).toHaveLength(1);
    // Every fetch came after the worker started.
    expect(fetchRequests(fake.requests.slice(0, before))).toEqual([]);
    expect(fetchRequests(fake.requests.slice(before)).length).toBeGreaterThan(0);
  });

  it("a worker killed mid-download leaves it to another worker once its claim ran out: published once", async () => {
    const [doomed] = workers as [Instance];
    let letGo = () => {};
    const hold = new Promise<void>((r) => (letGo = r));
    // The late chapter's first two pages answer at once, the rest only once the test lets them go.
    const pages = await drawnChapter(6, 307);
    work.chapters.push(
      fakeChapter({ chapterNumber: Number(LATE), pages: pages.map((p, i) => (i < 2 ? p : heldPage(p, hold))) }),
    );
    // The operator's refresh (through X) finds the late chapter and runs the pass; the only worker takes it.
    await json(await x.api(`/api/manga/${seriesId}/sources/refresh`, { method: "POST" }));
    await expect
      .poll(
        async () => (await downloads(y)).find((r) => r.chapter === LATE && r.state === "fetching" && r.pages_done > 0),
        { timeout: 30_000, interval: 100 },
      )
      .toBeDefined();
    const row = (await downloads(y)).find((r) => r.chapter === LATE)!;
    expect(row).toMatchObject({ state: "fetching", attempts: 1 });

    // A second worker is up before the first dies: it must not take the download while W holds it.
    workers.push(await startInstance("S worker", { ...env, INSTANCE_ROLE: "worker" }));
    // S's start-up recovery left the row alone: W's claim is alive.
    expect((await downloads(y)).find((r) => r.id === row.id)).toMatchObject({ state: "fetching", attempts: 1 });
    await doomed.kill();
    expect(await doomed.exited()).toBe(null); // SIGKILL: no exit code
    letGo();

    await expect
      .poll(async () => (await ownedChapters(x)).includes(LATE), { timeout: 60_000, interval: 250 })
      .toBe(true);
    await expect.poll(async () => settled(await downloads(y)), { timeout: 30_000, interval: 200 }).toBe(true);
    const late = (await downloads(y)).filter((r) => r.chapter === LATE);
    // The same row, taken back to the queue by S's recovery sweep and fetched again from page 1.
    expect(late).toEqual([expect.objectContaining({ id: row.id, state: "published", attempts: 2, pages_done: 6 })]);
    const files = libraryFiles();
    expect(files.filter((f) => f.includes(`c${LATE.padStart(3, "0")}`))).toHaveLength(1);
    expect(files).toHaveLength(CHAPTERS.length + 1);
    // Nothing of either attempt is left in staging.
    expect(stagedDownloads()).not.toContain(String(row.id));
  });

  it("a worker that stalls past its claim and wakes up leaves the download to the one that took it over", async () => {
    const stalled = workers[1]!; // S, the only live worker now
    const gate = () => {
      let open = () => {};
      const closed = new Promise<void>((r) => (open = r));
      return { closed, open };
    };
    // S's pages answer once `first` opens, those of the worker that takes over once `second` does.
    const [first, second] = [gate(), gate()];
    const number = String(Number(LATE) + 1);
    const pages = await drawnChapter(6, 400 + Number(number));
    const chapter = fakeChapter({
      chapterNumber: Number(number),
      pages: pages.map((p, i) => (i < 2 ? p : heldPage(p, first.closed))),
    });
    work.chapters.push(chapter);
    const pagePath = `GET /api/v1/manga/${work.id}/chapter/${work.chapters.length}/page/`;
    await json(await x.api(`/api/manga/${seriesId}/sources/refresh`, { method: "POST" }));
    // S asked for every page (four of them held), then a later attempt's requests wait for `second`.
    await expect
      .poll(() => fake.requests.filter((r) => r.startsWith(pagePath)).length, { timeout: 30_000, interval: 100 })
      .toBe(6);
    chapter.pages = pages.map((p, i) => (i < 2 ? p : heldPage(p, second.closed)));
    const row = (await downloads(y)).find((r) => r.chapter === number)!;
    expect(row).toMatchObject({ state: "fetching", attempts: 1 });
    workers.push(await startInstance("T worker", { ...env, INSTANCE_ROLE: "worker" }));

    // S stops (as a process stalls) past its lease: T takes the download over and fetches it again.
    stalled.proc.kill("SIGSTOP");
    try {
      await expect
        .poll(async () => (await downloads(y)).find((r) => r.id === row.id), { timeout: 30_000, interval: 100 })
        .toMatchObject({ state: "fetching", attempts: 2 });
    } finally {
      stalled.proc.kill("SIGCONT");
    }
    // S wakes up and gets the rest of its pages: its attempt stops (its log says so) without touching T's.
    first.open();
    await expect
      .poll(() => new RegExp(`download ${row.id}: .*attempt 1 .*stopped`).test(stalled.output()), {
        timeout: 30_000,
        interval: 100,
      })
      .toBe(true);
    expect((await downloads(y)).find((r) => r.id === row.id)).toMatchObject({ state: "fetching", attempts: 2 });
    expect(libraryFiles().filter((f) => f.includes(`c${number.padStart(3, "0")}`))).toEqual([]);

    second.open();
    await expect
      .poll(async () => (await ownedChapters(x)).includes(number), { timeout: 60_000, interval: 250 })
      .toBe(true);
    await expect.poll(async () => settled(await downloads(y)), { timeout: 30_000, interval: 200 }).toBe(true);
    expect((await downloads(y)).filter((r) => r.chapter === number)).toEqual([
      expect.objectContaining({ id: row.id, state: "published", attempts: 2, pages_done: 6, error: null }),
    ]);
    const files = libraryFiles();
    expect(files.filter((f) => f.includes(`c${number.padStart(3, "0")}`))).toHaveLength(1);
    expect(files).toHaveLength(CHAPTERS.length + 2);
    expect(stalled.proc.exitCode).toBe(null); // S lives on
    await expect.poll(stagedDownloads, { timeout: 30_000, interval: 200 }).toEqual([]);
  });
});
