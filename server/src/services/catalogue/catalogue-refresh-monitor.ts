/**
 * The scheduled refresh of every linked series (daily by default, CATALOGUE_REFRESH_INTERVAL_SECONDS),
 * on the service's interval loop (as the automatic-assembly monitor and the Wanted pass: the next
 * cycle is scheduled when the last one ends, the timer never keeps the process alive). Observable:
 * last run, next run, outcome; `runNow` joins a cycle under way.
 */
import type { AppContext } from "../context.ts";
import type { CatalogueService } from "./catalogue-service.ts";

export interface CatalogueRefreshOutcome {
  series: number;
  refreshed: number;
  failed: number;
}

export interface CatalogueRefreshStatus {
  lastRun: string | null;
  nextRun: string | null;
  running: boolean;
  lastOutcome: CatalogueRefreshOutcome | null;
}

export function catalogueRefreshMonitor(ctx: AppContext, catalogues: Pick<CatalogueService, "refreshAll">) {
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<CatalogueRefreshOutcome> | null = null;
  let lastRun: Date | null = null;
  let nextRun: Date | null = null;
  let lastOutcome: CatalogueRefreshOutcome | null = null;

  function runNow(): Promise<CatalogueRefreshOutcome> {
    current ??= catalogues
      .refreshAll()
      .then((o) => (lastOutcome = o))
      .finally(() => {
        lastRun = new Date();
        current = null;
      });
    return current;
  }

  return {
    runNow,
    status: (): CatalogueRefreshStatus => ({
      lastRun: lastRun?.toISOString() ?? null,
      nextRun: nextRun?.toISOString() ?? null,
      running: current !== null,
      lastOutcome,
    }),
    start(intervalMs: number): void {
      const schedule = () => {
        nextRun = new Date(Date.now() + intervalMs);
        timer = setTimeout(() => {
          runNow()
            .catch((e: unknown) => ctx.log(`catalogue refresh: cycle failed: ${(e as Error).message}`))
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

export type CatalogueRefreshMonitor = ReturnType<typeof catalogueRefreshMonitor>;
