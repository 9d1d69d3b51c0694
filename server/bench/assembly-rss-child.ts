/**
 * The child of `pnpm bench assembly` (b): builds the book of a job file with the shipped builder
 * and prints its memory figures as one JSON line. A file of its own so that its RSS holds only
 * what an assembly loads (no sharp, no page generator).
 */
import { readFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import type { AssemblyPlan } from "../src/domain/assembly.ts";
import { buildBook } from "../src/library/assembler.ts";
import { benchComicInfo } from "./assembly-fixture.ts";

export interface RssJob {
  plan: AssemblyPlan;
  libraryRoot: string;
  staging: string;
}

export interface RssResult {
  stagedPath: string;
  pageCount: number;
  ms: number;
  /** VmHWM once the modules are loaded, before the build (KB). */
  baselineKb: number;
  hwmKb: number;
  /** process.resourceUsage().maxRSS at the end (KB). */
  maxRssKb: number;
}

async function vmHwmKb(): Promise<number> {
  const m = /VmHWM:\s+(\d+) kB/.exec(await readFile("/proc/self/status", "utf8"));
  return m ? Number(m[1]) : NaN;
}

const jobFile = process.argv[2];
if (!jobFile) throw new Error("usage: assembly-rss-child.ts <job.json>");
const job = JSON.parse(await readFile(jobFile, "utf8")) as RssJob;
const baselineKb = await vmHwmKb();
const t0 = performance.now();
const built = await buildBook({ ...job, comicInfo: benchComicInfo(job.plan) });
const ms = performance.now() - t0;
const result: RssResult = {
  stagedPath: built.stagedPath,
  pageCount: built.pageCount,
  ms,
  baselineKb,
  hwmKb: await vmHwmKb(),
  maxRssKb: process.resourceUsage().maxRSS,
};
console.log(JSON.stringify(result));
