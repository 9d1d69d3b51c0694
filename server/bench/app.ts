/**
 * The real app for the HTTP benchmarks (units, audit): createApp on a migrated SQLite database in a
 * temporary directory, no demo library, no web client, silent log, and keep-alive GETs with its API
 * key over a loopback port.
 */
import http from "node:http";
import path from "node:path";
import { createApp, type App } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { migrateDatabase } from "../src/db/migrate.ts";

export const API_KEY = "bench-api-key-0123456789";

/** Migrates a new database under `dir` (data/, library/) and creates the app on it (not listening yet). */
export async function startBenchApp(dir: string, env: Record<string, string> = {}): Promise<App> {
  const config = loadConfig({
    DATA_DIR: path.join(dir, "data"),
    LIBRARY_ROOT: path.join(dir, "library"),
    PORT: "0",
    HOST: "127.0.0.1",
    API_KEY,
    DEMO_LIBRARY: "0",
    WEB_BUILD_DIR: "",
    LOG_LEVEL: "silent",
    ...env,
  });
  await migrateDatabase(config.databaseUrl);
  return createApp(config, { migrate: false, seedDemo: false });
}

/** One GET over a keep-alive socket; resolves with the status and the body. */
export function get(agent: http.Agent, port: number, pathname: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path: pathname, agent, headers: { "x-api-key": API_KEY } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** One GraphQL POST over a keep-alive socket; resolves with the status and the body. */
export function postGraphql(
  agent: http.Agent,
  port: number,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify({ query, variables });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/graphql",
        method: "POST",
        agent,
        headers: {
          "x-api-key": API_KEY,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
