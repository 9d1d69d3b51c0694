import { PRODUCT_RULES, type ServiceRules } from "../domain/rules.ts";
import type { AppContext } from "./context.ts";
import { createPublication } from "../library/publication.ts";
import { downloadServices } from "./acquisition/download-pipeline-wiring.ts";
import { mapService } from "./maps/map-service.ts";
import { scanService } from "./series/scan-service.ts";
import { scanSchedule } from "./series/scan-schedule.ts";
import { seriesService, type SeriesService } from "./series/series-service.ts";
import { seriesRemovalService } from "./series/series-removal-service.ts";
import { unitsService } from "./series/units-service.ts";
import { viewCache } from "./series/view-cache.ts";
import { seriesPageService } from "./series/series-page-service.ts";
import { filePagesService } from "./series/file-pages-service.ts";
import { monitoringService } from "./acquisition/monitoring-service.ts";
import { auditService } from "./audit/audit-service.ts";
import { verificationService } from "./audit/verification-service.ts";
import { assemblyService } from "./assembly/assembly-service.ts";
import {
  externalPriority,
  publicationWithPriority,
  scanWithPriority,
  verificationWithPriority,
} from "./series/external-priority.ts";
import { assemblyMonitor } from "./assembly/assembly-monitor.ts";
import { sourceSettingsService } from "./acquisition/source-settings.ts";
import { providerRegistry } from "../providers/registry.ts";
import { providerRepo } from "../repositories/provider-repo.ts";
import { settingsRepo } from "../repositories/settings-repo.ts";
import { sourcesService } from "./acquisition/sources-service.ts";
import { numberingService } from "./acquisition/numbering-service.ts";
import { bookChannelService } from "./acquisition/book-channel.ts";
import { translationWorker } from "./translation/translation-worker.ts";
import { translationServices } from "./translation/translation-fallback-service.ts";
import { translationSettingsService, type TranslationSettingsService } from "./translation/translation-settings.ts";
import { pageSignatureWorker } from "./audit/page-signature-worker.ts";
import { pageEvidenceService } from "./audit/page-evidence-service.ts";
import { sessionService } from "./accounts/session-service.ts";
import { catalogueServices } from "./catalogue/catalogue-wiring.ts";
import {
  publicationWithProgress,
  readingService,
  scanWithProgress,
  type ReadingService,
} from "./reading/reading-service.ts";
import { readerAppsServices } from "./reading/reader-apps.ts";
import { calendarService } from "./acquisition/calendar-service.ts";
import { calendarFeedService } from "./acquisition/calendar-feed-service.ts";
import { slotSearchService } from "./acquisition/slot-search-service.ts";
import { blocklistService } from "./acquisition/blocklist-service.ts";
import { scheduledTasks } from "./scheduled-tasks.ts";
import { systemHealthService } from "./system-health.ts";
import { systemStatusService } from "./system-status.ts";

