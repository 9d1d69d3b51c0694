/**
 * Requests in flight, so that background work steps aside for them: the page checks
 * (services/audit/page-signature-worker.ts) run in this process, and on a machine with two busy
 * cores an audit page that arrived while an archive was being decoded waited for a core behind it
 * (p99 of 55–79 ms against 6–14 ms for the median). Before each archive the checks now wait until
 * no request has run for a moment, and never longer than a bound, so they still progress under a
 * steady load.
 */
import { performance } from "node:perf_hooks";

export interface RequestActivity {
  /** A request started (the HTTP server calls this)… */
  began(): void;
  /** …and its response is finished or its connection gone. */
  ended(): void;
  /** Requests started and not yet ended. */
  inFlight(): number;
  /** Resolves once no request has run for `idleMs`, or after `maxWaitMs` at most. */
  quiet(idleMs: number, maxWaitMs: number): Promise<void>;
}

export function requestActivity(now: () => number = () => performance.now()): RequestActivity {
  let inFlight = 0;
  let lastEnded = -Infinity;
  const idleFor = (ms: number) => inFlight === 0 && now() - lastEnded >= ms;
  return {
    began() {
      inFlight += 1;
    },
    ended() {
      inFlight = Math.max(0, inFlight - 1);
      lastEnded = now();
    },
    inFlight: () => inFlight,
    async quiet(idleMs, maxWaitMs) {
      const until = now() + maxWaitMs;
      while (!idleFor(idleMs) && now() < until) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(idleMs, until - now()))));
      }
    },
  };
}
