import { createRedisEventTarget } from "@graphql-yoga/redis-event-target";
import { createPubSub } from "graphql-yoga";
import { Redis } from "ioredis";
import { DEFAULT_REDIS_PREFIX } from "./config.ts";
import { createTopicFeeds } from "./event-feed.ts";
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

/** New background work was queued: the workers of every instance look for it (`downloads` or `translations`). */
export interface WorkEvent {
  queue: "downloads" | "translations";
}

/**
 * The secrets file changed (another instance re-reads it). It names who wrote it and carries no
 * secret: the values stay in the 0600 file.
 */
export interface SecretsEvent {
  instanceId: string;
}

/** Web sessions ended on `instanceId`: the other instances close their live connections of them. */
export interface SessionsEvent {
  instanceId: string;
  ids: number[];
}

/**
 * Where published events travel. In-process by default; with REDIS_URL every instance publishes to
 * and listens on Redis (graphql-yoga's Redis event target), so a subscriber of one instance hears
 * what another did.
 */
// The bus's channels are typed per pubsub; one transport carries them all (each pubsub casts it to its own events).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type EventTransport = ReturnType<typeof createRedisEventTarget<any>>;

/** A transport whose topics are channels named `prefix` + topic on `target`. */
export function prefixedTransport(target: EventTransport, prefix: string): EventTransport {
  if (prefix === "") return target;
  return {
    addEventListener: (topic, listener) => target.addEventListener(prefix + topic, listener),
    removeEventListener: (topic, listener) => target.removeEventListener(prefix + topic, listener),
    // The Redis target reads only the type and the detail of what it publishes.
    dispatchEvent: (event) =>
      target.dispatchEvent({ type: prefix + event.type, detail: (event as CustomEvent).detail } as CustomEvent),
  };
}

/**
 * A Redis transport: one connection publishes, one listens (a subscribed connection can do nothing
 * else). Every channel is named `prefix` + topic (REDIS_PREFIX).
 */
export async function redisTransport(
  url: string,
  prefix: string = DEFAULT_REDIS_PREFIX,
): Promise<{ target: EventTransport; close(): Promise<void> }> {
  const options = { lazyConnect: true, maxRetriesPerRequest: 3 } as const;
  const publishClient = new Redis(url, options);
  const subscribeClient = new Redis(url, options);
  try {
    await Promise.all([publishClient.connect(), subscribeClient.connect()]);
  } catch (e) {
    publishClient.disconnect();
    subscribeClient.disconnect();
    throw new Error(`cannot reach Redis at REDIS_URL: ${(e as Error).message}`, { cause: e });
  }
  return {
    target: prefixedTransport(createRedisEventTarget({ publishClient, subscribeClient }), prefix),
    async close() {
      await Promise.allSettled([publishClient.quit(), subscribeClient.quit()]);
    },
  };
}

/**
 * The event bus: services publish (graphql-yoga's pubsub), subscribers listen through feeds
 * (event-feed.ts), in this process or through `transport`. A subscriber may pass the events it
 * wants (`accept`): the others are dropped before they are queued.
 */
export function createEventBus(transport?: EventTransport) {
  const eventTarget: EventTransport = transport ?? (new EventTarget() as EventTransport);
  const pubsub = createPubSub<{
    library: [LibraryEvent];
    assembly: [AssemblyProgressEvent];
    work: [WorkEvent];
    secrets: [SecretsEvent];
    sessions: [SessionsEvent];
  }>({
    eventTarget,
  });
  const library = createTopicFeeds<LibraryEvent>(eventTarget, "library");
  const assembly = createTopicFeeds<AssemblyProgressEvent>(eventTarget, "assembly");
  const work = createTopicFeeds<WorkEvent>(eventTarget, "work");
  const secrets = createTopicFeeds<SecretsEvent>(eventTarget, "secrets");
  const sessions = createTopicFeeds<SessionsEvent>(eventTarget, "sessions");
  return {
    publish(kind: LibraryEvent["kind"], seriesId: number | null): void {
      pubsub.publish("library", { kind, seriesId, at: new Date().toISOString() });
    },
    subscribe: (accept?: (e: LibraryEvent) => boolean) => library.subscribe(accept),
    publishAssembly: (e: AssemblyProgressEvent): void => pubsub.publish("assembly", e),
    subscribeAssembly: (accept?: (e: AssemblyProgressEvent) => boolean) => assembly.subscribe(accept),
    /** Tells the workers of every instance that `queue` has new work. */
    publishWork: (queue: WorkEvent["queue"]): void => pubsub.publish("work", { queue }),
    subscribeWork: () => work.subscribe(),
    /** Tells the other instances that `instanceId` rewrote the secrets file (no value travels). */
    publishSecretsChanged: (instanceId: string): void => pubsub.publish("secrets", { instanceId }),
    subscribeSecrets: (accept?: (e: SecretsEvent) => boolean) => secrets.subscribe(accept),
    /** Tells the other instances that these sessions ended on `instanceId` (ids only). */
    publishSessionsEnded: (instanceId: string, ids: number[]): void => pubsub.publish("sessions", { instanceId, ids }),
    subscribeSessions: (accept?: (e: SessionsEvent) => boolean) => sessions.subscribe(accept),
    downloads: createDownloadEvents(eventTarget),
    translations: createTranslationEvents(eventTarget),
  };
}

export type EventBus = ReturnType<typeof createEventBus>;
