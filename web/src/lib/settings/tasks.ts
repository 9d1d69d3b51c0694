/**
 * The Settings page's scheduled tasks (the *arr apps' System → Tasks): the GraphQL documents and
 * the words. The passes, their intervals and times are the server's; only the wording is here.
 */
import { graphql, type ResultOf } from "$lib/gql";
import { relativeTime } from "$lib/recycle/time";

const TASK_FIELDS = graphql(`
  fragment ScheduledTaskFields on ScheduledTask {
    name
    intervalSeconds
    lastRun
    nextRun
    running
  }
`);

export type ScheduledTask = ResultOf<typeof TASK_FIELDS>;
export type TaskName = ScheduledTask["name"];

export const SCHEDULED_TASKS_QUERY = graphql(
  `
    query ScheduledTasks {
      scheduledTasks {
        ...ScheduledTaskFields
      }
    }
  `,
  [TASK_FIELDS],
);

export const RUN_SCHEDULED_TASK = graphql(
  `
    mutation RunScheduledTask($name: ScheduledTaskName!) {
      runScheduledTask(name: $name) {
        ...ScheduledTaskFields
      }
    }
  `,
  [TASK_FIELDS],
);

const WORDS: Record<TaskName, { title: string; does: string }> = {
  WANTED: {
    title: "Wanted pass",
    does: "Refreshes the sources of every monitored series, then queues what is missing.",
  },
  ASSEMBLY: {
    title: "Automatic assembly",
    does: "Assembles the books whose chapters are all on disk, in series that ask for it.",
  },
  CATALOGUE_REFRESH: {
    title: "Catalogue refresh",
    does: "Refreshes the catalogue data of every linked series.",
  },
  LIBRARY_SCAN: {
    title: "Library scan",
    does: "Finds files added to or removed from the library folder.",
  },
  RECYCLE_BIN_PURGE: {
    title: "Recycle bin purge",
    does: "Removes for good the files whose time in the recycle bin is up (also at every start).",
  },
};

export const taskTitle = (name: TaskName): string => WORDS[name].title;
export const taskDoes = (name: TaskName): string => WORDS[name].does;

/** "every 15 minutes", "every hour", "every 6 hours", "every day", "on request only". */
export function intervalWords(seconds: number): string {
  if (seconds <= 0) return "on request only";
  const units: [number, string][] = [
    [86_400, "day"],
    [3600, "hour"],
    [60, "minute"],
    [1, "second"],
  ];
  for (const [size, unit] of units) {
    if (seconds % size === 0) {
      const n = seconds / size;
      return n === 1 ? `every ${unit}` : `every ${n} ${unit}s`;
    }
  }
  return `every ${seconds} seconds`;
}

/** "3 hours ago", or "never" before the first cycle (kept across restarts by the server). */
export function lastRunWords(task: Pick<ScheduledTask, "lastRun">, now: Date = new Date()): string {
  return task.lastRun ? relativeTime(task.lastRun, now) : "never";
}

/** "in 40 minutes", "running now", "not scheduled" (on request only, or this instance runs no schedules). */
export function nextRunWords(task: Pick<ScheduledTask, "nextRun" | "running">, now: Date = new Date()): string {
  if (task.running) return "running now";
  if (!task.nextRun) return "not scheduled";
  return Date.parse(task.nextRun) <= now.getTime() ? "due now" : relativeTime(task.nextRun, now);
}

/** What a run on request says when it has ended. */
export function ranMessage(task: Pick<ScheduledTask, "name">): string {
  return `${taskTitle(task.name)} ran.`;
}
