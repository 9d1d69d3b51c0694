/**
 * The one helper behind every scheduled job (the Wanted schedule, the assembly monitor, the recycle
 * bin's purge): a cycle every `intervalMs`, the next one scheduled only after the last has ended (a
 * slow cycle never overlaps itself), a run on request that joins the cycle under way (or runs one,
 * and the next cycle comes one interval after it), a status for the API, and a stop that waits for
 * the cycle under way. A failed cycle is logged and the schedule goes on. Timers never keep the
 * process alive.
 *
 * With several instances on one database, a guard (library/cluster.ts `turn`) lets one instance at a
 * time run a cycle: a timed cycle is skipped when another instance has the turn, a requested one
 * waits for it.
 *
 * With a record of runs (repositories/scheduled-run-repo.ts), the time of each cycle that ran is
 * kept across restarts: the first cycle after a start comes one interval after the last recorded
 * one, at once when it is overdue (domain/schedule.ts).
 */
import { firstRunDelay } from "./domain/schedule.ts";

export interface LoopStatus<T> {
  lastRun: string | null;
  nextRun: string | null;
  running: boolean;
  lastOutcome: T | null;
}

export interface ScheduledLoop<T> {
  /** The pass's name: its turn with several instances, its kept time (scheduled_run.name), its log lines. */
  readonly name: string;
  /** Runs one cycle now, or joins the one under way. */
  runNow(): Promise<T>;
  /**
   * A cycle's work done outside the loop (the operator's library scan): kept as a cycle, and the
   * next cycle is one interval after it, as after a run on request.
   */
  noteRun(): Promise<void>;
  status(): LoopStatus<T>;
  /**
   * Starts the schedule (a no-op when it is already started); resolves once the first cycle is
   * timed (the last recorded run read).
   */
  start(intervalMs: number): Promise<void>;
  /** Stops the schedule and waits for the cycle under way, if any. */
  stop(): Promise<void>;
}

/** Runs `fn` in the turn `name` (waiting for it, or skipping when another instance has it). */
export type LoopGuard = <T>(
  name: string,
  fn: () => Promise<T>,
  wait: boolean,
) => Promise<{ ran: true; value: T } | { ran: false }>;

/** Where the time of each pass's last cycle is kept across restarts. */
export interface RunRecord {
  last(name: string): Promise<Date | null>;
  record(name: string, at: Date): Promise<void>;
}

export function scheduledLoop<T>(
  name: string,
  cycle: () => Promise<T>,
  log: (message: string) => void,
  guard?: LoopGuard,
  runs?: RunRecord,
): ScheduledLoop<T> {
  let lastRun: Date | null = null;
  let nextRun: Date | null = null;
  let lastOutcome: T | null = null;
  let current: Promise<T> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let started = false;
  let timing: Promise<void> | null = null;
  let interval = 0;

  // The one timer: scheduling again replaces it (a run on request times the next cycle from itself).
  // `from` is the moment the delay was measured from, so that the next run shown is exactly the
  // kept run plus the interval, not a millisecond later on a busy machine.
  const schedule = (delayMs: number, from = Date.now()) => {
    if (timer) clearTimeout(timer);
    nextRun = new Date(from + delayMs);
    timer = setTimeout(() => {
      run(false)
        .catch((e: unknown) => log(`${name}: cycle failed: ${(e as Error).message}`))
        .finally(() => started && schedule(interval));
    }, delayMs);
    timer.unref();
  };

  // A cycle that ran: its time is kept (a record that fails is logged; the schedule goes on).
  const keep = async (at: Date): Promise<void> => {
    await runs
      ?.record(name, at)
      .catch((e: unknown) => log(`${name}: the time of its last cycle was not kept: ${(e as Error).message}`));
  };
  // The next cycle one interval after `from` (a run on request, or work noted from outside).
  const rescheduleAfter = (from: Date) => {
    const now = new Date();
    schedule(firstRunDelay(from, interval, now), now.getTime());
  };

  const run = (wait: boolean): Promise<T | undefined> => {
    if (current) return current;
    // A cycle skipped because another instance had the turn is that instance's to record.
    let ran = true;
    const cycled = guard ? guard(name, cycle, wait) : cycle().then((value) => ({ ran: true as const, value }));
    current = cycled
      .then((o) => {
        ran = o.ran;
        return o.ran ? (lastOutcome = o.value) : lastOutcome;
      })
      .finally(async () => {
        const at = (lastRun = new Date());
        if (ran) await keep(at);
        current = null;
        // After a run on request the next cycle is one interval after it, as after a restart.
        if (wait && started && timer !== null) rescheduleAfter(at);
      }) as Promise<T>;
    return current;
  };
  // A requested run waits for the turn, so it always runs a cycle and has its outcome.
  const runNow = () => run(true) as Promise<T>;

  const noteRun = async (): Promise<void> => {
    const at = (lastRun = new Date());
    await keep(at);
    // A cycle under way times the next one itself when it ends.
    if (started && timer !== null && current === null) rescheduleAfter(at);
  };

  return {
    name,
    runNow,
    noteRun,
    status: () => ({
      lastRun: lastRun?.toISOString() ?? null,
      nextRun: nextRun?.toISOString() ?? null,
      running: current !== null,
      lastOutcome,
    }),
    start(intervalMs: number): Promise<void> {
      if (started) return timing ?? Promise.resolve();
      started = true;
      interval = intervalMs;
      if (!runs) {
        schedule(intervalMs);
        return Promise.resolve();
      }
      timing = runs
        .last(name)
        .catch((e: unknown) => {
          log(`${name}: the time of its last cycle could not be read: ${(e as Error).message}`);
          return null;
        })
        .then((last) => {
          if (last && lastRun === null) lastRun = last;
          const now = new Date();
          if (started && timer === null) schedule(firstRunDelay(last, intervalMs, now), now.getTime());
        });
      return timing;
    },
    async stop(): Promise<void> {
      started = false;
      if (timer) clearTimeout(timer);
      timer = null;
      nextRun = null;
      await timing;
      await current?.catch(() => undefined);
    },
  };
}
