/**
 * `pnpm bench [name …]`: runs every benchmark, or the named ones (`pnpm bench thumbnails sha256`),
 * one after another, each in its own process (a bench's memory, libvips cache and exit code stay
 * its own). Each prints its figures and PASS/FAIL per goal; this prints a summary.
 * Exit code: 0 every goal met, 1 a goal missed, 2 a bench could not measure (the highest wins).
 * Native tools are checked first: when one is missing nothing runs, and the apt-get line is printed.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { TOOLS, installHint, missingTools, printTable, serviceStart, type NativeTool } from "./harness.ts";

interface Bench {
  file: string;
  tools: NativeTool[];
  what: string;
  /**
   * The bench runs the service in its own process: that process gets the environment and Node
   * flags `npm start` gives the service (harness.ts serviceStart), so its memory is the service's.
   */
  asService?: boolean;
}

const BENCHES: Record<string, Bench> = {
  units: { file: "units.bench.ts", tools: [TOOLS.sqlite3], what: "GET /api/manga/{id}/units vs the sqlite3 shell" },
  "units-postgres": {
    file: "units-postgres.bench.ts",
    tools: [{ command: "psql", pkg: "postgresql" }],
    what: "GET /api/manga/{id}/units on PostgreSQL vs psql running the same selects",
  },
  instances: {
    file: "instances.bench.ts",
    tools: [{ command: "redis-server", pkg: "redis-server" }],
    what: "mixed reads on one and two instances (PostgreSQL + Redis); 1,000 graphql-ws subscribers on two",
  },
  thumbnails: {
    file: "thumbnails.bench.ts",
    tools: [TOOLS.unzip, TOOLS.vipsthumbnail],
    what: "audit thumbnail vs unzip -p | vipsthumbnail",
  },
  conformity: { file: "conformity.bench.ts", tools: [TOOLS.vips], what: "page statistics vs vips stats per page" },
  library: {
    file: "library.bench.ts",
    tools: [TOOLS.unzip],
    what: "big library: full scan vs unzip -l, rescans, audit pages, RSS, mixed load",
    asService: true,
  },
  audit: { file: "audit.bench.ts", tools: [], what: "audit page of 24 over 10,000 files, no archive opened" },
  "page-evidence": {
    file: "page-evidence.bench.ts",
    tools: [TOOLS.vips],
    what: "page signatures vs vipsthumbnail to the same 36 px decode; alignment of a 200-page book",
  },
  sha256: { file: "sha256.bench.ts", tools: [TOOLS.sha256sum], what: "sha256File vs sha256sum on 1 GiB" },
  assembly: {
    file: "assembly.bench.ts",
    tools: [TOOLS.unzip, { command: "zip", pkg: "zip" }],
    what: "buildBook (10 chapters, ~70 MB) vs unzip + zip -0; peak RSS of a 1 GB book",
  },
  downloads: {
    file: "downloads.bench.ts",
    tools: [],
    what: "download pipeline (fetch, judge, CBZ, publish) vs fetch + write; peak RSS",
  },
  hardening: {
    file: "hardening.bench.ts",
    tools: [{ command: "openssl", pkg: "openssl" }],
    what: "login cost vs openssl kdf SCRYPT; health under a login flood; alias flood and 50 MB body refused, peak RSS",
  },
  readers: {
    file: "readers.bench.ts",
    tools: [TOOLS.unzip],
    what: "OPDS-PSE page (first byte) vs unzip -p; OPDS feed of a 2,000-chapter series",
  },
  start: {
    file: "start.bench.ts",
    tools: [{ command: "git", pkg: "git" }],
    what: "npm start in a fresh clone, second start to /api/health, vs the bundle alone, tsx and a bare node server",
  },
  ocr: {
    file: "ocr.bench.ts",
    tools: [{ command: "tesseract", pkg: "tesseract-ocr" }],
    what: "local OCR (warm tesseract.js worker) vs the tesseract CLI on the same crops",
  },
  "language-id": {
    file: "language-id.bench.ts",
    tools: [],
    what: "language checks on short manga dialogue: eld (and cld3-asm, franc when installed)",
  },
};

function main(): number {
  const args = process.argv.slice(2).filter((a) => a !== "--");
  const unknown = args.filter((a) => !(a in BENCHES));
  if (unknown.length > 0 || args.includes("-h") || args.includes("--help")) {
    if (unknown.length > 0) console.error(`bench: unknown benchmark ${unknown.join(", ")}`);
    console.error(`usage: pnpm bench [${Object.keys(BENCHES).join(" | ")} …]  (none named: all)`);
    for (const [name, b] of Object.entries(BENCHES)) console.error(`  ${name.padEnd(11)} ${b.what}`);
    return 2;
  }
  const names = args.length > 0 ? [...new Set(args)] : Object.keys(BENCHES);
  const missing = missingTools([...new Set(names.flatMap((n) => BENCHES[n]!.tools))]);
  if (missing.length > 0) {
    console.error(
      `bench: ${missing.map((t) => t.command).join(", ")} not found; install with: ${installHint(missing)}`,
    );
    return 2;
  }
  const tsx = createRequire(import.meta.url).resolve("tsx/cli");
  const results: { name: string; code: number; seconds: number }[] = [];
  for (const name of names) {
    console.log(`\n=== ${name}: ${BENCHES[name]!.what} ===\n`);
    const t0 = performance.now();
    const bench = BENCHES[name]!;
    // The flags go through NODE_OPTIONS: tsx runs the bench in a node process of its own.
    const start = bench.asService ? serviceStart() : { env: {}, nodeArgs: [] };
    const nodeOptions = [process.env.NODE_OPTIONS ?? "", ...start.nodeArgs].join(" ").trim();
    const r = spawnSync(process.execPath, [tsx, path.join(import.meta.dirname, bench.file)], {
      stdio: "inherit",
      env: { ...process.env, ...start.env, ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) },
    });
    results.push({ name, code: r.status ?? 2, seconds: (performance.now() - t0) / 1000 });
  }
  if (names.length > 1) {
    console.log("\n=== summary ===\n");
    const verdict = (code: number) =>
      code === 0 ? "PASS" : code === 1 ? "FAIL (goal missed)" : `ERROR (exit ${code}: could not measure)`;
    printTable(
      ["benchmark", "result", "time"],
      results.map((r) => [r.name, verdict(r.code), `${r.seconds.toFixed(0)} s`]),
    );
  }
  return Math.max(...results.map((r) => (r.code === 0 || r.code === 1 ? r.code : 2)));
}

process.exitCode = main();
