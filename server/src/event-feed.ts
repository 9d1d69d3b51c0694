/**
 * The subscribing side of the event bus. graphql-yoga's pubsub gives every subscriber a Repeater
 * of its own listening on the transport, and a filter per series was one more async generator per
 * subscriber and event. With 1,000 GraphQL subscribers on two instances (`pnpm bench instances`)
 * a Repeater push took about 16 µs and eight promises, a tenth of an instance's time in a burst
 * before the garbage it leaves: here one listener per topic and process hands each event to its
 * feeds, and a feed is a plain queue that applies its filter when the event arrives.
 */

/** What a transport offers to listen on a topic (EventTarget, graphql-yoga's Redis event target). */
export interface Listenable {
  addEventListener(topic: string, listener: (event: Event) => void): void;
  removeEventListener(topic: string, listener: (event: Event) => void): void;
}

/**
 * Events a subscriber has not taken yet: past this the subscriber is not reading (its socket
 * does not drain) and its feed ends with an error rather than holding the events without bound
 * (graphql-yoga's Repeater had the same bound).
 */
export const FEED_BACKLOG_LIMIT = 1024;

export class FeedOverflowError extends Error {
  constructor() {
    super(`the subscriber fell ${FEED_BACKLOG_LIMIT} events behind; subscribe again`);
  }
}

/** A subscriber's events, in order; `return()` ends the subscription. */
export interface EventFeed<T> extends AsyncIterableIterator<T, undefined> {
  return(): Promise<IteratorResult<T, undefined>>;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

class Feed<T> implements EventFeed<T> {
  private queue: T[] = [];
  private head = 0;
  private waiting: ((r: IteratorResult<T, undefined>) => void) | undefined;
  private failed: Error | undefined;
  private closed = false;

  constructor(
    private readonly accept: ((event: T) => boolean) | undefined,
    private readonly leave: (feed: Feed<T>) => void,
  ) {}

  /** Called by the topic's listener for every event. */
  offer(event: T): void {
    if (this.closed || (this.accept && !this.accept(event))) return;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value: event, done: false });
      return;
    }
    if (this.queue.length - this.head >= FEED_BACKLOG_LIMIT) {
      // Nothing waits here (a waiting reader takes the event at once): the reader hears the error next.
      this.queue = [];
      this.head = 0;
      this.failed = new FeedOverflowError();
      this.close();
      return;
    }
    this.queue.push(event);
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head++] as T;
      if (this.head === this.queue.length) {
        this.queue = [];
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.failed) {
      const e = this.failed;
      this.failed = undefined;
      return Promise.reject(e);
    }
    if (this.closed) return Promise.resolve(DONE);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<T, undefined>> {
    this.queue = [];
    this.head = 0;
    this.failed = undefined;
    this.close();
    return Promise.resolve(DONE);
  }

  throw(e: unknown): Promise<IteratorResult<T, undefined>> {
    void this.return();
    return Promise.reject(e);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.leave(this);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(DONE);
  }
}

/**
 * One topic of a transport, fanned out to its subscribers. The transport is listened to while
 * the topic has subscribers; a feed queues from the moment it is created.
 */
export function createTopicFeeds<T>(transport: Listenable, topic: string) {
  const feeds = new Set<Feed<T>>();
  const listener = (event: Event) => {
    const value = (event as CustomEvent<T>).detail;
    for (const feed of feeds) feed.offer(value);
  };
  const leave = (feed: Feed<T>) => {
    feeds.delete(feed);
    if (feeds.size === 0) transport.removeEventListener(topic, listener);
  };
  return {
    /** A new subscriber, of every event or of those `accept` takes. */
    subscribe(accept?: (event: T) => boolean): EventFeed<T> {
      const feed = new Feed<T>(accept, leave);
      if (feeds.size === 0) transport.addEventListener(topic, listener);
      feeds.add(feed);
      return feed;
    },
    /** Subscribers listening now (for tests). */
    get size() {
      return feeds.size;
    },
  };
}
