/**
 * `pnpm bench`: GET /api/manga/{id}/units over real HTTP on a loopback port, against a floor that
 * does the same database work natively in the same run (see docs/benchmarks.md).
 *
 * - Endpoint: the real app (createApp on a migrated temp SQLite database, Prisma + libsql), a
 *   2,000-chapter / 150-book series (bench/fixture.ts); warm-up, then sequential keep-alive
 *   requests timed from request start to the last body byte.
 * - Statement count: app.ctx.queries for one request on that series and on a 10-chapter series.
 * - Floor: the five bulk selects of the request, with the SQL text taken from Prisma's query log
 *   and the parameters inlined, run by the `sqlite3` shell on the same database file
 *   (`sqlite3 <db> < five.sql`, output read through a pipe); its process start-up is measured as
 *   `sqlite3 <db> "select 1"` and subtracted. Endpoint, floor and start-up runs are interleaved in
 *   rounds so that the noise of the machine lands on all three alike.
 * - Goals: endpoint median ≤ 4 × net floor median; statement count the same for both series.
 *   Exit code 1 when a goal is missed (after printing every figure), 2 when the run is impossible.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import type { App } from "../src/app.ts";
import { buildCoverageIndex } from "../src/domain/coverage.ts";
import { seriesForm } from "../src/domain/series-form.ts";
import { buildUnitsView } from "../src/domain/units.ts";
import { restUnits } from "../src/http/present.ts";
import { loadSnapshot } from "../src/repositories/snapshot-repo.ts";
import { get, postGraphql, startBenchApp } from "./app.ts";
import { LARGE, SMALL, rowCounts, seedSeries } from "./fixture.ts";
import {
  TOOLS,
  fail,
  intEnv,
  median,
  ms,
  percentile,
  printTable,
  requireTools,
  runBench,
  toolVersion,
  type Goal,
} from "./harness.ts";

/* ---- SQL inlining ---- */
function sqlLiteral(v: unknown): string {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  if (typeof v === "boolean") return v ? "1" : "0";
  // Prisma's query event logs Int parameters as text ("1"); the adapter binds them as integers.
  if (typeof v === "string") return /^-?(?:0|[1-9]\d{0,14})$/.test(v) ? v : `'${v.replaceAll("'", "''")}'`;
  throw new Error(`cannot inline SQL parameter ${JSON.stringify(v)}`);
}

/**
 * Replaces the `?` placeholders of a statement with its parameters as SQL literals. Placeholders
 * inside quoted strings or identifiers are left alone. `params` is the JSON text of Prisma's query
 * event, where integers appear as decimal text: those are inlined as integers, as the adapter binds
 * them (against a column, SQLite's type affinity would make `= '1'` and `= 1` the same search anyway).
 */
