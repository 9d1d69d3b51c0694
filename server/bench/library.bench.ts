/**
 * `pnpm bench library`: the service at the size of a serious collection (bench/big-library.ts:
 * 200 series × 50 chapter files plus one series of 10,000, real small CBZ files, cached between
 * runs and given to each run as a hard-linked copy).
 *
 * 1. Scans, in-process (services/series/scan-service.ts), counting archive opens (archive-reader.ts):
 *    - native floor: `unzip -l` over every archive in one shell loop, the same run;
 *    - full scan of the empty database (goal ≤ 3× the floor);
 *    - rescan with nothing changed (goal ≤ 10 % of the full scan, 0 archives opened);
 *    - rescan after rewriting 1 % of the files with new bytes (opens exactly those).
 * 2. Audit page of 24 over the 10,000-file series over HTTP: the first request (the list computed),
 *    then pages spread over the list (goal median < 20 ms, p99 < 50 ms, 0 archives opened).
 * 3. The built service (`dist/main.js` with the environment and Node flags of `npm start`) on the scanned data:
 *    idle RSS after start (goal < 200 MB); mixed read load from 20 connections for 30 s (REST units,
 *    GraphQL `series` and `seriesPage` of random series; goal ≥ 216 req/s, 0 errors); RSS after
 *    it (goal < 400 MB). No native tool does this work: the figures are reported as measured.
 *
 * This process holds the service for steps 1 and 2, so run-all.ts starts it with the environment
 * and Node flags `npm start` gives the service (the allocator and the young generation).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { writeHeapSnapshot } from "node:v8";
import type { App } from "../src/app.ts";
import { archiveOpenCount } from "../src/library/archive-reader.ts";
import { applyRuntimeSettings } from "../src/runtime-settings.ts";
import { API_KEY, get, postGraphql, startBenchApp } from "./app.ts";
import { LONG_TITLE, TOTAL_FILES, bigLibrary, materialize, rewriteLibraryFile } from "./big-library.ts";
import {
  fail,
  intEnv,
  machineLine,
  median,
  ms,
  percentile,
  printTable,
  runBench,
  serviceStart,
  type Goal,
} from "./harness.ts";

const AUDIT_REQUESTS = intEnv("BENCH_LIBRARY_AUDIT_REQUESTS", 200);
const LOAD_SECONDS = intEnv("BENCH_LIBRARY_LOAD_SECONDS", 30);
const CONNECTIONS = 20;
const RESCANS = intEnv("BENCH_LIBRARY_RESCANS", 3);
const TODAY_RPS = 72;
/**
 * The floor lists every FLOOR_EVERY-th archive and is scaled to the whole library (its cost is one
 * process per archive, linear in their number): 20,000 `unzip` processes take half an hour on a
 * loaded 2-core machine. BENCH_LIBRARY_FLOOR_EVERY=1 lists every archive.
 */
const FLOOR_EVERY = intEnv("BENCH_LIBRARY_FLOOR_EVERY", 10);

/** `unzip -l` over the archives, one shell loop; the time scaled to every archive of the library. */
function unzipFloor(root: string, rels: readonly string[]): number {
  const sample = rels.filter((_, i) => i % FLOOR_EVERY === 0);
  const list = path.join(root, "..", "floor-list.txt");
  writeFileSync(list, sample.join("\n") + "\n");
  const t0 = performance.now();
  const r = spawnSync("sh", ["-c", `while IFS= read -r f; do unzip -l "$f" || exit 1; done < '${list}' >/dev/null`], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
  });
  if (r.status !== 0) fail(`unzip -l loop failed: ${r.stderr.toString().slice(0, 300)}`);
  return ((performance.now() - t0) * rels.length) / sample.length;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

async function waitHealthy(port: number, agent: http.Agent): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await get(agent, port, "/api/health")).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  fail("the service did not answer /api/health within 150 s");
}

