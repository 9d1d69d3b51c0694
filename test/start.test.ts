/**
 * The README's start command as a newcomer meets it: `npm start` in a fresh clone of the repository
 * (its committed HEAD), started twice. The first start installs, builds and serves; the second
 * reaches the health endpoint without installing or building anything. The process that listens
 * is plain node on built `.js` files, started directly by npm (no wrapper in between), and SIGTERM
 * to the started process stops everything it started. Then: a changed source rebuilds only its
 * part, a changed lockfile installs again.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
let dir: string;
let clone: string;
// Below the system's ephemeral range (32768–60999 on Linux), where an outgoing connection could hold it.
const port = 20000 + Math.floor(Math.random() * 12000);
const base = `http://127.0.0.1:${port}`;

interface Started {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The environment of a newcomer's shell: nothing of the test runner's own npm, pnpm or vitest state. */
function newcomerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(npm_|pnpm_|VITEST|NODE_OPTIONS$|NODE_ENV$|TEST$|API_KEY$|ADMIN_PASSWORD$|DATA_DIR$|LIBRARY_ROOT$)/i.test(k))
      continue;
    env[k] = v;
  }
  return { ...env, PORT: String(port), HOST: "127.0.0.1" };
}

/** `npm start` in the clone, in its own process group (so that every process it starts can be found). */
function npmStart(): Started {
  let output = "";
  const proc = spawn("npm", ["start"], {
    cwd: clone,
    env: newcomerEnv(),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  proc.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  proc.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { proc, output: () => output, exited };
}

async function untilHealthy(s: Started, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (s.proc.exitCode !== null) throw new Error(`npm start exited with ${s.proc.exitCode}:\n${s.output()}`);
    const ok = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no answer from ${base}/api/health in ${timeoutMs} ms:\n${s.output()}`);
}

/** Processes of a process group (from /proc). */
function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so split after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid) out.push(Number(name));
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** The process holding the listening socket of `port`, among the given processes. */
function listener(candidates: number[]): number | null {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      const local = f[1];
      if (!local || f[3] !== "0A") continue; // 0A: LISTEN
      if (parseInt(local.split(":")[1] ?? "", 16) === port && f[9]) inodes.add(f[9]);
    }
  }
  for (const pid of candidates) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m?.[1] && inodes.has(m[1])) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

async function untilGone(pgid: number, timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let left = groupMembers(pgid);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = groupMembers(pgid);
  }
  return left;
}

/** SIGTERM to the started process; resolves with its exit and what is left of its process group. */
async function stop(s: Started): Promise<{ code: number | null; left: number[] }> {
  s.proc.kill("SIGTERM");
  const { code } = await s.exited;
  return { code, left: await untilGone(s.proc.pid as number, 20_000) };
}

const mtime = (rel: string) => statSync(path.join(clone, rel)).mtimeMs;
const STAMPS = ["node_modules/.install-stamp", "server/dist/.build-stamp", "web/build/.build-stamp"];

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "mls-start-"));
  clone = path.join(dir, "clone");
  const r = spawnSync("git", ["clone", "--quiet", root, clone], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git clone failed: ${r.stderr}`);
});

afterAll(() => {
  // Nothing may outlive the test, whatever failed above.
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`).startsWith(clone)) process.kill(Number(name), "SIGKILL");
    } catch {
      // gone or not ours to read
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("npm start in a fresh clone", () => {
  let stamps: number[] = [];

  // The first start installs and builds on a machine other work shares: it gets far more than the default time.
  it(
    "first start: installs, builds, serves the web client and the API; SIGTERM stops every process",
    { timeout: 1_200_000 },
    async () => {
      const s = npmStart();
      await untilHealthy(s, 1_100_000);
      expect(s.output()).toMatch(/server built into dist\//);
      expect(s.output()).toMatch(/listening on/);
      for (const rel of [...STAMPS, "server/dist/main.js", "web/build/handler.js"])
        expect(existsSync(path.join(clone, rel)), rel).toBe(true);
      const page = await fetch(`${base}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<html");
      stamps = STAMPS.map(mtime);

      const { code, left } = await stop(s);
      expect(s.output()).toMatch(/SIGTERM: shutting down[\s\S]*stopped/);
      expect(code).toBe(0);
      expect(left).toEqual([]);
    },
  );

  it(
    "second start: no install, no build; plain node on .js files, directly under npm; SIGTERM leaves nothing",
    { timeout: 600_000 },
    async () => {
      const started = performance.now();
      const s = npmStart();
      await untilHealthy(s, 500_000);
      const seconds = (performance.now() - started) / 1000;
      console.log(`second start: /api/health answered ${seconds.toFixed(1)} s after npm start`);

      expect(STAMPS.map(mtime)).toEqual(stamps);
      expect(s.output()).not.toMatch(/server built into dist\/|vite v\d|Lockfile|Progress: resolved|pnpm install/);

      const npmPid = s.proc.pid as number;
      const pid = listener(groupMembers(npmPid));
      expect(pid, "a process of the started group listens on the port").not.toBeNull();
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      expect(path.basename(argv[0] ?? "")).toBe("node");
      const script = argv.slice(1).find((a) => !a.startsWith("-"));
      expect(script).toBe("server/dist/main.js");
      expect(argv.join(" ")).not.toMatch(/tsx|--import|--loader|--require/);
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      expect(environ.find((e) => e.startsWith("NODE_OPTIONS=")) ?? "NODE_OPTIONS=").toBe("NODE_OPTIONS=");
      // No wrapper between npm and the server: npm's own child is the listening process.
      expect(parentOf(pid as number)).toBe(npmPid);

      const { code, left } = await stop(s);
      expect(s.output()).toMatch(/SIGTERM: shutting down[\s\S]*stopped/);
      expect(code).toBe(0);
      expect(left).toEqual([]);
    },
  );

  it(
    "a changed server source rebuilds the server only; a changed lockfile installs again",
    { timeout: 1_200_000 },
    () => {
      const setup = () =>
        spawnSync(process.execPath, ["scripts/setup.mjs", "start"], {
          cwd: clone,
          env: newcomerEnv(),
          encoding: "utf8",
        });
      const main = path.join(clone, "server", "src", "main.ts");
      writeFileSync(main, `${readFileSync(main, "utf8")}// edited\n`);
      const before = STAMPS.map(mtime);
      const r = setup();
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/server built into dist\//);
      const after = STAMPS.map(mtime);
      expect([after[0] === before[0], after[1] === before[1], after[2] === before[2]]).toEqual([true, false, true]);

      const lock = path.join(clone, "pnpm-lock.yaml");
      writeFileSync(lock, `${readFileSync(lock, "utf8")}# edited\n`);
      // `pnpm processor`'s setup (install, server build): the web client's rebuild is left out to save time.
      const again = spawnSync(process.execPath, ["scripts/setup.mjs", "processor"], {
        cwd: clone,
        env: newcomerEnv(),
        encoding: "utf8",
      });
      expect(again.status, again.stdout + again.stderr).toBe(0);
      const last = STAMPS.map(mtime);
      // Installed again; the lockfile is an input of the builds too, so the server is rebuilt as well.
      expect([last[0] !== after[0], last[1] !== after[1], last[2] === after[2]]).toEqual([true, true, true]);
    },
  );

  it("the reference processor runs from the same build", () => {
    const r = spawnSync(process.execPath, ["server/dist/processor.js", "--help"], { cwd: clone, encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/Usage: pnpm processor/);
  });
});
