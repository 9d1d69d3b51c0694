/** The catalogue side of the services (spread into createServices). */
import { catalogueRegistry } from "../../catalogues/registry.ts";
import type { AppContext } from "../context.ts";
import { catalogueRefreshMonitor } from "./catalogue-refresh-monitor.ts";
import { catalogueService } from "./catalogue-service.ts";
import { catalogueSettingsService } from "./catalogue-settings.ts";
import type { MapService } from "../maps/map-service.ts";
import type { SeriesService } from "../series/series-service.ts";
import { suggestionAdoptionService } from "../maps/suggestion-adoption.ts";

export function catalogueServices(ctx: AppContext, deps: { series: SeriesService; maps: MapService }) {
  const catalogueSettings = catalogueSettingsService(ctx);
  const catalogueClients = catalogueRegistry(ctx.config.catalogues);
  const catalogues = catalogueService(ctx, {
    series: deps.series,
    settings: catalogueSettings,
    registry: catalogueClients,
  });
  return {
    catalogues,
    catalogueSettings,
    catalogueClients,
    catalogueRefresh: catalogueRefreshMonitor(ctx, catalogues),
    suggestionAdoption: suggestionAdoptionService(ctx, deps.maps),
  };
}
