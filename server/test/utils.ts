import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, inject } from "vitest";
import { createApp, type App } from "../src/app.ts";
import { loadConfig, type Config } from "../src/config.ts";
import { createDb, type Db } from "../src/db/client.ts";

export const TEST_API_KEY = "test-api-key-0123456789";
export const TEST_PASSWORD = "correct horse battery staple";

export interface TestApp extends App {
  dir: string;
  config: Config;
  baseUrl: string;
  /** fetch against the running app with the API key. */
  api(pathname: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** A GraphQL request with the API key; returns the parsed body. */
  gql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<{ data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] }>;
  dispose(): Promise<void>;
}

let postgresAdmin: Db | undefined;

/**
 * In the PostgreSQL project (global-setup-postgres.ts): a new database copied from the migrated
 * template, and the function that drops it. Null in the SQLite project.
 */
export async function createPostgresTestDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const pg = inject("postgres");
  if (!pg) return null;
  postgresAdmin ??= createDb(pg.adminUrl).db;
  const admin = postgresAdmin;
  const name = `test_${randomUUID().replaceAll("-", "")}`;
  await admin.$executeRawUnsafe(`CREATE DATABASE "${name}" TEMPLATE "${pg.template}"`);
  const url = new URL(pg.adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.$executeRawUnsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/**
 * A real app on a real database (SQLite copied from the migrated template, or in the PostgreSQL
 * project a copy of its template database), a temporary library root and data dir, listening on a
 * free loopback port. No mocks.
 */
export async function createTestApp(
  options: { demo?: boolean; env?: Record<string, string>; listen?: boolean } = {},
): Promise<TestApp> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mls-test-"));
  const dataDir = path.join(dir, "data");
  mkdirSync(dataDir, { recursive: true });
  const postgres = await createPostgresTestDatabase();
  if (!postgres) copyFileSync(inject("templateDb"), path.join(dataDir, "library.db"));
  const config = loadConfig({
    // On PostgreSQL the recovery sweep takes over work whose claim ran out. A test app is the only
    // instance on its database, and rows a test prepares through a service (a download judged
    // directly, never claimed by a worker) would look abandoned to it: long leases keep the sweep
    // out of the tests' way (test/instances.test.ts proves the takeover with short ones).
    ...(postgres ? { DATABASE_URL: postgres.url, LEASE_SECONDS: "3600" } : {}),
    DATA_DIR: dataDir,
    LIBRARY_ROOT: path.join(dir, "library"),
    PORT: "0",
    HOST: "127.0.0.1",
    API_KEY: TEST_API_KEY,
    ADMIN_PASSWORD: TEST_PASSWORD,
    DEMO_LIBRARY: options.demo ? "1" : "0",
    WEB_BUILD_DIR: "",
    LOG_LEVEL: "silent",
    ...options.env,
  });
  const app = await createApp(config, { migrate: false });
  // The test's fetch keeps sockets alive until shortly before the server's idle timeout (5 s). A
  // test that spends longer than that between requests on a loaded machine could reuse a socket the
  // server was closing at that moment (ECONNRESET); a long server timeout leaves the closing to fetch.
  app.server.keepAliveTimeout = 120_000;
  const port = options.listen === false ? 0 : await app.listen();
  const baseUrl = `http://127.0.0.1:${port}`;
  const api: TestApp["api"] = (pathname, init = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has("x-api-key")) headers.set("x-api-key", TEST_API_KEY);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    return fetch(`${baseUrl}${pathname}`, { ...init, headers, body });
  };
  return {
    ...app,
    dir,
    config,
    baseUrl,
    api,
    async gql(query, variables) {
      const res = await api("/graphql", { method: "POST", json: { query, variables } });
      return (await res.json()) as never;
    },
    async dispose() {
      await app.close();
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One app shared by the tests of the enclosing file or describe block: created by createTestApp
 * before them and handed to `assign`, disposed after them.
 */
export function shareTestApp(assign: (app: TestApp) => void, options: Parameters<typeof createTestApp>[0] = {}): void {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await createTestApp(options);
    assign(app);
  });
  afterAll(async () => {
    await app?.dispose();
  });
}