async function main(): Promise<Goal[]> {
  // The in-process service runs as the service's main sets itself up.
  applyRuntimeSettings();
  const lib = await bigLibrary();
  const dir = mkdtempSync(path.join(process.env.BENCH_TMP ?? os.tmpdir(), "mls-bench-library-"));
  const libraryRoot = path.join(dir, "library");
  let app: App | undefined;
  let child: ReturnType<typeof spawn> | undefined;
  const goals: Goal[] = [];
  try {
    console.log(`library: ${TOTAL_FILES} CBZ files (${(lib.bytes / 1e6).toFixed(0)} MB); ${machineLine()}`);
    materialize(lib.root, libraryRoot);
    app = await startBenchApp(dir, process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {});

    // 1. Scans.
    const scan = async () => {
      const opens = archiveOpenCount();
      app!.ctx.queries.reset();
      const t0 = performance.now();
      const r = await app!.services.scan.scan();
      const elapsed = performance.now() - t0;
      if (r.errors.length > 0) fail(`scan errors: ${JSON.stringify(r.errors.slice(0, 3))}`);
      return { ms: elapsed, opens: archiveOpenCount() - opens, statements: app!.ctx.queries.count, r };
    };
    const rels = lib.files.map((f) => f.rel);
    // RSS and JS heap of this process after each step (informational: where the memory goes).
    const memory: [string, string, string][] = [];
    const noteMemory = (step: string) => {
      const m = process.memoryUsage();
      memory.push([step, `${(m.rss / 1e6).toFixed(0)} MB`, `${(m.heapUsed / 1e6).toFixed(0)} MB`]);
    };
    noteMemory("the service created, before the full scan");
    const floorBefore = unzipFloor(libraryRoot, rels);
    const full = await scan();
    noteMemory("after the full scan");
    const floorAfter = unzipFloor(libraryRoot, rels);
    const floor = Math.min(floorBefore, floorAfter);
    if (full.r.added !== TOTAL_FILES) fail(`the full scan added ${full.r.added} files, not ${TOTAL_FILES}`);
    const rescans = [];
    for (let i = 0; i < RESCANS; i++) rescans.push(await scan());
    noteMemory(`after ${RESCANS} rescans`);
    const rescanMs = median(rescans.map((s) => s.ms));
    const rescanOpens = Math.max(...rescans.map((s) => s.opens));
    const step = 100;
    const rewritten = lib.files.filter((_, i) => i % step === 0);
    for (const f of rewritten) await rewriteLibraryFile(libraryRoot, f, " (revised)");
    const partial = await scan();
    noteMemory("after the rescan of 200 rewritten files");

    printTable(
      ["measure", "time", "archives opened", "statements"],
      [
        [
          `floor: unzip -l over every ${FLOOR_EVERY === 1 ? "" : `${FLOOR_EVERY}th `}archive, scaled (best of 2)`,
          ms(floor, 0),
          TOTAL_FILES,
          "",
        ],
        ["full scan (empty database)", ms(full.ms, 0), full.opens, full.statements],
        [`rescan, nothing changed (median of ${RESCANS})`, ms(rescanMs, 0), rescanOpens, rescans[0]!.statements],
        [
          `rescan after rewriting ${rewritten.length} files (1 %)`,
          ms(partial.ms, 0),
          partial.opens,
          partial.statements,
        ],
      ],
    );
    goals.push(
      {
        ok: full.ms <= 3 * floor,
        text: `full scan / unzip -l floor = ${(full.ms / floor).toFixed(2)}× (goal ≤ 3×; ${ms(full.ms, 0)} / ${ms(floor, 0)})`,
      },
      {
        ok: rescanMs <= 0.1 * full.ms && rescanOpens === 0,
        text: `unchanged rescan = ${((100 * rescanMs) / full.ms).toFixed(1)} % of the full scan (goal ≤ 10 %), ${rescanOpens} archives opened (goal 0)`,
      },
      {
        ok: partial.opens === rewritten.length && partial.r.changed === rewritten.length,
        text: `rescan after rewriting ${rewritten.length} files opened ${partial.opens} (goal: exactly those), ${partial.ms <= full.ms * 0.2 ? "" : "slow: "}${ms(partial.ms, 0)}`,
      },
    );

    // 2. Audit pages over the 10,000-file series.
    const port = await app.listen();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const longId = (await app.ctx.repos.series.byFolder(LONG_TITLE))?.id;
    if (longId === undefined) fail("the long series was not created by the scan");
    const auditPath = (page: number) => `/api/manga/${longId}/audit?page=${page}`;
    const pages = Math.ceil(10_000 / 24);
    let t = performance.now();
    const first = await get(agent, port, auditPath(1));
    const firstMs = performance.now() - t;
    if (first.status !== 200) fail(`audit answered ${first.status}: ${first.body.slice(0, 200)}`);
    noteMemory("after the first audit page (the 10,000-entry list computed)");
    const auditOpens = archiveOpenCount();
    // The first list handed the contents without page checks to the background worker, which reads
    // them (one archive each) while the pages are measured: its reads are counted apart.
    const workerReads = app.services.pageSignatures.stats().read;
    const lat: number[] = [];
    app.ctx.queries.reset();
    for (let i = 0; i < AUDIT_REQUESTS; i++) {
      const page = 1 + ((i * 37) % pages);
      t = performance.now();
      const r = await get(agent, port, auditPath(page));
      lat.push(performance.now() - t);
      if (r.status !== 200) fail(`audit page ${page} answered ${r.status}`);
      const files = (JSON.parse(r.body) as { files: unknown[] }).files.length;
      if (files !== (page === pages ? 10_000 - 24 * (pages - 1) : 24)) fail(`audit page ${page} had ${files} files`);
    }
    const auditStatements = app.ctx.queries.count / AUDIT_REQUESTS;
    const workerOpened = app.services.pageSignatures.stats().read - workerReads;
    const opened = archiveOpenCount() - auditOpens - workerOpened;
    agent.destroy();
    console.log("");
    printTable(
      ["audit page of 24 over 10,000 files (HTTP)", "runs", "median", "p99", "statements/request"],
      [
        ["first request (the list computed)", 1, ms(firstMs), "", ""],
        ["pages spread over the list", lat.length, ms(median(lat)), ms(percentile(lat, 99)), auditStatements],
      ],
    );
    goals.push({
      ok: median(lat) < 20 && percentile(lat, 99) < 50 && opened === 0,
      text: `audit page median ${ms(median(lat))} (goal < 20 ms), p99 ${ms(percentile(lat, 99))} (goal < 50 ms), ${opened} archives opened by the audit requests (goal 0; the background page checks read ${workerOpened} meanwhile)`,
    });
    noteMemory(`after ${AUDIT_REQUESTS} audit pages`);
    console.log("");
    printTable(["this process (the service in-process, plus the bench)", "RSS", "JS heap used"], memory);
    const mem = process.memoryUsage();
    const inProcessRss = mem.rss / 1e6;
    const mb = (n: number) => `${(n / 1e6).toFixed(0)} MB`;
    console.log(
      `\nRSS of this process (the service in-process, plus the bench) after the scans and audit pages: ${inProcessRss.toFixed(0)} MB ` +
        `(JS heap used ${mb(mem.heapUsed)} of ${mb(mem.heapTotal)}, external ${mb(mem.external)}, array buffers ${mb(mem.arrayBuffers)})`,
    );
    // BENCH_LIBRARY_HEAPSNAPSHOT=<dir>: a heap snapshot of this process here (what holds the memory).
    if (process.env.BENCH_LIBRARY_HEAPSNAPSHOT)
      console.log(
        `heap snapshot: ${writeHeapSnapshot(path.join(process.env.BENCH_LIBRARY_HEAPSNAPSHOT, "library.heapsnapshot"))}`,
      );
    await app.close();
    app = undefined;

    // 3. The built service on the scanned data: RSS and mixed load.
    execFileSync(process.execPath, ["build.mjs"], { cwd: path.join(import.meta.dirname, ".."), stdio: "ignore" });
    const servicePort = await freePort();
    // As `npm start` runs it (its environment and Node flags); BENCH_SERVICE_NODE_ARGS: extra node
    // flags for the service (for example --cpu-prof).
    const start = serviceStart();
    const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? "").split(" ").filter(Boolean);
    child = spawn(process.execPath, [...start.nodeArgs, ...nodeArgs, "dist/main.js"], {
      cwd: path.join(import.meta.dirname, ".."),
      env: {
        ...process.env,
        ...start.env,
        DATA_DIR: path.join(dir, "data"),
        LIBRARY_ROOT: libraryRoot,
        PORT: String(servicePort),
        HOST: "127.0.0.1",
        API_KEY,
        DEMO_LIBRARY: "0",
        WEB_BUILD_DIR: "",
        LOG_LEVEL: "silent",
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const loadAgent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    await waitHealthy(servicePort, loadAgent);
    await new Promise((r) => setTimeout(r, 3000));
    const idleRss = rssMb(child.pid!);
    // The service's own rescan (nothing changed) before the load.
    const rescan = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port: servicePort,
          path: "/api/library/scan",
          method: "POST",
          agent: loadAgent,
          headers: { "x-api-key": API_KEY },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end();
    });
    if (rescan !== 200) fail(`POST /api/library/scan answered ${rescan}`);
    const seriesIds = (JSON.parse((await get(loadAgent, servicePort, "/api/manga")).body) as { id: number }[]).map(
      (s) => s.id,
    );
    if (seriesIds.length !== 201) fail(`the service lists ${seriesIds.length} series, not 201`);
    const smallIds = seriesIds.filter((id) => id !== longId);
    const pick = (i: number) => smallIds[(i * 7919) % smallIds.length]!;
    const requests: ((i: number) => Promise<{ status: number; body: string }>)[] = [
      (i) => get(loadAgent, servicePort, `/api/manga/${pick(i)}/units`),
      (i) =>
        postGraphql(
          loadAgent,
          servicePort,
          `query($id: Int!) { series(id: $id) { id title overview { chapters chaptersOwned } } }`,
          {
            id: pick(i),
          },
        ),
      (i) =>
        postGraphql(
          loadAgent,
          servicePort,
          `query($id: Int!) { seriesPage(seriesId: $id) { seriesId form sections { key rows { key number owned fileIds } } groups { key children { key number owned } } } }`,
          { id: pick(i) },
        ),
    ];
    const loadLat: number[] = [];
    let errors = 0;
    let n = 0;
    const end = performance.now() + LOAD_SECONDS * 1000;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < end) {
          const i = n++;
          const s = performance.now();
          try {
            const r = await requests[i % requests.length]!(i);
            if (r.status !== 200 || r.body.includes('"errors"')) errors += 1;
          } catch {
            errors += 1;
          }
          loadLat.push(performance.now() - s);
        }
      }),
    );
    const loadSeconds = (performance.now() - t0) / 1000;
    const rps = loadLat.length / loadSeconds;
    const loadedRss = rssMb(child.pid!);
    loadAgent.destroy();
    console.log("");
    printTable(
      ["built service (node dist/main.js)", "value"],
      [
        ["idle RSS after start with the library", `${idleRss.toFixed(0)} MB`],
        [`mixed load: ${CONNECTIONS} connections × ${LOAD_SECONDS} s`, `${loadLat.length} requests, ${errors} errors`],
        ["throughput", `${rps.toFixed(0)} req/s`],
        ["latency median / p99", `${ms(median(loadLat))} / ${ms(percentile(loadLat, 99))}`],
        ["RSS after a rescan and the load", `${loadedRss.toFixed(0)} MB`],
      ],
    );
    goals.push(
      {
        ok: rps >= 3 * TODAY_RPS && errors === 0,
        text: `mixed load ${rps.toFixed(0)} req/s (goal ≥ ${3 * TODAY_RPS}), p99 ${ms(percentile(loadLat, 99))}, ${errors} errors (goal 0)`,
      },
      { ok: idleRss < 200, text: `idle RSS ${idleRss.toFixed(0)} MB (goal < 200 MB)` },
      {
        ok: loadedRss < 400 && inProcessRss < 400,
        text: `RSS after a rescan and the load ${loadedRss.toFixed(0)} MB; in-process after the full scans and audit ${inProcessRss.toFixed(0)} MB (goal < 400 MB)`,
      },
    );
    return goals;
  } finally {
    child?.kill("SIGTERM");
    await app?.close();
    if (process.env.BENCH_KEEP) console.log(`\nkept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

runBench("library", main);
