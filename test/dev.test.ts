/**
 * The README's watch mode as a developer meets it: `pnpm dev` (here `npm run dev`, as without pnpm) in this checkout starts the service from
 * its TypeScript sources and the web client's dev server; the dev server passes the API and the
 * reader apps' endpoints to the service; a saved server source restarts the service; SIGTERM to the
 * started process stops everything it started.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const dir = mkdtempSync(path.join(os.tmpdir(), "dev-mode-"));
// Below the system's ephemeral range (32768–60999 on Linux), where an outgoing connection could hold it.
const port = 20000 + Math.floor(Math.random() * 12000);
const webPort = port + 1;
let proc: ChildProcess | undefined;
let output = "";

afterAll(() => {
  if (proc?.pid && proc.exitCode === null) {
    try {
      process.kill(-proc.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Processes of a process group (from /proc). */
function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so split after the last ')'.
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === pgid) out.push(Number(name));
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

async function until<T>(what: string, probe: () => Promise<T | null> | T | null, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc && proc.exitCode !== null) throw new Error(`npm run dev exited with ${proc.exitCode}:\n${output}`);
    const value = await probe();
    if (value !== null) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not happen in ${timeoutMs} ms:\n${output}`);
}

const answer = (url: string) =>
  fetch(url).then(
    async (r) => ({ status: r.status, type: r.headers.get("content-type") ?? "", body: await r.text() }),
    () => null,
  );

describe("pnpm dev", () => {
  it("serves the service and the hot-reloading web client, restarts on a saved source, stops on SIGTERM", async () => {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (/^(npm_|pnpm_|VITEST|NODE_OPTIONS$|NODE_ENV$|TEST$)/i.test(k)) continue;
      env[k] = v;
    }
    proc = spawn("npm", ["run", "dev"], {
      cwd: root,
      env: {
        ...env,
        PORT: String(port),
        HOST: "127.0.0.1",
        WEB_DEV_PORT: String(webPort),
        DATA_DIR: path.join(dir, "data"),
        LIBRARY_ROOT: path.join(dir, "library"),
        DEMO_LIBRARY: "0",
      },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    proc.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    proc.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc!.once("exit", (code) => resolve(code)));

    // The service, from its sources.
    await until(
      "the service's health answer",
      async () => ((await answer(`http://127.0.0.1:${port}/api/health`))?.status === 200 ? true : null),
      120_000,
    );
    expect(output).toContain(`Manga library listening on`);

    // The web client's dev server: its page, and the service's endpoints through it.
    const web = `http://127.0.0.1:${webPort}`;
    const page = await until(
      "the dev server's page",
      async () => {
        const a = await answer(`${web}/`);
        return a?.status === 200 ? a : null;
      },
      120_000,
    );
    expect(page.type).toContain("text/html");
    expect(page.body).toContain("/.svelte-kit/generated/client/app.js"); // served from sources, not a build
    const health = await answer(`${web}/api/health`);
    expect(health?.status).toBe(200);
    expect(health?.type).toContain("application/json");
    const opds = await answer(`${web}/opds/v1.2/catalog`);
    expect(opds?.status).toBe(401); // the service's answer (reader apps authenticate), not the dev server's 404
    const graphql = await fetch(`${web}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    expect(graphql.headers.get("content-type")).toContain("json");

    // A saved source restarts the service (tsx watch): it announces itself a second time.
    const starts = () => output.split("Manga library listening on").length - 1;
    expect(starts()).toBe(1);
    const source = path.join(root, "server", "src", "config.ts");
    const now = new Date();
    utimesSync(source, now, now);
    await until("the restart", () => (starts() >= 2 ? true : null), 120_000);
    await until(
      "the restarted service's health answer",
      async () => ((await answer(`http://127.0.0.1:${port}/api/health`))?.status === 200 ? true : null),
      60_000,
    );

    // SIGTERM to the started process stops both children and leaves nothing behind.
    proc.kill("SIGTERM");
    await exited;
    const deadline = Date.now() + 20_000;
    let left = groupMembers(proc.pid as number);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      left = groupMembers(proc.pid as number);
    }
    expect(left).toEqual([]);
  }, 420_000);
});
