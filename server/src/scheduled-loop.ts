/**
 * The one helper behind every scheduled job (the Wanted schedule, the assembly monitor, the recycle
 * bin's purge): a cycle every `intervalMs`, the next one scheduled only after the last has ended (a
 * slow cycle never overlaps itself), a run on request that joins the cycle under way, a status for
 * the API, and a stop that waits for the cycle under way. A failed cycle is logged and the schedule
 * goes on. Timers never keep the process alive.
 *
 * With several instances on one database, a guard (library/cluster.ts `turn`) lets one instance at a
 * time run a cycle: a timed cycle is skipped when another instance has the turn, a requested one
 * waits for it.
 */
export interface LoopStatus<T> {
  lastRun: string | null;
  nextRun: string | null;
  running: boolean;
  lastOutcome: T | null;
}

export interface ScheduledLoop<T> {
  /** Runs one cycle now, or joins the one under way. */
  runNow(): Promise<T>;
  status(): LoopStatus<T>;
  /** Starts the schedule (a no-op when it is already started). */
  start(intervalMs: number): void;
  /** Stops the schedule and waits for the cycle under way, if any. */
  stop(): Promise<void>;
}

/** Runs `fn` in the turn `name` (waiting for it, or skipping when another instance has it). */
export type LoopGuard = <T>(
  name: string,
  fn: () => Promise<T>,
  wait: boolean,
) => Promise<{ ran: true; value: T } | { ran: false }>;

export function scheduledLoop<T>(
  name: string,
  cycle: () => Promise<T>,
  log: (message: string) => void,
  guard?: LoopGuard,
): ScheduledLoop<T> {
  let lastRun: Date | null = null;
  let nextRun: Date | null = null;
  let lastOutcome: T | null = null;
  let current: Promise<T> | null = null;
  let timer: NodeJS.Timeout | null = null;

  const run = (wait: boolean): Promise<T | undefined> =>
    (current ??= (guard ? guard(name, cycle, wait) : cycle().then((value) => ({ ran: true as const, value })))
      .then((o) => (o.ran ? (lastOutcome = o.value) : lastOutcome))
      .finally(() => {
        lastRun = new Date();
        current = null;
      }) as Promise<T>);
  // A requested run waits for the turn, so it always runs a cycle and has its outcome.
  const runNow = () => run(true) as Promise<T>;

  return {
    runNow,
    status: () => ({
      lastRun: lastRun?.toISOString() ?? null,
      nextRun: nextRun?.toISOString() ?? null,
      running: current !== null,
      lastOutcome,
    }),
    start(intervalMs: number): void {
      const schedule = () => {
        nextRun = new Date(Date.now() + intervalMs);
        timer = setTimeout(() => {
          run(false)
            .catch((e: unknown) => log(`${name}: cycle failed: ${(e as Error).message}`))
            .finally(() => timer !== null && schedule());
        }, intervalMs);
        timer.unref();
      };
      if (timer === null) schedule();
    },
    async stop(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = null;
      nextRun = null;
      await current?.catch(() => undefined);
    },
  };
}
