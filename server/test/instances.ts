/**
 * Several instances of the built service (server/dist/main.js) as separate processes on one
 * PostgreSQL database, one library root, one data dir and one Redis: a throwaway Redis on a free
 * loopback port, instances started and killed like a supervisor would, and a graphql-ws client.
 * Used by test/instances.test.ts and the instances benchmarks.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";

export const SERVICE_ENTRY = path.resolve(import.meta.dirname, "..", "dist", "main.js");
export const INSTANCE_API_KEY = "instances-api-key-0123456789";

import { freePort } from "./postgres.ts";

export { freePort };

export interface RedisServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Debian's redis-server on a free loopback port, nothing written to disk. */
export async function startRedis(): Promise<RedisServer> {
  if (!existsSync("/usr/bin/redis-server"))
    throw new Error("Redis is not installed (no /usr/bin/redis-server): install the Debian package redis-server");
  for (let attempt = 0; ; attempt++) {
    try {
      return await redisOn(await freePort());
    } catch (e) {
      // Another process took the port between freePort and the server's bind.
      if (attempt >= 4 || !/Address already in use/i.test((e as Error).message)) throw e;
    }
  }
}

async function redisOn(port: number): Promise<RedisServer> {
  const proc = spawn(
    "/usr/bin/redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  proc.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  proc.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise((r) => proc.once("exit", r));
  const started = Date.now();
  while (!/Ready to accept connections/.test(output)) {
    if (proc.exitCode !== null) {
      await exited;
      throw new Error(`redis-server exited with ${proc.exitCode}:\n${output}`);
    }
    if (Date.now() - started > 15_000) throw new Error(`redis-server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: proc.pid as number,
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill("SIGTERM");
      await exited;
    },
  };
}

export interface Instance {
  name: string;
  base: string;
  proc: ChildProcess;
  output(): string;
  /** Waits for the process to end (after a kill or a stop). */
  exited(): Promise<number | null>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  /** SIGKILL (no cleanup at all) and wait. */
  kill(): Promise<void>;
  /** An authenticated request to this instance's API. */
  api(pathAndQuery: string, init?: RequestInit): Promise<Response>;
}

/** Starts the built service with `env` (and Node flags `nodeArgs`) on a free port; resolves once it listens. */
export async function startInstance(
  name: string,
  env: Record<string, string>,
  nodeArgs: readonly string[] = ["--enable-source-maps"],
): Promise<Instance> {
  if (!existsSync(SERVICE_ENTRY)) throw new Error(`${SERVICE_ENTRY} is missing: run pnpm build`);
  const proc = spawn(process.execPath, [...nodeArgs, SERVICE_ENTRY], {
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      API_KEY: INSTANCE_API_KEY,
      ADMIN_PASSWORD: "instances password",
      WEB_BUILD_DIR: "",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const started = Date.now();
  let base = "";
  for (;;) {
    const m = /listening on (http:\/\/[^\s]+)/.exec(out);
    if (m?.[1]) {
      base = m[1];
      break;
    }
    if (proc.exitCode !== null || proc.signalCode !== null)
      throw new Error(`instance ${name} exited (${proc.exitCode ?? proc.signalCode}):\n${out}`);
    if (Date.now() - started > 120_000) throw new Error(`instance ${name} did not start in 120 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const alive = () => proc.exitCode === null && proc.signalCode === null;
  return {
    name,
    base,
    proc,
    output: () => out,
    exited: () => exit,
    async stop() {
      if (!alive()) return;
      proc.kill("SIGTERM");
      await exit;
    },
    async kill() {
      if (!alive()) return;
      proc.kill("SIGKILL");
      await exit;
    },
    api: (pathAndQuery, init = {}) =>
      fetch(`${base}${pathAndQuery}`, {
        ...init,
        headers: {
          "x-api-key": INSTANCE_API_KEY,
          ...(init.body ? { "content-type": "application/json" } : {}),
          ...(init.headers as Record<string, string> | undefined),
        },
      }),
  };
}

/** A graphql-ws client of one instance, authenticated with the API key. */
export function wsClient(base: string): Client {
  return createClient({
    url: `${base.replace(/^http/, "ws")}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { apiKey: INSTANCE_API_KEY },
    lazy: true,
    retryAttempts: 0,
  });
}

/** A graphql-ws client of one instance, signed in with a web session's cookie (`mls_session=…`), as a browser is. */
export function sessionWsClient(base: string, cookie: string): Client {
  return createClient({
    url: `${base.replace(/^http/, "ws")}/graphql`,
    webSocketImpl: class extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { cookie } });
      }
    },
    lazy: true,
    retryAttempts: 0,
  });
}

/**
 * Subscribes and collects what arrives until `until` says enough; `ready` resolves once the
 * server acknowledged the connection and had a moment to register the subscription.
 */
export function collect<T>(
  client: Client,
  query: string,
  until: (events: T[]) => boolean,
  timeoutMs = 20_000,
): { ready: Promise<void>; done: Promise<T[]>; stop(): void } {
  const events: T[] = [];
  let dispose = () => {};
  let markReady = () => {};
  const ready = new Promise<void>((r) => (markReady = r));
  const done = new Promise<T[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      dispose();
      reject(new Error(`subscription timed out with ${events.length} event(s): ${JSON.stringify(events)}`));
    }, timeoutMs);
    const off = client.on("connected", () => setTimeout(markReady, 300));
    dispose = client.subscribe<T>(
      { query },
      {
        next: (r) => {
          if (r.data) events.push(r.data as T);
          if (until(events)) {
            clearTimeout(timer);
            off();
            dispose();
            resolve(events);
          }
        },
        error: (e) => {
          clearTimeout(timer);
          reject(e instanceof Error ? e : new Error(JSON.stringify(e)));
        },
        complete: () => {},
      },
    );
  });
  return { ready, done, stop: () => dispose() };
}
