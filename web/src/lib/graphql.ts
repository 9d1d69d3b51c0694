/**
 * The urql client of the web app.
 *
 * - Same origin: queries and mutations go over HTTP POST to `/graphql` with the browser's
 *   session cookie (HttpOnly, set by `POST /api/session`). The API key never reaches the browser.
 * - Subscriptions go over WebSocket to `/graphql` (graphql-ws, protocol `graphql-transport-ws`).
 *   The graphql-ws client is loaded and created lazily, in the browser only, on the first
 *   subscription; the cookie travels with the WebSocket upgrade request.
 * - Each time the WebSocket connection is (re)established, `onLiveConnection` listeners run, once
 *   the waiting subscriptions are on the new socket: a change made before a subscription was live
 *   (between a page's first query and its subscription, or while the socket was down) was never
 *   pushed, so the pages ask again then (one query per connection, not per event).
 * - An answer with HTTP 401, or an error with `extensions.code === "unauthenticated"`, or a
 *   WebSocket closed with 4401/4403, calls the unauthenticated handler (the root layout installs
 *   one that navigates to `/login?next=…`).
 *
 * No SvelteKit imports here, so the factory can be tested under vitest with a fake fetch.
 */
import {
  Client,
  cacheExchange,
  fetchExchange,
  mapExchange,
  subscriptionExchange,
  type Exchange,
  type ExecutionResult,
} from "@urql/core";
import type { Client as WsClient } from "graphql-ws/client";
import { LOGIN_PATH, UNAUTHENTICATED_CLOSE_CODES, isUnauthenticated, loginHref } from "./auth";

export const GRAPHQL_PATH = "/graphql";

export interface GraphqlClientOptions {
  /** HTTP endpoint; same-origin `/graphql` by default. */
  url?: string;
  /** Called on every answer saying the session is missing or expired (getClient() debounces). */
  onUnauthenticated: () => void;
  /** For tests and non-browser use. */
  fetch?: typeof fetch;
  /** WebSocket endpoint; derived from `location` by default. */
  wsUrl?: () => string;
  /** Called after each (re)connection of the WebSocket, once the waiting subscriptions are sent. */
  onConnected?: () => void;
}

/** `ws://host/graphql` or `wss://host/graphql` for the page's own origin. */
export function sameOriginWsUrl(loc: Pick<Location, "protocol" | "host"> = window.location): string {
  return `${loc.protocol === "https:" ? "wss:" : "ws:"}//${loc.host}${GRAPHQL_PATH}`;
}

/** Reports unauthenticated results; the results themselves still reach the caller. */
export function authExchange(onUnauthenticated: () => void): Exchange {
  return mapExchange({
    onError(error) {
      if (isUnauthenticated(error)) onUnauthenticated();
    },
  });
}

export function createGraphqlClient(options: GraphqlClientOptions): Client {
  const notify = options.onUnauthenticated;
  let ws: Promise<WsClient> | null = null;

  function wsClient(): Promise<WsClient> {
    if (typeof window === "undefined") {
      return Promise.reject(new Error("GraphQL subscriptions run in the browser only"));
    }
    ws ??= import("graphql-ws/client").then(({ createClient }) =>
      createClient({
        url: options.wsUrl ?? (() => sameOriginWsUrl()),
        lazy: true,
        // Keep a live connection for a moment after the last subscription ends, so that
        // navigating between pages that both subscribe does not reconnect every time.
        lazyCloseTimeout: 3_000,
        retryAttempts: 8,
        shouldRetry: (event) => !isAuthClose(event),
        on: {
          // graphql-ws sends the waiting subscriptions right after this event (a few microtasks
          // later): a task queued now runs once they are on the socket.
          connected: () => {
            if (options.onConnected) setTimeout(options.onConnected, 0);
          },
          closed: (event) => {
            if (isAuthClose(event)) notify();
          },
        },
      }),
    );
    ws.catch(() => {
      ws = null;
    });
    return ws;
  }

  return new Client({
    url: options.url ?? GRAPHQL_PATH,
    fetch: options.fetch,
    // POST for every operation: a JSON body cannot be sent cross-site without a preflight.
    preferGetMethod: false,
    fetchOptions: { credentials: "same-origin" },
    exchanges: [
      authExchange(notify),
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const payload = { ...request, query: request.query ?? "" };
          return {
            subscribe(sink) {
              let dispose: (() => void) | null = null;
              let done = false;
              wsClient().then(
                (client) => {
                  if (done) return;
                  dispose = client.subscribe(payload, {
                    next: (value) => sink.next(value as ExecutionResult),
                    complete: () => sink.complete(),
                    error: (error: unknown) => sink.error(readableError(error)),
                  });
                },
                (error: unknown) => {
                  if (!done) sink.error(error);
                },
              );
              return {
                unsubscribe() {
                  done = true;
                  dispose?.();
                },
              };
            },
          };
        },
      }),
    ],
  });
}

/** graphql-ws reports a closed socket as a CloseEvent: give urql an Error that says so. */
function readableError(error: unknown): unknown {
  if (error instanceof Error || Array.isArray(error)) return error;
  const { code, reason } = (error ?? {}) as { code?: unknown; reason?: unknown };
  if (typeof code === "number") {
    const why = typeof reason === "string" && reason ? `: ${reason}` : "";
    return new Error(`The live connection closed (${code}${why})`);
  }
  return error;
}

function isAuthClose(event: unknown): boolean {
  const code = (event as { code?: unknown } | null)?.code;
  return typeof code === "number" && UNAUTHENTICATED_CLOSE_CODES.has(code);
}

/* ----------------------------------------------------------------------------------------- */
/* The app's one client.                                                                      */
/* ----------------------------------------------------------------------------------------- */

let handler: () => void = defaultUnauthenticated;
const connectionListeners = new Set<() => void>();
let redirecting = false;
let client: Client | null = null;

function defaultUnauthenticated(): void {
  if (typeof window === "undefined") return;
  const { pathname, search, hash } = window.location;
  if (pathname === LOGIN_PATH) return;
  window.location.assign(loginHref(pathname + search + hash));
}

/**
 * Install what happens on an unauthenticated answer (the root layout uses SvelteKit's `goto`).
 * Several queries failing together trigger one redirect.
 */
export function setUnauthenticatedHandler(fn: () => void): void {
  handler = fn;
}

function onUnauthenticated(): void {
  if (redirecting) return;
  redirecting = true;
  queueMicrotask(() => {
    try {
      handler();
    } finally {
      // Allow a later expiry (after the next login) to redirect again.
      setTimeout(() => {
        redirecting = false;
      }, 1_000);
    }
  });
}

/**
 * Runs `listener` each time the live connection is (re)established, until the returned function is
 * called. A subscription's owner refetches what it shows then: events sent before the
 * subscription reached the server are lost.
 */
export function onLiveConnection(listener: () => void): () => void {
  connectionListeners.add(listener);
  return () => connectionListeners.delete(listener);
}

function onConnected(): void {
  for (const listener of [...connectionListeners]) listener();
}

/** The shared client (created on first use). */
export function getClient(): Client {
  client ??= createGraphqlClient({ onUnauthenticated, onConnected });
  return client;
}
