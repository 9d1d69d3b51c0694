/**
 * What every benchmark shares: order statistics, aligned tables, native-tool checks, timed
 * child processes, goal verdicts and the exit code convention of `pnpm bench` (0: every goal met,
 * 1: a goal missed after printing every figure, 2: the run could not measure).
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(1, Math.ceil((p / 100) * s.length)) - 1]!;
}

export function ms(x: number, digits = 2): string {
  return Number.isFinite(x) ? `${x.toFixed(digits)} ms` : "n/a";
}

export function printTable(header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of cells.slice(1)) console.log(line(r));
}

/** Positive integer from the environment, else the fallback. */
export function intEnv(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

/** A run that cannot measure what it should: reported after clean-up, exit code 2. */
export class BenchError extends Error {}

export function fail(message: string): never {
  throw new BenchError(message);
}

/** A native command and the Debian package that brings it. */
export interface NativeTool {
  command: string;
  pkg: string;
}
export const TOOLS = {
  vipsthumbnail: { command: "vipsthumbnail", pkg: "libvips-tools" },
  vips: { command: "vips", pkg: "libvips-tools" },
  unzip: { command: "unzip", pkg: "unzip" },
  sha256sum: { command: "sha256sum", pkg: "coreutils" },
  sqlite3: { command: "sqlite3", pkg: "sqlite3" },
} as const satisfies Record<string, NativeTool>;

export function missingTools(tools: readonly NativeTool[]): NativeTool[] {
  return tools.filter((t) => spawnSync("sh", ["-c", `command -v ${t.command}`], { stdio: "ignore" }).status !== 0);
}

/** The one-line install command for missing tools, e.g. `apt-get install -y libvips-tools unzip`. */
export function installHint(tools: readonly NativeTool[]): string {
  return `apt-get update && apt-get install -y ${[...new Set(tools.map((t) => t.pkg))].join(" ")}`;
}

/** Stops the run (exit 2) with the apt-get command when a native tool is missing. */
export function requireTools(tools: readonly NativeTool[]): void {
  const missing = missingTools(tools);
  if (missing.length > 0)
    fail(`${missing.map((t) => t.command).join(", ")} not found; install with: ${installHint(missing)}`);
}

/** The first line a tool prints for its version (for the report). */
export function toolVersion(command: string, args: string[] = ["--version"]): string {
  const r = spawnSync(command, args, { encoding: "utf8" });
  return `${r.stdout}${r.stderr}`.trim().split("\n")[0] ?? "?";
}

/**
 * Runs a command to completion and times it from spawn to exit. Output is drained (its size is
 * returned) so that a native pipeline pays for producing its bytes just as ours does.
 */
export function timeCommand(
  command: string,
  args: string[],
  options: { shell?: boolean } = {},
): Promise<{ ms: number; stdoutBytes: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = options.shell
      ? spawn("sh", ["-c", command], { stdio: ["ignore", "pipe", "pipe"] })
      : spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let bytes = 0;
    const head: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      bytes += c.length;
      if (head.length < 4) head.push(c);
    });
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const elapsed = performance.now() - t0;
      if (code !== 0)
        reject(
          new BenchError(
            `${options.shell ? command : [command, ...args].join(" ")} exited ${code}: ${err.slice(0, 400)}`,
          ),
        );
      else resolve({ ms: elapsed, stdoutBytes: bytes, stdout: Buffer.concat(head).toString("utf8") });
    });
  });
}

export interface Goal {
  ok: boolean;
  text: string;
}

export function printGoals(goals: readonly Goal[]): void {
  console.log("\ngoals:");
  for (const g of goals) console.log(`  ${g.ok ? "PASS" : "FAIL"}  ${g.text}`);
}

export function machineLine(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? "?";
  return `${os.cpus().length} × ${cpu}, Node ${process.version}, load average ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`;
}

/**
 * Runs a benchmark's main: goals decide exit code 0 or 1; a BenchError (or any crash) is exit 2.
 * The main is responsible for its own clean-up (try/finally) before returning or throwing.
 */
export function runBench(name: string, main: () => Promise<Goal[]>): void {
  main()
    .then((goals) => {
      printGoals(goals);
      process.exitCode = goals.every((g) => g.ok) ? 0 : 1;
    })
    .catch((e: unknown) => {
      console.error(e instanceof BenchError ? `bench ${name}: ${e.message}` : e);
      process.exitCode = 2;
    });
}

/**
 * How `npm start` runs the service (the root package.json's start script): its environment and Node
 * flags, which a benchmark that starts the service (or a process standing for it) gives it too, so
 * that its memory is the started service's.
 */
export function serviceStart(): { env: Record<string, string>; nodeArgs: string[] } {
  const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  const m = /exec env ((?:\w+=\S+ )*)node ((?:--\S+ )*)server\/dist\/main\.js/.exec(pkg.scripts.start);
  if (!m) fail(`the start script is not "… exec env VAR=… node --flag… server/dist/main.js": ${pkg.scripts.start}`);
  const env = Object.fromEntries(
    m[1]!
      .trim()
      .split(" ")
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );
  return { env, nodeArgs: m[2]!.trim().split(" ").filter(Boolean) };
}
