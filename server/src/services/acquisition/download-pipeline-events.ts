import { createPubSub } from "graphql-yoga";
import { createTopicFeeds } from "../../event-feed.ts";
import type { EventTransport } from "../../events.ts";

/** Progress and outcome of one download (GraphQL `downloadEvents`). */
export interface DownloadEvent {
  downloadId: number;
  seriesId: number;
  /** The job state after the change (queued, waiting, fetching, judging, degraded, publishing, published, failed, cancelled). */
  state: string;
  pagesDone: number;
  pagesTotal: number | null;
  error: string | null;
  at: string;
}

/** The download channel of the event bus (events.ts `downloads`). */
export function createDownloadEvents(eventTarget: EventTransport) {
  const feeds = createTopicFeeds<DownloadEvent>(eventTarget, "download");
  const pubsub = createPubSub<{ download: [DownloadEvent] }>({ eventTarget });
  return {
    publish: (e: Omit<DownloadEvent, "at">): void => pubsub.publish("download", { ...e, at: new Date().toISOString() }),
    subscribe: (accept?: (e: DownloadEvent) => boolean) => feeds.subscribe(accept),
  };
}