function inlineParams(sql: string, paramsJson: string): string {
  const params = JSON.parse(paramsJson) as unknown[];
  let out = "";
  let next = 0;
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"' || ch === "`") {
      quote = ch;
      out += ch;
    } else if (ch === "?") {
      if (next >= params.length) throw new Error(`more placeholders than parameters in: ${sql}`);
      out += sqlLiteral(params[next++]);
    } else {
      out += ch;
    }
  }
  if (next !== params.length) throw new Error(`${params.length} parameters for ${next} placeholders in: ${sql}`);
  return out;
}

/* ---- the run ---- */

const WARMUP = intEnv("BENCH_WARMUP", 50);
const REQUESTS = intEnv("BENCH_REQUESTS", 200);
const FLOOR_RUNS = intEnv("BENCH_FLOOR_RUNS", 40);
const ROUNDS = intEnv("BENCH_ROUNDS", 20);
const BREAKDOWN_RUNS = intEnv("BENCH_BREAKDOWN_RUNS", 40);
const GOAL_RATIO = 2.5;
/** GraphQL seriesPage of the same series against the REST units time. */
const PAGE_GOAL_RATIO = 2;
/** What the web client's series page selects of `seriesPage` (web/src/lib/queries.ts). */
const ROW =
  "key kind number title owned ownedText monitored pageCount planText fileIds problems estimateHint primary { id label } menu { id label }";
const SERIES_PAGE = `query($id: Int!) { seriesPage(seriesId: $id) { seriesId form map status planWording layout notice offerMapEditor
  groups { key collapsed coverText note duplicates { count fileIds note } book { ${ROW} } children { ${ROW} } }
  sections { key title rows { ${ROW} } } loose { key title children { ${ROW} } } } }`;
const BULK = ["volume_slot", "chapter_slot", "map_entry", "library_file", "chapter_release"] as const;

/**
 * Rows a statement printed in sqlite3's list mode: one line per row, or, when the statement
 * aggregates its rows into one JSON array (json_group_array), the elements of that array.
 */
function printedRows(stdout: string): number {
  const text = stdout.replace(/\n$/, "");
  if (text === "") return 0;
  const lines = text.split("\n");
  if (lines.length === 1 && lines[0]!.startsWith("[")) {
    try {
      const v: unknown = JSON.parse(lines[0]!);
      if (Array.isArray(v)) return v.length;
    } catch {
      // not JSON: a single row
    }
  }
  return lines.length;
}

/** The path of the database file behind a `file:` URL. */
function dbFile(url: string): string {
  if (!url.startsWith("file:")) fail(`the benchmark needs a file: database, got ${url}`);
  return url.slice("file:".length);
}

function runSqlite(args: string[], stdinFile?: string): { ms: number; stdout: string } {
  const fd = stdinFile === undefined ? "ignore" : openSync(stdinFile, "r");
  try {
    const t0 = performance.now();
    const r = spawnSync("sqlite3", args, {
      stdio: [fd, "pipe", "pipe"],
      maxBuffer: 256 * 1024 * 1024,
      encoding: "utf8",
    });
    const elapsed = performance.now() - t0;
    if (r.error) throw r.error;
    if (r.status !== 0 || r.stderr.trim() !== "") throw new Error(`sqlite3 failed (${r.status}): ${r.stderr}`);
    return { ms: elapsed, stdout: r.stdout };
  } finally {
    if (typeof fd === "number") closeSync(fd);
  }
}

interface LibsqlClient {
  execute(sql: string): Promise<{ rows: unknown[] }>;
  close(): void;
}
interface LibsqlNative {
  prepare(sql: string): { raw(on: boolean): { all(): unknown[][] } };
  close(): void;
}

/**
 * The layers under Prisma, reached through the adapter (they are not dependencies of ours):
 * @libsql/client (what the adapter calls) and the native `libsql` binding under it.
 */
async function libsqlLayers(url: string, file: string): Promise<{ client: LibsqlClient; native: LibsqlNative }> {
  const require = createRequire(import.meta.url);
  const clientPath = createRequire(require.resolve("@prisma/adapter-libsql")).resolve("@libsql/client");
  const mod = (await import(pathToFileURL(clientPath).href)) as { createClient(config: { url: string }): LibsqlClient };
  const Database = createRequire(clientPath)("libsql") as new (file: string) => LibsqlNative;
  return { client: mod.createClient({ url }), native: new Database(file) };
}

async function main(): Promise<Goal[]> {
  requireTools([TOOLS.sqlite3]);
  const sqliteVersion = toolVersion("sqlite3", ["-version"]).split(" ")[0] ?? "?";
  const loadBefore = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
  const dir = mkdtempSync(path.join(os.tmpdir(), "mls-bench-"));
  let app: App | undefined;
  try {
    app = await startBenchApp(dir);
    const { db, config } = app.ctx;
    const database = dbFile(config.databaseUrl);

    const t0 = performance.now();
    const largeId = await seedSeries(db, LARGE);
    const smallId = await seedSeries(db, SMALL);
    const seedMs = performance.now() - t0;
    const counts = await rowCounts(db);
    const bulkRows = counts
      .filter((c) => (BULK as readonly string[]).includes(c.table))
      .reduce((n, c) => n + c.rows, 0);

    // Our own listener beside the app's counter: it keeps the parameters too.
    let capture: { query: string; params: string }[] | null = null;
    db.$on("query", (e) => capture?.push({ query: e.query, params: e.params }));

    const port = await app.listen();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const unitsPath = (id: number) => `/api/manga/${id}/units`;
    // The service keeps a series' units until one of its rows changes (services/series/view-cache.ts). A
    // "cold" request is the first one after a change: the counter is moved (outside the timing)
    // so the request computes the view again; a "warm" request answers from the kept view.
    const bump = (id: number) =>
      db.$executeRawUnsafe(
        `INSERT INTO series_revision (series_id, revision) VALUES (?, 1) ON CONFLICT (series_id) DO UPDATE SET revision = revision + 1`,
        id,
      );
    const seriesPage = async (id: number) => {
      const r = await postGraphql(agent, port, SERIES_PAGE, { id });
      if (r.status !== 200 || r.body.includes('"errors"'))
        fail(`seriesPage answered ${r.status}: ${r.body.slice(0, 300)}`);
      return r;
    };

    // Correctness of what is measured: 200, the expected shape.
    const first = await get(agent, port, unitsPath(largeId));
    if (first.status !== 200) fail(`GET ${unitsPath(largeId)} answered ${first.status}: ${first.body.slice(0, 300)}`);
    const payload = JSON.parse(first.body) as { units: { kind: string }[]; map: string; form: string };
    const unitCount = payload.units.length;

    for (let i = 0; i < WARMUP; i++) await get(agent, port, unitsPath(largeId));

    // Statement counts, and the five bulk statements with their parameters.
    const countFor = async (id: number) => {
      await bump(id);
      app!.ctx.queries.reset();
      const r = await get(agent, port, unitsPath(id));
      if (r.status !== 200) fail(`GET ${unitsPath(id)} answered ${r.status}`);
      return { count: app!.ctx.queries.count, statements: [...app!.ctx.queries.statements] };
    };
    capture = [];
    const large = await countFor(largeId);
    const captured = capture;
    capture = null;
    const small = await countFor(smallId);
    app.ctx.queries.reset();
    await get(agent, port, unitsPath(largeId));
    const warmCount = app.ctx.queries.count;
    const pageBody = (await seriesPage(largeId)).body;

    // The table a statement reads: the first FROM followed by a table name (not a sub-select).
    const tableOf = (sql: string) => /\bFROM\s+(?:[`"]?main[`"]?\.)?[`"]?(\w+)/i.exec(sql)?.[1] ?? "?";
    const bulk = BULK.map((table) => {
      const hit = captured.find((s) => tableOf(s.query) === table);
      if (!hit) fail(`no ${table} select in the query log of one request:\n${captured.map((s) => s.query).join("\n")}`);
      return { table, sql: inlineParams(hit.query, hit.params) };
    });
    const sqlFile = path.join(dir, "five-bulk-selects.sql");
    writeFileSync(sqlFile, bulk.map((b) => `${b.sql};\n`).join(""));

    // The floor returns the same rows as the app reads.
    const snapshot = await loadSnapshot(db, largeId);
    if (!snapshot) fail("the large series vanished");
    const expected: Record<(typeof BULK)[number], number> = {
      volume_slot: snapshot.volumes.length,
      chapter_slot: snapshot.chapters.length,
      map_entry: snapshot.mapSources.reduce((n, s) => n + s.entries.length, 0),
      library_file: snapshot.files.length,
      chapter_release: snapshot.releases.length,
    };
    const floorRows = bulk.map((b) => ({
      table: b.table,
      rows: printedRows(runSqlite([database, `${b.sql};`]).stdout),
    }));
    for (const f of floorRows) {
      if (f.rows !== expected[f.table])
        fail(`sqlite3 returned ${f.rows} ${f.table} rows, the app read ${expected[f.table]}`);
    }
    const selectedRows = floorRows.reduce((n, f) => n + f.rows, 0);
    const floorBytes = runSqlite([database], sqlFile).stdout.length;

    // Interleaved rounds: endpoint requests, then floor and start-up runs alternating.
    const latencies: number[] = [];
    const warm: number[] = [];
    const pageCold: number[] = [];
    const pageWarm: number[] = [];
    const floorRaw: number[] = [];
    const startup: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const n = Math.round(((round + 1) * REQUESTS) / ROUNDS) - Math.round((round * REQUESTS) / ROUNDS);
      for (let i = 0; i < n; i++) {
        await bump(largeId);
        let t = performance.now();
        const r = await get(agent, port, unitsPath(largeId));
        latencies.push(performance.now() - t);
        if (r.status !== 200) fail(`request answered ${r.status}`);
        t = performance.now();
        await get(agent, port, unitsPath(largeId));
        warm.push(performance.now() - t);
        await bump(largeId);
        t = performance.now();
        await seriesPage(largeId);
        pageCold.push(performance.now() - t);
        t = performance.now();
        await seriesPage(largeId);
        pageWarm.push(performance.now() - t);
      }
      const f = Math.round(((round + 1) * FLOOR_RUNS) / ROUNDS) - Math.round((round * FLOOR_RUNS) / ROUNDS);
      for (let i = 0; i < f; i++) {
        floorRaw.push(runSqlite([database], sqlFile).ms);
        startup.push(runSqlite([database, "select 1"]).ms);
      }
    }

    // Where the endpoint's time goes, measured in-process (informational, not a goal).
    const lib = await libsqlLayers(config.databaseUrl, database);
    const phases = {
      native: [] as number[],
      client: [] as number[],
      snapshot: [] as number[],
      index: [] as number[],
      view: [] as number[],
      json: [] as number[],
    };
    let jsonBytes = 0;
    for (let i = 0; i < BREAKDOWN_RUNS; i++) {
      let t = performance.now();
      for (const b of bulk) lib.native.prepare(b.sql).raw(true).all();
      phases.native.push(performance.now() - t);
      t = performance.now();
      for (const b of bulk) await lib.client.execute(b.sql);
      phases.client.push(performance.now() - t);
      t = performance.now();
      const s = (await loadSnapshot(db, largeId))!;
      phases.snapshot.push(performance.now() - t);
      t = performance.now();
      const index = buildCoverageIndex(s, { form: seriesForm(s.series) });
      phases.index.push(performance.now() - t);
      t = performance.now();
      const view = buildUnitsView(s, index);
      phases.view.push(performance.now() - t);
      t = performance.now();
      jsonBytes = JSON.stringify(restUnits(view)).length;
      phases.json.push(performance.now() - t);
    }
    lib.client.close();
    lib.native.close();
    agent.destroy();

    // Report.
    const endpointMedian = median(latencies);
    const floorMedian = median(floorRaw);
    const startupMedian = median(startup);
    const floorNet = floorMedian - startupMedian;
    const ratio = endpointMedian / floorNet;
    const ratioOk = floorNet > 0 && ratio <= GOAL_RATIO;
    const countOk = large.count === small.count && warmCount === 1;
    const pageRatio = median(pageCold) / endpointMedian;

    const load = os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ");
    console.log(
      `units endpoint benchmark — ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), Node ${process.version}, sqlite3 ${sqliteVersion}`,
    );
    console.log(
      `load average before ${loadBefore}, after ${load}; database ${database} (seeded in ${seedMs.toFixed(0)} ms)\n`,
    );
    printTable(["table", "rows"], [...counts.map((c) => [c.table, c.rows]), ["five bulk tables", bulkRows]]);
    console.log(
      `\nseries ${largeId}: ${LARGE.chapters} chapters, ${LARGE.books} books (${LARGE.ownedBooks} owned), map ${payload.map}, form ${payload.form}: ` +
        `${unitCount} units, ${first.body.length} bytes of JSON.\nThe five bulk selects of one request return ${selectedRows} rows ` +
        `(${floorRows.map((f) => `${f.table} ${f.rows}`).join(", ")}; ${floorBytes} bytes printed by sqlite3)\n`,
    );
    printTable(
      ["measure", "runs", "median", "p99"],
      [
        [
          `GET /api/manga/${largeId}/units (HTTP, keep-alive), cold: first after a change`,
          latencies.length,
          ms(endpointMedian),
          ms(percentile(latencies, 99)),
        ],
        ["the same, warm: the series unchanged", warm.length, ms(median(warm)), ms(percentile(warm, 99))],
        [
          `GraphQL seriesPage (the web client's selection, ${pageBody.length} bytes), cold`,
          pageCold.length,
          ms(median(pageCold)),
          ms(percentile(pageCold, 99)),
        ],
        ["the same, warm", pageWarm.length, ms(median(pageWarm)), ms(percentile(pageWarm, 99))],
        [
          "floor raw: sqlite3 <db> < five-bulk-selects.sql",
          floorRaw.length,
          ms(floorMedian),
          ms(percentile(floorRaw, 99)),
        ],
        ['sqlite3 start-up: sqlite3 <db> "select 1"', startup.length, ms(startupMedian), ms(percentile(startup, 99))],
        ["floor net (raw − start-up medians)", floorRaw.length, ms(floorNet), ""],
      ],
    );
    console.log("\nstatements per request (app.ctx.queries):");
    printTable(
      ["series", "statements"],
      [
        [`${LARGE.chapters} chapters / ${LARGE.books} books`, large.count],
        [`${SMALL.chapters} chapters / ${SMALL.books} book`, small.count],
        [`${LARGE.chapters} chapters, warm (the series unchanged)`, warmCount],
      ],
    );
    console.log(`\nbreakdown, in-process, ${BREAKDOWN_RUNS} runs (informational):`);
    printTable(
      ["phase", "median"],
      [
        ["five bulk selects, native libsql binding, rows as arrays", ms(median(phases.native))],
        ["five bulk selects, @libsql/client (what the adapter calls)", ms(median(phases.client))],
        ["loadSnapshot (8 raw selects + row mapping)", ms(median(phases.snapshot))],
        ["buildCoverageIndex", ms(median(phases.index))],
        ["buildUnitsView", ms(median(phases.view))],
        [`restUnits + JSON.stringify (${jsonBytes} bytes)`, ms(median(phases.json))],
      ],
    );
    if (process.env.BENCH_VERBOSE) console.log(`\nfloor SQL:\n${bulk.map((b) => b.sql).join(";\n")};`);
    return [
      {
        ok: ratioOk,
        text: `cold endpoint median / net floor = ${ratio.toFixed(2)}× (goal ≤ ${GOAL_RATIO}×; ${ms(endpointMedian)} / ${ms(floorNet)}); warm ${(median(warm) / floorNet).toFixed(2)}×`,
      },
      {
        ok: pageRatio <= PAGE_GOAL_RATIO,
        text: `cold GraphQL seriesPage / cold REST units = ${pageRatio.toFixed(2)}× (goal ≤ ${PAGE_GOAL_RATIO}×; ${ms(median(pageCold))} / ${ms(endpointMedian)}); warm ${(median(pageWarm) / median(warm)).toFixed(2)}×`,
      },
      {
        ok: countOk,
        text: `statement count constant: ${large.count} for ${LARGE.chapters} chapters, ${small.count} for ${SMALL.chapters}; ${warmCount} when unchanged`,
      },
    ];
  } finally {
    await app?.close();
    if (process.env.BENCH_KEEP) console.log(`\nkept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

runBench("units", main);
