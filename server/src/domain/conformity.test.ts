import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_THRESHOLDS,
  isBlackCard,
  judgeChapter,
  needsFileAspects,
  rulesOutCard,
  median,
  pageAspect,
  parseStoredVerdict,
  seriesMedianAspect,
  seriesShapeOf,
  verdictCondemns,
  verdictJson,
  type PageStats,
  type SeriesShape,
} from "./conformity.ts";

const drawn = (over: Partial<PageStats> = {}): PageStats => ({
  width: 800,
  height: 1160,
  mean: 215,
  stdev: 60,
  ...over,
});
const card = (over: Partial<PageStats> = {}): PageStats => ({ width: 800, height: 1160, mean: 8, stdev: 4, ...over });
const slice = (over: Partial<PageStats> = {}): PageStats => ({
  width: 800,
  height: 2400,
  mean: 200,
  stdev: 55,
  ...over,
});
const chapter = (drawnPages: number, cards: number, make: () => PageStats = drawn): PageStats[] => [
  ...Array.from({ length: drawnPages }, make),
  ...Array.from({ length: cards }, () => card()),
];
const paged: SeriesShape = { readsInPages: true, medianAspect: 1.45 };
const webtoon: SeriesShape = { readsInPages: false, medianAspect: null };

describe("isBlackCard", () => {
  const cases: [string, number, number, boolean][] = [
    ["pure black", 0, 0, true],
    ["near black with JPEG noise", 12, 6, true],
    ["black with a small notice", 22, 18, true],
    ["just under both limits", 39.9, 29.9, true],
    ["mean at the limit", 40, 5, false],
    ["stdev at the limit", 5, 30, false],
    ["night scene with highlights: dark but drawn", 30, 48, false],
    ["white page", 250, 3, false],
    ["grey page", 128, 2, false],
  ];
  it.each(cases)("%s (mean %d, stdev %d) → %s", (_name, mean, stdev, expected) => {
    expect(isBlackCard({ mean, stdev })).toBe(expected);
  });

  it("a lower bound of the mean at the card limit rules a card out; below it, it does not", () => {
    expect(rulesOutCard(DEFAULT_THRESHOLDS.cardMaxMean)).toBe(true);
    expect(rulesOutCard(DEFAULT_THRESHOLDS.cardMaxMean - 0.01)).toBe(false);
    // A page measured only to such a bound (no stdev) is not a card.
    expect(isBlackCard({ mean: DEFAULT_THRESHOLDS.cardMaxMean, stdev: null })).toBe(false);
  });
});

describe("judgeChapter: black cards", () => {
  const cases: [string, PageStats[], "ok" | "degraded"][] = [
    ["7 of 50 cards (14 %)", chapter(43, 7), "ok"],
    ["8 of 50 cards (16 %)", chapter(42, 8), "degraded"],
    ["exactly 15 % (3 of 20) does not exceed", chapter(17, 3), "ok"],
    ["just over 15 % (4 of 26)", chapter(22, 4), "degraded"],
    ["1 of 4 cards: judged, 25 %", chapter(3, 1), "degraded"],
    ["3 pages, all cards: fewer than 4 are not judged", chapter(0, 3), "ok"],
    ["2 pages, 1 card: not judged", chapter(1, 1), "ok"],
    ["no cards", chapter(20, 0), "ok"],
  ];
  it.each(cases)("%s → %s", (_name, pages, verdict) => {
    const v = judgeChapter(pages, paged);
    expect(v.verdict).toBe(verdict);
    expect(v.reasons).toEqual(verdict === "ok" ? [] : ["black_cards"]);
  });

  it("reports the figures it decided on", () => {
    expect(judgeChapter(chapter(42, 8), paged).figures).toEqual({
      pages: 50,
      blackCards: 8,
      blackShare: 0.16,
      cardsJudged: true,
      medianAspect: 1.45,
      readsInPages: true,
      seriesMedianAspect: 1.45,
      seriesAspectSource: "series",
      stripThreshold: 2.2,
      stripsJudged: true,
    });
    expect(judgeChapter(chapter(0, 3), paged).figures).toMatchObject({
      pages: 3,
      blackCards: 3,
      blackShare: 1,
      cardsJudged: false,
    });
  });

  it("judges cards in a webtoon too", () => {
    expect(judgeChapter(chapter(42, 8, slice), webtoon).reasons).toEqual(["black_cards"]);
  });
});

