/**
 * A long series arrives in one go: the Wanted pass queues at most WANTED_MAX_DOWNLOADS downloads and
 * leaves the rest to "the next pass"; that pass runs as soon as the series' queue is empty, not at
 * the next scheduled interval (an hour by default). From an empty service, through the public REST
 * API and a Suwayomi-compatible server on 127.0.0.1; no scheduled pass runs during the test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, firstPassLedger, until, type RestWantedLedger } from "./downloads-fixtures.ts";
import { createSeries, expectJson, linkSources, useSuwayomi, type RestUnits } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  flakyPage,
  startFakeSuwayomi,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const SOURCE = { id: "7401", name: "Long Shelf", lang: "en" };
const TITLE = "Salt Ledger";
const CHAPTERS = ["1", "2", "3", "4", "5", "6", "7"];

interface Download {
  chapter: string | null;
  state: string;
}

describe("the next pass after a pass that reached its download limit", () => {
  let fake: FakeSuwayomi;
  let app: TestApp;
  beforeAll(async () => {
    fake = await startFakeSuwayomi({
      sources: [SOURCE],
      works: [
        fakeWork({
          id: 41,
          title: TITLE,
          source: SOURCE,
          chapters: await Promise.all(
            CHAPTERS.map(async (n) =>
              fakeChapter({ chapterNumber: Number(n), pages: await drawnChapter(3, Number(n)) }),
            ),
          ),
        }),
      ],
    });
    // Three downloads a pass; the scheduled pass stays an hour away.
    app = await createTestApp({ env: { ...FAST_ENV, WANTED_MAX_DOWNLOADS: "3" } });
    await useSuwayomi(app, fake.url);
  });
  afterAll(async () => {
    await app?.dispose();
    await fake?.close();
  });

  it("runs once the series' queue is empty, until every chapter the source lists is fetched", async () => {
    const id = await createSeries(app, TITLE);
    // Linking runs the first pass (just after its answer): three chapters queued, the other four
    // left for the next pass.
    await linkSources(app, id, [[SOURCE.id, 41, 0, "en"]]);
    const first = await firstPassLedger(app, id);
    expect(first.entries.filter((e) => e.reason === "limit_reached").map((e) => e.number)).toEqual([
      "4",
      "5",
      "6",
      "7",
    ]);

    // No other request: the next passes run as the queue empties.
    const units = await until(
      "every chapter owned",
      async () => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200),
      (u) => CHAPTERS.every((n) => u.units.some((x) => x.kind === "chapter" && x.number === n && x.owned)),
      60_000,
    );
    expect(units.units.filter((x) => x.kind === "chapter").map((x) => x.number)).toEqual(CHAPTERS);
    const rows = await until(
      "every download ended",
      async () => expectJson<Download[]>(await app.api(`/api/manga/${id}/downloads`), 200),
      (d) => d.every((x) => x.state === "published"),
    );
    // Each chapter fetched once.
    expect(rows.map((r) => r.chapter).sort((a, b) => Number(a) - Number(b))).toEqual(CHAPTERS);
    // The last pass saw nothing left to hold back.
    await until(
      "a ledger with nothing held back",
      async () => expectJson<RestWantedLedger>(await app.api(`/api/manga/${id}/wanted`), 200),
      (l) => l.entries.every((e) => e.reason !== "limit_reached"),
    );
  });
  it("stops once only chapters that keep failing are left: they wait for the back-off", async () => {
    // Every page of these four chapters answers 500, retry after retry (three a pass).
    const failing = await Promise.all(
      ["1", "2", "3", "4"].map(async (n) =>
        fakeChapter({
          chapterNumber: Number(n),
          pages: (await drawnChapter(2, 80 + Number(n))).map((p) => flakyPage(p, 1_000_000)),
        }),
      ),
    );
    fake.works.push(fakeWork({ id: 43, title: "Broken Ledger", source: SOURCE, chapters: failing }));
    const id = await createSeries(app, "Broken Ledger");
    await linkSources(app, id, [[SOURCE.id, 43, 0, "en"]]);
    const downloads = async () => expectJson<Download[]>(await app.api(`/api/manga/${id}/downloads`), 200);
    const ledger = async () => expectJson<RestWantedLedger>(await app.api(`/api/manga/${id}/wanted`), 200);
    // Passes follow one another while a chapter never tried is held back (the fourth, queued before
    // the retries of the others), until a pass queues only retries: then the back-off holds.
    const final = await until(
      "the series backing off",
      ledger,
      (l) => l.entries.length === 4 && l.entries.every((e) => e.reason === "backing_off"),
      30_000,
    );
    expect(final.entries.map((e) => e.number)).toEqual(["1", "2", "3", "4"]);
    const rows = await until("every download ended", downloads, (d) => d.every((x) => x.state === "failed"));
    // Each chapter was tried, none more than three times, and nothing more is queued afterwards.
    const tries = (n: string) => rows.filter((r) => r.chapter === n).length;
    expect(["1", "2", "3", "4"].map(tries)).toEqual([3, 3, 2, 1]);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await downloads()).length).toBe(rows.length);
  });
});
