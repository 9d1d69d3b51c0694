import type { WantedCycleOutcome, WantedMonitorStatus } from "../../services/acquisition/download-pipeline-wiring.ts";
import type { DownloadEvent } from "../../services/acquisition/download-pipeline-events.ts";
import type { DownloadState } from "../../services/acquisition/download-service.ts";
import type {
  WantedEntryView,
  WantedLedgerView,
  WantedOfLibrary,
  WantedOfSeries,
  WantedPassResult,
} from "../../services/acquisition/wanted-service.ts";
import { asId } from "../../services/input.ts";
import { builder } from "../builder.ts";
import { DownloadRef, DownloadStateEnum } from "./downloads.ts";

const WantedReasonEnum = builder.enumType("WantedReason", {
  values: {
    QUEUED: { value: "queued", description: "A download was queued by this pass." },
    ALREADY_QUEUED: { value: "already_queued", description: "A download of the slot is under way." },
    NO_OFFER: { value: "no_offer", description: "No linked source offers it." },
    ONLY_OTHER_LANGUAGES: {
      value: "only_other_languages",
      description: "Offered only in languages that are not preferred.",
    },
    ALL_OFFERS_BLOCKED: {
      value: "all_offers_blocked",
      description: "Every offer is blocked (degraded before, or from a source that delivered it degraded).",
    },
    PARTS_INCOMPLETE: { value: "parts_incomplete", description: "A split chapter: no source offers every part." },
    LIMIT_REACHED: { value: "limit_reached", description: "Obtainable, left for the next pass (downloads per pass)." },
    BACKING_OFF: { value: "backing_off", description: "Nothing was obtainable: the series waits until nextPassAt." },
    NO_LONGER_LISTED: {
      value: "no_longer_listed",
      description: "A source made this slot and no source lists it any more (the slot stays).",
    },
    REPLACING: {
      value: "replacing",
      description: "An owned file was degraded: a replacement from another source is queued.",
    },
    NO_OTHER_SOURCE: {
      value: "no_other_source",
      description: "An owned file was degraded and no other source offers it: it stays.",
    },
  } as const,
});

const WantedDownloadsEnum = builder.enumType("WantedDownloads", {
  description: "What became of the downloads a ledger entry names, read when the ledger is read.",
  values: {
    UNDER_WAY: {
      value: "under_way",
      description: "At least one is still queued, waiting, fetching, judging or publishing.",
    },
    PUBLISHED: { value: "published", description: "All are published: the next pass takes the slot off the ledger." },
    FAILED: { value: "failed", description: "All ended and not every one was published: the next pass decides again." },
  } as const,
});

const WantedDetailRef = builder.objectRef<WantedEntryView["detail"]>("WantedDetail").implement({
  fields: (t) => ({
    offers: t.exposeInt("offers", { description: "Offers of the slot in any language." }),
    usable: t.exposeInt("usable", { description: "Offers in a preferred language." }),
    blocked: t.exposeInt("blocked"),
    languages: t.exposeStringList("languages"),
    candidateMappingId: t.int({ nullable: true, resolve: (d) => d.candidate?.mappingId ?? null }),
    candidateExternalId: t.string({ nullable: true, resolve: (d) => d.candidate?.externalId ?? null }),
    parts: t.intList({ nullable: true, resolve: (d) => d.parts ?? null }),
    nextPassAt: t.string({ nullable: true, resolve: (d) => d.nextPassAt ?? null }),
    replacesFileId: t.int({ nullable: true, resolve: (d) => d.replacesFileId ?? null }),
    downloadIds: t.intList({ nullable: true, resolve: (d) => d.downloadIds ?? null }),
    bookChannelOutcome: t.string({ nullable: true, resolve: (d) => d.bookChannel?.outcome ?? null }),
  }),
});

const WantedEntryRef = builder.objectRef<WantedEntryView>("WantedEntry").implement({
  description: "Why a monitored slot is still wanted after the last Wanted pass.",
  fields: (t) => ({
    kind: t.exposeString("kind", { description: "chapter | book" }),
    number: t.exposeString("number", { description: "Exact decimal label." }),
    reason: t.field({ type: WantedReasonEnum, resolve: (e) => e.reason }),
    detail: t.field({ type: WantedDetailRef, resolve: (e) => e.detail }),
    downloads: t.field({
      type: WantedDownloadsEnum,
      nullable: true,
      description: "What became of detail.downloadIds since the pass; null when the entry names none.",
      resolve: (e) => e.downloads,
    }),
    updatedAt: t.string({ resolve: (e) => e.updatedAt.toISOString() }),
  }),
});

const WantedLedgerRef = builder.objectRef<WantedLedgerView>("WantedLedger").implement({
  fields: (t) => ({
    seriesId: t.exposeInt("seriesId"),
    lastPassAt: t.string({ nullable: true, resolve: (l) => l.lastPassAt?.toISOString() ?? null }),
    nextPassAt: t.string({
      nullable: true,
      description: "Back-off: the scheduled pass waits until then.",
      resolve: (l) => l.nextPassAt?.toISOString() ?? null,
    }),
    emptyPasses: t.exposeInt("emptyPasses"),
    entries: t.field({ type: [WantedEntryRef], resolve: (l) => l.entries }),
  }),
});

const WantedOfSeriesRef = builder.objectRef<WantedOfSeries>("WantedOfSeries").implement({
  description: "A ledger entry of one series, in the library's Wanted list.",
  fields: (t) => ({
    seriesId: t.exposeInt("seriesId"),
    seriesTitle: t.exposeString("seriesTitle"),
    entry: t.field({ type: WantedEntryRef, resolve: (x) => x.entry }),
  }),
});