describe("judgeChapter: strip slices", () => {
  const cases: [string, PageStats[], SeriesShape, boolean, number | null][] = [
    ["slices (aspect 3) in a paged series", chapter(20, 0, slice), paged, true, 2.2],
    ["slices in a webtoon: its normal shape", chapter(20, 0, slice), webtoon, false, null],
    ["pages in a paged series", chapter(20, 0), paged, false, 2.2],
    ["aspect exactly at 2.2 counts", chapter(10, 0, () => drawn({ height: 1760 })), paged, true, 2.2],
    ["aspect 2.1 is a tall page, not a slice", chapter(10, 0, () => drawn({ height: 1680 })), paged, false, 2.2],
    [
      "unknown series median: the nominal page aspect",
      chapter(10, 0, slice),
      { readsInPages: true, medianAspect: null },
      true,
      2.2,
    ],
    [
      "series of tall pages (1.7): threshold 1.4 × 1.7 = 2.38",
      chapter(10, 0, () => drawn({ height: 1840 })),
      { readsInPages: true, medianAspect: 1.7 },
      false,
      2.38,
    ],
    [
      "series of tall pages (1.7), slices of aspect 3",
      chapter(10, 0, slice),
      { readsInPages: true, medianAspect: 1.7 },
      true,
      2.38,
    ],
    [
      "series median at 1.8 is not judged",
      chapter(10, 0, slice),
      { readsInPages: true, medianAspect: 1.8 },
      false,
      null,
    ],
    ["a few tall banners do not move the median", [...chapter(7, 0), ...chapter(3, 0, slice)], paged, false, 2.2],
    ["one slice: judged alone", [slice()], paged, true, 2.2],
  ];
  it.each(cases)("%s", (_name, pages, series, strips, threshold) => {
    const v = judgeChapter(pages, series);
    expect(v.reasons.includes("strip_slices")).toBe(strips);
    expect(v.verdict).toBe(strips ? "degraded" : "ok");
    if (threshold === null) expect(v.figures.stripThreshold).toBeNull();
    else expect(v.figures.stripThreshold).toBeCloseTo(threshold, 10);
  });

  it("without pages there is nothing to judge", () => {
    expect(judgeChapter([], paged)).toEqual({
      verdict: "ok",
      reasons: [],
      figures: expect.objectContaining({
        pages: 0,
        blackShare: 0,
        medianAspect: null,
        stripsJudged: false,
        stripThreshold: null,
      }),
    });
  });

  it("both reasons, in a fixed order", () => {
    expect(judgeChapter(chapter(10, 5, slice), paged).reasons).toEqual(["black_cards", "strip_slices"]);
  });

  it("pages without a size do not count towards the median", () => {
    expect(judgeChapter([slice(), slice({ width: 0 }), slice({ height: 0 })], paged).figures.medianAspect).toBe(3);
  });
});

describe("seriesShapeOf: where the series' median page aspect comes from", () => {
  const cases: [string, boolean, (number | null)[], (number | null)[], SeriesShape][] = [
    ["a webtoon reads in strips, whatever it measured", true, [1.45], [1.45], webtoon],
    [
      "downloads that passed decide, the files are not asked",
      false,
      [1.4, 1.5, 1.45],
      [6, 6, 6],
      { readsInPages: true, medianAspect: 1.45, aspectFrom: "series" },
    ],
    [
      "no download passed: the files on disk",
      false,
      [],
      [6.2, null, 5.8],
      { readsInPages: true, medianAspect: 6, aspectFrom: "files" },
    ],
    [
      "downloads without a usable figure count as none",
      false,
      [null, 0],
      [1.42],
      { readsInPages: true, medianAspect: 1.42, aspectFrom: "files" },
    ],
    ["nothing measured anywhere: unknown", false, [], [null], { readsInPages: true, medianAspect: null }],
  ];
  it.each(cases)("%s", (_name, isWebtoon, downloads, files, shape) => {
    expect(seriesShapeOf(isWebtoon, downloads, files)).toEqual(shape);
    // The files are needed exactly when the result would come from them or from nowhere.
    expect(needsFileAspects(isWebtoon, downloads)).toBe(shape.readsInPages && shape.aspectFrom !== "series");
  });

  it("strips in a series whose files on disk are strips are its normal shape, and the verdict says why", () => {
    const v = judgeChapter(chapter(12, 0, slice), seriesShapeOf(false, [], [3.1, 2.9, 3]));
    expect(v.reasons).toEqual([]);
    expect(v.figures).toMatchObject({ seriesMedianAspect: 3, seriesAspectSource: "files", stripsJudged: false });
  });

  it("strips in a series whose files on disk are pages are slices, judged against the files' median", () => {
    const v = judgeChapter(chapter(12, 0, slice), seriesShapeOf(false, [], [1.6, 1.6, 1.7]));
    expect(v.reasons).toEqual(["strip_slices"]);
    expect(v.figures.seriesAspectSource).toBe("files");
    expect(v.figures.stripThreshold).toBeCloseTo(2.24, 10);
  });

  it("the nominal aspect when nothing is known", () => {
    expect(judgeChapter(chapter(4, 0), seriesShapeOf(false, [], [])).figures).toMatchObject({
      seriesMedianAspect: DEFAULT_THRESHOLDS.nominalPageAspect,
      seriesAspectSource: "nominal",
    });
  });
});

