/**
 * Stopping the service: the listening socket closes, live subscriptions end with "going away"
 * (WebSocket close 1001), idle keep-alive connections go, and the process ends by itself after
 * SIGINT or SIGTERM (one stop, however often the signal arrives: a terminal's Ctrl-C under npm
 * arrives twice).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { createClient, type Client } from "graphql-ws";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createTestApp, TEST_API_KEY } from "./utils.ts";

const SERVER_DIR = path.resolve(import.meta.dirname, "..");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A graphql-ws client with one open libraryEvents subscription; resolves once the connection is acknowledged. */
async function subscriber(baseUrl: string, apiKey: string) {
  let closeCode: number | null = null;
  let resolveClosed: (code: number) => void = () => {};
  const closed = new Promise<number>((r) => (resolveClosed = r));
  let markEnded: () => void = () => {};
  const ended = new Promise<void>((r) => (markEnded = r));
  let resolveConnected: () => void = () => {};
  const connected = new Promise<void>((r) => (resolveConnected = r));
  const client: Client = createClient({
    url: `${baseUrl.replace("http", "ws")}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { apiKey },
    retryAttempts: 0,
    on: {
      connected: () => resolveConnected(),
      closed: (event) => {
        closeCode = (event as { code: number }).code;
        resolveClosed(closeCode);
      },
    },
  });
  client.subscribe(
    { query: "subscription { libraryEvents { kind } }" },
    { next: () => {}, error: () => markEnded(), complete: () => markEnded() },
  );
  await connected;
  return { closed, ended, dispose: () => client.dispose() };
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });

describe("app.close()", () => {
  it("stops accepting, ends subscriptions with 1001 and lets an idle keep-alive connection go", async () => {
    const app = await createTestApp();
    dirs.push(app.dir);
    const port = Number(new URL(app.baseUrl).port);
    const sub = await subscriber(app.baseUrl, TEST_API_KEY);
    // A keep-alive connection left open by a finished request.
    expect((await app.api("/api/health")).status).toBe(200);

    await app.close();
    expect(await sub.closed).toBe(1001);
    await sub.ended; // the subscription's sink hears of the end
    expect(await refused(port)).toBe(true);
    await sub.dispose();
  });
});

describe("the service process", () => {
  it.each(["SIGINT", "SIGTERM"] as const)("stops on %s, sent twice, and exits 0 by itself", async (signal) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "mls-stop-"));
    dirs.push(dir);
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: SERVER_DIR,
      env: {
        ...process.env,
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: path.join(dir, "data"),
        LIBRARY_ROOT: path.join(dir, "library"),
        API_KEY: TEST_API_KEY,
        ADMIN_PASSWORD: "",
        DEMO_LIBRARY: "0",
        WEB_BUILD_DIR: "",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    const baseUrl = await new Promise<string>((resolve, reject) => {
      const check = () => {
        const m = /listening on (http:\/\/\S+)/.exec(output);
        if (m?.[1]) resolve(m[1]);
        else if (child.exitCode !== null) reject(new Error(`exited early:\n${output}`));
        else setTimeout(check, 100);
      };
      check();
    });
    const sub = await subscriber(baseUrl, TEST_API_KEY);

    child.kill(signal);
    child.kill(signal);
    expect(await exited).toBe(0);
    expect(await sub.closed).toBe(1001);
    expect(output.match(/shutting down/g)).toHaveLength(1);
    expect(output).toContain(`${signal}: shutting down`);
    expect(output).toMatch(/\bstopped\n/);
    await sub.dispose();
  });
});
