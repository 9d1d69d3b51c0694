/**
 * Content conformity of a freshly downloaded chapter (docs/rules.md, "Content conformity of downloads"): the chapter is
 * degraded when black cards exceed 15 % of its pages, or when strip slices appear in a series that
 * reads in pages. Pure: the caller measures the pages (server/src/library/page-stats.ts) and says
 * how the series reads.
 */

/** What page-stats measures of one page: header dimensions, and luminance on a 32 px decode. */
export interface PageStats {
  width: number;
  height: number;
  /**
   * Mean luminance (0–255) of the shrunk greyscale decode; with `stdev` null, a lower bound of it
   * that rules a card out (rulesOutCard), measured on the top of the page alone.
   */
  mean: number;
  /** Standard deviation of that luminance; null when only the lower bound of the mean was measured. */
  stdev: number | null;
}

export interface ConformityThresholds {
  /** A black card: mean luminance below this… */
  cardMaxMean: number;
  /** …and standard deviation below this (a dark drawing has contrast). */
  cardMaxStdev: number;
  /** Degraded when the share of cards is strictly above this. */
  maxBlackShare: number;
  /** Fewer pages than this are not judged for cards (one card in three pages is not a pattern). */
  minPagesForCards: number;
  /** A series whose median page aspect (height/width) is at or above this is not judged for strips. */
  pagedSeriesMaxAspect: number;
  /** Strip slices: the chapter's median aspect reaches max(stripMinAspect, stripFactor × series median). */
  stripMinAspect: number;
  stripFactor: number;
  /** The series median assumed for a series that reads in pages when none is known. */
  nominalPageAspect: number;
}

/**
 * The reference figures (reference-notes.md), calibrated on generated pages measured on the 32 px
 * decode page-stats makes: black cards reach mean 31 / stdev 10, the darkest drawn page (a night
 * scene with a moon and one bubble) has mean 25 / stdev 38 (page-stats.test.ts holds the table).
 * The shrink lowers the stdev (43 for that page at full size), so these limits hold for that decode
 * only. The rule is "more than 15 %": exactly 15 % is not degraded.
 */
export const DEFAULT_THRESHOLDS: ConformityThresholds = {
  cardMaxMean: 40,
  cardMaxStdev: 30,
  maxBlackShare: 0.15,
  minPagesForCards: 4,
  pagedSeriesMaxAspect: 1.8,
  stripMinAspect: 2.2,
  stripFactor: 1.4,
  // A printed manga page is about 1.4–1.5 times as tall as wide.
  nominalPageAspect: 1.45,
};

export type ConformityReason = "black_cards" | "strip_slices";
export const CONFORMITY_REASONS: readonly ConformityReason[] = ["black_cards", "strip_slices"];

/**
 * Where the series median the strip rule used comes from: the series' earlier downloads that passed,
 * its files on disk, or neither (a printed page's proportions).
 */
export type SeriesAspectSource = "series" | "files" | "nominal";

export interface SeriesShape {
  /** False for a webtoon: it reads as a vertical strip and tall pages are its normal shape. */
  readsInPages: boolean;
  /** Median page aspect of the series' earlier chapters; null when none is known. */
  medianAspect: number | null;
  /** What a known medianAspect was measured on ("series" when absent). */
  aspectFrom?: "series" | "files";
}

export interface ConformityFigures {
  pages: number;
  blackCards: number;
  /** blackCards / pages (0 without pages). */
  blackShare: number;
  /** False with fewer than minPagesForCards pages: the share decides nothing then. */
  cardsJudged: boolean;
  /** Median height/width of this chapter's pages; null without pages. */
  medianAspect: number | null;
  readsInPages: boolean;
  /** The series median the strip rule used (the known one, or the nominal page aspect); null for a webtoon. */
  seriesMedianAspect: number | null;
  seriesAspectSource: SeriesAspectSource | null;
  /** The chapter median from which its pages are strip slices; null when strips were not judged. */
  stripThreshold: number | null;
  stripsJudged: boolean;
}

export interface ConformityVerdict {
  verdict: "ok" | "degraded";
  /** In CONFORMITY_REASONS order; empty exactly when the verdict is ok. */
  reasons: ConformityReason[];
  figures: ConformityFigures;
}

/**
 * A page whose mean luminance is at least `meanAtLeast` is not a card, whatever its contrast: what
 * page-stats asks before it measures the rest of a page.
 */
export function rulesOutCard(meanAtLeast: number, t: ConformityThresholds = DEFAULT_THRESHOLDS): boolean {
  return meanAtLeast >= t.cardMaxMean;
}

export function isBlackCard(
  stats: Pick<PageStats, "mean" | "stdev">,
  t: ConformityThresholds = DEFAULT_THRESHOLDS,
): boolean {
  // A card needs a measured contrast under the limit; page-stats leaves the stdev unmeasured only
  // for a page whose lower bound of the mean already rules a card out.
  if (stats.stdev === null) return false;
  return stats.mean < t.cardMaxMean && stats.stdev < t.cardMaxStdev;
}

/** Height / width; null for a page without a usable size. */
export function pageAspect(page: Pick<PageStats, "width" | "height">): number | null {
  return page.width > 0 && page.height > 0 && Number.isFinite(page.height / page.width)
    ? page.height / page.width
    : null;
}