describe("median, pageAspect, seriesMedianAspect", () => {
  it("median of odd and even counts, null when empty", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
    expect(median([NaN, Infinity])).toBeNull();
  });
  it("pageAspect is height over width, null without a size", () => {
    expect(pageAspect({ width: 800, height: 1200 })).toBe(1.5);
    expect(pageAspect({ width: 0, height: 1200 })).toBeNull();
  });
  it("seriesMedianAspect skips what is not a measured median", () => {
    expect(seriesMedianAspect([1.4, null, 1.5, undefined, 0, -1, NaN, 9])).toBe(1.5);
    expect(seriesMedianAspect([null, undefined])).toBeNull();
  });
});

describe("stored verdict", () => {
  it("round-trips as {version: 1, reasons, figures}", () => {
    const v = judgeChapter(chapter(42, 8, slice), paged);
    const text = verdictJson(v);
    expect(JSON.parse(text)).toEqual({ version: 1, reasons: ["black_cards", "strip_slices"], figures: v.figures });
    expect(parseStoredVerdict(text)).toEqual({ version: 1, reasons: v.reasons, figures: v.figures });
  });
  it.each([
    null,
    "",
    "not json",
    "[]",
    "null",
    '{"version":2,"reasons":[],"figures":{}}',
    '{"version":1,"reasons":"x","figures":{}}',
  ])("%j is no verdict", (text) => expect(parseStoredVerdict(text)).toBeNull());
  it("drops unknown reasons", () => {
    expect(parseStoredVerdict('{"version":1,"reasons":["black_cards","blurry"],"figures":{}}')?.reasons).toEqual([
      "black_cards",
    ]);
  });
});

/* ------------------------------------------------------------------------------------------ */
/* Properties                                                                                  */
/* ------------------------------------------------------------------------------------------ */

const pageArb: fc.Arbitrary<PageStats> = fc.record({
  width: fc.integer({ min: 1, max: 4000 }),
  height: fc.integer({ min: 1, max: 20000 }),
  mean: fc.double({ min: 0, max: 255, noNaN: true }),
  stdev: fc.double({ min: 0, max: 128, noNaN: true }),
});
const seriesArb: fc.Arbitrary<SeriesShape> = fc.record({
  readsInPages: fc.boolean(),
  medianAspect: fc.option(fc.double({ min: 0.5, max: 6, noNaN: true }), { nil: null }),
});
/** A page as page-stats answers it: measured whole, or only to a lower bound of its mean that rules a card out. */
const measuredArb: fc.Arbitrary<PageStats> = fc.oneof(
  pageArb,
  pageArb.map((p) => ({ ...p, mean: Math.max(p.mean, DEFAULT_THRESHOLDS.cardMaxMean), stdev: null })),
);
const pagesArb = fc.array(pageArb, { maxLength: 60 });
const asCard = (p: PageStats): PageStats => ({ ...p, mean: 5, stdev: 3 });

