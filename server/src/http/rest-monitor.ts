/**
 * REST routes of the scheduled passes (each monitor's status and a run now, and the list of them
 * all), of the service's health and of its About.
 */
import type { Hono } from "hono";
import type { WantedMonitorStatus } from "../services/acquisition/download-pipeline-wiring.ts";
import type { MonitorOutcome, MonitorStatus } from "../services/assembly/assembly-monitor.ts";
import type { Services } from "../services/index.ts";
import type { ScheduledTaskStatus } from "../services/scheduled-tasks.ts";
import type { SystemStatus } from "../services/system-status.ts";

export const restOutcome = (o: MonitorOutcome) => ({
  attempted: o.attempted,
  assembled: o.assembled,
  deferred: o.deferred,
  failed: o.failed,
  books: o.books.map((b) => ({ series_id: b.seriesId, volume: b.volume, outcome: b.outcome, code: b.code })),
});

const restStatus = (s: MonitorStatus) => ({
  last_run: s.lastRun,
  next_run: s.nextRun,
  running: s.running,
  last_outcome: s.lastOutcome && restOutcome(s.lastOutcome),
});

const restWantedStatus = (s: WantedMonitorStatus) => ({
  last_run: s.lastRun,
  next_run: s.nextRun,
  running: s.running,
  last_outcome: s.lastOutcome && {
    series: s.lastOutcome.series,
    queued: s.lastOutcome.queued,
    failed: s.lastOutcome.failed,
  },
});

const restTask = (t: ScheduledTaskStatus) => ({
  name: t.name,
  interval_seconds: t.intervalSeconds,
  last_run: t.lastRun,
  next_run: t.nextRun,
  running: t.running,
});

const restSystemStatus = (s: SystemStatus) => ({
  version: s.version,
  started_at: s.startedAt,
  uptime_seconds: s.uptimeSeconds,
  node_version: s.nodeVersion,
  database: s.database,
  events: s.events,
  instance_role: s.instanceRole,
  library_root: s.libraryRoot,
  data_dir: s.dataDir,
  library: s.library,
});

export function monitorRoutes(app: Hono, services: Services): void {
  // What keeps the service from its work (the *arr apps' System → Status → Health); the checks'
  // fields are already the API's words.
  app.get("/api/system/health", async (c) => c.json(await services.systemHealth.get()));
  // Since when the service runs, on what, where it keeps things (the *arr apps' System → Status → About).
  app.get("/api/system/status", async (c) => c.json(restSystemStatus(await services.systemStatus.get())));
  // Every scheduled pass in one list, with a run now (the *arr apps' System → Tasks).
  app.get("/api/system/tasks", async (c) => c.json({ tasks: (await services.scheduledTasks.list()).map(restTask) }));
  app.post("/api/system/tasks/:name/run", async (c) =>
    c.json(restTask(await services.scheduledTasks.run(c.req.param("name")))),
  );
  // The scheduled Wanted pass: every monitored series' sources refreshed, then its pass (the *arr
  // apps' "search all missing"). A run joins the cycle under way.
  app.get("/api/monitor/wanted", (c) => c.json(restWantedStatus(services.wantedMonitor.status())));
  app.post("/api/monitor/wanted/run", async (c) => {
    await services.wantedMonitor.runNow();
    return c.json(restWantedStatus(services.wantedMonitor.status()));
  });
  app.get("/api/monitor/assembly", (c) => c.json(restStatus(services.assemblyMonitor.status())));
  app.post("/api/monitor/assembly/run", async (c) => {
    await services.assemblyMonitor.runNow();
    return c.json(restStatus(services.assemblyMonitor.status()));
  });
}
