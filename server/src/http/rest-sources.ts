/** REST of providers, source mappings and source settings: translation to the services, nothing else. */
import type { Hono } from "hono";
import type { ListingProblem, ProviderWork } from "../providers/provider.ts";
import type { SourceSettingsView } from "../services/acquisition/source-settings.ts";
import type {
  MappingHealth,
  MappingRefresh,
  MappingView,
  SearchResultView,
} from "../services/acquisition/sources-service.ts";
import type { Services } from "../services/index.ts";
import { priorityBody, sourceLinkBody, sourceSearchBody } from "./bodies/sources.ts";
import { downloadLanguagesBody, sourceSettingsBody } from "./bodies/source-settings.ts";
import { jsonBody, pathId } from "./request.ts";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function restHealth(h: MappingHealth) {
  return {
    status: h.status,
    recent: h.recent,
    published: h.published,
    degraded: h.degraded,
    failed: h.failed,
    last_problem_at: iso(h.lastProblemAt),
  };
}

export function restMapping(m: MappingView) {
  return {
    id: m.id,
    series_id: m.seriesId,
    provider_id: m.providerId,
    provider: m.provider,
    provider_kind: m.providerKind,
    display_name: m.displayName,
    source_id: m.sourceId,
    language: m.language,
    priority: m.priority,
    state: m.state,
    offers: m.offers,
    health: restHealth(m.health),
    available: m.available,
  };
}

export function restRefresh(r: MappingRefresh) {
  return {
    mapping_id: r.mappingId,
    provider: r.provider,
    source_id: r.sourceId,
    status: r.status,
    error: r.error,
    offers: r.offers,
    added: r.added,
    updated: r.updated,
    removed: r.removed,
    overrides_applied: r.overridesApplied,
    overrides_invalidated: r.overridesInvalidated.map((o) => ({
      external_id: o.externalId,
      observed_number: o.observedNumber,
      source_number: o.sourceNumber,
    })),
    problems: r.problems.map(restProblem),
  };
}

export const restProblem = (p: ListingProblem) => ({ name: p.name, code: p.code, detail: p.detail });

const restWork = (w: ProviderWork & { linked: boolean; rejected: boolean }) => ({
  source_id: w.sourceId,
  title: w.title,
  language: w.language,
  source_name: w.sourceName,
  thumbnail_url: w.thumbnailUrl,
  linked: w.linked,
  rejected: w.rejected,
});

const restSearch = (s: SearchResultView) => ({
  provider_id: s.providerId,
  provider: s.provider,
  works: s.works.map(restWork),
});

export function restSourceSettings(v: SourceSettingsView) {
  const s = v.suwayomi;
  return {
    suwayomi: {
      enabled: s.enabled,
      url: s.url,
      auth: s.auth,
      username: s.username,
      password: s.password,
      password_set: s.passwordSet,
      configured: s.configured,
    },
    drop_folder: { path: v.dropFolder.path },
  };
}

export function sourceRoutes(app: Hono, services: Services): void {
  const s = services.sources;
  app.get("/api/manga/:id/sources", async (c) => c.json((await s.list(pathId(c))).map(restMapping)));
  app.post("/api/manga/:id/sources/search", async (c) =>
    c.json(restSearch(await s.search(pathId(c), sourceSearchBody(await jsonBody(c)), c.req.raw.signal))),
  );
  app.post("/api/manga/:id/sources/refresh", async (c) => {
    const r = await s.refresh(pathId(c), c.req.raw.signal);
    return c.json({ series_id: r.seriesId, mappings: r.mappings.map(restRefresh) });
  });
  app.post("/api/manga/:id/sources", async (c) => {
    const r = await s.link(pathId(c), sourceLinkBody(await jsonBody(c)), c.req.raw.signal);
    return c.json({ mapping: restMapping(r.mapping), refresh: restRefresh(r.refresh) }, 201);
  });
  app.get("/api/manga/:id/sources/:mapping_id/problems", async (c) => {
    const r = await s.problems(pathId(c), pathId(c, "mapping_id"), c.req.raw.signal);
    return c.json({ mapping_id: r.mappingId, problems: r.problems.map(restProblem) });
  });
  app.patch("/api/manga/:id/sources/:mapping_id", async (c) =>
    c.json(restMapping(await s.setPriority(pathId(c), pathId(c, "mapping_id"), priorityBody(await jsonBody(c))))),
  );

  app.get("/api/providers", async (c) =>
    c.json(
      (await s.providers()).map((p) => ({
        id: p.id,
        name: p.name,
        kind: p.kind,
        display_name: p.displayName,
        language: p.language,
        base_url: p.baseUrl,
        enabled: p.enabled,
        priority: p.priority,
        available: p.available,
      })),
    ),
  );
  app.get("/api/providers/suwayomi/sources", async (c) => c.json(await s.suwayomiSources(c.req.query("lang"))));

  app.get("/api/settings/sources", async (c) => c.json(restSourceSettings(await services.sourceSettings.get())));
  app.put("/api/settings/sources", async (c) =>
    c.json(restSourceSettings(await services.sourceSettings.update(sourceSettingsBody(await jsonBody(c))))),
  );
  app.get("/api/settings/downloads", async (c) => c.json(await services.sourceSettings.downloadLanguages()));
  app.put("/api/settings/downloads", async (c) =>
    c.json(await services.sourceSettings.updateDownloadLanguages(downloadLanguagesBody(await jsonBody(c)))),
  );
}
