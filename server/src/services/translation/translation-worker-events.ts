import { createPubSub } from "graphql-yoga";
import { createTopicFeeds } from "../../event-feed.ts";
import type { EventTransport } from "../../events.ts";

/** Progress and state of one translation job attempt (GraphQL `translationProgress(seriesId)`). */
export interface TranslationProgressEvent {
  /** Public id `<32 hex>-<attempt>`. */
  jobId: string;
  seriesId: number;
  state: string;
  pagesDone: number | null;
  pagesTotal: number | null;
  errorCode: string | null;
  at: string;
}

/** The translation channel of the event bus (events.ts `translations`). */
export function createTranslationEvents(eventTarget: EventTransport) {
  const feeds = createTopicFeeds<TranslationProgressEvent>(eventTarget, "translation");
  const pubsub = createPubSub<{ translation: [TranslationProgressEvent] }>({ eventTarget });
  return {
    publish: (e: Omit<TranslationProgressEvent, "at">): void =>
      pubsub.publish("translation", { ...e, at: new Date().toISOString() }),
    subscribe: (accept?: (e: TranslationProgressEvent) => boolean) => feeds.subscribe(accept),
  };
}