/** The use cases. REST routes and GraphQL resolvers both call these and nothing else. */
export function createServices(ctx: AppContext) {
  // Reading progress follows every publication, retirement and scan (reading-service.ts); the
  // closures reach the reading service, created below, only when a file operation runs.
  const publication = publicationWithProgress(ctx, publicationWithPriority(ctx, createPublication(ctx)), () => reading);
  const priority = externalPriority(ctx, publication);
  const pageSignatures = pageSignatureWorker(ctx);
  const assembly = assemblyService(ctx, publication);
  // The schedule scans with the scan itself; everyone else's scan also counts as its cycle.
  const scheduledScan = scanSchedule(
    ctx,
    scanWithProgress(ctx, scanWithPriority(ctx, scanService(ctx), priority), () => reading),
  );
  const scan = scheduledScan.scanning;
  const views = viewCache(ctx, {
    maxSeries: ctx.config.viewCacheSeries,
    maxBytes: ctx.config.viewCacheMb * 1024 * 1024,
  });
  const units = unitsService(ctx, views);
  const reading: ReadingService = readingService(ctx, units);
  const dl = downloadServices(ctx, publication);
  const sourceSettings = sourceSettingsService(ctx),
    providers = providerRegistry(ctx, {
      settings: sourceSettings,
      rows: providerRepo(ctx.db),
      stored: settingsRepo(ctx.db),
    }),
    sources = sourcesService(ctx, providers);
  const translations = translationServices(ctx, dl.wanted),
    translationSettings = translationSettingsService(ctx);
  const worker = translationWorker(ctx, { publication });
  // A job created, retried, cancelled or resumed wakes the worker, which sleeps while idle.
  translations.translations.useWorker(() => {
    worker.kick();
    ctx.events.publishWork("translations");
  });
  // The acquisition loop: a link or an operator's refresh runs the Wanted pass at once; the scheduled
  // pass refreshes every linked source before it plans.
  sources.useAfterOperatorRefresh((seriesId) => {
    dl.wanted
      .runPass(seriesId, { force: true })
      .catch((e: unknown) =>
        ctx.log(`wanted: pass after a source refresh of series ${seriesId}: ${(e as Error).message}`),
      );
  });
  dl.wantedMonitor.useRefresh((seriesId) => sources.refreshForPass(seriesId));
  const series = seriesService(ctx);
  const audit = auditService(ctx, publication, { pageSignatures, views }),
    filePages = filePagesService(ctx);
  followTranslationToggles(ctx, series, translationSettings, translations.translations);
  const verification = verificationWithPriority(ctx, verificationService(ctx), priority);
  const maps = mapService(ctx);
  const calendar = calendarService(ctx);
  const catalogue = catalogueServices(ctx, { series, maps });
  const assemblyPass = assemblyMonitor(ctx, { assembly, scanning: scan.running });
  return {
    /** The rules' figures clients word, with the configured ones. */
    rules: (): ServiceRules => ({ ...PRODUCT_RULES, recycleRetentionDays: ctx.config.recycleRetentionDays }),
    views,
    series,
    seriesRemoval: seriesRemovalService(ctx, scan),
    maps,
    ...catalogue,
    units,
    seriesPage: seriesPageService(ctx, units, views),
    filePages,
    monitoring: monitoringService(ctx, units),
    scan,
    scanSchedule: scheduledScan,
    ...dl,
    ...translations,
    publication,
    audit,
    verification,
    pageSignatures,
    pageEvidence: pageEvidenceService(ctx, { worker: pageSignatures, verification, priority }),
    assembly,
    assemblyMonitor: assemblyPass,
    scheduledTasks: scheduledTasks(ctx, {
      wanted: dl.wantedMonitor,
      assembly: assemblyPass,
      catalogue_refresh: catalogue.catalogueRefresh,
      library_scan: scheduledScan,
      recycle_bin_purge: publication.purgeSchedule,
    }),
    systemHealth: systemHealthService(ctx, { providers, sourceSettings, sources }),
    systemStatus: systemStatusService(ctx),
    sourceSettings,
    translationSettings,
    providers,
    sources,
    numbering: numberingService(ctx, sources),
    bookChannel: bookChannelService(ctx, publication, translations.translations),
    translationWorker: worker,
    sessions: sessionService(ctx),
    reading,
    readerApps: readerAppsServices(ctx, { reading, audit, filePages }),
    calendar,
    calendarFeed: calendarFeedService(ctx, calendar),
    slotSearch: slotSearchService(ctx, dl.wanted, sources),
    blocklist: blocklistService(ctx, { pipeline: dl.downloadPipeline, downloads: dl.downloads, wanted: dl.wanted }),
  };
}

/**
 * Translation jobs follow the settings at once (docs/rules.md, "Translation fallback" 7, 8): a
 * toggle off pauses them, on resumes those a toggle paused; a new destination language cancels the
 * old language's jobs (imported files stay).
 */
function followTranslationToggles(
  ctx: AppContext,
  series: SeriesService,
  settings: TranslationSettingsService,
  jobs: ReturnType<typeof translationServices>["translations"],
): void {
  // Jobs run only while both toggles are on: resume a series only when the other one is on too.
  settings.onEnabledChanged(async (enabled) => {
    if (!enabled) {
      await jobs.pauseAll("toggle_off");
      return;
    }
    for (const id of await ctx.repos.series.idsWhere({ translationFallbackEnabled: true })) await jobs.resumeAll(id);
  });
  series.onUpdated(async (before, after) => {
    if (after.language !== before.language) await jobs.onDestinationChanged(after.id, after.language);
    if (after.translationFallbackEnabled === before.translationFallbackEnabled) return;
    if (!after.translationFallbackEnabled) await jobs.pauseAll("toggle_off", after.id);
    else if ((await settings.get()).enabled) await jobs.resumeAll(after.id);
  });
}

export type Services = ReturnType<typeof createServices>;
