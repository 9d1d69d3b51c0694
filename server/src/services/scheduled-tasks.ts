/**
 * The scheduled passes as one list, as the *arr apps' System → Tasks (the recycle bin's purge too,
 * as their "Clean Up Recycle Bin"): each pass's interval, last and next cycle, whether it runs now,
 * and a run on request (joining a cycle under way). The passes themselves are the services' own
 * loops (scheduled-loop.ts); this only names them. The last run is also read from the kept times,
 * so an instance that runs no schedules (INSTANCE_ROLE `api`) still says when a worker last ran
 * each pass, and when it runs next.
 */
import { AppError } from "../errors.ts";
import { PURGE_INTERVAL_MS } from "../library/publication.ts";
import type { LoopStatus } from "../scheduled-loop.ts";
import type { AppContext } from "./context.ts";

export const SCHEDULED_TASK_NAMES = [
  "wanted",
  "assembly",
  "catalogue_refresh",
  "library_scan",
  "recycle_bin_purge",
] as const;
export type ScheduledTaskName = (typeof SCHEDULED_TASK_NAMES)[number];

export interface ScheduledTaskStatus {
  name: ScheduledTaskName;
  /** Seconds between cycles; 0 when the pass runs only on request (the library scan switched off). */
  intervalSeconds: number;
  lastRun: string | null;
  nextRun: string | null;
  running: boolean;
}

/** What the list needs of a pass: its loop's name (its kept time's key), its status and a run now. */
interface Pass {
  readonly name: string;
  status(): Pick<LoopStatus<unknown>, "lastRun" | "nextRun" | "running">;
  runNow(): Promise<unknown>;
}

export function scheduledTasks(ctx: AppContext, passes: Record<ScheduledTaskName, Pass>) {
  const { config } = ctx;
  const intervals: Record<ScheduledTaskName, number> = {
    wanted: config.downloads.wantedIntervalSeconds,
    assembly: config.assemblyMonitorIntervalSeconds,
    catalogue_refresh: config.catalogues.refreshIntervalSeconds,
    library_scan: config.libraryScanIntervalSeconds,
    recycle_bin_purge: PURGE_INTERVAL_MS / 1000,
  };
  const statusOf = (name: ScheduledTaskName, kept: Map<string, Date>): ScheduledTaskStatus => {
    const s = passes[name].status();
    // The later of this instance's last cycle and the kept one (another instance's, or before a restart).
    const stored = kept.get(passes[name].name)?.toISOString() ?? null;
    const lastRun = s.lastRun && stored ? (s.lastRun > stored ? s.lastRun : stored) : (s.lastRun ?? stored);
    // An instance that runs no schedules has no loop to ask: the workers' next cycle is their kept
    // last one plus the interval (as the *arr apps' task list computes it).
    const nextRun =
      s.nextRun ??
      (config.instanceRole === "api" && lastRun && intervals[name] > 0
        ? new Date(Date.parse(lastRun) + intervals[name] * 1000).toISOString()
        : null);
    return { name, intervalSeconds: intervals[name], lastRun, nextRun, running: s.running };
  };
  const isName = (name: string): name is ScheduledTaskName =>
    (SCHEDULED_TASK_NAMES as readonly string[]).includes(name);
  return {
    async list(): Promise<ScheduledTaskStatus[]> {
      const kept = await ctx.repos.scheduledRuns.all();
      return SCHEDULED_TASK_NAMES.map((name) => statusOf(name, kept));
    },
    /** Runs the pass now (or joins its cycle under way) and answers its status after it; 404 `task_not_found`. */
    async run(name: string): Promise<ScheduledTaskStatus> {
      if (!isName(name)) {
        throw new AppError("task_not_found", `no scheduled task is named "${name}"`, {
          names: [...SCHEDULED_TASK_NAMES],
        });
      }
      await passes[name].runNow();
      return statusOf(name, await ctx.repos.scheduledRuns.all());
    },
  };
}
