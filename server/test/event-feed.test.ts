/**
 * The event bus's feeds (src/event-feed.ts): one listener per topic, events in order, a filter
 * applied on arrival, events queued from the subscription on, the end of a subscription, and a
 * subscriber that stops reading.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createTopicFeeds, FEED_BACKLOG_LIMIT, FeedOverflowError, type Listenable } from "../src/event-feed.ts";

/** An EventTarget that counts its listeners per topic. */
function countingTarget() {
  const target = new EventTarget();
  const listeners = new Map<string, number>();
  const t: Listenable & { send(topic: string, detail: unknown): void; listeners: Map<string, number> } = {
    addEventListener(topic, listener) {
      listeners.set(topic, (listeners.get(topic) ?? 0) + 1);
      target.addEventListener(topic, listener);
    },
    removeEventListener(topic, listener) {
      listeners.set(topic, (listeners.get(topic) ?? 0) - 1);
      target.removeEventListener(topic, listener);
    },
    send: (topic, detail) => target.dispatchEvent(new CustomEvent(topic, { detail })),
    listeners,
  };
  return t;
}

async function take<T>(feed: AsyncIterator<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  for (let k = 0; k < n; k++) {
    const r = await feed.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

describe("topic feeds", () => {
  it("listen once per topic however many subscribe, and stop listening when the last one leaves", async () => {
    const t = countingTarget();
    const feeds = createTopicFeeds<number>(t, "n");
    const a = feeds.subscribe();
    const b = feeds.subscribe();
    expect(t.listeners.get("n")).toBe(1);
    t.send("n", 1);
    t.send("other", 99);
    expect(await take(a, 1)).toEqual([1]);
    expect(await take(b, 1)).toEqual([1]);
    await a.return();
    expect(t.listeners.get("n")).toBe(1);
    await b.return();
    expect(t.listeners.get("n")).toBe(0);
    expect(feeds.size).toBe(0);
    expect(await a.next()).toEqual({ value: undefined, done: true });
  });

  it("queue from the subscription on, before anyone asks, and hand the events over in order through the filter", () =>
    fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 60 }), async (events) => {
        const t = countingTarget();
        const feeds = createTopicFeeds<number>(t, "n");
        const all = feeds.subscribe();
        const even = feeds.subscribe((e) => e % 2 === 0);
        for (const e of events) t.send("n", e);
        const wanted = events.filter((e) => e % 2 === 0);
        expect(await take(all, events.length)).toEqual(events);
        expect(await take(even, wanted.length)).toEqual(wanted);
        await Promise.all([all.return(), even.return()]);
      }),
    ));

  it("wake a waiting reader, and tell it done when the subscription ends", async () => {
    const t = countingTarget();
    const feeds = createTopicFeeds<string>(t, "s");
    const feed = feeds.subscribe();
    const first = feed.next();
    t.send("s", "x");
    expect(await first).toEqual({ value: "x", done: false });
    const second = feed.next();
    await feed.return();
    expect(await second).toEqual({ value: undefined, done: true });
    t.send("s", "y");
    expect(await feed.next()).toEqual({ value: undefined, done: true });
  });

  it("end a subscriber that stops reading with an error, and go on serving the others", async () => {
    const t = countingTarget();
    const feeds = createTopicFeeds<number>(t, "n");
    const stuck = feeds.subscribe();
    const reader = feeds.subscribe();
    const seen: number[] = [];
    const reading = (async () => {
      for await (const e of reader) {
        seen.push(e);
        if (seen.length === FEED_BACKLOG_LIMIT + 10) break;
      }
    })();
    for (let k = 0; k < FEED_BACKLOG_LIMIT + 10; k++) {
      t.send("n", k);
      await Promise.resolve();
    }
    await reading;
    expect(seen).toHaveLength(FEED_BACKLOG_LIMIT + 10);
    await expect(stuck.next()).rejects.toBeInstanceOf(FeedOverflowError);
    expect(await stuck.next()).toEqual({ value: undefined, done: true });
    expect(feeds.size).toBe(0);
    expect(t.listeners.get("n")).toBe(0);
  });

  it("end on throw()", async () => {
    const feeds = createTopicFeeds<number>(countingTarget(), "n");
    const feed = feeds.subscribe();
    await expect(feed.throw?.(new Error("stop"))).rejects.toThrow("stop");
    expect(feeds.size).toBe(0);
    expect(await feed.next()).toEqual({ value: undefined, done: true });
  });
});
