/**
 * `pnpm bench downloads`: pages per second through the whole download pipeline (fetch from a local
 * HTTP page server with the pipeline's concurrency, image check, conformity judgement, CBZ packaging
 * with ComicInfo, publication with fsync and journal) against the same pages only fetched (same
 * concurrency) and written to files, in the same run. Also the process's peak RSS.
 *
 * Each page is measured for the judgement and written into the staged CBZ as it arrives, so the
 * judgement overlaps the fetch and memory holds the pages in flight, not the chapters. Goals: the
 * pipeline's pages per second ≥ 0.6 × fetch + write alone, and peak RSS of the process < 250 MB for
 * a 48-chapter run. The judgement alone over the same pages (statsOfPages, two chapters at once) is
 * printed for information: every page is decoded at 1/8 scale, which bounds what the pipeline can do
 * on this machine's cores.
 */
import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { migrateDatabase } from "../src/db/migrate.ts";
import { mapConcurrent, statsOfPages } from "../src/library/page-stats.ts";
import { ProviderError, type SourceProvider } from "../src/providers/provider.ts";
import { fail, intEnv, machineLine, printTable, runBench, type Goal } from "./harness.ts";
import { makePages, pageSizeReport } from "./pages.ts";

const CHAPTERS = intEnv("BENCH_DL_CHAPTERS", 48);
const PAGES = intEnv("BENCH_DL_PAGES", 24);
const RSS_GOAL_MB = 250;
const RATIO_GOAL = 0.6;

function pageServer(pages: readonly Buffer[]): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const m = /^\/page\/(\d+)$/.exec(req.url ?? "");
    const page = m ? pages[Number(m[1]) % pages.length] : undefined;
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "image/jpeg", "content-length": page.length }).end(page);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

async function getPage(url: string, signal?: AbortSignal): Promise<Buffer> {
  const res = await fetch(url, { signal });
  if (!res.ok) throw new ProviderError(`HTTP ${res.status}`, res.status >= 500);
  return Buffer.from(await res.arrayBuffer());
}

/** A provider whose chapter c serves pages c*PAGES … from the page server. */
function benchProvider(base: string): SourceProvider {
  return {
    kind: "drop_folder",
    name: "bench",
    search: async () => [],
    listChapters: async () => [],
    async pages(_sourceId, externalId) {
      const c = Number(externalId);
      return {
        count: PAGES,
        fetch: async (i, signal) => ({
          index: i,
          bytes: await getPage(`${base}/page/${c * PAGES + i - 1}`, signal),
          contentType: "image/jpeg",
        }),
      };
    },
  };
}

