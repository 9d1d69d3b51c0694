import { mkdir } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { Config } from "./config.ts";
import { createDb } from "./db/client.ts";
import { migrateDatabase } from "./db/migrate.ts";
import { createGraphQL } from "./graphql/server.ts";
import { restApp } from "./http/rest.ts";
import { apiKeyScheme, createAuthenticator, sessionCookieScheme } from "./http/auth.ts";
import { setSecurityHeaders } from "./http/security-headers.ts";
import { loadWebHandler } from "./http/web.ts";
import { isReaderAppPath } from "./http/readers/index.ts";
import { loadSecrets } from "./secrets.ts";
import { createEventBus } from "./events.ts";
import { requestActivity } from "./request-activity.ts";
import { installRevisionTriggers } from "./repositories/revision-repo.ts";
import { createRepos, type AppContext } from "./services/context.ts";
import { createServices, type Services } from "./services/index.ts";
import { seedDemoLibraryIfEmpty } from "./services/series/demo-service.ts";
import { startDownloads } from "./services/acquisition/download-pipeline-wiring.ts";

export interface App {
  ctx: AppContext;
  services: Services;
  server: Server;
  /** Starts listening; resolves with the bound port. */
  listen(): Promise<number>;
  close(): Promise<void>;
}

/** How long requests in flight may take to finish once the service stops. */
const DRAIN_MS = 3000;

/** Wires configuration, database, services and transports into one HTTP server. */
export async function createApp(config: Config, options: { migrate?: boolean; seedDemo?: boolean } = {}): Promise<App> {
  await mkdir(config.dataDir, { recursive: true });
  await mkdir(config.libraryRoot, { recursive: true });
  if (options.migrate !== false) await migrateDatabase(config.databaseUrl);
  const { db, queries } = createDb(config.databaseUrl);
  // After the migrations: a table they added or rebuilt gets its revision triggers (view-cache.ts).
  await installRevisionTriggers(db);
  const secrets = await loadSecrets(config.dataDir, { apiKey: config.apiKey, adminPassword: config.adminPassword });
  const log =
    config.logLevel === "silent" ? () => {} : (m: string) => console.log(`[${new Date().toISOString()}] ${m}`);
  const activity = requestActivity();
  const ctx: AppContext = {
    config,
    db,
    queries,
    repos: createRepos(db),
    secrets,
    events: createEventBus(),
    activity,
    log,
  };
  const services = createServices(ctx);
  await services.publication.recover();
  await services.sessions.sweep();
  await services.publication.purgeExpired();
  const stopPurge = services.publication.schedulePurge();
  services.assemblyMonitor.start(config.assemblyMonitorIntervalSeconds * 1000);
  const stopDownloads = await startDownloads(ctx, services);
  services.translationWorker.start();
  services.catalogueRefresh.start(config.catalogues.refreshIntervalSeconds * 1000);

  if (options.seedDemo !== false && config.demoLibrary) await seedDemoLibraryIfEmpty(ctx, services);

  const authenticate = createAuthenticator([apiKeyScheme(secrets), sessionCookieScheme(services.sessions)]);
  const graphql = createGraphQL(ctx, services, authenticate);
  const rest = restApp(ctx, services, authenticate, (req, principal) => graphql.yoga.fetch(req, { principal }));
  const api = getRequestListener(rest.fetch);
  const web = await loadWebHandler(config.webBuildDir);

  const server = createServer((req, res) => {
    activity.began();
    res.once("close", activity.ended);
    setSecurityHeaders(res);
    const url = req.url ?? "/";
    if (url.startsWith("/api/") || url === "/graphql" || url.startsWith("/graphql?") || isReaderAppPath(url) || !web) {
      void api(req, res);
      return;
    }
    web(req, res, () => void api(req, res));
  });
  // Idle keep-alive connections stay open longer than any client or reverse proxy keeps them
  // (Node's 5 s default races clients that reuse a connection the server is closing: ECONNRESET).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const wss = graphql.attachWebSocket(server);

  return {
    ctx,
    services,
    server,
    listen: () =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(config.port, config.host, () => {
          const address = server.address();
          resolve(typeof address === "object" && address ? address.port : config.port);
        });
      }),
    async close() {
      // 1. Stop accepting: the listening socket closes, idle keep-alive connections go at once.
      const httpClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // 2. Subscriptions: every WebSocket hears "going away" (1001); graphql-ws completes its subscriptions.
      for (const socket of wss.clients) socket.close(1001, "Going away");
      wss.close();
      // 3. Schedules and workers stop taking work; running jobs stop at their next journal step
      //    (their rows stay as they are, and the next start resumes them).
      const stopped = await Promise.allSettled([
        stopPurge(),
        services.assemblyMonitor.stop(),
        stopDownloads(),
        services.translationWorker.stop(),
        services.pageSignatures.stop(),
        services.catalogueRefresh.stop(),
      ]);
      for (const r of stopped) if (r.status === "rejected") log(`shutdown: ${String(r.reason)}`);
      // 4. Requests in flight get a short while to finish, then every connection left is cut.
      const drained = (ms: number) => Promise.race([httpClosed, new Promise((r) => setTimeout(r, ms).unref())]);
      await drained(DRAIN_MS);
      server.closeAllConnections();
      for (const socket of wss.clients) socket.terminate();
      await drained(1000);
      // Places of streamed pages stored after their answers.
      await services.reading.settled();
      // 5. The database last: nothing above writes any more.
      await db.$disconnect();
    },
  };
}
