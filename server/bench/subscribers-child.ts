/**
 * The measuring clients of `pnpm bench instances` in a process of their own, so that their work
 * (WebSocket frames, JSON, graphql-ws) is not done on the event loop that also drives the burst,
 * and their busy share is reported: a client that is busy all the time would measure itself.
 *
 * Spoken to over IPC: `start` opens the subscribers, answers `connected` once every connection was
 * acknowledged; `collect` answers once `expected` deliveries arrived (or after `timeoutMs`) with each
 * delivery's delay (arrival − the event's `at`, one clock) and the client's event-loop utilisation.
 */
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import WebSocket from "ws";
import { INSTANCE_API_KEY, wsClient } from "../test/instances.ts";

export type ToChild =
  | { type: "start"; bases: string[]; subscribers: number; query: string; client: "graphql-ws" | "protocol" }
  | { type: "collect"; expected: number; timeoutMs: number }
  | { type: "stop" };

export type FromChild =
  | { type: "connected"; connected: number }
  /** `delays[k]`: the deliveries to the subscribers of `bases[k]`, in ms. */
  | {
      type: "collected";
      delays: number[][];
      /** Per event (its `at`) and per base: [first, last] arrival, ms after `at`. */
      events: [string, [number, number][]][];
      received: number;
      errors: number;
      timedOut: boolean;
      busy: number;
      /** The client's own event-loop delay over the burst (ms): how late it could have stamped a delivery. */
      lag: { p99: number; max: number };
    }
  | { type: "failed"; message: string };

const send = (m: FromChild) => process.send?.(m);
const closers: (() => Promise<void>)[] = [];
const delays: number[][] = [];
const events = new Map<string, [number, number][]>();
let errors = 0;
let received = 0;
let onDelivery: () => void = () => {};

interface Handlers {
  connected(): void;
  /** A delivery: the arrival time, taken first thing, and the event's `at`. */
  next(now: number, at: string | undefined): void;
  error(): void;
}

/** A subscriber through the graphql-ws client library. */
function libraryClient(base: string, query: string, h: Handlers): () => Promise<void> {
  const client = wsClient(base);
  client.on("connected", h.connected);
  client.subscribe<{ libraryEvents: { at: string } }>(
    { query },
    {
      next: (r) => h.next(Date.now(), r.data?.libraryEvents.at),
      error: h.error,
      complete: () => {},
    },
  );
  return () => client.dispose() as Promise<void>;
}

/**
 * A subscriber speaking graphql-ws's protocol (graphql-transport-ws) itself on a `ws` socket: the
 * same frames as the library's client with less work per message, so that the measuring side
 * takes less of the cores it shares with the instances.
 */
function protocolClient(base: string, query: string, h: Handlers): () => Promise<void> {
  const socket = new WebSocket(`${base.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws");
  socket.on("open", () =>
    socket.send(JSON.stringify({ type: "connection_init", payload: { apiKey: INSTANCE_API_KEY } })),
  );
  socket.on("message", (data: Buffer) => {
    const now = Date.now();
    const m = JSON.parse(data.toString()) as {
      type: string;
      payload?: { data?: { libraryEvents?: { at?: string } }; errors?: unknown };
    };
    if (m.type === "next") {
      if (m.payload?.errors) h.error();
      else h.next(now, m.payload?.data?.libraryEvents?.at);
    } else if (m.type === "connection_ack") {
      h.connected();
      socket.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query } }));
    } else if (m.type === "ping") socket.send(JSON.stringify({ type: "pong" }));
    else if (m.type === "error") h.error();
  });
  socket.on("error", h.error);
  return () =>
    new Promise<void>((resolve) => {
      if (socket.readyState === WebSocket.CLOSED) return resolve();
      socket.once("close", () => resolve());
      socket.close(1000);
    });
}

function start(m: Extract<ToChild, { type: "start" }>): void {
  let connected = 0;
  for (const _ of m.bases) delays.push([]);
  const timer = setTimeout(
    () => send({ type: "failed", message: `only ${connected} of ${m.subscribers} subscribers connected in 60 s` }),
    60_000,
  );
  const open = m.client === "graphql-ws" ? libraryClient : protocolClient;
  for (let n = 0; n < m.subscribers; n++) {
    const base = n % m.bases.length;
    const mine = delays[base] as number[];
    closers.push(
      open(m.bases[base] as string, m.query, {
        connected: () => {
          connected += 1;
          if (connected === m.subscribers) {
            clearTimeout(timer);
            send({ type: "connected", connected });
          }
        },
        next: (now, at) => {
          if (at) {
            const delay = now - Date.parse(at);
            mine.push(delay);
            let spans = events.get(at);
            if (!spans) events.set(at, (spans = m.bases.map(() => [Infinity, -Infinity])));
            const span = spans[base] as [number, number];
            span[0] = Math.min(span[0], delay);
            span[1] = Math.max(span[1], delay);
          }
          received += 1;
          onDelivery();
        },
        error: () => (errors += 1),
      }),
    );
  }
}

function collect(m: Extract<ToChild, { type: "collect" }>): void {
  const elu = performance.eventLoopUtilization();
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const finish = (timedOut: boolean) => {
    clearTimeout(timer);
    delay.disable();
    onDelivery = () => {};
    const busy = performance.eventLoopUtilization(elu).utilization;
    const lag = { p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 };
    send({ type: "collected", delays, events: [...events], received, errors, timedOut, busy, lag });
  };
  const timer = setTimeout(() => finish(true), m.timeoutMs);
  onDelivery = () => {
    if (received >= m.expected) finish(false);
  };
  if (received >= m.expected) finish(false);
}

process.on("message", (m: ToChild) => {
  if (m.type === "start") start(m);
  else if (m.type === "collect") collect(m);
  else void Promise.allSettled(closers.map((close) => close())).then(() => process.exit(0));
});
process.on("disconnect", () => process.exit(0));
