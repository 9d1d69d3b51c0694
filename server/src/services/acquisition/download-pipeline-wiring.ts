/**
 * The download side of the services: the conformity judge, the pipeline's workers, the
 * Wanted pass with recovery, and the scheduler that runs the pass per monitored series every
 * WANTED_INTERVAL_SECONDS beside the automatic assembly (and polls the book channel).
 */
import type { Publication } from "../../library/publication.ts";
import { providerRegistry } from "../../providers/registry.ts";
import type { BookChannel } from "../../providers/provider.ts";
import type { AppContext } from "../context.ts";
import { downloadPipeline, type ProviderLookup } from "./download-pipeline.ts";
import { downloadService } from "./download-service.ts";
import { activeDownloads } from "../../repositories/audit-repo.ts";
import { providerRepo } from "../../repositories/provider-repo.ts";
import { settingsRepo } from "../../repositories/settings-repo.ts";
import { sourceRepo } from "../../repositories/source-repo.ts";
import { wantedRepo } from "../../repositories/wanted-repo.ts";
import { sourceSettingsService } from "./source-settings.ts";
import { parseLedgerDetail } from "./wanted-ledger-views.ts";
import { wantedService, type WantedService } from "./wanted-service.ts";
import { scheduledLoop, type LoopStatus } from "../../scheduled-loop.ts";

/** Providers of mappings through the provider registry (the same rows the sources panel manages). */
export function registryLookup(ctx: AppContext): ProviderLookup {
  const registry = providerRegistry(ctx, {
    settings: sourceSettingsService(ctx),
    rows: providerRepo(ctx.db),
    stored: settingsRepo(ctx.db),
  });
  return {
    async forMapping(mappingId) {
      const m = await sourceRepo(ctx.db).mappingRow(mappingId);
      if (!m || m.state !== "active") return null;
      const provider = await registry.forProviderId(m.providerId);
      return provider
        ? {
            provider,
            mapping: {
              id: m.id,
              seriesId: m.seriesId,
              providerId: m.providerId,
              sourceId: m.sourceId,
              language: m.language,
            },
          }
        : null;
    },
  };
}

/** One scheduled cycle of the Wanted pass: series planned, downloads queued, series whose pass failed. */
export interface WantedCycleOutcome {
  series: number;
  queued: number;
  failed: number;
}

export type WantedMonitorStatus = LoopStatus<WantedCycleOutcome>;

/** What the scheduled pass asks of the sources before it plans: refresh the series' mappings. */
export type PassRefresh = (seriesId: number) => Promise<{ mappings: { added: number }[] }>;

function wantedMonitor(ctx: AppContext, wanted: WantedService) {
  let refresh: PassRefresh | null = null;

  async function cycle(): Promise<WantedCycleOutcome> {
    const out = { series: 0, queued: 0, failed: 0 };
    const series = await ctx.repos.series.idsWhere({ monitored: true });
    for (const id of series) {
      try {
        // First what the sources list now (a new chapter becomes a slot), then the plan. A refresh
        // that found new releases ends the series' back-off; otherwise a series backing off only
        // has its ledger refreshed.
        const refreshed = refresh ? await refresh(id) : null;
        const fresh = refreshed?.mappings.some((m) => m.added > 0) ?? false;
        out.queued += (await wanted.runPass(id, { force: fresh })).queued;
        out.series += 1;
      } catch (e) {
        out.failed += 1;
        ctx.log(`wanted: series ${id}: ${(e as Error).message}`);
      }
    }
    await wanted
      .bookChannel()
      ?.poll()
      .catch((e: unknown) => ctx.log(`wanted: book channel poll failed: ${(e as Error).message}`));
    return out;
  }

  return {
    ...scheduledLoop("wanted", cycle, ctx.log, ctx.cluster.turn, ctx.repos.scheduledRuns),
    /** The sources' refresh the cycle runs before each series' pass (wired by createServices). */
    useRefresh(fn: PassRefresh): void {
      refresh = fn;
    },
  };
}

/** services.downloads, downloadPipeline, wanted and wantedMonitor (spread into createServices). */
export function downloadServices(ctx: AppContext, publication: Publication) {
  const downloads = downloadService(ctx);
  const pipeline = downloadPipeline(ctx, { downloads, publication, lookup: registryLookup(ctx) });
  // Queued rows wake this instance's workers and, through the event bus, every other instance's.
  const wanted = wantedService(ctx, {
    kick: () => {
      pipeline.kick();
      ctx.events.publishWork("downloads");
    },
  });
  // A degraded download: the next candidate from another source, at once (the back-off does not apply).
  pipeline.onDegraded(async (row) => void (await wanted.runPass(row.seriesId, { force: true })));
  // The next pass runs once the series' queue is empty, not at the next scheduled interval, when the
  // last pass reached its download limit (a long series arrives in one go), or when a download it
  // queued or found under way has failed for good since and the pass would try another release, as
  // the *arr apps' "redownload failed" does: another source's release of that slot (the failed one
  // ranks last). A pass that could only try the failed releases again waits for the schedule, so a
  // failing source is not asked again at once, nor the parts a split replacement already has fetched
  // again with its failed part. The ledger names its downloads, so no clock decides what "since" means.
  const ledger = wantedRepo(ctx.db);
  const failedSinceLastPass = async (seriesId: number) => {
    const named = (await ledger.entries(seriesId)).flatMap((e) => parseLedgerDetail(e.detail).downloadIds ?? []);
    return [...(await ctx.repos.downloads.statesOf(named)).values()].includes("failed");
  };
  const passDue = async (seriesId: number) =>
    (await activeDownloads(ctx.db, seriesId)) === 0 &&
    ((await ledger.heldBack(seriesId)) ||
      ((await failedSinceLastPass(seriesId)) && (await wanted.triesAnotherRelease(seriesId))));
  pipeline.onJobEnded(async (row) => {
    if (!pipeline.isStarted() || !(await passDue(row.seriesId))) return;
    // Checked again under the series' pass lock: another download of the series that ended at the
    // same moment saw no download under way either, and may have run that pass meanwhile.
    await wanted.runPass(row.seriesId, { when: () => passDue(row.seriesId) });
  });
  return { downloads, downloadPipeline: pipeline, wanted, wantedMonitor: wantedMonitor(ctx, wanted) };
}

/** Starts the workers (after the publication's recovery) and the Wanted schedule; returns the stop. */
export async function startDownloads(
  ctx: AppContext,
  services: ReturnType<typeof downloadServices> & { bookChannel?: BookChannel },
): Promise<() => Promise<void>> {
  services.wanted.useBookChannel(services.bookChannel);
  await services.downloadPipeline.start();
  await services.wantedMonitor.start(ctx.config.downloads.wantedIntervalSeconds * 1000);
  return async () => {
    await services.wantedMonitor.stop();
    // The workers first: a download that ends asks for no pass once they stop; then the passes.
    await services.downloadPipeline.stop();
    await services.wanted.settle();
  };
}
