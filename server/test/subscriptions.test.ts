/**
 * Live updates: `libraryEvents` over graphql-ws on the service's own port, published by the
 * services after their writes (the same services REST and GraphQL call).
 */
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createTestApp, TEST_API_KEY, type TestApp } from "./utils.ts";

let app: TestApp;
let client: Client;

interface Event {
  kind: string;
  seriesId: number | null;
}

/** Subscribes and collects events until `count` arrived (or fails after a timeout). */
function collect(
  query: string,
  count: number,
  variables?: Record<string, unknown>,
): { done: Promise<Event[]>; ready: Promise<void> } {
  const events: Event[] = [];
  let markReady: () => void = () => {};
  const ready = new Promise<void>((r) => (markReady = r));
  const done = new Promise<Event[]>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`only ${events.length} of ${count} events: ${JSON.stringify(events)}`)),
      10_000,
    );
    const dispose = client.subscribe<{ libraryEvents: Event }>(
      { query, ...(variables ? { variables } : {}) },
      {
        next: (r) => {
          if (r.errors) {
            clearTimeout(timer);
            reject(r.errors);
            return;
          }
          if (r.data) events.push(r.data.libraryEvents);
          if (events.length === count) {
            clearTimeout(timer);
            dispose();
            resolve(events);
          }
        },
        error: (e) => {
          clearTimeout(timer);
          reject(e instanceof Error ? e : new Error(JSON.stringify(e)));
        },
        complete: () => {},
      },
    );
    // graphql-ws has no "subscribed" callback: a short pause lets the server register the iterator.
    setTimeout(markReady, 200);
  });
  return { done, ready };
}

beforeAll(async () => {
  app = await createTestApp();
  client = createClient({
    url: `${app.baseUrl.replace("http", "ws")}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { apiKey: TEST_API_KEY },
    lazy: true,
    retryAttempts: 0,
  });
});

afterAll(async () => {
  await client.dispose();
  await app.dispose();
});

describe("libraryEvents", () => {
  it("tells a subscriber about a series change, a map change and a finished scan, in order", async () => {
    const created = (await (await app.api("/api/manga", { method: "POST", json: { title: "Live One" } })).json()) as {
      id: number;
    };
    const sub = collect("subscription { libraryEvents { kind seriesId at } }", 3);
    await sub.ready;
    expect((await app.api(`/api/manga/${created.id}`, { method: "PATCH", json: { status: "finished" } })).status).toBe(
      200,
    );
    const put = await app.api(`/api/manga/${created.id}/chapter-map`, {
      method: "PUT",
      json: { revision: 0, entries: [{ volume: "1", chapters: ["1", "2"] }] },
    });
    expect(put.status).toBe(200);
    expect((await app.api("/api/library/scan", { method: "POST" })).status).toBe(200);
    expect(await sub.done).toEqual(
      [
        { kind: "SERIES_CHANGED", seriesId: created.id },
        { kind: "MAP_CHANGED", seriesId: created.id },
        { kind: "SCAN_FINISHED", seriesId: null },
      ].map((e) => ({ ...e, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown as string })),
    );
  });

  it("filters by series, and a dry run publishes nothing", async () => {
    const a = (await (await app.api("/api/manga", { method: "POST", json: { title: "Live A" } })).json()) as {
      id: number;
    };
    const b = (await (await app.api("/api/manga", { method: "POST", json: { title: "Live B" } })).json()) as {
      id: number;
    };
    const sub = collect(`subscription { libraryEvents(seriesId: ${b.id}) { kind seriesId } }`, 1);
    await sub.ready;
    await app.api(`/api/manga/${a.id}`, { method: "PATCH", json: { monitored: false } });
    await app.api(`/api/manga/${b.id}/chapter-map?dry_run=true`, {
      method: "PUT",
      json: { revision: 0, entries: [{ volume: "1", chapters: ["1"] }] },
    });
    await app.api(`/api/manga/${b.id}`, { method: "PATCH", json: { monitored: false } });
    expect(await sub.done).toEqual([{ kind: "SERIES_CHANGED", seriesId: b.id }]);
  });

  it("filters by a series given in a variable, whatever the variable is called", async () => {
    const a = (await (await app.api("/api/manga", { method: "POST", json: { title: "Var A" } })).json()) as {
      id: number;
    };
    const b = (await (await app.api("/api/manga", { method: "POST", json: { title: "Var B" } })).json()) as {
      id: number;
    };
    const sub = collect("subscription($which: Int) { libraryEvents(seriesId: $which) { kind seriesId } }", 2, {
      which: b.id,
    });
    await sub.ready;
    await app.api(`/api/manga/${a.id}`, { method: "PATCH", json: { monitored: false } });
    await app.api(`/api/manga/${b.id}`, { method: "PATCH", json: { monitored: false } });
    expect((await app.api("/api/library/scan", { method: "POST" })).status).toBe(200);
    expect(await sub.done).toEqual([
      { kind: "SERIES_CHANGED", seriesId: b.id },
      { kind: "SCAN_FINISHED", seriesId: null },
    ]);
  });

  it("refuses a variable that does not coerce, with bad_request", async () => {
    const sub = collect("subscription($which: Int) { libraryEvents(seriesId: $which) { kind } }", 1, {
      which: "three",
    });
    const error = (await sub.done.then(
      () => [],
      (e: unknown) => e,
    )) as { message: string; extensions?: { code?: string } }[];
    expect(error).toEqual([
      expect.objectContaining({
        message: expect.stringContaining("$which") as unknown as string,
        extensions: expect.objectContaining({ code: "bad_request" }) as unknown,
      }),
    ]);
  });
});
