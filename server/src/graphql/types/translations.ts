/** GraphQL of translation jobs: the same service as REST (uploads stay on the REST path: a raw body). */
import type { TranslationJobView, TranslationSearchResult } from "../../services/translation/translation-service.ts";
import { asId } from "../../services/input.ts";
import { builder } from "../builder.ts";

export const TranslationStatusEnum = builder.enumType("TranslationStatus", {
  description: "The public status (docs/api.md maps each internal state to one).",
  values: {
    QUEUED: { value: "queued", description: "Waiting, uploading or submitted to the processor." },
    RUNNING: { value: "running", description: "Being translated, or translated and waiting to be imported." },
    COMPLETED: { value: "completed", description: "Imported into the library." },
    FAILED: { value: "failed", description: "Needs an explicit retry." },
    CANCELLING: { value: "cancelling", description: "Cancelled; the processor's acknowledgement is pending." },
    CANCELLED: { value: "cancelled" },
  } as const,
});

const TranslationTargetRef = builder.objectRef<TranslationJobView["target"]>("TranslationTarget").implement({
  fields: (t) => ({
    kind: t.exposeString("kind", { description: "volume | chapter" }),
    number: t.exposeString("number", { description: "Exact decimal label." }),
  }),
});

const TranslationProgressRef = builder
  .objectRef<NonNullable<TranslationJobView["progress"]>>("TranslationPageProgress")
  .implement({
    fields: (t) => ({
      pagesDone: t.exposeInt("pagesDone"),
      pagesTotal: t.int({ nullable: true, resolve: (p) => p.pagesTotal }),
    }),
  });

const TranslationErrorRef = builder.objectRef<NonNullable<TranslationJobView["error"]>>("TranslationError").implement({
  fields: (t) => ({ code: t.exposeString("code"), message: t.exposeString("message") }),
});

export const TranslationJobRef = builder.objectRef<TranslationJobView>("TranslationJob").implement({
  description: "One attempt of a machine translation of a book or chapter.",
  fields: (t) => ({
    id: t.exposeString("id", { description: "<32 hex>-<retry number>; the hex part is stable per target." }),
    status: t.field({ type: TranslationStatusEnum, resolve: (j) => j.status }),
    state: t.exposeString("state", {
      description:
        "The exact internal state (queued, uploading, submitted, running, completed, importing, imported, failed, cancelling, cancelled, paused).",
    }),
    seriesId: t.exposeInt("seriesId"),
    target: t.field({ type: TranslationTargetRef, resolve: (j) => j.target }),
    sourceLanguage: t.exposeString("sourceLanguage"),
    targetLanguage: t.exposeString("targetLanguage"),
    sourceSha256: t.string({ nullable: true, resolve: (j) => j.sourceSha256 }),
    progress: t.field({ type: TranslationProgressRef, nullable: true, resolve: (j) => j.progress }),
    error: t.field({ type: TranslationErrorRef, nullable: true, resolve: (j) => j.error }),
    attempt: t.exposeInt("attempt"),
    engine: t.exposeString("engine", { description: "external | local" }),
    origin: t.exposeString("origin", { description: "upload | source | indexer" }),
    cancelPending: t.exposeBoolean("cancelPending", {
      description: "The cancellation is not yet acknowledged by the processor.",
    }),
    retryable: t.exposeBoolean("retryable", {
      description: "The operator may retry it: the newest attempt of its target, ended failed or cancelled.",
    }),
    cancellable: t.exposeBoolean("cancellable", { description: "The operator may cancel it (no cancel pending)." }),
    pausedReason: t.string({
      nullable: true,
      description: "toggle_off | native_release",
      resolve: (j) => j.pausedReason,
    }),
    createdAt: t.string({ resolve: (j) => j.createdAt.toISOString() }),
    updatedAt: t.string({ resolve: (j) => j.updatedAt.toISOString() }),
  }),
});

const TranslationSkipRef = builder.objectRef<TranslationSearchResult["skipped"][number]>("TranslationSkip").implement({
  fields: (t) => ({
    kind: t.exposeString("kind"),
    number: t.exposeString("number"),
    reason: t.exposeString("reason"),
  }),
});

const TranslationSearchRef = builder.objectRef<TranslationSearchResult>("TranslationSearchResult").implement({
  fields: (t) => ({
    created: t.field({ type: [TranslationJobRef], resolve: (r) => r.created }),
    skipped: t.field({ type: [TranslationSkipRef], resolve: (r) => r.skipped }),
    queuedDownloads: t.exposeInt("queuedDownloads", { description: "Native downloads the normal pass queued first." }),
  }),
});

builder.queryField("translationJobs", (t) =>
  t.field({
    type: [TranslationJobRef],
    description: "Translation jobs (every attempt), newest first; of one series when seriesId is given.",
    args: { seriesId: t.arg.int({ required: false }) },
    resolve: (_r, { seriesId }, { services }) =>
      services.translations.list(seriesId === null || seriesId === undefined ? undefined : asId(seriesId)),
  }),
);

builder.mutationField("searchTranslations", (t) =>
  t.field({
    type: TranslationSearchRef,
    description: "A normal Wanted pass, then the translation fallback.",
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId }, { services }) => services.translations.search(asId(seriesId)),
  }),
);

builder.mutationField("retryTranslation", (t) =>
  t.field({
    type: TranslationJobRef,
    description: "Explicit retry of a failed job: a new attempt (retry number + 1) in its own staging directory.",
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, { id }, { services }) => services.translations.retry(id),
  }),
);

builder.mutationField("cancelTranslation", (t) =>
  t.field({
    type: TranslationJobRef,
    description: "Cancel: publication prevented, a durable cancellation sent to the processor.",
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, { id }, { services }) => services.translations.cancel(id),
  }),
);
