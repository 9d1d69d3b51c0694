/**
 * The Wanted ledger is written by a pass; a chapter fetched (or failed) since must not still read
 * "Queued". Each entry names its downloads (queued by the pass or found under way by it) and says,
 * when read, what became of them. Every series' entries are also one list (the Wanted page), and
 * the scheduled pass over every series runs on request. From
 * an empty service, through REST and GraphQL, with a Suwayomi-compatible server on 127.0.0.1; no
 * scheduled pass runs during the test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { createSeries, expectJson, expectProblem, linkSources, useSuwayomi } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  flakyPage,
  heldPage,
  startFakeSuwayomi,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const SOURCE = { id: "7501", name: "Tide Shelf", lang: "en" };
const TITLE = "Lantern Ledger";

interface Download {
  id: number;
  chapter: string | null;
  state: string;
}
interface Entry {
  kind?: string;
  number: string;
  reason: string;
  downloads: string | null;
  detail: { download_ids: number[] | null };
}
interface Ledger {
  entries: Entry[];
}

describe("what became of the downloads a Wanted ledger entry names", () => {
  let fake: FakeSuwayomi;
  let app: TestApp;
  let release: () => void = () => undefined;
  beforeAll(async () => {
    const hold = new Promise<void>((r) => (release = r));
    const [one, two, three] = await Promise.all([drawnChapter(3, 1), drawnChapter(3, 2), drawnChapter(2, 3)]);
    fake = await startFakeSuwayomi({
      sources: [SOURCE],
      works: [
        fakeWork({
          id: 51,
          title: TITLE,
          source: SOURCE,
          chapters: [
            fakeChapter({ chapterNumber: 1, pages: one }),
            // Chapter 2's last page waits for the test: its download stays under way meanwhile.
            fakeChapter({ chapterNumber: 2, pages: [...two.slice(0, 2), heldPage(two[2]!, hold)] }),
            // Chapter 3 answers 500 for good: its download fails after its retries.
            fakeChapter({ chapterNumber: 3, pages: three.map((p) => flakyPage(p, 1_000_000)) }),
          ],
        }),
      ],
    });
    app = await createTestApp({ env: FAST_ENV });
    await useSuwayomi(app, fake.url);
  });
  afterAll(async () => {
    release();
    await app?.dispose();
    await fake?.close();
  });

  const LEDGER_QUERY = `query($id: Int!) { wanted(seriesId: $id) { entries { number reason downloads detail { downloadIds } } } }`;

  async function ledgers(id: number): Promise<{ rest: Ledger; gql: Ledger }> {
    const rest = await expectJson<Ledger>(await app.api(`/api/manga/${id}/wanted`), 200);
    const res = await app.gql<{
      wanted: {
        entries: {
          number: string;
          reason: string;
          downloads: string | null;
          detail: { downloadIds: number[] | null };
        }[];
      };
    }>(LEDGER_QUERY, { id });
    expect(res.errors).toBeUndefined();
    const gql = {
      entries: res.data!.wanted.entries.map((e) => ({
        number: e.number,
        reason: e.reason.toLowerCase(),
        downloads: e.downloads?.toLowerCase() ?? null,
        detail: { download_ids: e.detail.downloadIds },
      })),
    };
    // The fields both answers carry, in REST's spelling.
    const same = (l: Ledger): Ledger => ({
      entries: l.entries.map((e) => ({
        number: e.number,
        reason: e.reason,
        downloads: e.downloads,
        detail: { download_ids: e.detail.download_ids },
      })),
    });
    return { rest: same(rest), gql };
  }
  const brief = (l: Ledger) => l.entries.map((e) => [e.number, e.reason, e.downloads]);

  it("says published, under way or failed, through REST and GraphQL alike, and names the downloads a pass found under way", async () => {
    const id = await createSeries(app, TITLE);
    // Linking runs the first pass: the three chapters are queued.
    await linkSources(app, id, [[SOURCE.id, 51, 0, "en"]]);
    const downloads = async () => expectJson<Download[]>(await app.api(`/api/manga/${id}/downloads`), 200);
    const rows = await until(
      "chapter 1 published and chapter 3 failed",
      downloads,
      (d) =>
        d.some((x) => x.chapter === "1" && x.state === "published") &&
        d.some((x) => x.chapter === "3" && x.state === "failed"),
      30_000,
    );
    const idOf = (n: string) => rows.find((r) => r.chapter === n)!.id;
    expect(rows.find((r) => r.chapter === "2")!.state).toBe("fetching");

    // The ledger is still the first pass's: each entry says what became of its download.
    const first = await ledgers(id);
    expect(brief(first.rest)).toEqual([
      ["1", "queued", "published"],
      ["2", "queued", "under_way"],
      ["3", "queued", "failed"],
    ]);
    expect(first.rest.entries.map((e) => e.detail.download_ids)).toEqual([[idOf("1")], [idOf("2")], [idOf("3")]]);
    expect(first.gql).toEqual(first.rest);

    // A pass now finds chapter 2 under way and names that download; chapter 1 is owned (off the ledger).
    const run = await expectJson<{ queued: number; ledger: Ledger }>(
      await app.api(`/api/manga/${id}/wanted/run`, { method: "POST" }),
      200,
    );
    const two = run.ledger.entries.find((e) => e.number === "2")!;
    expect([two.reason, two.downloads, two.detail.download_ids]).toEqual(["already_queued", "under_way", [idOf("2")]]);
    expect(run.ledger.entries.map((e) => e.number)).toEqual(["2", "3"]);

    // Chapter 2 arrives: the same ledger, read again, says so without another pass.
    release();
    const after = await until(
      "chapter 2 published in the ledger",
      async () => (await ledgers(id)).rest,
      (l) => l.entries.find((e) => e.number === "2")?.downloads === "published",
      30_000,
    );
    expect(after.entries.find((e) => e.number === "2")!.reason).toBe("already_queued");
    const again = await ledgers(id);
    expect(again.gql).toEqual(again.rest);
  });

  it("lists every series' entries in one list, by series title, filtered by reason, through REST and GraphQL alike", async () => {
    // A series no source offers anything for: its map makes chapters 1–2 and book 1 wanted.
    const other = await createSeries(app, "Orchard Tide");
    await expectJson(
      await app.api(`/api/manga/${other}/chapter-map`, {
        method: "PUT",
        json: { revision: 0, entries: [{ volume: "1", chapters: ["1", "2"] }] },
      }),
      200,
    );
    await expectJson(await app.api(`/api/manga/${other}/wanted/run`, { method: "POST" }), 200);
    interface Listed extends Entry {
      series_id: number;
      series_title: string;
    }
    const list = async (query = "") =>
      expectJson<{ total: number; entries: Listed[] }>(await app.api(`/api/wanted${query}`), 200);
    const all = await list();
    const row = (e: Listed) => [e.series_title, e.number, e.reason];
    expect(all.entries.map(row)).toEqual([
      [TITLE, "2", "already_queued"],
      [TITLE, "3", "queued"],
      ["Orchard Tide", "1", "no_offer"],
      ["Orchard Tide", "2", "no_offer"],
      ["Orchard Tide", "1", "no_offer"],
    ]);
    expect(all.entries.filter((e) => e.series_id === other).map((e) => e.kind)).toEqual(["chapter", "chapter", "book"]);
    expect(all.total).toBe(5);
    // Each entry carries the same fields as its series' ledger, and its series.
    const own = await expectJson<Ledger>(await app.api(`/api/manga/${other}/wanted`), 200);
    expect(
      all.entries.filter((e) => e.series_id === other).map(({ series_id: _id, series_title: _title, ...e }) => e),
    ).toEqual(own.entries);
    expect(all.entries.find((e) => e.number === "2" && e.series_title === TITLE)!.downloads).toBe("published");

    // Filtered by reason (repeated or comma-separated), and cut by a limit that leaves the total.
    expect((await list("?reason=no_offer")).entries.map(row)).toEqual([
      ["Orchard Tide", "1", "no_offer"],
      ["Orchard Tide", "2", "no_offer"],
      ["Orchard Tide", "1", "no_offer"],
    ]);
    expect((await list("?reason=queued,already_queued")).total).toBe(2);
    expect((await list("?reason=queued&reason=backing_off")).entries.map(row)).toEqual([[TITLE, "3", "queued"]]);
    const one = await list("?limit=1");
    expect([one.total, one.entries.map(row)]).toEqual([5, [[TITLE, "2", "already_queued"]]]);

    // GraphQL answers the same.
    const gql = await app.gql<{
      wantedOfLibrary: {
        total: number;
        entries: {
          seriesId: number;
          seriesTitle: string;
          entry: { number: string; reason: string; downloads: string | null };
        }[];
      };
    }>(
      `query($reasons: [WantedReason!], $limit: Int) { wantedOfLibrary(reasons: $reasons, limit: $limit) { total entries { seriesId seriesTitle entry { number reason downloads } } } }`,
      { reasons: ["NO_OFFER", "QUEUED", "ALREADY_QUEUED"], limit: 3 },
    );
    expect(gql.errors).toBeUndefined();
    const rest = await list("?reason=no_offer,queued,already_queued&limit=3");
    expect(gql.data!.wantedOfLibrary.total).toBe(rest.total);
    expect(
      gql.data!.wantedOfLibrary.entries.map((x) => [
        x.seriesId,
        x.seriesTitle,
        x.entry.number,
        x.entry.reason.toLowerCase(),
        x.entry.downloads?.toLowerCase() ?? null,
      ]),
    ).toEqual(rest.entries.map((e) => [e.series_id, e.series_title, e.number, e.reason, e.downloads]));

    // Bad input: a clear error, in both.
    await expectProblem(await app.api("/api/wanted?reason=missing"), 400, "invalid_field");
    await expectProblem(await app.api("/api/wanted?limit=0"), 400, "invalid_field");
    await expectProblem(await app.api("/api/wanted?limit=5001"), 400, "invalid_field");
    await expectProblem(await app.api("/api/wanted?limit=ten"), 400, "invalid_field");
    const bad = await app.gql(`{ wantedOfLibrary(limit: 0) { total } }`);
    expect(bad.errors?.[0]?.extensions?.code).toBe("invalid_field");
  });

  it("runs the scheduled pass over every series on request (search all missing), through REST and GraphQL", async () => {
    // A series with wanted slots and no pass yet: the library's list does not know it.
    const id = await createSeries(app, "Still Meadow");
    await expectJson(
      await app.api(`/api/manga/${id}/chapter-map`, {
        method: "PUT",
        json: { revision: 0, entries: [{ volume: "1", chapters: ["1"] }] },
      }),
      200,
    );
    interface Status {
      last_run: string | null;
      next_run: string | null;
      running: boolean;
      last_outcome: { series: number; queued: number; failed: number } | null;
    }
    const listed = async () =>
      (await expectJson<{ entries: { series_id: number }[] }>(await app.api("/api/wanted"), 200)).entries.filter(
        (e) => e.series_id === id,
      ).length;
    expect(await listed()).toBe(0);
    const before = await expectJson<Status>(await app.api("/api/monitor/wanted"), 200);
    expect([before.last_run, before.running, before.last_outcome]).toEqual([null, false, null]);
    // The schedule's next cycle is an interval away (an hour by default).
    expect(Date.parse(before.next_run!) - Date.now()).toBeGreaterThan(50 * 60_000);

    const after = await expectJson<Status>(await app.api("/api/monitor/wanted/run", { method: "POST" }), 200);
    // Every monitored series was planned: the two of the tests above and this one.
    expect(after.last_outcome).toMatchObject({ series: 3, failed: 0 });
    expect(after.last_run).not.toBeNull();
    expect(await listed()).toBe(2);

    const gql = await app.gql<{ wantedMonitor: { lastRun: string; lastOutcome: { series: number; failed: number } } }>(
      "{ wantedMonitor { lastRun lastOutcome { series failed } } }",
    );
    expect(gql.data!.wantedMonitor).toEqual({ lastRun: after.last_run, lastOutcome: { series: 3, failed: 0 } });
    const ran = await app.gql<{ runWantedMonitor: { lastOutcome: { series: number }; running: boolean } }>(
      "mutation { runWantedMonitor { running lastOutcome { series } } }",
    );
    expect(ran.data!.runWantedMonitor).toEqual({ running: false, lastOutcome: { series: 3 } });
  });
});
