import { Hono, type Context } from "hono";
import { AppError } from "../errors.ts";
import type { AppContext } from "../services/context.ts";
import type { Services } from "../services/index.ts";
import { authenticate, CLEAR_SESSION_COOKIE, issueSession, parseCookies, SESSION_COOKIE, sessionUser } from "./auth.ts";
import { problemResponse } from "./problem.ts";
import { restMap, restMapChange, restScan } from "./present-map.ts";
import { restSeries, restUnits } from "./present.ts";
import { recycleRoutes } from "./rest-recycle.ts";
import { downloadRoutes } from "./rest-downloads.ts";
import { rulesRoutes } from "./rest-rules.ts";
import { wantedRoutes } from "./rest-wanted.ts";
import { auditRoutes } from "./rest-audit.ts";
import { verificationRoutes } from "./rest-verification.ts";
import { assemblyRoutes } from "./rest-assembly.ts";
import { monitorRoutes } from "./rest-monitor.ts";
import { webSupportRoutes } from "./rest-web-support.ts";
import { sourceRoutes } from "./rest-sources.ts";
import { indexerRoutes } from "./rest-indexer.ts";
import { translationRoutes } from "./rest-translations.ts";
import { translationSettingsRoutes } from "./rest-translation-settings.ts";
import { calendarRoutes } from "./rest-calendar.ts";
import { slotSearchRoutes } from "./rest-slot-search.ts";
import { dryRun, jsonBody, pathId } from "./request.ts";
import { readingRoutes } from "./rest-reading.ts";
import { readerAppRoutes } from "./readers/index.ts";

/** The REST layer: translation between HTTP and the services, nothing else. */
export function restApp(ctx: AppContext, services: Services, graphql: (req: Request) => Promise<Response> | Response) {
  const app = new Hono();
  app.onError((e) => problemResponse(e, ctx.log));
  app.notFound((c) =>
    c.req.path.startsWith("/api/")
      ? problemResponse(new AppError("not_found", `no route for ${c.req.method} ${c.req.path}`))
      : c.text("Not found", 404),
  );

  // Session endpoints are the only ones reachable without a credential.
  app.post("/api/session", async (c) => {
    const body = (await jsonBody(c)) as { username?: unknown; password?: unknown };
    if (
      body.username !== "admin" ||
      typeof body.password !== "string" ||
      !ctx.secrets.checkAdminPassword(body.password)
    ) {
      throw new AppError("bad_credentials");
    }
    const { cookie } = issueSession(ctx.secrets, "admin");
    return c.body(null, 204, { "set-cookie": cookie });
  });
  app.get("/api/session", (c) => {
    const user = sessionUser(ctx.secrets, parseCookies(c.req.header("cookie")).get(SESSION_COOKIE));
    if (!user) throw new AppError("unauthenticated");
    return c.json({ username: user });
  });
  app.delete("/api/session", (c) => c.body(null, 204, { "set-cookie": CLEAR_SESSION_COOKIE }));
  app.get("/api/health", (c) => c.json({ ok: true }));
  // OPDS, KOReader sync and the Komga-compatible API: their own authentication (HTTP Basic, …).
  readerAppRoutes(app, ctx, services);

  const requireAuth = async (c: Context, next: () => Promise<void>) => {
    const user = authenticate(ctx.secrets, { apiKey: c.req.header("x-api-key"), cookie: c.req.header("cookie") });
    if (!user) throw new AppError("unauthenticated", "send the API key as X-Api-Key, or log in");
    await next();
  };
  app.use("/api/*", requireAuth);
  app.use("/graphql", requireAuth);
  app.on(["GET", "POST"], "/graphql", (c) => graphql(c.req.raw));

  app.get("/api/manga", async (c) => c.json((await services.series.list()).map(restSeries)));
  app.post("/api/manga", async (c) => c.json(restSeries(await services.series.create(await jsonBody(c))), 201));
  app.get("/api/manga/:id", async (c) => c.json(restSeries(await services.series.get(pathId(c)))));
  app.patch("/api/manga/:id", async (c) =>
    c.json(restSeries(await services.series.update(pathId(c), await jsonBody(c)))),
  );

  app.get("/api/manga/:id/units", async (c) => c.json(restUnits(await services.units.units(pathId(c)))));

  app.get("/api/manga/:id/chapter-map", async (c) => c.json(restMap(await services.maps.view(pathId(c)))));
  app.put("/api/manga/:id/chapter-map", async (c) => {
    const r = await services.maps.replace(pathId(c), await jsonBody(c), dryRun(c));
    return c.json(r.dryRun ? restMapChange(r.revision, r.preview) : restMap(r.map));
  });
  app.delete("/api/manga/:id/chapter-map", async (c) => {
    const r = await services.maps.remove(pathId(c), await jsonBody(c), dryRun(c));
    return c.json(r.dryRun ? restMapChange(r.revision, r.preview) : restMap(r.map));
  });
  app.post("/api/manga/:id/chapter-map/readings", async (c) =>
    c.json(restMap(await services.maps.addReading(pathId(c), await jsonBody(c))), 201),
  );
  app.post("/api/manga/:id/chapter-map/suggestions", async (c) =>
    c.json(restMap(await services.maps.addSuggestion(pathId(c), await jsonBody(c))), 201),
  );

  app.post("/api/library/scan", async (c) => c.json(restScan(await services.scan.scan())));
  recycleRoutes(app, services);
  downloadRoutes(app, services);
  rulesRoutes(app);
  wantedRoutes(app, services);
  auditRoutes(app, services);
  verificationRoutes(app, services);
  assemblyRoutes(app, services);
  monitorRoutes(app, services);
  webSupportRoutes(app, services);
  sourceRoutes(app, services);
  indexerRoutes(app, services);
  translationRoutes(app, services);
  translationSettingsRoutes(app, services);
  readingRoutes(app, ctx, services);
  calendarRoutes(app, services);
  slotSearchRoutes(app, services);
  return app;
}
