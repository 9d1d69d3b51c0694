/**
 * `pnpm bench units-postgres`: GET /api/manga/{id}/units on PostgreSQL (a throwaway cluster,
 * test/postgres.ts) over real HTTP on a loopback port, against `psql` running the same statements
 * on the same database in the same run — the approach of units.bench.ts with PostgreSQL's shell.
 *
 * - Endpoint: the real app (createApp, Prisma + adapter-pg) on the 2,000-chapter / 150-book series
 *   of bench/fixture.ts; "cold" = the first request after the series' revision moved (the view is
 *   computed again), "warm" = the kept view. Sequential keep-alive requests.
 * - Floor: the five bulk selects of one request, SQL text from Prisma's query log with the
 *   parameters inlined, run by `psql -f five.sql` over TCP on the same database; its start-up and
 *   connection (`psql -c "select 1"`) are subtracted. Endpoint, floor and start-up runs interleave.
 * - Goals: cold endpoint median ≤ 4 × net floor median; the same statement count for a
 *   10-chapter and the 2,000-chapter series.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { App } from "../src/app.ts";
import { PG_BIN, startPostgres, type PostgresCluster } from "../test/postgres.ts";
import { get, startBenchApp } from "./app.ts";
import { LARGE, SMALL, seedSeries } from "./fixture.ts";
import { fail, intEnv, machineLine, median, ms, percentile, printTable, runBench, type Goal } from "./harness.ts";

const WARMUP = intEnv("BENCH_WARMUP", 30);
const REQUESTS = intEnv("BENCH_REQUESTS", 120);
const FLOOR_RUNS = intEnv("BENCH_FLOOR_RUNS", 40);
const ROUNDS = intEnv("BENCH_ROUNDS", 20);
const GOAL_RATIO = 4;
const BULK = ["volume_slot", "chapter_slot", "map_entry", "library_file", "chapter_release"] as const;

function sqlLiteral(v: unknown): string {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return `'${v.replaceAll("'", "''")}'`;
  throw new Error(`cannot inline SQL parameter ${JSON.stringify(v)}`);
}

/** Replaces `$n` placeholders outside quotes with the logged parameters as SQL literals. */
function inlineParams(sql: string, paramsJson: string): string {
  const params = JSON.parse(paramsJson) as unknown[];
  let out = "";
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i] as string;
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === "$" && /\d/.test(sql[i + 1] ?? "")) {
      const m = /^\d+/.exec(sql.slice(i + 1)) as RegExpExecArray;
      const n = Number(m[0]);
      if (n < 1 || n > params.length) throw new Error(`no parameter $${n} in: ${sql}`);
      out += sqlLiteral(params[n - 1]);
      i += m[0].length;
    } else {
      out += ch;
    }
  }
  return out;
}

