/**
 * `pnpm bench downloads`: pages per second through the whole download pipeline (fetch from a local
 * HTTP page server, a process of its own as a provider's server is, with the pipeline's concurrency, image check, conformity judgement, CBZ packaging
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
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { spawn } from "node:child_process";
import * as esbuild from "esbuild";
import type { ChildResult } from "./downloads-child.ts";
import { getPage, PAGES } from "./downloads-shared.ts";
import { mapConcurrent, statsOfPages } from "../src/library/page-stats.ts";
import { HEAP_GROWING_PERCENT } from "../src/runtime-settings.ts";
import { fail, intEnv, machineLine, printTable, runBench, serviceStart, type Goal } from "./harness.ts";
import { makePages, pageSizeReport } from "./pages.ts";

const CHAPTERS = intEnv("BENCH_DL_CHAPTERS", 48);
const RSS_GOAL_MB = 250;
const RATIO_GOAL = 0.6;

const serverDir = path.resolve(import.meta.dirname, "..");

/**
 * The child bundled as the service is (`server/build.mjs`: esbuild, dependencies external, plain
 * ES modules that Node runs without a loader), so its memory is the shipped service's: under the tsx
 * loader the same process held about 60 MB more before the first download (transformed sources).
 * The bundle lies in server/.bench/ so that its dependencies resolve from server/node_modules.
 */
async function bundle(): Promise<{ child: string; pageServer: string }> {
  const outdir = path.join(serverDir, ".bench");
  // The very options of the server's build; only the entries and the folder differ.
  const { options } = (await import(path.join(serverDir, "build.mjs"))) as { options: esbuild.BuildOptions };
  await esbuild.build({
    ...options,
    entryPoints: {
      "downloads-child": path.join(import.meta.dirname, "downloads-child.ts"),
      "downloads-page-server": path.join(import.meta.dirname, "downloads-page-server.ts"),
    },
    outdir,
    sourcemap: false,
  });
  return { child: path.join(outdir, "downloads-child.js"), pageServer: path.join(outdir, "downloads-page-server.js") };
}

/** The page server's process; its URL once it listens. Ended by closing its stdin. */
function startPageServer(script: string, pagesDir: string): Promise<{ url: string; close(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [script, pagesDir], { stdio: ["pipe", "pipe", "inherit"] });
    const exited = new Promise<void>((r) => p.on("exit", () => r()));
    let out = "";
    p.on("error", reject);
    p.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line)
        resolve({
          url: line.trim(),
          close: async () => {
            p.stdin.end();
            await exited;
          },
        });
    });
    void exited.then(() => reject(new Error(`the page server exited before listening: ${out}`)));
  });
}

function runChild(script: string, pagesUrl: string, workDir: string): Promise<ChildResult> {
  const start = serviceStart();
  console.log(
    `pipeline process: ${Object.entries(start.env)
      .map(([k, v]) => `${k}=${v} `)
      .join("")}node ${start.nodeArgs.join(" ")} (as npm start runs the service), ` +
      `--heap-growing-percent=${HEAP_GROWING_PERCENT} set in the process as the service's main sets it`,
  );
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...start.nodeArgs, script, pagesUrl, workDir, String(CHAPTERS)], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ...start.env },
    });
    let out = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString()));
    p.on("error", reject);
    p.on("exit", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0) return reject(new Error(`the pipeline child exited with ${code}: ${out.slice(-500)}`));
      resolve(JSON.parse(line) as ChildResult);
    });
  });
}

async function main(): Promise<Goal[]> {
  console.log(machineLine());
  const pages = await makePages(1, 32);
  console.log(`pages: ${pageSizeReport(pages)}; ${CHAPTERS} chapters × ${PAGES} pages`);
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-downloads-"));
  const pagesDir = path.join(dir, "pages");
  await mkdir(pagesDir);
  await Promise.all(pages.map((b, i) => writeFile(path.join(pagesDir, `${String(i).padStart(3, "0")}.jpg`), b)));
  const scripts = await bundle();
  const server = await startPageServer(scripts.pageServer, pagesDir);
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
          async (i) => {
            const page = await getPage(`${server.url}/page/${c * PAGES + i}`);
            await writeFile(path.join(out, `${c}-${i}.jpg`), page.bytes);
            page.release();
          },
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

    // The pipeline in a child process of its own (its peak RSS is the run's, nothing else's).
    const child = await runChild(scripts.child, server.url, path.join(dir, "child"));
    if (child.published !== CHAPTERS) fail(`${child.published} of ${CHAPTERS} chapters published`);
    const pipelineMs = child.ms;
    {
      const total = CHAPTERS * PAGES;
      const plainRate = (total * 1000) / plainMs;
      const pipelineRate = (total * 1000) / pipelineMs;
      const judgeRate = (total * 1000) / judgeMs;
      const rssMb = child.hwmKb / 1024;
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
        `pipeline / fetch+write ${(pipelineRate / plainRate).toFixed(2)}; pipeline / judgement ${(pipelineRate / judgeRate).toFixed(2)}; peak RSS of the pipeline's process ${rssMb.toFixed(0)} MB (${(child.baselineKb / 1024).toFixed(0)} MB with the app loaded, before the run)`,
      );
      console.log(
        `CPU of the pipeline's process over the run: ${(child.cpuMs / 1000).toFixed(2)} s, ${(child.cpuMs / total).toFixed(2)} ms a page, ${(child.cpuMs / pipelineMs).toFixed(2)} cores busy on average (${os.cpus().length} cores)`,
      );
      return [
        {
          ok: pipelineRate >= RATIO_GOAL * plainRate,
          text: `pipeline ${pipelineRate.toFixed(0)} pages/s ≥ ${RATIO_GOAL} × fetch + write ${plainRate.toFixed(0)} pages/s`,
        },
        { ok: rssMb < RSS_GOAL_MB, text: `peak RSS ${rssMb.toFixed(0)} MB < ${RSS_GOAL_MB} MB` },
      ];
    }
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

runBench("downloads", main);
