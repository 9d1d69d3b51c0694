import { mkdir } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { Config } from "./config.ts";
import { createDb, dialectOfUrl } from "./db/client.ts";
import { migrateDatabase } from "./db/migrate.ts";
import { createGraphQL } from "./graphql/server.ts";
import { restApp } from "./http/rest.ts";
import { apiKeyScheme, createAuthenticator, sessionCookieScheme } from "./http/auth.ts";
import { setSecurityHeaders } from "./http/security-headers.ts";
import { loadWebHandler } from "./http/web.ts";
import { isReaderAppPath } from "./http/readers/index.ts";
import { loadSecrets } from "./secrets.ts";
import { requestActivity } from "./request-activity.ts";
import { createEventBus, redisTransport } from "./events.ts";
import { createCluster } from "./library/cluster.ts";
import { leaseRepo } from "./repositories/lease-repo.ts";
import { installRevisionTriggers } from "./repositories/revision-repo.ts";
import { createRepos, type AppContext } from "./services/context.ts";
import { createServices, type Services } from "./services/index.ts";
import { seedDemoLibraryIfEmpty } from "./services/series/demo-service.ts";
import { startBackground } from "./services/background.ts";
import { libraryRootPresent } from "./library/library-root.ts";

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
  if (options.migrate !== false) await migrateDatabase(config.databaseUrl);
  const { db, queries } = createDb(config.databaseUrl);
  const log =
    config.logLevel === "silent" ? () => {} : (m: string) => console.log(`[${new Date().toISOString()}] ${m}`);
  const activity = requestActivity();
  // Several instances share a PostgreSQL database; SQLite is one instance's own (library/cluster.ts).
  const cluster = createCluster(leaseRepo(db), {
    exclusive: dialectOfUrl(config.databaseUrl) === "sqlite",
    leaseMs: config.leaseSeconds * 1000,
    log,
  });
  const transport = config.redisUrl ? await redisTransport(config.redisUrl, config.redisPrefix) : null;
  const workers = config.instanceRole !== "api";
  // Instances starting together take turns: the triggers, the first start's secrets, the journal's
  // recovery and the demo library are set up by one at a time.
  const started = await cluster.turn(
    "start-up",
    async () => {
      // After the migrations: a table they added or rebuilt gets its revision triggers (view-cache.ts).
      await installRevisionTriggers(db);
      // Instances change the shared secrets file one at a time (secrets.ts).
      const secretsLock = cluster.keyedLock("secrets");
      const secrets = await loadSecrets(
        config.dataDir,
        { apiKey: config.apiKey, adminPassword: config.adminPassword },
        { lock: cluster.exclusive ? undefined : (fn) => secretsLock.run(["file"], fn) },
      );
      const events = createEventBus(transport?.target);
      const ctx: AppContext = { config, db, queries, repos: createRepos(db), secrets, events, cluster, activity, log };
      const services = createServices(ctx);
      // LIBRARY_ROOT is made on a first start only (no series recorded yet). Later a missing one is
      // an unmounted disk or share, and making it would fill the bare mount point (library-root.ts).
      if (!(await libraryRootPresent(config.libraryRoot))) {
        if ((await ctx.repos.series.count()) === 0) await mkdir(config.libraryRoot, { recursive: true });
        else
          log(`the library folder ${config.libraryRoot} is missing (is its disk mounted?): nothing is written to it`);
      }
      // Alone on its database, whatever the journal holds was left by the previous process; with
      // several instances the workers' recovery sweep takes only entries whose claim ran out.
      if (cluster.exclusive) await services.publication.recover();
      await services.sessions.sweep();
      // A cycle of the purge's schedule, so its last run is kept (the schedule then comes 6 hours after).
      if (workers) await services.publication.purgeSchedule.runNow();
      if (options.seedDemo !== false && config.demoLibrary) await seedDemoLibraryIfEmpty(ctx, services);
      return { ctx, services };
    },
    true,
  );
  if (!started.ran) throw new Error("start-up: the start-up turn was not taken");
  const { ctx, services } = started.value;
  const { secrets } = ctx;
  const stopSecretsSync = syncSecrets(ctx);
  const stopSessionsSync = syncSessions(ctx, services);
  const background = workers ? await startBackground(ctx, services) : async () => {};
  cluster.start({ sweep: workers });
  log(`instance ${cluster.instanceId}: role ${config.instanceRole}${transport ? ", events through Redis" : ""}`);

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
    if (config.instanceRole === "worker" && !url.startsWith("/api/health")) {
      workerOnly(res);
      return;
    }
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
      await Promise.allSettled([background(), services.pageSignatures.stop(), stopSecretsSync(), stopSessionsSync()]);
      // 4. Requests in flight get a short while to finish, then every connection left is cut.
      const drained = (ms: number) => Promise.race([httpClosed, new Promise((r) => setTimeout(r, ms).unref())]);
      await drained(DRAIN_MS);
      server.closeAllConnections();
      for (const socket of wss.clients) socket.terminate();
      await drained(1000);
      // Places of streamed pages stored after their answers.
      await services.reading.settled();
      // 5. Leases go (another instance takes this one's work at once), then Redis and the database.
      await cluster.stop().catch((e: unknown) => log(`shutdown: ${String(e)}`));
      await transport?.close();
      await db.$disconnect();
    },
  };
}

/**
 * Keeps this instance's copy of the shared secrets file current when another instance changes it:
 * a change here is announced on the event bus (through Redis to every instance; the event names
 * the writer and carries no value) and the others re-read the file. Without Redis, each lease
 * renewal and each password check looks at the file (one stat) and re-reads it when it was replaced.
 */
function syncSecrets(ctx: AppContext): () => Promise<void> {
  const { secrets, events, cluster, log } = ctx;
  // Alone on its database (SQLite) the instance has no one to hear from.
  if (cluster.exclusive) return async () => {};
  secrets.onWritten(() => events.publishSecretsChanged(cluster.instanceId));
  cluster.onRenew(() => secrets.refresh());
  const feed = events.subscribeSecrets((e) => e.instanceId !== cluster.instanceId);
  const listening = (async () => {
    for await (const _ of feed)
      await secrets
        .reload()
        .catch((e: unknown) => log(`secrets: re-reading the secrets file failed: ${(e as Error).message}`));
  })();
  return async () => {
    await feed.return();
    await listening;
  };
}

/**
 * Sessions ended on another instance (logout, sign out everywhere, a password change): their ids
 * come through the event bus, and this instance's live connections of them close at once.
 */
function syncSessions(ctx: AppContext, services: Services): () => Promise<void> {
  const { events, cluster } = ctx;
  if (cluster.exclusive) return async () => {};
  const feed = events.subscribeSessions((e) => e.instanceId !== cluster.instanceId);
  const listening = (async () => {
    for await (const e of feed) services.sessions.endedElsewhere(e.ids);
  })();
  return async () => {
    await feed.return();
    await listening;
  };
}

/** A worker instance serves the health check only; the API and the pages are the api instances'. */
function workerOnly(res: import("node:http").ServerResponse): void {
  res.statusCode = 404;
  res.setHeader("content-type", "application/problem+json");
  res.end(
    JSON.stringify({
      type: "about:blank",
      title: "Not found",
      status: 404,
      code: "not_found",
      detail: "this instance runs background work only (INSTANCE_ROLE=worker): only /api/health answers here",
    }),
  );
}
