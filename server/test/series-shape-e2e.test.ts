/**
 * The strip rule against the series' own pages, from an empty service and through the public API
 * only plus a Suwayomi-compatible server on 127.0.0.1. A collection scanned before any download
 * tells the series' shape: a webtoon nobody marked as one (its chapters on disk are strip slices)
 * takes the source's strip slices as they are, while a series whose chapters on disk are printed
 * pages still refuses them. Both verdicts say the median came from the files on disk, in REST and
 * in GraphQL alike.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drawnPages, stripSlices } from "../src/library/test-pages.ts";
import { FAST_ENV, settled, until } from "./downloads-fixtures.ts";
import { chapterFileName, expectJson, linkSources, useSuwayomi, zipBuffer } from "./fixtures.ts";
import {
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakePage,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const A: FakeSource = { id: "7301", name: "Long Shelf", lang: "en" };

interface RestDownload {
  chapter: string | null;
  state: string;
  verdict: {
    reasons: string[];
    figures: { series_median_aspect: number | null; series_aspect_source: string | null; strips_judged: boolean };
  } | null;
}

const jpeg = (bytes: Buffer): FakePage => ({ bytes, contentType: "image/jpeg" });
/** Six slices of one strip 400 px wide: each page has the aspect 3. */
const slices = (seed: number) => stripSlices(seed, 6, { width: 400, height: 400 * 18 });
const printed = (seed: number) => drawnPages(6, seed, { width: 400, height: 580 });

let fake: FakeSuwayomi;
let app: TestApp;

beforeAll(async () => {
  const offered = async (title: string, id: number) =>
    fakeWork({
      id,
      title,
      source: A,
      chapters: [
        fakeChapter({ chapterNumber: 3, pages: (await slices(id + 3)).map(jpeg) }),
        fakeChapter({ chapterNumber: 4, pages: (await slices(id + 4)).map(jpeg) }),
      ],
    });
  fake = await startFakeSuwayomi({
    works: [await offered("Tall Tides", 961), await offered("Paper Tides", 962)],
    sources: [A],
  });
  app = await createTestApp({ env: { ...FAST_ENV, WANTED_INTERVAL_SECONDS: "1" } });
  await useSuwayomi(app, fake.url);
});
afterAll(async () => {
  await app?.dispose();
  await fake?.close();
});

/** Writes chapters 1–2 of a series with these pages into the library; nothing is scanned yet. */
async function seriesFolder(title: string, pages: (seed: number) => Promise<Buffer[]>): Promise<void> {
  const dir = path.join(app.config.libraryRoot, title);
  await mkdir(dir, { recursive: true });
  for (const n of [1, 2]) {
    const entries = (await pages(n)).map((data, i) => ({ name: `${String(i + 1).padStart(3, "0")}.jpg`, data }));
    await writeFile(path.join(dir, chapterFileName(title, n)), await zipBuffer(entries));
  }
}

/** Links the scanned series to the source's work of the same title. */
async function linkTitle(title: string, workId: number): Promise<number> {
  const list = await expectJson<{ id: number; title: string }[]>(await app.api("/api/manga"), 200);
  const id = list.find((s) => s.title === title)!.id;
  await linkSources(app, id, [[A.id, workId, 0, "en"]]);
  return id;
}

const downloads = async (id: number) => expectJson<RestDownload[]>(await app.api(`/api/manga/${id}/downloads`), 200);
const bothJudged = (id: number) =>
  until(
    "chapters 3 and 4 judged",
    () => downloads(id),
    (rows) => rows.length >= 2 && settled(rows) && ["3", "4"].every((n) => rows.some((r) => r.chapter === n)),
    60_000,
  );

interface GqlDownloads {
  downloads: {
    chapter: string | null;
    state: string;
    verdict: { reasons: string[]; figures: { seriesMedianAspect: number | null; seriesAspectSource: string | null } };
  }[];
}
const gqlDownloads = async (id: number) => {
  const res = await app.gql<GqlDownloads>(
    `query ($id: Int!) { downloads(seriesId: $id) { chapter state
       verdict { reasons figures { seriesMedianAspect seriesAspectSource } } } }`,
    { id },
  );
  expect(res.errors).toBeUndefined();
  return res.data!.downloads;
};

describe("the strip rule measures the series on its files on disk when no download has passed", () => {
  it("a webtoon not marked as one keeps its strips; printed chapters on disk still refuse them", async () => {
    await seriesFolder("Tall Tides", slices);
    await seriesFolder("Paper Tides", printed);
    const scan = await expectJson<{ series_created: number }>(
      await app.api("/api/library/scan", { method: "POST" }),
      200,
    );
    expect(scan.series_created).toBe(2);

    const tall = await linkTitle("Tall Tides", 961);
    const tallRows = await bothJudged(tall);
    expect(tallRows.map((r) => [r.chapter, r.state]).sort()).toEqual([
      ["3", "published"],
      ["4", "published"],
    ]);
    for (const r of tallRows) {
      expect(r.verdict?.reasons).toEqual([]);
      // The first download measures the two chapters on disk; the second may already count the first.
      expect(r.verdict?.figures.series_median_aspect).toBeCloseTo(3, 1);
      expect(r.verdict?.figures.strips_judged).toBe(false);
    }
    expect(tallRows.map((r) => r.verdict?.figures.series_aspect_source)).toContain("files");
    const units = await expectJson<{ units: { number: string; owned: boolean }[] }>(
      await app.api(`/api/manga/${tall}/units`),
      200,
    );
    expect(units.units.filter((u) => u.owned).map((u) => u.number)).toEqual(["1", "2", "3", "4"]);

    const paper = await linkTitle("Paper Tides", 962);
    const paperRows = await bothJudged(paper);
    expect(paperRows.map((r) => [r.chapter, r.state, r.verdict?.reasons]).sort()).toEqual([
      ["3", "degraded", ["strip_slices"]],
      ["4", "degraded", ["strip_slices"]],
    ]);
    for (const r of paperRows) {
      expect(r.verdict?.figures.series_aspect_source).toBe("files");
      expect(r.verdict?.figures.series_median_aspect).toBeCloseTo(1.45, 2);
    }

    // GraphQL tells the same.
    const gql = await gqlDownloads(paper);
    expect(
      gql.map((d) => [d.chapter, d.state, d.verdict.reasons, d.verdict.figures.seriesAspectSource]).sort(),
    ).toEqual([
      ["3", "DEGRADED", ["STRIP_SLICES"], "FILES"],
      ["4", "DEGRADED", ["STRIP_SLICES"], "FILES"],
    ]);
    expect(gql.map((d) => d.verdict.figures.seriesMedianAspect)).toEqual(
      paperRows.map((r) => r.verdict?.figures.series_median_aspect),
    );
  });
});
