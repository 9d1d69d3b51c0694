/** REST route of the automatic-assembly monitor: its status (last run, next run, outcome). */
import type { Hono } from "hono";
import type { MonitorOutcome, MonitorStatus } from "../services/assembly/assembly-monitor.ts";
import type { Services } from "../services/index.ts";

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

export function monitorRoutes(app: Hono, services: Services): void {
  app.get("/api/monitor/assembly", (c) => c.json(restStatus(services.assemblyMonitor.status())));
  app.post("/api/monitor/assembly/run", async (c) => {
    await services.assemblyMonitor.runNow();
    return c.json(restStatus(services.assemblyMonitor.status()));
  });
}
