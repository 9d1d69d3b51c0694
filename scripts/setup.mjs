#!/usr/bin/env node
// Brings a checkout up to date before the README's commands run, doing only what changed:
//   1. the system packages (scripts/system-packages.sh: the one list, installed as root with apt);
//   2. dependencies, when the lockfile changed since the last install (pnpm is brought in with npx
//      when it is not installed: a fresh machine needs only Node 20 and npm);
//   3. the server bundle and the web client, each when its sources or the lockfile changed.
// Each step leaves a stamp (a hash of what it depended on); the next run compares and skips.
//
//   node scripts/setup.mjs start       before `npm start` (server and web client)
//   node scripts/setup.mjs processor   before `pnpm processor` (server only)
//   node scripts/setup.mjs test        before `npm test` (the server bundle for the instances test, the web client for the browser tests)
//   node scripts/setup.mjs build       `pnpm build`: both builds, whatever changed
//   node scripts/setup.mjs builds      before the end-to-end tests: the builds whose sources changed
//
// Exit code: 0 ready; otherwise the failing step's code, after saying what failed.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "..");
const PNPM_VERSION = "12.21.0";

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

let pnpmCmd = null;
/** pnpm on PATH when it is the expected major version, else the pinned one through npx. */
function pnpmCommand() {
  if (pnpmCmd) return pnpmCmd;
  const probe = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  const major = PNPM_VERSION.split(".")[0];
  pnpmCmd =
    probe.status === 0 && probe.stdout.trim().startsWith(`${major}.`)
      ? ["pnpm", []]
      : ["npx", ["--yes", `pnpm@${PNPM_VERSION}`]];
  return pnpmCmd;
}

export function pnpm(...args) {
  const [bin, pre] = pnpmCommand();
  return sh(bin, [...pre, ...args]);
}

export function must(status, what) {
  if (status !== 0) {
    console.error(`\n${what} failed (exit ${status}).`);
    process.exit(status);
  }
}

/** Every file under the given paths (folders walked, sorted), minus the excluded ones. */
function files(paths, exclude = () => false) {
  const out = [];
  const walk = (rel) => {
    const abs = path.join(root, rel);
    for (const e of readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = `${rel}/${e.name}`;
      if (exclude(child)) continue;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) out.push(child);
    }
  };
  for (const p of paths) {
    const abs = path.join(root, p);
    if (!existsSync(abs)) continue;
    if (statSync(abs).isDirectory()) walk(p);
    else out.push(p);
  }
  return out;
}

/** One hash over the names and contents of the given files. */
function digest(list) {
  const h = createHash("sha256");
  for (const f of list) {
    h.update(f);
    h.update("\0");
    h.update(readFileSync(path.join(root, f)));
    h.update("\0");
  }
  return h.digest("hex");
}

const readStamp = (file) => (existsSync(file) ? readFileSync(file, "utf8").trim() : null);

const LOCK_INPUTS = ["pnpm-lock.yaml", "pnpm-workspace.yaml"];
const INSTALL_STAMP = path.join(root, "node_modules", ".install-stamp");

/** Installs from the lockfile when it changed since the last install (or nothing is installed). */
export function installIfChanged() {
  const hash = digest(files(LOCK_INPUTS));
  const installed = ["node_modules/.modules.yaml", "server/node_modules", "web/node_modules"].every((p) =>
    existsSync(path.join(root, p)),
  );
  if (installed && readStamp(INSTALL_STAMP) === hash) return false;
  must(pnpm("install", "--frozen-lockfile", "--prefer-offline"), "pnpm install");
  writeFileSync(INSTALL_STAMP, `${hash}\n`);
  return true;
}

const isTest = (f) => /\.test\.ts$/.test(f);

/** What each build depends on, where its output and stamp go, and how it runs. */
export const BUILDS = {
  server: {
    inputs: () =>
      files(
        [
          ...LOCK_INPUTS,
          "prisma/schema.prisma",
          "prisma/postgres/schema.prisma",
          "server/src",
          "server/build.mjs",
          "server/package.json",
          "server/tsconfig.json",
        ],
        (f) => f === "server/src/generated" || isTest(f),
      ),
    output: "server/dist/main.js",
    stamp: "server/dist/.build-stamp",
    run: () => pnpm("--filter", "server", "build"),
  },
  web: {
    inputs: () =>
      files(
        [
          ...LOCK_INPUTS,
          "web/src",
          "web/static",
          "web/svelte.config.js",
          "web/vite.config.ts",
          "web/package.json",
          "web/tsconfig.json",
        ],
        (f) => isTest(f),
      ),
    output: "web/build/handler.js",
    stamp: "web/build/.build-stamp",
    run: () => pnpm("--filter", "web", "build"),
  },
};

/**
 * Builds each named part whose inputs changed since its last build (or whose output is missing);
 * `force` builds them all. The stamp is written after a build that succeeded.
 */
export function buildIfChanged(parts, { force = false } = {}) {
  const built = [];
  for (const name of parts) {
    const b = BUILDS[name];
    const hash = digest(b.inputs());
    const stamp = path.join(root, b.stamp);
    if (!force && existsSync(path.join(root, b.output)) && readStamp(stamp) === hash) continue;
    must(b.run(), `building the ${name === "web" ? "web client" : name}`);
    writeFileSync(stamp, `${hash}\n`);
    built.push(name);
  }
  return built;
}

/** The system packages a command needs (scripts/system-packages.sh); stops when they are missing. */
export function systemPackages(mode) {
  must(sh("bash", [path.join(root, "scripts", "system-packages.sh"), mode]), "checking the system packages");
}

const PLANS = {
  build: { packages: null, builds: ["server", "web"], force: true },
  // The end-to-end tests' global setup: they run the built service and web client, which must
  // follow the sources even when a single test file is run after an edit.
  builds: { packages: null, builds: ["server", "web"] },
  start: { packages: "start", builds: ["server", "web"] },
  processor: { packages: "start", builds: ["server"] },
  test: { packages: "test", builds: ["server", "web"] },
};

export function setup(mode) {
  const plan = PLANS[mode];
  if (!plan) {
    console.error(`usage: node scripts/setup.mjs ${Object.keys(PLANS).join("|")}`);
    process.exit(2);
  }
  if (plan.force) return buildIfChanged(plan.builds, { force: true });
  if (plan.packages) {
    systemPackages(plan.packages);
    installIfChanged();
  }
  buildIfChanged(plan.builds);
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) setup(process.argv[2]);