async function main(): Promise<Goal[]> {
  console.log(machineLine());
  const pages = await makePages(1, 32);
  console.log(`pages: ${pageSizeReport(pages)}; ${CHAPTERS} chapters × ${PAGES} pages`);
  const server = await pageServer(pages);
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-downloads-"));
  try {
    // Baseline: the same pages fetched with the pipeline's concurrency for one provider (2 chapters × 4 pages) and written.
    const out = path.join(dir, "plain");
    await mkdir(out);
    const t0 = performance.now();
    await mapConcurrent(
      Array.from({ length: CHAPTERS }, (_, c) => c),
      2,
      async (c) => {
        await mapConcurrent(
          Array.from({ length: PAGES }, (_, i) => i),
          4,
          async (i) => writeFile(path.join(out, `${c}-${i}.jpg`), await getPage(`${server.url}/page/${c * PAGES + i}`)),
        );
      },
    );
    const plainMs = performance.now() - t0;
    const tj = performance.now();
    const served = (c: number) => Array.from({ length: PAGES }, (_, i) => pages[(c * PAGES + i) % pages.length]!);
    await mapConcurrent(
      Array.from({ length: CHAPTERS }, (_, c) => c),
      2,
      (c) => statsOfPages(served(c), 2),
    );
    const judgeMs = performance.now() - tj;

    const config = loadConfig({
      DATA_DIR: path.join(dir, "data"),
      LIBRARY_ROOT: path.join(dir, "library"),
      PORT: "0",
      HOST: "127.0.0.1",
      API_KEY: "bench-api-key-0123456789",
      DEMO_LIBRARY: "0",
      WEB_BUILD_DIR: "",
      LOG_LEVEL: "silent",
      DOWNLOAD_POLL_MS: "20",
      WANTED_MAX_DOWNLOADS: String(CHAPTERS),
    });
    await migrateDatabase(config.databaseUrl);
    const app = await createApp(config, { migrate: false, seedDemo: false });
    try {
      const provider = benchProvider(server.url);
      app.services.downloadPipeline.useLookup({
        forMapping: async (id) => ({
          provider,
          mapping: { id, seriesId: 1, providerId: 1, sourceId: "bench", language: "en" },
        }),
      });
      const series = await app.services.series.create({ title: "Bench Downloads" });
      const db = app.ctx.db;
      await db.chapterSlot.createMany({
        data: Array.from({ length: CHAPTERS }, (_, c) => ({ seriesId: series.id, number: String(c + 1) })),
      });
      const p = await db.provider.create({ data: { name: "bench", kind: "drop_folder" } });
      const m = await db.sourceMapping.create({
        data: { seriesId: series.id, providerId: p.id, sourceId: "bench", language: "en" },
      });
      await db.offer.createMany({
        data: Array.from({ length: CHAPTERS }, (_, c) => ({
          seriesId: series.id,
          sourceMappingId: m.id,
          kind: "chapter",
          chapter: String(c + 1),
          language: "en",
          externalId: String(c),
          pageCount: PAGES,
        })),
      });

      const t1 = performance.now();
      const pass = await app.services.wanted.runPass(series.id, { force: true });
      if (pass.queued !== CHAPTERS) fail(`the pass queued ${pass.queued} of ${CHAPTERS}`);
      for (;;) {
        const left = await db.download.count({
          where: { seriesId: series.id, state: { notIn: ["published", "degraded", "failed", "cancelled"] } },
        });
        if (left === 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const pipelineMs = performance.now() - t1;
      const published = await db.download.count({ where: { seriesId: series.id, state: "published" } });
      if (published !== CHAPTERS)
        fail(
          `${published} of ${CHAPTERS} chapters published: ${JSON.stringify(await db.download.findMany({ where: { state: { not: "published" } }, select: { state: true, error: true } }))}`,
        );

      const total = CHAPTERS * PAGES;
      const plainRate = (total * 1000) / plainMs;
      const pipelineRate = (total * 1000) / pipelineMs;
      const judgeRate = (total * 1000) / judgeMs;
      const rssMb = process.resourceUsage().maxRSS / 1024;
      printTable(
        ["path", "pages", "time", "pages/s"],
        [
          ["fetch + write (baseline)", total, `${(plainMs / 1000).toFixed(2)} s`, plainRate.toFixed(0)],
          ["judgement only (statsOfPages)", total, `${(judgeMs / 1000).toFixed(2)} s`, judgeRate.toFixed(0)],
          [
            "pipeline: fetch + check + judge + CBZ + publish",
            total,
            `${(pipelineMs / 1000).toFixed(2)} s`,
            pipelineRate.toFixed(0),
          ],
        ],
      );
      console.log(
        `pipeline / fetch+write ${(pipelineRate / plainRate).toFixed(2)}; pipeline / judgement ${(pipelineRate / judgeRate).toFixed(2)}; peak RSS ${rssMb.toFixed(0)} MB`,
      );
      return [
        {
          ok: pipelineRate >= RATIO_GOAL * plainRate,
          text: `pipeline ${pipelineRate.toFixed(0)} pages/s ≥ ${RATIO_GOAL} × fetch + write ${plainRate.toFixed(0)} pages/s`,
        },
        { ok: rssMb < RSS_GOAL_MB, text: `peak RSS ${rssMb.toFixed(0)} MB < ${RSS_GOAL_MB} MB` },
      ];
    } finally {
      await app.close();
    }
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

runBench("downloads", main);
