#!/usr/bin/env node
// The two README commands: `npm start` and `npm test`. They need only Node 20 and npm: pnpm is
// brought in with npx when it is not installed, dependencies are installed from the lockfile,
// the web client is built when its sources are newer than its build.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const PNPM_VERSION = "12.21.0";
const mode = process.argv[2];

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function pnpmCommand() {
  const probe = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  if (probe.status === 0 && probe.stdout.trim().startsWith(PNPM_VERSION.split(".")[0] + ".")) return ["pnpm", []];
  return ["npx", ["--yes", `pnpm@${PNPM_VERSION}`]];
}
const [pnpmBin, pnpmPre] = pnpmCommand();
const pnpm = (...args) => sh(pnpmBin, [...pnpmPre, ...args]);
const must = (status, what) => {
  if (status !== 0) {
    console.error(`\n${what} failed (exit ${status}).`);
    process.exit(status);
  }
};

function newestMtime(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function buildWebIfStale() {
  const handler = path.join(root, "web", "build", "handler.js");
  const sources = Math.max(
    newestMtime(path.join(root, "web", "src")),
    statSync(path.join(root, "web", "svelte.config.js")).mtimeMs,
    statSync(path.join(root, "web", "vite.config.ts")).mtimeMs,
  );
  if (existsSync(handler) && statSync(handler).mtimeMs >= sources) return;
  must(pnpm("--filter", "web", "build"), "building the web client");
}

must(pnpm("install", "--frozen-lockfile", "--prefer-offline"), "pnpm install");

if (mode === "start") {
  buildWebIfStale();
  // Paths are resolved from where the command was run, before the server changes directory.
  const env = {
    ...process.env,
    DATA_DIR: path.resolve(process.env.DATA_DIR ?? "data"),
    LIBRARY_ROOT: path.resolve(process.env.LIBRARY_ROOT ?? "library"),
  };
  process.exit(sh(pnpmBin, [...pnpmPre, "--filter", "server", "start"], { env }));
} else if (mode === "test") {
  buildWebIfStale();
  const checks = [
    ["typecheck", () => pnpm("-r", "typecheck")],
    ["typecheck test/", () => pnpm("exec", "tsc", "--noEmit", "-p", "test")],
    ["lint", () => pnpm("exec", "eslint", ".")],
    ["format", () => pnpm("exec", "prettier", "--check", "--log-level", "warn", ".")],
  ];
  let failedChecks = 0;
  for (const [name, run] of checks) {
    const status = run();
    console.log(`${name}: ${status === 0 ? "ok" : "FAILED"}`);
    if (status !== 0) failedChecks += 1;
  }
  const report = path.join(root, "node_modules", ".vitest-report.json");
  const status = pnpm("exec", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`);
  let passed = 0;
  let failed = failedChecks;
  if (existsSync(report)) {
    const r = JSON.parse(readFileSync(report, "utf8"));
    passed += r.numPassedTests ?? 0;
    failed += (r.numFailedTests ?? 0) + (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    // A suite that failed to load counts as a failure even when it declared no test.
    failed += (r.testResults ?? []).filter(
      (t) => t.status === "failed" && (t.assertionResults ?? []).length === 0,
    ).length;
  } else {
    failed += 1;
  }
  if (passed === 0 && failed === 0) failed = 1; // a run that executed no test is not a pass
  console.log(`\n${passed} passed, ${failed} failed`);
  process.exit(status !== 0 || failed > 0 ? 1 : 0);
} else {
  console.error("usage: node scripts/run.mjs start|test");
  process.exit(2);
}
