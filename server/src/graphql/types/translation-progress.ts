/**
 * GraphQL `translationProgress(seriesId)`: state and page progress of the translation jobs of one
 * series, as the worker writes them (events.ts `translations`). A client sees its own series only.
 */
import { builder } from "../builder.ts";
import type { TranslationProgressEvent } from "../../services/translation/translation-worker-events.ts";

const TranslationProgressRef = builder.objectRef<TranslationProgressEvent>("TranslationProgressEvent").implement({
  description: "State and page progress of one translation job attempt.",
  fields: (t) => ({
    jobId: t.exposeString("jobId", { description: "`<32 hex>-<retry number>`" }),
    seriesId: t.exposeInt("seriesId"),
    state: t.exposeString("state"),
    pagesDone: t.int({ nullable: true, resolve: (e) => e.pagesDone }),
    pagesTotal: t.int({ nullable: true, resolve: (e) => e.pagesTotal }),
    errorCode: t.string({ nullable: true, resolve: (e) => e.errorCode }),
    at: t.exposeString("at"),
  }),
});

builder.subscriptionField("translationProgress", (t) =>
  t.field({
    type: TranslationProgressRef,
    description: "Progress of the translation jobs of one series.",
    args: { seriesId: t.arg.int({ required: true }) },
    subscribe: (_root, { seriesId }, { events }) =>
      events.translations.subscribe((e: TranslationProgressEvent) => e.seriesId === seriesId),
    resolve: (e) => e,
  }),
);
