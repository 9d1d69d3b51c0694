import { DEFAULT_THRESHOLDS, type ConformityFigures } from "../../domain/conformity.ts";
import type { DownloadView } from "../../services/acquisition/download-service.ts";
import { asId } from "../../services/input.ts";
import { builder } from "../builder.ts";

const DownloadStateEnum = builder.enumType("DownloadState", {
  values: {
    QUEUED: { value: "queued" },
    WAITING: {
      value: "waiting",
      description: "A transient failure: retried after nextAttemptAt (30 s × 2^n, at most 3 retries).",
    },
    FETCHING: { value: "fetching" },
    JUDGING: { value: "judging" },
    DEGRADED: {
      value: "degraded",
      description: "Failed the content check: kept out of the library, needs a replacement.",
    },
    PUBLISHING: { value: "publishing" },
    PUBLISHED: { value: "published" },
    FAILED: { value: "failed" },
    CANCELLED: { value: "cancelled" },
  } as const,
});

const DownloadKindEnum = builder.enumType("DownloadKind", {
  values: { CHAPTER: { value: "chapter" }, VOLUME: { value: "volume" } } as const,
});

const ConformityReasonEnum = builder.enumType("ConformityReason", {
  values: {
    BLACK_CARDS: { value: "black_cards", description: "Black cards exceed 15 % of the pages." },
    STRIP_SLICES: { value: "strip_slices", description: "Strip slices in a series that reads in pages." },
  } as const,
});

const SeriesAspectSourceEnum = builder.enumType("SeriesAspectSource", {
  values: {
    SERIES: { value: "series", description: "From the series' earlier downloads that passed." },
    FILES: { value: "files", description: "From the series' files on disk: no earlier download passed." },
    NOMINAL: { value: "nominal", description: "None known: a printed page's proportions." },
  } as const,
});

const ConformityFiguresRef = builder.objectRef<ConformityFigures>("ConformityFigures").implement({
  description: "What the content check measured and decided on.",
  fields: (t) => ({
    pages: t.exposeInt("pages"),
    blackCards: t.exposeInt("blackCards"),
    blackShare: t.exposeFloat("blackShare", { description: "blackCards / pages." }),
    maxBlackShare: t.float({
      description: "The share of black cards above which the download is degraded (the limit it was judged by).",
      resolve: () => DEFAULT_THRESHOLDS.maxBlackShare,
    }),
    cardsJudged: t.exposeBoolean("cardsJudged", { description: "False with fewer than 4 pages." }),
    medianAspect: t.float({
      nullable: true,
      description: "Median height/width of the pages.",
      resolve: (f) => f.medianAspect,
    }),
    readsInPages: t.exposeBoolean("readsInPages", { description: "False for a webtoon." }),
    seriesMedianAspect: t.float({ nullable: true, resolve: (f) => f.seriesMedianAspect }),
    seriesAspectSource: t.field({ type: SeriesAspectSourceEnum, nullable: true, resolve: (f) => f.seriesAspectSource }),
    stripThreshold: t.float({
      nullable: true,
      description: "Median aspect from which the pages are strip slices.",
      resolve: (f) => f.stripThreshold,
    }),
    stripsJudged: t.exposeBoolean("stripsJudged"),
  }),
});

const DownloadVerdictRef = builder.objectRef<NonNullable<DownloadView["verdict"]>>("DownloadVerdict").implement({
  fields: (t) => ({
    reasons: t.field({ type: [ConformityReasonEnum], resolve: (v) => v.reasons }),
    figures: t.field({ type: ConformityFiguresRef, resolve: (v) => v.figures }),
  }),
});

export { DownloadStateEnum };
export const DownloadRef = builder.objectRef<DownloadView>("Download").implement({
  description: "A fetched release on its way into the library, judged before packaging.",
  fields: (t) => ({
    id: t.exposeInt("id"),
    seriesId: t.exposeInt("seriesId"),
    kind: t.field({ type: DownloadKindEnum, resolve: (d) => d.kind }),
    volume: t.string({ nullable: true, description: "Exact decimal label.", resolve: (d) => d.volume }),
    chapter: t.string({ nullable: true, description: "Exact decimal label.", resolve: (d) => d.chapter }),
    part: t.int({ nullable: true, resolve: (d) => d.part }),
    language: t.exposeString("language"),
    state: t.field({ type: DownloadStateEnum, resolve: (d) => d.state }),
    needsReplacement: t.exposeBoolean("needsReplacement", {
      description: "Degraded: a replacement from another source is needed.",
    }),
    verdict: t.field({
      type: DownloadVerdictRef,
      nullable: true,
      description: "Null until judged.",
      resolve: (d) => d.verdict,
    }),
    error: t.string({ nullable: true, resolve: (d) => d.error }),
    createdAt: t.string({ description: "ISO 8601.", resolve: (d) => d.createdAt.toISOString() }),
    attempts: t.exposeInt("attempts", { description: "Fetch attempts started." }),
    pagesDone: t.exposeInt("pagesDone"),
    pagesTotal: t.int({ nullable: true, resolve: (d) => d.pagesTotal }),
    nextAttemptAt: t.string({
      nullable: true,
      description: "ISO 8601: a waiting download is retried then.",
      resolve: (d) => d.nextAttemptAt?.toISOString() ?? null,
    }),
    cancelRequested: t.exposeBoolean("cancelRequested"),
    cancellable: t.exposeBoolean("cancellable", {
      description: "The operator may still cancel it (not publishing or finished, no cancel pending).",
    }),
    blocked: t.exposeBoolean("blocked", { description: "The operator blocked its release (the blocklist)." }),
    blockable: t.exposeBoolean("blockable", {
      description:
        "The operator may block its release now: failed or cancelled, from a linked source, not blocked yet.",
    }),
    providerName: t.string({ nullable: true, resolve: (d) => d.providerName }),
    externalId: t.string({
      nullable: true,
      description: "The provider's id of the release.",
      resolve: (d) => d.externalId,
    }),
    scanlator: t.string({ nullable: true, resolve: (d) => d.scanlator }),
    fileId: t.int({ nullable: true, description: "The published library file.", resolve: (d) => d.fileId }),
    replacesFileId: t.int({
      nullable: true,
      description: "Recovery: the degraded file retired once this is published.",
      resolve: (d) => d.replacesFileId,
    }),
  }),
});

builder.queryField("downloads", (t) =>
  t.field({
    type: [DownloadRef],
    description: "The downloads of a series, newest first.",
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId }, { services }) => services.downloads.list(asId(seriesId)),
  }),
);
