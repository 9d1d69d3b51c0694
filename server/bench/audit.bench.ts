/**
 * `pnpm bench audit`: `GET /api/manga/{id}/audit?page=N` (services/audit/audit-service.ts through
 * http/rest-audit.ts) over real HTTP on a loopback port, on a series of 10,000 files
 * (bench/audit-fixture.ts; rows only, no file on disk). Pages are spread over the whole list.
 *
 * Reported: median and p99 latency (request start to last body byte, one keep-alive socket),
 * statements per request, and archive-reader's open counter before and after every request.
 * Goal: the list opens no archive (counter unchanged). Every request must answer 200 with its page
 * of 24 (the last page its remainder) out of 10,000, or the run stops (exit 2). There is no native
 * program doing this work, so no ratio: the latency is reported, not judged (docs/benchmarks.md).
 */
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { App } from "../src/app.ts";
import { archiveOpenCount } from "../src/library/archive-reader.ts";
import { auditEntries, auditPage, filterAuditEntries, sortAuditEntries } from "../src/domain/audit.ts";
import { buildCoverageIndex } from "../src/domain/coverage.ts";
import { seriesForm } from "../src/domain/series-form.ts";
import { loadSnapshot } from "../src/repositories/snapshot-repo.ts";
import { loadAuditFacts } from "../src/repositories/audit-repo.ts";
import { parseAuditQuery } from "../src/services/audit/audit-input.ts";
import { get, startBenchApp } from "./app.ts";
import { AUDIT_FILES, seedAuditSeries } from "./audit-fixture.ts";
import { fail, intEnv, machineLine, median, ms, percentile, printTable, runBench, type Goal } from "./harness.ts";

const WARMUP = intEnv("BENCH_AUDIT_WARMUP", 20);
const BREAKDOWN_RUNS = intEnv("BENCH_AUDIT_BREAKDOWN_RUNS", 20);
const REQUESTS = intEnv("BENCH_AUDIT_REQUESTS", 200);
const PAGE_SIZE = 24;

async function main(): Promise<Goal[]> {
  const dir = mkdtempSync(path.join(process.env.BENCH_TMP ?? os.tmpdir(), "mls-bench-audit-"));
  let app: App | undefined;
  try {
    console.log(`audit: ${AUDIT_FILES} files, ${WARMUP} warm-up + ${REQUESTS} requests; ${machineLine()}`);
    app = await startBenchApp(dir);
    const t0 = performance.now();
    const seriesId = await seedAuditSeries(app.ctx.db);
    const rows = await app.ctx.db.libraryFile.count({ where: { seriesId } });
    if (rows !== AUDIT_FILES) fail(`the series has ${rows} file rows, not ${AUDIT_FILES}`);
    console.log(
      `seeded ${rows} library_file rows (+ releases, downloads, slots, map) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );

    const port = await app.listen();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const lastPage = Math.ceil(AUDIT_FILES / PAGE_SIZE);
    // A stride coprime with the page count visits pages all over the list, first and last included.
    const pageFor = (k: number) => 1 + ((k * 37) % lastPage);
    const opensBefore = archiveOpenCount();
    const latencies: number[] = [];
    let bytes = 0;
    let flagged = 0;
    const check = (status: number, body: string, page: number) => {
      if (status !== 200) fail(`page ${page} answered ${status}: ${body.slice(0, 300)}`);
      const p = JSON.parse(body) as { total: number; page: number; page_size: number; files: { flags: string[] }[] };
      const expected = page < lastPage ? PAGE_SIZE : AUDIT_FILES - (lastPage - 1) * PAGE_SIZE;
      if (p.total !== AUDIT_FILES || p.page !== page || p.files.length !== expected) {
        fail(
          `page ${page}: total ${p.total}, page ${p.page}, ${p.files.length} files (expected ${AUDIT_FILES}, ${page}, ${expected})`,
        );
      }
      flagged += p.files.filter((f) => f.flags.length > 0).length;
    };
    for (let k = 0; k < WARMUP; k++) {
      const r = await get(agent, port, `/api/manga/${seriesId}/audit?page=${pageFor(k)}`);
      check(r.status, r.body, pageFor(k));
    }
    app.ctx.queries.reset();
    await get(agent, port, `/api/manga/${seriesId}/audit?page=1`);
    const statements = app.ctx.queries.count;
    flagged = 0;
    for (let k = 0; k < REQUESTS; k++) {
      const page = pageFor(WARMUP + k);
      const t = performance.now();
      const r = await get(agent, port, `/api/manga/${seriesId}/audit?page=${page}`);
      latencies.push(performance.now() - t);
      check(r.status, r.body, page);
      bytes += r.body.length;
    }
    const opened = archiveOpenCount() - opensBefore;
    agent.destroy();

    printTable(
      ["measure", "requests", "median", "p90", "p99"],
      [
        [
          `GET /api/manga/${seriesId}/audit?page=N (HTTP, keep-alive, N over 1..${lastPage})`,
          latencies.length,
          ms(median(latencies)),
          ms(percentile(latencies, 90)),
          ms(percentile(latencies, 99)),
        ],
      ],
    );
    console.log(
      `\nstatements per request: ${statements}; response ${Math.round(bytes / REQUESTS)} bytes on average; ` +
        `${flagged} of ${REQUESTS * PAGE_SIZE} listed files carried a flag; archives opened: ${opened}`,
    );
    // Where a request's time goes, in-process, the steps audit.list takes (information).
    const db = app.ctx.db;
    const phases = {
      facts: [] as number[],
      snapshot: [] as number[],
      index: [] as number[],
      entries: [] as number[],
      page: [] as number[],
    };
    for (let k = 0; k < BREAKDOWN_RUNS; k++) {
      let t = performance.now();
      const facts = await loadAuditFacts(db, seriesId, "en");
      phases.facts.push(performance.now() - t);
      t = performance.now();
      const snapshot = (await loadSnapshot(db, seriesId))!;
      phases.snapshot.push(performance.now() - t);
      t = performance.now();
      const index = buildCoverageIndex(snapshot, { form: seriesForm(snapshot.series), estimates: false });
      phases.index.push(performance.now() - t);
      t = performance.now();
      const all = auditEntries(facts, new Set(index.chapters.flatMap((c) => c.duplicateFileIds)));
      phases.entries.push(performance.now() - t);
      t = performance.now();
      const { page, sort, filter } = parseAuditQuery({ page: String(pageFor(k)) });
      auditPage(sortAuditEntries(filterAuditEntries(all, filter), sort), page);
      phases.page.push(performance.now() - t);
    }
    console.log(`\nbreakdown, in-process, ${BREAKDOWN_RUNS} runs (information):`);
    printTable(
      ["step of audit.list", "median"],
      [
        [
          `loadAuditFacts (files, releases with provider and mapping, downloads: ${AUDIT_FILES} files)`,
          ms(median(phases.facts)),
        ],
        ["loadSnapshot (for the duplicates)", ms(median(phases.snapshot))],
        ["buildCoverageIndex", ms(median(phases.index))],
        ["auditEntries (flags of every file)", ms(median(phases.entries))],
        ["filter + sort + page of 24", ms(median(phases.page))],
      ],
    );

    // Latency has no native counterpart here: reported, not judged (a wrong page already stopped the run).
    return [
      {
        ok: opened === 0,
        text: `archives opened by ${WARMUP + REQUESTS + 1} audit pages over ${AUDIT_FILES} files: ${opened} (goal 0); median ${ms(median(latencies))}, p99 ${ms(percentile(latencies, 99))}`,
      },
    ];
  } finally {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench("audit", main);