/** The median of finite numbers (mean of the two middle ones for an even count); null when empty. */
export function median(values: readonly number[]): number | null {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  // Both indexes exist: sorted is not empty.
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * The series' median page aspect from the median aspects of its earlier chapters (the figures of
 * their verdicts); unusable values are skipped, null when nothing is left.
 */
export function seriesMedianAspect(chapterMedians: readonly (number | null | undefined)[]): number | null {
  return median(chapterMedians.filter((v): v is number => typeof v === "number" && Number.isFinite(v) && v > 0));
}

/**
 * The shape of a series for the judgement of its next download. A webtoon reads in strips. Any other
 * series reads in pages, and its median page aspect is the one its earlier downloads that passed
 * measured; when there are none, the one of its files on disk (a collection scanned before any
 * download: a webtoon not marked as one shows its strips there); else unknown. `fileMedians` is
 * only consulted when the downloads give none, so a caller may leave it empty while they do
 * (`needsFileAspects`).
 */
export function seriesShapeOf(
  webtoon: boolean,
  downloadMedians: readonly (number | null | undefined)[],
  fileMedians: readonly (number | null | undefined)[],
): SeriesShape {
  if (webtoon) return { readsInPages: false, medianAspect: null };
  const fromDownloads = seriesMedianAspect(downloadMedians);
  if (fromDownloads !== null) return { readsInPages: true, medianAspect: fromDownloads, aspectFrom: "series" };
  const fromFiles = seriesMedianAspect(fileMedians);
  return fromFiles !== null
    ? { readsInPages: true, medianAspect: fromFiles, aspectFrom: "files" }
    : { readsInPages: true, medianAspect: null };
}

/** Whether seriesShapeOf would look at the files on disk: a paged series whose downloads tell nothing. */
export function needsFileAspects(webtoon: boolean, downloadMedians: readonly (number | null | undefined)[]): boolean {
  return !webtoon && seriesMedianAspect(downloadMedians) === null;
}

export function judgeChapter(
  pages: readonly PageStats[],
  series: SeriesShape,
  t: ConformityThresholds = DEFAULT_THRESHOLDS,
): ConformityVerdict {
  const reasons: ConformityReason[] = [];

  const blackCards = pages.filter((p) => isBlackCard(p, t)).length;
  const blackShare = pages.length === 0 ? 0 : blackCards / pages.length;
  const cardsJudged = pages.length >= t.minPagesForCards;
  if (cardsJudged && blackShare > t.maxBlackShare) reasons.push("black_cards");

  const medianAspect = median(pages.map(pageAspect).filter((a): a is number => a !== null));
  const known =
    series.medianAspect !== null && Number.isFinite(series.medianAspect) && series.medianAspect > 0
      ? series.medianAspect
      : null;
  const seriesAspect = series.readsInPages ? (known ?? t.nominalPageAspect) : null;
  // A series whose own pages are tall is not condemned for tall pages.
  const stripsJudged = seriesAspect !== null && medianAspect !== null && seriesAspect < t.pagedSeriesMaxAspect;
  const stripThreshold = stripsJudged ? Math.max(t.stripMinAspect, t.stripFactor * seriesAspect) : null;
  if (stripThreshold !== null && medianAspect !== null && medianAspect >= stripThreshold) reasons.push("strip_slices");

  return {
    verdict: reasons.length === 0 ? "ok" : "degraded",
    reasons,
    figures: {
      pages: pages.length,
      blackCards,
      blackShare,
      cardsJudged,
      medianAspect,
      readsInPages: series.readsInPages,
      seriesMedianAspect: seriesAspect,
      seriesAspectSource: seriesAspect === null ? null : known === null ? "nominal" : (series.aspectFrom ?? "series"),
      stripThreshold,
      stripsJudged,
    },
  };
}

/* ------------------------------------------------------------------------------------------ */
/* Stored form: Download.verdict                                                               */
/* ------------------------------------------------------------------------------------------ */

export const VERDICT_VERSION = 1;

export interface StoredVerdict {
  version: 1;
  reasons: ConformityReason[];
  figures: ConformityFigures;
}

export function verdictJson(v: ConformityVerdict): string {
  const stored: StoredVerdict = { version: VERDICT_VERSION, reasons: v.reasons, figures: v.figures };
  return JSON.stringify(stored);
}

/** The stored verdict, or null for no verdict, another version or text that is not one. */
export function parseStoredVerdict(text: string | null): StoredVerdict | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const o = value as Record<string, unknown>;
  if (o.version !== VERDICT_VERSION || !Array.isArray(o.reasons) || typeof o.figures !== "object" || o.figures === null)
    return null;
  const reasons = o.reasons.filter((r): r is ConformityReason =>
    (CONFORMITY_REASONS as readonly unknown[]).includes(r),
  );
  return { version: VERDICT_VERSION, reasons, figures: o.figures as ConformityFigures };
}

/**
 * Whether a degraded verdict still condemns its release under the series' shape now. Strip slices
 * condemn only in a series read in pages: once the operator marks the series a webtoon, a release
 * degraded for its strips alone is what the series wants, and it may be fetched again. Black cards
 * always condemn; a verdict that cannot be read, or names no reason, still condemns.
 */
export function verdictCondemns(v: Pick<StoredVerdict, "reasons"> | null, readsInPages: boolean): boolean {
  if (v === null || v.reasons.length === 0) return true;
  return v.reasons.some((r) => r !== "strip_slices" || readsInPages);
}
