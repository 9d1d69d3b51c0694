import type { AppContext } from "./context.ts";
import { mapService } from "./map-service.ts";
import { scanService } from "./scan-service.ts";
import { seriesService } from "./series-service.ts";
import { unitsService } from "./units-service.ts";

/** The use cases. REST routes and GraphQL resolvers both call these and nothing else. */
export function createServices(ctx: AppContext) {
  return {
    series: seriesService(ctx),
    maps: mapService(ctx),
    units: unitsService(ctx),
    scan: scanService(ctx),
  };
}

export type Services = ReturnType<typeof createServices>;
