import type { MonitorBook, MonitorOutcome, MonitorStatus } from "../../services/assembly/assembly-monitor.ts";
import { builder } from "../builder.ts";

/** The automatic-assembly monitor (REST GET /api/monitor/assembly, POST …/run). */
const MonitorBookRef = builder.objectRef<MonitorBook>("AssemblyMonitorBook").implement({
  fields: (t) => ({
    seriesId: t.exposeInt("seriesId"),
    volume: t.exposeString("volume"),
    outcome: t.exposeString("outcome", { description: "assembled | deferred | failed" }),
    code: t.exposeString("code", { nullable: true }),
  }),
});

const MonitorOutcomeRef = builder.objectRef<MonitorOutcome>("AssemblyMonitorOutcome").implement({
  fields: (t) => ({
    attempted: t.exposeInt("attempted"),
    assembled: t.exposeInt("assembled"),
    deferred: t.exposeInt("deferred"),
    failed: t.exposeInt("failed"),
    books: t.field({ type: [MonitorBookRef], resolve: (o) => o.books }),
  }),
});

const MonitorStatusRef = builder.objectRef<MonitorStatus>("AssemblyMonitor").implement({
  description: "Automatic assembly: at most four opted-in books a cycle, deferred while imports are active.",
  fields: (t) => ({
    lastRun: t.exposeString("lastRun", { nullable: true, description: "ISO 8601." }),
    nextRun: t.exposeString("nextRun", { nullable: true, description: "ISO 8601." }),
    running: t.exposeBoolean("running"),
    lastOutcome: t.field({ type: MonitorOutcomeRef, nullable: true, resolve: (s) => s.lastOutcome }),
  }),
});

builder.queryFields((t) => ({
  assemblyMonitor: t.field({
    type: MonitorStatusRef,
    resolve: (_r, _a, { services }) => services.assemblyMonitor.status(),
  }),
}));

builder.mutationFields((t) => ({
  runAssemblyMonitor: t.field({
    type: MonitorStatusRef,
    description: "Runs one monitor cycle now and answers the status after it.",
    resolve: async (_r, _a, { services }) => {
      await services.assemblyMonitor.runNow();
      return services.assemblyMonitor.status();
    },
  }),
}));