describe("properties", () => {
  it("a page settled by its lower bound gets the verdict its whole measurement would give", () => {
    fc.assert(
      fc.property(pageArb, fc.double({ min: 0, max: 255, noNaN: true }), (page, slack) => {
        // The whole measurement of a page whose mean is at least its bound.
        fc.pre(rulesOutCard(page.mean - slack) && slack >= 0);
        expect(isBlackCard({ mean: page.mean - slack, stdev: null })).toBe(isBlackCard(page));
      }),
    );
  });

  it("pages settled by a bound count as no card in the chapter's figures", () => {
    fc.assert(
      fc.property(fc.array(measuredArb, { maxLength: 60 }), seriesArb, (pages, series) => {
        const v = judgeChapter(pages, series);
        expect(v.figures.blackCards).toBe(pages.filter((p) => p.stdev !== null && isBlackCard(p)).length);
      }),
    );
  });

  it("degraded exactly when there is a reason; reasons unique and in order", () => {
    fc.assert(
      fc.property(pagesArb, seriesArb, (pages, series) => {
        const v = judgeChapter(pages, series);
        expect(v.verdict === "degraded").toBe(v.reasons.length > 0);
        expect(v.reasons).toEqual(["black_cards", "strip_slices"].filter((r) => v.reasons.includes(r as never)));
      }),
    );
  });

  it("more black pages never turn degraded into ok, nor lower the share", () => {
    fc.assert(
      fc.property(pagesArb, seriesArb, fc.nat(), (pages, series, pick) => {
        fc.pre(pages.length > 0);
        const i = pick % pages.length;
        const darker = pages.map((p, j) => (j === i ? asCard(p) : p));
        const before = judgeChapter(pages, series);
        const after = judgeChapter(darker, series);
        expect(after.figures.blackShare).toBeGreaterThanOrEqual(before.figures.blackShare);
        if (before.verdict === "degraded") expect(after.verdict).toBe("degraded");
        for (const r of before.reasons) expect(after.reasons).toContain(r);
      }),
    );
  });

  it("a webtoon is never degraded for strips", () => {
    fc.assert(
      fc.property(
        pagesArb,
        fc.option(fc.double({ min: 0, max: 10, noNaN: true }), { nil: null }),
        (pages, medianAspect) => {
          const v = judgeChapter(pages, { readsInPages: false, medianAspect });
          expect(v.reasons).not.toContain("strip_slices");
          expect(v.figures.stripsJudged).toBe(false);
        },
      ),
    );
  });

  it("fewer than 4 pages are never degraded for cards", () => {
    fc.assert(
      fc.property(fc.array(pageArb, { maxLength: 3 }), seriesArb, (pages, series) => {
        expect(judgeChapter(pages, series).reasons).not.toContain("black_cards");
      }),
    );
  });

  it("the card verdict is the share against 15 %, with at least 4 pages", () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 200 }), fc.nat(), (total, k) => {
        const cards = k % (total + 1);
        const v = judgeChapter(chapter(total - cards, cards), paged);
        expect(v.reasons.includes("black_cards")).toBe(cards / total > 0.15);
        expect(v.figures.blackCards).toBe(cards);
      }),
    );
  });

  it("neither page order nor resolution changes the verdict", () => {
    fc.assert(
      fc.property(pagesArb, seriesArb, fc.integer({ min: 2, max: 5 }), (pages, series, k) => {
        const v = judgeChapter(pages, series);
        expect(judgeChapter([...pages].reverse(), series)).toEqual(v);
        const scaled = pages.map((p) => ({ ...p, width: p.width * k, height: p.height * k }));
        expect(judgeChapter(scaled, series).reasons).toEqual(v.reasons);
      }),
    );
  });

  it("strips are judged only in a series that reads in pages whose median is under 1.8", () => {
    fc.assert(
      fc.property(pagesArb, seriesArb, (pages, series) => {
        const v = judgeChapter(pages, series);
        if (v.reasons.includes("strip_slices")) {
          expect(series.readsInPages).toBe(true);
          expect(v.figures.seriesMedianAspect).toBeLessThan(DEFAULT_THRESHOLDS.pagedSeriesMaxAspect);
          expect(v.figures.medianAspect).toBeGreaterThanOrEqual(DEFAULT_THRESHOLDS.stripMinAspect);
        }
      }),
    );
  });

  it("the stored verdict parses back to itself", () => {
    fc.assert(
      fc.property(pagesArb, seriesArb, (pages, series) => {
        const v = judgeChapter(pages, series);
        expect(parseStoredVerdict(verdictJson(v))).toEqual({ version: 1, reasons: v.reasons, figures: v.figures });
      }),
    );
  });
});

describe("verdictCondemns", () => {
  it.each([
    [["black_cards"], true, true],
    [["black_cards"], false, true],
    [["strip_slices"], true, true],
    [["strip_slices"], false, false],
    [["black_cards", "strip_slices"], false, true],
    [[], false, true],
  ] as const)("%j in a series %s read in pages → %s", (reasons, readsInPages, expected) => {
    expect(verdictCondemns({ reasons: [...reasons] }, readsInPages)).toBe(expected);
  });

  it("an unreadable verdict still condemns", () => {
    expect(verdictCondemns(parseStoredVerdict("not json"), false)).toBe(true);
  });
});
