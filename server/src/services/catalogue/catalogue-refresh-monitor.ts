/**
 * The scheduled refresh of every linked series (daily by default, CATALOGUE_REFRESH_INTERVAL_SECONDS),
 * on the service's one interval loop (scheduled-loop.ts, as the automatic-assembly monitor and the
 * Wanted pass): the next cycle is scheduled when the last one ends, the timer never keeps the
 * process alive. Observable: last run, next run, outcome; `runNow` joins a cycle under way.
 */
import { scheduledLoop, type LoopStatus } from "../../scheduled-loop.ts";
import type { AppContext } from "../context.ts";
import type { CatalogueService } from "./catalogue-service.ts";

export interface CatalogueRefreshOutcome {
  series: number;
  refreshed: number;
  failed: number;
}

export type CatalogueRefreshStatus = LoopStatus<CatalogueRefreshOutcome>;

export function catalogueRefreshMonitor(ctx: AppContext, catalogues: Pick<CatalogueService, "refreshAll">) {
  return scheduledLoop(
    "catalogue refresh",
    () => catalogues.refreshAll(),
    ctx.log,
    ctx.cluster.turn,
    ctx.repos.scheduledRuns,
  );
}
