import { Hono } from "hono";
import { seriesPatchBody } from "./bodies/series.ts";
import { mapRevisionBody, mapSaveBody, readingBody, suggestionBody } from "./bodies/maps.ts";
import { AppError } from "../errors.ts";
import { allowedMethods } from "./allowed-methods.ts";
import type { AppContext } from "../services/context.ts";
import type { Services } from "../services/index.ts";
import { principalOf, requireAuth, type Authenticator, type Principal } from "./auth.ts";
import { limitBodies } from "./body-limits.ts";
import { refuseCrossSite } from "./csrf.ts";
import { problemResponse } from "./problem.ts";
import { openSessionRoutes, sessionRoutes } from "./rest-session.ts";
import { restLibraryInfo, restMap, restMapChange, restScan } from "./present-map.ts";
import { restRemovedSeries, restSeries, restSeriesRemoval, restUnits } from "./present.ts";
import { jsonBytes } from "./respond.ts";
import { recycleRoutes } from "./rest-recycle.ts";
import { downloadRoutes } from "./rest-downloads.ts";
import { rulesRoutes } from "./rest-rules.ts";
import { wantedRoutes } from "./rest-wanted.ts";
import { auditRoutes } from "./rest-audit.ts";
import { verificationRoutes } from "./rest-verification.ts";
import { assemblyRoutes } from "./rest-assembly.ts";
import { pageEvidenceRoutes } from "./rest-page-evidence.ts";
import { monitorRoutes } from "./rest-monitor.ts";
import { webSupportRoutes } from "./rest-web-support.ts";
import { sourceRoutes } from "./rest-sources.ts";
import { indexerRoutes } from "./rest-indexer.ts";
import { translationRoutes } from "./rest-translations.ts";
import { translationSettingsRoutes } from "./rest-translation-settings.ts";
import { calendarFeedRoute, calendarRoutes } from "./rest-calendar.ts";
import { slotSearchRoutes } from "./rest-slot-search.ts";
import { dryRun, jsonBody, pathId, refuseUnsafeQuery } from "./request.ts";
import { catalogueRoutes, createSeriesRest } from "./rest-catalogues.ts";
import { readingRoutes } from "./rest-reading.ts";
import { readerAppRoutes } from "./readers/index.ts";

/** The REST layer: translation between HTTP and the services, nothing else. */
export function restApp(
  ctx: AppContext,
  services: Services,
  authenticate: Authenticator,
  graphql: (req: Request, principal: Principal) => Promise<Response> | Response,
) {
  const app = new Hono();
  app.onError((e) => problemResponse(e, ctx.log));
  const allowed = allowedMethods(app);
  app.notFound((c) => {
    if (!c.req.path.startsWith("/api/")) return c.text("Not found", 404);
    // A path that exists for other methods: 405 with the methods it takes, as HTTP asks.
    const methods = allowed(c.req.path);
    if (methods.length > 0) {
      const res = problemResponse(
        new AppError("method_not_allowed", `${c.req.method} is not allowed on ${c.req.path}`, { allow: methods }),
      );
      res.headers.set("allow", methods.join(", "));
      return res;
    }
    return problemResponse(new AppError("not_found", `no route for ${c.req.method} ${c.req.path}`));
  });

  // Bodies are bounded while they stream, for every route (uploads have their own limit).
  app.use("*", limitBodies());
  // The session endpoints and the health check are the only ones reachable without a credential.
  openSessionRoutes(app, services);
  app.get("/api/health", (c) => c.json({ ok: true }));
  // OPDS, KOReader sync and the Komga-compatible API: their own authentication (HTTP Basic, …).
  readerAppRoutes(app, ctx, services);
  // The calendar feed: its own key in the address, for calendar apps.
  calendarFeedRoute(app, services, authenticate);

  // Then: who is calling (401 before anything else), and a cookie's changes only from our own pages.
  for (const path of ["/api/*", "/graphql"]) app.use(path, requireAuth(authenticate), refuseCrossSite());
  app.use("/api/*", refuseUnsafeQuery());
  app.on(["GET", "POST"], "/graphql", (c) => graphql(c.req.raw, principalOf(c) as Principal));
  sessionRoutes(app, services);

  app.get("/api/manga", async (c) => c.json((await services.series.list()).map(restSeries)));
  app.post("/api/manga", async (c) => c.json(await createSeriesRest(services, await jsonBody(c)), 201));
  app.get("/api/manga/:id", async (c) => c.json(restSeries(await services.series.get(pathId(c)))));
  app.patch("/api/manga/:id", async (c) =>
    c.json(restSeries(await services.series.update(pathId(c), seriesPatchBody(await jsonBody(c))))),
  );

  // Only the records go (nothing on disk is touched): 409 `series_has_files` / `series_busy` otherwise.
  app.delete("/api/manga/:id", async (c) => c.json(restRemovedSeries(await services.seriesRemoval.remove(pathId(c)))));
  app.get("/api/manga/:id/removal", async (c) =>
    c.json(restSeriesRemoval(await services.seriesRemoval.removal(pathId(c)))),
  );

  app.get("/api/manga/:id/units", async (c) => jsonBytes(c, restUnits(await services.units.units(pathId(c)))));

  app.get("/api/manga/:id/chapter-map", async (c) => c.json(restMap(await services.maps.view(pathId(c)))));
  app.put("/api/manga/:id/chapter-map", async (c) => {
    const r = await services.maps.replace(pathId(c), mapSaveBody(await jsonBody(c)), dryRun(c));
    return c.json(r.dryRun ? restMapChange(r.revision, r.preview) : restMap(r.map));
  });
  app.delete("/api/manga/:id/chapter-map", async (c) => {
    const r = await services.maps.remove(pathId(c), mapRevisionBody(await jsonBody(c)), dryRun(c));
    return c.json(r.dryRun ? restMapChange(r.revision, r.preview) : restMap(r.map));
  });
  app.post("/api/manga/:id/chapter-map/readings", async (c) =>
    c.json(restMap(await services.maps.addReading(pathId(c), readingBody(await jsonBody(c)))), 201),
  );
  app.post("/api/manga/:id/chapter-map/suggestions", async (c) =>
    c.json(restMap(await services.maps.addSuggestion(pathId(c), suggestionBody(await jsonBody(c)))), 201),
  );

  app.get("/api/library", (c) => c.json(restLibraryInfo(services.scan.info())));
  app.post("/api/library/scan", async (c) => c.json(restScan(await services.scan.scan())));
  recycleRoutes(app, services);
  downloadRoutes(app, services);
  rulesRoutes(app, services);
  wantedRoutes(app, services);
  auditRoutes(app, services);
  verificationRoutes(app, services);
  assemblyRoutes(app, services);
  pageEvidenceRoutes(app, services);
  monitorRoutes(app, services);
  webSupportRoutes(app, services);
  sourceRoutes(app, services);
  indexerRoutes(app, services);
  translationRoutes(app, services);
  translationSettingsRoutes(app, services);
  catalogueRoutes(app, services);
  readingRoutes(app, ctx, services);
  calendarRoutes(app, services);
  slotSearchRoutes(app, services);
  return app;
}
