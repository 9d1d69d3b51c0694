import { createPubSub } from "graphql-yoga";
import { createDownloadEvents } from "./services/acquisition/download-pipeline-events.ts";
import { createTranslationEvents } from "./services/translation/translation-worker-events.ts";

/** What changed in the library, published after a write commits (GraphQL `libraryEvents`). */
export interface LibraryEvent {
  kind: "series_changed" | "map_changed" | "scan_finished";
  /** The series concerned; null for library-wide events. */
  seriesId: number | null;
  at: string;
}

/** Progress of one book assembly (GraphQL `assemblyProgress`). */
export interface AssemblyProgressEvent {
  seriesId: number;
  volume: string;
  /** hashing | writing | publishing | done | failed */
  step: string;
  done: number;
  total: number;
}

/** In-process event bus: services publish, subscriptions listen. */
export function createEventBus() {
  const pubsub = createPubSub<{ library: [LibraryEvent]; assembly: [AssemblyProgressEvent] }>();
  return {
    publish(kind: LibraryEvent["kind"], seriesId: number | null): void {
      pubsub.publish("library", { kind, seriesId, at: new Date().toISOString() });
    },
    subscribe: () => pubsub.subscribe("library"),
    publishAssembly: (e: AssemblyProgressEvent): void => pubsub.publish("assembly", e),
    subscribeAssembly: () => pubsub.subscribe("assembly"),
    downloads: createDownloadEvents(),
    translations: createTranslationEvents(),
  };
}

export type EventBus = ReturnType<typeof createEventBus>;
