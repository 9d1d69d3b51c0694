/** REST of the public catalogues: translation to the services, nothing else. */
import { adoptionBody } from "./bodies/maps.ts";
import { catalogueLinkBody, catalogueSettingsBody, linkedSeriesBody, offerAcceptBody } from "./bodies/catalogues.ts";
import { seriesCreateBody } from "./bodies/series.ts";
import type { Hono } from "hono";
import type { CatalogueSettings } from "../catalogues/registry.ts";
import type { CatalogueRefreshStatus } from "../services/catalogue/catalogue-refresh-monitor.ts";
import type {
  CatalogueSearchHit,
  CatalogueSearchResult,
  SeriesCatalogueView,
} from "../services/catalogue/catalogue-model.ts";
import type { Adoption } from "../services/maps/suggestion-adoption.ts";
import type { Services } from "../services/index.ts";
import { restMap, restMapChange } from "./present-map.ts";
import { restSeries } from "./present.ts";
import { dryRun, jsonBody, pathId } from "./request.ts";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const restCatalogueHit = (h: CatalogueSearchHit) => ({
  catalogue: h.catalogue,
  catalogue_id: h.catalogueId,
  title: h.title,
  status: h.status,
  year: h.year,
  cover_url: h.coverUrl,
  cover_preview_url: h.coverPreviewUrl,
  volumes: h.volumes,
  chapters: h.chapters,
  url: h.url,
});

export const restCatalogueSearch = (r: CatalogueSearchResult) => ({
  results: r.results.map(restCatalogueHit),
  errors: r.errors,
});

export function restCatalogueCounts(c: SeriesCatalogueView["counts"]) {
  return {
    catalogues: c.catalogues.map((f) => ({
      catalogue: f.catalogue,
      status: f.status,
      volumes: f.volumes,
      chapters: f.chapters,
    })),
    volumes: c.volumes,
    chapters: c.chapters,
    status: c.status,
  };
}

export function restCatalogueView(v: SeriesCatalogueView) {
  return {
    series_id: v.seriesId,
    links: v.links.map((l) => ({
      catalogue: l.catalogue,
      catalogue_id: l.catalogueId,
      title: l.title,
      url: l.url,
      status: l.status,
      volumes: l.volumes,
      chapters: l.chapters,
      year: l.year,
      cover_source: l.coverSource,
      has_cover: l.hasCover,
      refreshed_at: iso(l.refreshedAt),
    })),
    metadata: {
      description: v.metadata.description,
      description_from: v.metadata.descriptionFrom,
      alternative_titles: v.metadata.alternativeTitles,
      authors: v.metadata.authors,
      genres: v.metadata.genres,
      cover_url: v.metadata.coverUrl,
      cover_from: v.metadata.coverFrom,
    },
    catalogue_counts: restCatalogueCounts(v.counts),
    offers: v.offers,
    suggestion: v.suggestion
      ? {
          source: v.suggestion.source,
          language: v.suggestion.language,
          books: v.suggestion.books,
          conflicts: v.suggestion.conflicts,
          no_book: v.suggestion.noBook,
        }
      : null,
  };
}

export function restCatalogueSettings(s: CatalogueSettings) {
  return {
    mangadex: { enabled: s.mangadex.enabled, base_url: s.mangadex.baseUrl, cover_base_url: s.mangadex.coverBaseUrl },
    mangaupdates: { enabled: s.mangaupdates.enabled, base_url: s.mangaupdates.baseUrl },
    anilist: { enabled: s.anilist.enabled, base_url: s.anilist.baseUrl },
  };
}

export const restCatalogueRefreshStatus = (s: CatalogueRefreshStatus) => ({
  last_run: s.lastRun,
  next_run: s.nextRun,
  running: s.running,
  last_outcome: s.lastOutcome,
});

export const restAdoption = (a: Adoption) => ({
  adopted: a.adopted,
  skipped: a.skipped,
  dropped_claims: a.droppedClaims,
});

/**
 * `POST /api/manga`: with `catalogue` and `catalogue_id` the series is created already linked; the
 * answer is the series record either way (its catalogue data: `GET /api/manga/{id}/catalogue`).
 */
export async function createSeriesRest(services: Services, body: unknown) {
  const o = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  if (o.catalogue !== undefined || o.catalogue_id !== undefined)
    return restSeries((await services.catalogues.createLinked(linkedSeriesBody(body))).series);
  return restSeries(await services.series.create(seriesCreateBody(body)));
}

export function catalogueRoutes(app: Hono, services: Services): void {
  const cat = services.catalogues;

  app.get("/api/settings/catalogues", async (c) =>
    c.json(restCatalogueSettings(await services.catalogueSettings.get())),
  );
  app.put("/api/settings/catalogues", async (c) =>
    c.json(restCatalogueSettings(await services.catalogueSettings.update(catalogueSettingsBody(await jsonBody(c))))),
  );

  app.get("/api/catalogues/search", async (c) =>
    c.json(restCatalogueSearch(await cat.search(c.req.query("q"), c.req.query("catalogue")))),
  );
  app.get("/api/catalogues/covers/:key", async (c) => {
    const r = await cat.searchCover(c.req.param("key"));
    return c.body(new Uint8Array(r.bytes), 200, {
      "content-type": r.contentType,
      "cache-control": "private, max-age=3600",
      "x-content-type-options": "nosniff",
    });
  });
  app.get("/api/catalogues/refresh", (c) => c.json(restCatalogueRefreshStatus(services.catalogueRefresh.status())));
  app.post("/api/catalogues/refresh", async (c) => {
    await services.catalogueRefresh.runNow();
    return c.json(restCatalogueRefreshStatus(services.catalogueRefresh.status()));
  });

  app.get("/api/manga/:id/catalogue", async (c) => c.json(restCatalogueView(await cat.view(pathId(c)))));
  app.post("/api/manga/:id/catalogue-links", async (c) =>
    c.json(restCatalogueView(await cat.link(pathId(c), catalogueLinkBody(await jsonBody(c)))), 201),
  );
  app.post("/api/manga/:id/catalogue-links/refresh", async (c) =>
    c.json(restCatalogueView(await cat.refresh(pathId(c)))),
  );
  app.delete("/api/manga/:id/catalogue-links/:catalogue", async (c) =>
    c.json(restCatalogueView(await cat.unlink(pathId(c), c.req.param("catalogue")))),
  );
  app.post("/api/manga/:id/catalogue-counts/accept", async (c) => {
    const r = await cat.accept(pathId(c), offerAcceptBody(await jsonBody(c)));
    return c.json({ series: restSeries(r.series), catalogue: restCatalogueView(r.catalogue) });
  });
  app.get("/api/manga/:id/cover", async (c) => {
    const r = await cat.cover(pathId(c), c.req.header("if-none-match"));
    const headers = { etag: r.etag, "cache-control": "private, no-cache" };
    if (r.notModified || r.bytes === null) return c.body(null, 304, headers);
    return c.body(new Uint8Array(r.bytes), 200, {
      ...headers,
      "content-type": r.contentType,
      "x-content-type-options": "nosniff",
    });
  });

  app.post("/api/manga/:id/chapter-map/suggestions/adopt", async (c) => {
    const { result, adoption } = await services.suggestionAdoption.adopt(
      pathId(c),
      adoptionBody(await jsonBody(c)),
      dryRun(c),
    );
    return c.json(
      result.dryRun
        ? { ...restMapChange(result.revision, result.preview), adoption: restAdoption(adoption) }
        : { map: restMap(result.map), adoption: restAdoption(adoption) },
    );
  });
}
