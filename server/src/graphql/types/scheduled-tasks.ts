/** The scheduled passes as one list (REST GET /api/system/tasks, POST /api/system/tasks/{name}/run). */
import { builder } from "../builder.ts";
import type { ScheduledTaskName, ScheduledTaskStatus } from "../../services/scheduled-tasks.ts";

const ScheduledTaskNameEnum = builder.enumType("ScheduledTaskName", {
  description: "A scheduled pass; REST names it in lower case.",
  values: {
    WANTED: {
      value: "wanted",
      description: "Every monitored series' sources refreshed, then its Wanted pass (WANTED_INTERVAL_SECONDS).",
    },
    ASSEMBLY: {
      value: "assembly",
      description: "Automatic assembly of the series that ask for it (ASSEMBLY_MONITOR_INTERVAL_SECONDS).",
    },
    CATALOGUE_REFRESH: {
      value: "catalogue_refresh",
      description: "Every linked series' catalogue data (CATALOGUE_REFRESH_INTERVAL_SECONDS).",
    },
    LIBRARY_SCAN: {
      value: "library_scan",
      description: "The library scan (LIBRARY_SCAN_INTERVAL_SECONDS; 0: on request only).",
    },
    RECYCLE_BIN_PURGE: {
      value: "recycle_bin_purge",
      description:
        "Removes the recycle bin's copies kept longer than RECYCLE_RETENTION_DAYS (every 6 hours and at start).",
    },
  } satisfies Record<string, { value: ScheduledTaskName; description: string }>,
});

const ScheduledTaskRef = builder.objectRef<ScheduledTaskStatus>("ScheduledTask").implement({
  description:
    "A scheduled pass: the Wanted pass, the automatic assembly, the catalogue refresh, the library scan or the recycle bin's purge. Its last cycle is kept across restarts.",
  fields: (t) => ({
    name: t.field({ type: ScheduledTaskNameEnum, resolve: (s) => s.name }),
    intervalSeconds: t.exposeInt("intervalSeconds", {
      description: "Seconds between cycles; 0 when the pass runs only on request.",
    }),
    lastRun: t.exposeString("lastRun", { nullable: true, description: "ISO 8601." }),
    nextRun: t.exposeString("nextRun", {
      nullable: true,
      description:
        "ISO 8601; null when none is scheduled. On an instance that runs no schedules: the kept last run plus the interval.",
    }),
    running: t.exposeBoolean("running"),
  }),
});

builder.queryFields((t) => ({
  scheduledTasks: t.field({
    type: [ScheduledTaskRef],
    resolve: (_r, _a, { services }) => services.scheduledTasks.list(),
  }),
}));

builder.mutationFields((t) => ({
  runScheduledTask: t.field({
    type: ScheduledTaskRef,
    description: "Runs the pass now (joining a cycle under way) and answers its status after it.",
    args: { name: t.arg({ type: ScheduledTaskNameEnum, required: true }) },
    resolve: (_r, { name }, { services }) => services.scheduledTasks.run(name),
  }),
}));
