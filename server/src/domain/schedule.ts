/**
 * When a scheduled pass first runs after a start (docs/rules.md, "Scheduled passes"). The *arr apps
 * keep each scheduled task's last run and run a task that is overdue when they start; a pass timed
 * from the start alone would never run on a service restarted more often than its interval.
 */

/**
 * Milliseconds from `now` to the first cycle: one interval after the last recorded cycle, at once
 * (0) when that moment has passed, one interval after the start when no cycle is recorded. Never
 * more than one interval: a last run in the future (a clock set back) counts as now.
 */
export function firstRunDelay(lastRun: Date | null, intervalMs: number, now: Date): number {
  const interval = Math.max(0, intervalMs);
  if (lastRun === null || Number.isNaN(lastRun.getTime())) return interval;
  const due = lastRun.getTime() + interval - now.getTime();
  return Math.min(interval, Math.max(0, due));
}
