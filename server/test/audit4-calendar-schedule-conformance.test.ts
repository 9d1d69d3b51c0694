/**
 * The scheduled Wanted pass from outside, from an empty service with a Suwayomi-compatible server
 * on 127.0.0.1 and the pass every second: a chapter added at the source after linking arrives with
 * no request; an unmonitored series is not refreshed by it; a series whose source fails backs off
 * (1 h after the first empty pass, not counted again each second), REST and GraphQL agreeing; a
 * monitored finished series is still completed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { expectJson, type RestUnits, useSuwayomi } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  flakyPage,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
  type FakeWork,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const SRC: FakeSource = { id: "7501", name: "Tick Scans", lang: "en" };
const HOUR = 3_600_000;

interface RestLedger {
  series_id: number;
  last_pass_at: string | null;
  next_pass_at: string | null;
  empty_passes: number;
  entries: { kind: string; number: string; reason: string }[];
}

let fake: FakeSuwayomi;
let app: TestApp;
let active: FakeWork;
let quiet: FakeWork;
let broken: FakeWork;
let ended: FakeWork;
const ids: Record<string, number> = {};

const units = async (id: number) => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
const owned = (u: RestUnits) =>
  u.units
    .filter((x) => x.kind === "chapter" && x.owned)
    .map((x) => x.number)
    .sort();
const listed = (u: RestUnits) =>
  u.units
    .filter((x) => x.kind === "chapter")
    .map((x) => x.number)
    .sort();
const ledger = async (id: number) => expectJson<RestLedger>(await app.api(`/api/manga/${id}/wanted`), 200);

beforeAll(async () => {
  const pages = (seed: number) => drawnChapter(4, seed);
  active = fakeWork({
    id: 1,
    title: "Tick Line",
    source: SRC,
    chapters: [fakeChapter({ chapterNumber: 1, pages: await pages(1) })],
  });
  quiet = fakeWork({
    id: 2,
    title: "Quiet Line",
    source: SRC,
    chapters: [fakeChapter({ chapterNumber: 1, pages: await pages(2) })],
  });
  // Every page answers 404: each download of this source fails.
  broken = fakeWork({
    id: 3,
    title: "Broken Line",
    source: SRC,
    chapters: [fakeChapter({ chapterNumber: 1, pages: (await pages(3)).map((p) => flakyPage(p, 1_000, 404)) })],
  });
  ended = fakeWork({
    id: 4,
    title: "Ended Line",
    source: SRC,
    chapters: [fakeChapter({ chapterNumber: 1, pages: await pages(4) })],
  });
  fake = await startFakeSuwayomi({ sources: [SRC], works: [active, quiet, broken, ended] });
  app = await createTestApp({ env: { ...FAST_ENV, WANTED_INTERVAL_SECONDS: "1" } });
  await useSuwayomi(app, fake.url);
  for (const [w, extra] of [
    [active, {}],
    [quiet, { monitored: false }],
    [broken, {}],
    [ended, { status: "finished" }],
  ] as const) {
    const s = await expectJson<{ id: number }>(
      await app.api("/api/manga", { method: "POST", json: { title: w.title, ...extra } }),
      201,
    );
    ids[w.title] = s.id;
    await expectJson(
      await app.api(`/api/manga/${s.id}/sources`, {
        method: "POST",
        json: { provider: SRC.id, source_id: String(w.id), language: "en" },
      }),
      201,
    );
  }
});
afterAll(async () => {
  await app?.dispose();
  await fake?.close();
});

describe("the scheduled pass, from outside", () => {
  it("a chapter added at the source after linking arrives with no request; a finished monitored series too", async () => {
    const id = ids["Tick Line"]!;
    await until(
      "chapter 1 on disk",
      () => units(id),
      (u) => owned(u).includes("1"),
      30_000,
    );
    active.chapters.push(fakeChapter({ chapterNumber: 2, pages: await drawnChapter(4, 12) }));
    ended.chapters.push(fakeChapter({ chapterNumber: 2, pages: await drawnChapter(4, 14) }));
    quiet.chapters.push(fakeChapter({ chapterNumber: 2, pages: await drawnChapter(4, 13) }));
    // Only reads from here on.
    await until(
      "chapter 2 on disk",
      () => units(id),
      (u) => owned(u).includes("2"),
      30_000,
    );
    await until(
      "the finished series' chapter 2",
      () => units(ids["Ended Line"]!),
      (u) => owned(u).includes("2"),
      30_000,
    );
  });

  it("leaves an unmonitored series alone: its source's new chapter is not listed until an operator refreshes", async () => {
    const id = ids["Quiet Line"]!;
    // A few more passes over the monitored series.
    const seen = (await ledger(ids["Tick Line"]!)).last_pass_at!;
    await until(
      "two later passes",
      () => ledger(ids["Tick Line"]!),
      (l) => l.last_pass_at! > seen,
      10_000,
    );
    await new Promise((r) => setTimeout(r, 2_500));
    const u = await units(id);
    expect(listed(u)).toEqual(["1"]);
    expect(owned(u)).toEqual([]);
    await expectJson(await app.api(`/api/manga/${id}/sources/refresh`, { method: "POST" }), 200);
    const after = await units(id);
    expect(listed(after)).toEqual(["1", "2"]);
    expect(owned(after)).toEqual([]);
  });

  it("a series whose source fails backs off 1 h after an empty pass, not again each second; REST and GraphQL agree", async () => {
    const id = ids["Broken Line"]!;
    // The link's pass queues chapter 1; it fails; the next scheduled pass tries it once more (the
    // only release) and backs off an hour instead of queueing it again every second.
    const l = await until(
      "backing off",
      () => ledger(id),
      (x) => x.next_pass_at !== null,
      30_000,
    );
    expect(l.empty_passes).toBe(1);
    const wait = Date.parse(l.next_pass_at!) - Date.now();
    expect(wait).toBeGreaterThan(HOUR - 60_000);
    expect(wait).toBeLessThanOrEqual(HOUR);
    await new Promise((r) => setTimeout(r, 2_500));
    const later = await ledger(id);
    expect([later.empty_passes, later.next_pass_at]).toEqual([1, l.next_pass_at]);
    expect(later.entries.map((e) => [e.number, e.reason])).toEqual([["1", "backing_off"]]);
    const tries = await expectJson<{ chapter: string; state: string }[]>(
      await app.api(`/api/manga/${id}/downloads`),
      200,
    );
    expect(tries.map((d) => [d.chapter, d.state])).toEqual([
      ["1", "failed"],
      ["1", "failed"],
    ]);
    // GraphQL read between two REST reads of the same pass: a pass every second (backing off, it
    // still stamps its time) may run between two reads, so the pair is read again until it is one pass's.
    const read = async () => {
      const g = await app.gql<{
        wanted: {
          lastPassAt: string;
          nextPassAt: string;
          emptyPasses: number;
          entries: { number: string; reason: string }[];
        };
      }>(`query($id: Int!) { wanted(seriesId: $id) { lastPassAt nextPassAt emptyPasses entries { number reason } } }`, {
        id,
      });
      expect(g.errors).toBeUndefined();
      return g.data!.wanted;
    };
    for (let attempt = 0; ; attempt++) {
      const before = await ledger(id);
      const w = await read();
      const after = await ledger(id);
      if (before.last_pass_at !== after.last_pass_at && attempt < 20) continue;
      expect([
        w.lastPassAt,
        w.nextPassAt,
        w.emptyPasses,
        w.entries.map((e) => [e.number, e.reason.toLowerCase()]),
      ]).toEqual([
        after.last_pass_at,
        after.next_pass_at,
        after.empty_passes,
        after.entries.map((e) => [e.number, e.reason]),
      ]);
      break;
    }
  });
});
