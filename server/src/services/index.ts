import type { AppContext } from "./context.ts";
import { createPublication } from "../library/publication.ts";
import { downloadServices } from "./download-pipeline-wiring.ts";
import { mapService } from "./map-service.ts";
import { scanService } from "./scan-service.ts";
import { seriesService } from "./series-service.ts";
import { unitsService } from "./units-service.ts";
import { seriesPageService } from "./series-page-service.ts";
import { filePagesService } from "./file-pages-service.ts";
import { monitoringService } from "./monitoring-service.ts";
import { auditService } from "./audit-service.ts";
import { verificationService } from "./verification-service.ts";
import { assemblyService } from "./assembly-service.ts";
import { externalPriority, publicationWithPriority, scanWithPriority } from "./external-priority.ts";
import { assemblyMonitor } from "./assembly-monitor.ts";
import { sourceSettingsService } from "./source-settings.ts";
import { providerRegistry } from "../providers/registry.ts";
import { sourcesService } from "./sources-service.ts";
import { numberingService } from "./numbering-service.ts";
import { bookChannelService } from "./book-channel.ts";

/** The use cases. REST routes and GraphQL resolvers both call these and nothing else. */
export function createServices(ctx: AppContext) {
  const publication = publicationWithPriority(ctx, createPublication(ctx));
  const assembly = assemblyService(ctx, publication), scan = scanWithPriority(ctx, scanService(ctx), externalPriority(ctx, publication));
  const units = unitsService(ctx);
  const sourceSettings = sourceSettingsService(ctx), providers = providerRegistry(ctx, sourceSettings), sources = sourcesService(ctx, providers);
  return {
    series: seriesService(ctx),
    maps: mapService(ctx),
    units,
    seriesPage: seriesPageService(ctx, units),
    filePages: filePagesService(ctx),
    monitoring: monitoringService(ctx, units),
    scan,
    ...downloadServices(ctx, publication),
    publication,
    audit: auditService(ctx, publication),
    verification: verificationService(ctx),
    assembly,
    assemblyMonitor: assemblyMonitor(ctx, { assembly, scanning: scan.running }),
    sourceSettings,
    providers,
    sources,
    numbering: numberingService(ctx, sources),
    bookChannel: bookChannelService(ctx, publication),
  };
}

export type Services = ReturnType<typeof createServices>;