function psql(cluster: PostgresCluster, args: string[]): { ms: number; stdout: string } {
  const t0 = performance.now();
  const r = spawnSync(
    path.join(PG_BIN, "psql"),
    [
      "-h",
      "127.0.0.1",
      "-p",
      String(cluster.port),
      "-U",
      "postgres",
      "-d",
      "library",
      "-At",
      "-v",
      "ON_ERROR_STOP=1",
      ...args,
    ],
    { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
  const elapsed = performance.now() - t0;
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`psql failed (${r.status}): ${r.stderr}`);
  return { ms: elapsed, stdout: r.stdout };
}

async function main(): Promise<Goal[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mls-bench-pg-"));
  let cluster: PostgresCluster | undefined;
  let app: App | undefined;
  try {
    cluster = await startPostgres();
    await cluster.sql("CREATE DATABASE library");
    // An API instance with long leases: no background statement lands in the request's count.
    app = await startBenchApp(dir, {
      DATABASE_URL: cluster.url("library"),
      INSTANCE_ROLE: "api",
      LEASE_SECONDS: "3600",
    });
    const { db } = app.ctx;
    const largeId = await seedSeries(db, LARGE);
    const smallId = await seedSeries(db, SMALL);
    await cluster.sql("VACUUM ANALYZE", "library");

    let capture: { query: string; params: string }[] | null = null;
    db.$on("query", (e) => capture?.push({ query: e.query, params: e.params }));
    const port = await app.listen();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const unitsPath = (id: number) => `/api/manga/${id}/units`;
    const bump = (id: number) =>
      db.$executeRawUnsafe(
        `INSERT INTO series_revision (series_id, revision) VALUES ($1, 1) ON CONFLICT (series_id) DO UPDATE SET revision = series_revision.revision + 1`,
        id,
      );
    const first = await get(agent, port, unitsPath(largeId));
    if (first.status !== 200) fail(`units answered ${first.status}: ${first.body.slice(0, 300)}`);
    for (let i = 0; i < WARMUP; i++) {
      await bump(largeId);
      await get(agent, port, unitsPath(largeId));
    }
    const countFor = async (id: number) => {
      await bump(id);
      app!.ctx.queries.reset();
      const r = await get(agent, port, unitsPath(id));
      if (r.status !== 200) fail(`units answered ${r.status}`);
      return app!.ctx.queries.count;
    };
    capture = [];
    const largeCount = await countFor(largeId);
    const captured = capture;
    capture = null;
    const smallCount = await countFor(smallId);

    const tableOf = (sql: string) => /\bFROM\s+(?:"public"\.)?"?(\w+)"?/i.exec(sql)?.[1] ?? "?";
    const bulk = BULK.map((table) => {
      const hit = captured.find((s) => tableOf(s.query) === table);
      if (!hit) fail(`no ${table} select in one request's log:\n${captured.map((s) => s.query).join("\n")}`);
      return { table, sql: inlineParams(hit.query, hit.params) };
    });
    const sqlFile = path.join(dir, "five-bulk-selects.sql");
    writeFileSync(sqlFile, bulk.map((b) => `${b.sql};\n`).join(""));
    const floorRows = psql(cluster, ["-f", sqlFile])
      .stdout.split("\n")
      .filter((l) => l !== "").length;

    const cold: number[] = [];
    const warm: number[] = [];
    const floorRaw: number[] = [];
    const startup: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const n = Math.round(((round + 1) * REQUESTS) / ROUNDS) - Math.round((round * REQUESTS) / ROUNDS);
      for (let i = 0; i < n; i++) {
        await bump(largeId);
        let t = performance.now();
        const r = await get(agent, port, unitsPath(largeId));
        cold.push(performance.now() - t);
        if (r.status !== 200) fail(`units answered ${r.status}`);
        t = performance.now();
        await get(agent, port, unitsPath(largeId));
        warm.push(performance.now() - t);
      }
      const f = Math.round(((round + 1) * FLOOR_RUNS) / ROUNDS) - Math.round((round * FLOOR_RUNS) / ROUNDS);
      for (let i = 0; i < f; i++) {
        floorRaw.push(psql(cluster, ["-f", sqlFile]).ms);
        startup.push(psql(cluster, ["-c", "select 1"]).ms);
      }
    }
    agent.destroy();

    const floorNet = median(floorRaw) - median(startup);
    const ratio = median(cold) / floorNet;
    console.log(`units endpoint on PostgreSQL — ${machineLine()}`);
    console.log(`${psql(cluster, ["-c", "select version()"]).stdout.trim().split(" on ")[0]}`);
    console.log(
      `series ${largeId}: ${LARGE.chapters} chapters, ${LARGE.books} books; ${first.body.length} bytes of JSON; ` +
        `the five bulk selects print ${floorRows} lines in psql\n`,
    );
    printTable(
      ["measure", "runs", "median", "p99"],
      [
        [
          "GET units (HTTP keep-alive), cold: first after a change",
          cold.length,
          ms(median(cold)),
          ms(percentile(cold, 99)),
        ],
        ["the same, warm: the series unchanged", warm.length, ms(median(warm)), ms(percentile(warm, 99))],
        [
          "floor raw: psql -f five-bulk-selects.sql",
          floorRaw.length,
          ms(median(floorRaw)),
          ms(percentile(floorRaw, 99)),
        ],
        [
          'psql start-up and connection: psql -c "select 1"',
          startup.length,
          ms(median(startup)),
          ms(percentile(startup, 99)),
        ],
        ["floor net (raw − start-up medians)", floorRaw.length, ms(floorNet), ""],
      ],
    );
    printTable(
      ["series", "statements per request"],
      [
        [`${LARGE.chapters} chapters`, largeCount],
        [`${SMALL.chapters} chapters`, smallCount],
      ],
    );
    return [
      {
        ok: floorNet > 0 && ratio <= GOAL_RATIO,
        text: `cold endpoint median / net psql floor = ${ratio.toFixed(2)}× (goal ≤ ${GOAL_RATIO}×; ${ms(median(cold))} / ${ms(floorNet)}); warm ${(median(warm) / floorNet).toFixed(2)}×`,
      },
      {
        ok: largeCount === smallCount,
        text: `statements per request: ${largeCount} (2,000 chapters) and ${smallCount} (10 chapters), the same`,
      },
    ];
  } finally {
    await app?.close().catch(() => undefined);
    await cluster?.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench("units-postgres", main);
