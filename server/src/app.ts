import { mkdir } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { Config } from "./config.ts";
import { createDb } from "./db/client.ts";
import { migrateDatabase } from "./db/migrate.ts";
import { createGraphQL } from "./graphql/server.ts";
import { restApp } from "./http/rest.ts";
import { loadWebHandler } from "./http/web.ts";
import { loadSecrets } from "./secrets.ts";
import { createEventBus } from "./events.ts";
import { createRepos, type AppContext } from "./services/context.ts";
import { createServices, type Services } from "./services/index.ts";
import { seedDemoLibraryIfEmpty } from "./services/demo-service.ts";
import { startDownloads } from "./services/download-pipeline-wiring.ts";

export interface App {
  ctx: AppContext;
  services: Services;
  server: Server;
  /** Starts listening; resolves with the bound port. */
  listen(): Promise<number>;
  close(): Promise<void>;
}

/** Wires configuration, database, services and transports into one HTTP server. */
export async function createApp(config: Config, options: { migrate?: boolean; seedDemo?: boolean } = {}): Promise<App> {
  await mkdir(config.dataDir, { recursive: true });
  await mkdir(config.libraryRoot, { recursive: true });
  if (options.migrate !== false) await migrateDatabase(config.databaseUrl);
  const { db, queries } = createDb(config.databaseUrl);
  const secrets = await loadSecrets(config.dataDir, { apiKey: config.apiKey, adminPassword: config.adminPassword });
  const log =
    config.logLevel === "silent" ? () => {} : (m: string) => console.log(`[${new Date().toISOString()}] ${m}`);
  const ctx: AppContext = { config, db, queries, repos: createRepos(db), secrets, events: createEventBus(), log };
  const services = createServices(ctx);
  await services.publication.recover();
  await services.publication.purgeExpired();
  const stopPurge = services.publication.schedulePurge();
  services.assemblyMonitor.start(config.assemblyMonitorIntervalSeconds * 1000);
  const stopDownloads = await startDownloads(ctx, services);
  services.translationWorker.start();
  services.catalogueRefresh.start(config.catalogues.refreshIntervalSeconds * 1000);

  if (options.seedDemo !== false && config.demoLibrary) await seedDemoLibraryIfEmpty(ctx, services);

  const graphql = createGraphQL(ctx, services);
  const api = getRequestListener(restApp(ctx, services, (req) => graphql.yoga.fetch(req)).fetch);
  const web = await loadWebHandler(config.webBuildDir);

  const server = createServer((req, res) => {
    const url = req.url ?? "/";
    if (url.startsWith("/api/") || url === "/graphql" || url.startsWith("/graphql?") || !web) {
      void api(req, res);
      return;
    }
    web(req, res, () => void api(req, res));
  });
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
      stopPurge();
      await services.assemblyMonitor.stop();
      await stopDownloads();
      await services.translationWorker.stop();
      await services.catalogueRefresh.stop();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await db.$disconnect();
    },
  };
}
