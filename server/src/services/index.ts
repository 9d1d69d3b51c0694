import type { AppContext } from "./context.ts";
import { createPublication } from "../library/publication.ts";
import { downloadService } from "./download-service.ts";
import { mapService } from "./map-service.ts";
import { scanService } from "./scan-service.ts";
import { seriesService } from "./series-service.ts";
import { unitsService } from "./units-service.ts";
import { auditService } from "./audit-service.ts";
import { verificationService } from "./verification-service.ts";
import { assemblyService } from "./assembly-service.ts";

/** The use cases. REST routes and GraphQL resolvers both call these and nothing else. */
export function createServices(ctx: AppContext) {
  const publication = createPublication(ctx);
  return {
    series: seriesService(ctx),
    maps: mapService(ctx),
    units: unitsService(ctx),
    scan: scanService(ctx),
    downloads: downloadService(ctx),
    publication,
    audit: auditService(ctx, publication),
    verification: verificationService(ctx),
    assembly: assemblyService(ctx, publication),
  };
}

export type Services = ReturnType<typeof createServices>;
