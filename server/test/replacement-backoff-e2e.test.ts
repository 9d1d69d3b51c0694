/**
 * A split chapter with a degraded part whose only replacement keeps failing, from an empty service
 * through the public API against a Suwayomi-compatible server on 127.0.0.1, with the scheduled pass
 * every second:
 * source A lists chapter 10 in two parts, the second with black cards; source B lists both parts,
 * but every page of its second part answers 404. The replacement is tried, tried once more by the
 * next scheduled pass, and then the series backs off an hour instead of asking B every second;
 * A's published part stays in the library all along (nothing is retired for a replacement that
 * never arrived), and the chapter stays wanted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, settled, until, type RestWantedLedger } from "./downloads-fixtures.ts";
import { createSeries, expectJson, linkSources, useSuwayomi, type RestUnits } from "./fixtures.ts";
import {
  chapterWithBlackCards,
  drawnChapter,
  fakeChapter,
  fakeWork,
  flakyPage,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const A: FakeSource = { id: "7911", name: "Mend A", lang: "en" };
const B: FakeSource = { id: "7912", name: "Mend B", lang: "en" };
const HOUR = 3_600_000;

interface Download {
  id: number;
  part: number | null;
  state: string;
  provider_name: string | null;
  file_id: number | null;
}

let fake: FakeSuwayomi;
let app: TestApp;

beforeAll(async () => {
  fake = await startFakeSuwayomi({
    sources: [A, B],
    works: [
      fakeWork({
        id: 51,
        title: "Shoal",
        source: A,
        chapters: [
          fakeChapter({ chapterNumber: 10.1, name: "Chapter 10.1", pages: await drawnChapter(8, 91) }),
          fakeChapter({ chapterNumber: 10.2, name: "Chapter 10.2", pages: await chapterWithBlackCards(25, 4, 92) }),
        ],
      }),
      fakeWork({
        id: 52,
        title: "Shoal",
        source: B,
        chapters: [
          fakeChapter({ chapterNumber: 10.1, name: "Chapter 10.1", pages: await drawnChapter(8, 93) }),
          fakeChapter({
            chapterNumber: 10.2,
            name: "Chapter 10.2",
            pages: (await drawnChapter(8, 94)).map((p) => flakyPage(p, 1_000, 404)),
          }),
        ],
      }),
    ],
  });
  app = await createTestApp({ env: { ...FAST_ENV, WANTED_INTERVAL_SECONDS: "1" } });
  await useSuwayomi(app, fake.url);
});
afterAll(async () => {
  await app?.dispose();
  await fake?.close();
});

describe("a replacement that keeps failing, from outside", () => {
  it("is tried again once, then the series backs off an hour; the degraded chapter's file stays", async () => {
    const id = await createSeries(app, "Shoal");
    const downloads = async () =>
      (await expectJson<Download[]>(await app.api(`/api/manga/${id}/downloads`), 200)).sort((a, b) => a.id - b.id);
    const ledger = async () => expectJson<RestWantedLedger>(await app.api(`/api/manga/${id}/wanted`), 200);
    const rows = (r: Download[]) => r.map((d) => [d.provider_name, d.part, d.state]);

    // Only A at first: part 1 is published, part 2 judged degraded.
    await linkSources(app, id, [[A.id, 51, 10, "en"]]);
    const first = await until("A's parts settled", downloads, (r) => r.length === 2 && settled(r));
    expect(rows(first)).toEqual([
      [`suwayomi:${A.id}`, 1, "published"],
      [`suwayomi:${A.id}`, 2, "degraded"],
    ]);
    const kept = first[0]!.file_id!;

    // B brings the replacement: its part 1 is published, its part 2 fails; the next scheduled pass
    // fetches part 2 once more (never part 1 again), then backs off.
    await linkSources(app, id, [[B.id, 52, 0, "en"]]);
    const backing = await until("backing off", ledger, (l) => l.next_pass_at !== null, 30_000);
    expect(backing.empty_passes).toBe(1);
    const wait = Date.parse(backing.next_pass_at!) - Date.now();
    expect(wait).toBeGreaterThan(HOUR - 60_000);
    expect(wait).toBeLessThanOrEqual(HOUR);
    const settledB = await until("B's downloads ended", downloads, (r) => r.length === 5 && settled(r));
    expect(rows(settledB)).toEqual([
      [`suwayomi:${A.id}`, 1, "published"],
      [`suwayomi:${A.id}`, 2, "degraded"],
      [`suwayomi:${B.id}`, 1, "published"],
      [`suwayomi:${B.id}`, 2, "failed"],
      [`suwayomi:${B.id}`, 2, "failed"],
    ]);

    // Several scheduled passes later: B is not asked again, the back-off is not counted again.
    const asked = fake.requests.length;
    await new Promise((r) => setTimeout(r, 3_000));
    const later = await ledger();
    expect([later.empty_passes, later.next_pass_at]).toEqual([1, backing.next_pass_at]);
    expect((await downloads()).length).toBe(5);
    expect(fake.requests.slice(asked).filter((q) => q.includes("/page/"))).toEqual([]);

    // Nothing was retired for a replacement that never arrived: A's part 1 is still in the library,
    // and the chapter, with no sound part 2 from anywhere, is still not owned.
    const bin = await expectJson<{ file_id: number }[]>(await app.api(`/api/recycle-bin`), 200);
    expect(bin.map((b) => b.file_id)).not.toContain(kept);
    const units = await expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
    expect(units.units.filter((u) => u.kind === "chapter").map((u) => [u.number, u.owned])).toEqual([["10", false]]);
  });
});