const WantedOfLibraryRef = builder.objectRef<WantedOfLibrary>("WantedOfLibrary").implement({
  fields: (t) => ({
    total: t.exposeInt("total", { description: "Entries matching the filter, before the limit." }),
    entries: t.field({ type: [WantedOfSeriesRef], resolve: (w) => w.entries }),
  }),
});

const WantedPassRef = builder.objectRef<WantedPassResult>("WantedPassResult").implement({
  fields: (t) => ({
    queued: t.exposeInt("queued", { description: "Downloads queued by this pass." }),
    ledger: t.field({ type: WantedLedgerRef, resolve: (r) => r }),
  }),
});

const DownloadEventRef = builder.objectRef<DownloadEvent>("DownloadEvent").implement({
  description: "Progress or outcome of one download.",
  fields: (t) => ({
    downloadId: t.exposeInt("downloadId"),
    seriesId: t.exposeInt("seriesId"),
    state: t.field({ type: DownloadStateEnum, resolve: (e) => e.state as DownloadState }),
    pagesDone: t.exposeInt("pagesDone"),
    pagesTotal: t.int({ nullable: true, resolve: (e) => e.pagesTotal }),
    error: t.string({ nullable: true, resolve: (e) => e.error }),
    at: t.exposeString("at"),
  }),
});

builder.queryField("wanted", (t) =>
  t.field({
    type: WantedLedgerRef,
    description: "The Wanted ledger of a series: one entry per wanted slot (and degraded file) with its reason.",
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId }, { services }) => services.wanted.ledger(asId(seriesId)),
  }),
);

builder.queryField("wantedOfLibrary", (t) =>
  t.field({
    type: WantedOfLibraryRef,
    description:
      "Every series' Wanted ledger entries, by series title then reading order; only these reasons when given; at most `limit` (1–5000, 500 by default).",
    args: { reasons: t.arg({ type: [WantedReasonEnum] }), limit: t.arg.int() },
    resolve: (_r, { reasons, limit }, { services }) =>
      services.wanted.ofLibrary({ reasons: reasons ?? undefined, limit: limit ?? undefined }),
  }),
);

builder.queryField("downloadQueue", (t) =>
  t.field({
    type: [DownloadRef],
    description: "Downloads across series, newest first (at most 500), optionally only these states.",
    args: { states: t.arg({ type: [DownloadStateEnum] }) },
    resolve: (_r, { states }, { services }) => services.downloadPipeline.list(states ?? undefined),
  }),
);

builder.mutationField("runWantedPass", (t) =>
  t.field({
    type: WantedPassRef,
    description: "Runs the Wanted pass of a series now (ignores its back-off).",
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId }, { services }) => services.wanted.runPass(asId(seriesId), { force: true }),
  }),
);

builder.mutationField("cancelDownload", (t) =>
  t.field({
    type: DownloadRef,
    description:
      "Cancels a queued, waiting or running download (409 download_not_cancellable once publishing). With blocklist, its release is blocked too and the Wanted pass looks for another at once.",
    args: { id: t.arg.int({ required: true }), blocklist: t.arg.boolean({ defaultValue: false }) },
    resolve: (_r, { id, blocklist }, { services }) => services.blocklist.cancel(asId(id), blocklist ?? false),
  }),
);

builder.subscriptionField("downloadEvents", (t) =>
  t.field({
    type: DownloadEventRef,
    description: "Download progress and outcomes, optionally of one series.",
    args: { seriesId: t.arg.int() },
    subscribe: (_root, { seriesId }, { events }) =>
      events.downloads.subscribe(
        seriesId === null || seriesId === undefined ? undefined : (e: DownloadEvent) => e.seriesId === seriesId,
      ),
    resolve: (e) => e,
  }),
);

/** The scheduled Wanted pass (REST GET /api/monitor/wanted, POST …/run). */
const WantedCycleOutcomeRef = builder.objectRef<WantedCycleOutcome>("WantedMonitorOutcome").implement({
  fields: (t) => ({
    series: t.exposeInt("series", { description: "Monitored series planned." }),
    queued: t.exposeInt("queued", { description: "Downloads queued." }),
    failed: t.exposeInt("failed", { description: "Series whose pass failed (logged)." }),
  }),
});

const WantedMonitorRef = builder.objectRef<WantedMonitorStatus>("WantedMonitor").implement({
  description:
    "The scheduled Wanted pass: each monitored series' sources are refreshed, then its pass runs (with its back-off).",
  fields: (t) => ({
    lastRun: t.exposeString("lastRun", { nullable: true, description: "ISO 8601." }),
    nextRun: t.exposeString("nextRun", { nullable: true, description: "ISO 8601." }),
    running: t.exposeBoolean("running"),
    lastOutcome: t.field({ type: WantedCycleOutcomeRef, nullable: true, resolve: (s) => s.lastOutcome }),
  }),
});

builder.queryFields((t) => ({
  wantedMonitor: t.field({
    type: WantedMonitorRef,
    resolve: (_r, _a, { services }) => services.wantedMonitor.status(),
  }),
}));

builder.mutationFields((t) => ({
  runWantedMonitor: t.field({
    type: WantedMonitorRef,
    description: "Runs the scheduled Wanted pass over every monitored series now and answers the status after it.",
    resolve: async (_r, _a, { services }) => {
      await services.wantedMonitor.runNow();
      return services.wantedMonitor.status();
    },
  }),
}));
