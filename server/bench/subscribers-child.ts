/**
 * The measuring clients of `pnpm bench instances` in a process of their own, so that their work
 * (WebSocket frames, JSON, graphql-ws) is not done on the event loop that also drives the burst,
 * and their busy share is reported: a client that is busy all the time would measure itself.
 *
 * Spoken to over IPC: `start` opens the subscribers, answers `connected` once every connection was
 * acknowledged; `collect` answers once `expected` deliveries arrived (or after `timeoutMs`) with each
 * delivery's delay (arrival − the event's `at`, one clock) and the client's event-loop utilisation.
 */
import { performance } from "node:perf_hooks";
import type { Client } from "graphql-ws";
import { wsClient } from "../test/instances.ts";

export type ToChild =
  | { type: "start"; bases: string[]; subscribers: number; query: string }
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
    }
  | { type: "failed"; message: string };

const send = (m: FromChild) => process.send?.(m);
const clients: Client[] = [];
const delays: number[][] = [];
const events = new Map<string, [number, number][]>();
let errors = 0;
let received = 0;
let onDelivery: () => void = () => {};

function start(m: Extract<ToChild, { type: "start" }>): void {
  let connected = 0;
  for (const _ of m.bases) delays.push([]);
  const timer = setTimeout(
    () => send({ type: "failed", message: `only ${connected} of ${m.subscribers} subscribers connected in 60 s` }),
    60_000,
  );
  for (let n = 0; n < m.subscribers; n++) {
    const base = n % m.bases.length;
    const mine = delays[base] as number[];
    const client = wsClient(m.bases[n % m.bases.length] as string);
    clients.push(client);
    client.on("connected", () => {
      connected += 1;
      if (connected === m.subscribers) {
        clearTimeout(timer);
        send({ type: "connected", connected });
      }
    });
    client.subscribe<{ libraryEvents: { at: string } }>(
      { query: m.query },
      {
        next: (r) => {
          // Taken first: what the client saw arrive, before anything else is done with it.
          const now = Date.now();
          const at = r.data?.libraryEvents.at;
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
        complete: () => {},
      },
    );
  }
}

function collect(m: Extract<ToChild, { type: "collect" }>): void {
  const elu = performance.eventLoopUtilization();
  const finish = (timedOut: boolean) => {
    clearTimeout(timer);
    onDelivery = () => {};
    const busy = performance.eventLoopUtilization(elu).utilization;
    send({ type: "collected", delays, events: [...events], received, errors, timedOut, busy });
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
  else void Promise.allSettled(clients.map((c) => c.dispose())).then(() => process.exit(0));
});
process.on("disconnect", () => process.exit(0));
