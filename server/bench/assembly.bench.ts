/**
 * `pnpm bench assembly`: the book builder (`buildBook`, library/assembler.ts) on a
 * plan made by the real domain planner, against the native pipeline doing the same work.
 *
 * (a) 10 chapter CBZs × 20 realistic pages (~70 MB): `buildBook` (it writes the book with its
 *     own stored-entry writer; the second variant, yazl's pure-JS CRC-32 installed, no longer
 *     changes it: kept as a control), and `unzip -q` each chapter + rename + `zip -0 -q -r`, in interleaved rounds (order
 *     rotated); medians, MB/s of page bytes. Goal: ours ≥ 1.25 × native throughput.
 * (b) A ~1 GB book (~3,000 pages: the same page bytes reused across ~150 chapter archives) built
 *     in a child process (`node --import tsx`) that reports its peak RSS. Goal: < 150 MB.
 * The child is assembly-rss-child.ts (no sharp loaded). Everything lives in one temporary directory, deleted at the end.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { openArchive } from "../src/library/archive-reader.ts";
import {
  benchComicInfo,
  fileSize,
  nativePipeline,
  planBook,
  writeChapters,
  type ChapterFile,
} from "./assembly-fixture.ts";
import type { RssJob, RssResult } from "./assembly-rss-child.ts";
import {
  BenchError,
  fail,
  intEnv,
  machineLine,
  median,
  printTable,
  requireTools,
  runBench,
  toolVersion,
  type Goal,
  TOOLS,
} from "./harness.ts";
import { makePages, pageSizeReport } from "./pages.ts";

const GOAL_RATIO = 1.25;
const GOAL_RSS_MB = 150;
const CHAPTERS = 10;
const PAGES_PER_CHAPTER = 20;

/** yazl's instance of buffer-crc32: its pure-JS `unsigned` is kept before assembler.ts replaces it. */
interface Crc32Module {
  unsigned: (data: Buffer, previous?: number) => number;
}
const yazlCrc32 = createRequire(createRequire(import.meta.url).resolve("yazl"))("buffer-crc32") as Crc32Module;
const pureJsCrc32 = yazlCrc32.unsigned;
// Loaded after the line above on purpose: importing it installs zlib.crc32 into yazl.
const { buildBook } = await import("../src/library/assembler.ts");
const nativeCrc32 = yazlCrc32.unsigned;

type Job = RssJob;

const MB = (bytes: number) => bytes / 1e6;
const mbps = (bytes: number, ms: number) => MB(bytes) / (ms / 1000);

async function build(job: Job, crc: "zlib" | "pure-js") {
  yazlCrc32.unsigned = crc === "zlib" ? nativeCrc32 : pureJsCrc32;
  try {
    let hashedAt = 0;
    const t0 = performance.now();
    const built = await buildBook({
      ...job,
      comicInfo: benchComicInfo(job.plan),
      onProgress: (step, done, total) => {
        if (step === "hashing" && done === total) hashedAt = performance.now();
      },
    });
    return { ms: performance.now() - t0, hashMs: hashedAt - t0, built };
  } finally {
    yazlCrc32.unsigned = nativeCrc32;
  }
}

/** The built book holds every page, byte for byte, in order, then ComicInfo.xml. */
async function checkBook(stagedPath: string, pages: readonly Buffer[]): Promise<void> {
  const a = await openArchive(stagedPath);
  try {
    if (a.pages.length !== pages.length) fail(`the built book holds ${a.pages.length} pages, not ${pages.length}`);
    for (const [i, p] of a.pages.entries())
      if (!(await a.readEntry(p.name)).equals(pages[i]!))
        fail(`page ${i + 1} of the built book differs from its source`);
  } finally {
    await a.close();
  }
}

async function throughput(tmp: string, pages: readonly Buffer[]): Promise<Goal[]> {
  const root = path.join(tmp, "library-a");
  const chapters = await writeChapters(root, CHAPTERS, (c) =>
    pages.slice(c * PAGES_PER_CHAPTER, (c + 1) * PAGES_PER_CHAPTER),
  );
  const plan = await planBook(chapters);
  const job: Job = { plan, libraryRoot: root, staging: path.join(tmp, "staging-a") };
  const pageBytes = pages.reduce((s, p) => s + p.length, 0);
  let archiveBytes = 0;
  for (const c of chapters) archiveBytes += await fileSize(c.abs);
  console.log(
    `${CHAPTERS} chapter CBZs × ${PAGES_PER_CHAPTER} pages: ${MB(archiveBytes).toFixed(1)} MB of archives, ${MB(pageBytes).toFixed(1)} MB of page bytes`,
  );
  console.log(
    `plan: domain planAssembly over buildCoverageIndex of an in-memory snapshot (operator map book 1 = chapters 1–${CHAPTERS}), ${plan.fileIds.length} source files`,
  );

  // Correctness first, once each: a fast wrong result must not pass.
  for (const crc of ["zlib", "pure-js"] as const) {
    const w = await build(job, crc);
    await checkBook(w.built.stagedPath, pages);
    await rm(w.built.stagedPath);
  }
  const nativeBook = path.join(tmp, "native-book.cbz");
  const n0 = await nativePipeline(chapters, path.join(tmp, "native-work"), nativeBook);
  if (n0.pages !== pages.length) fail(`the native pipeline extracted ${n0.pages} pages, not ${pages.length}`);
  if ((await fileSize(nativeBook)) < pageBytes) fail("the native book is smaller than its pages: not stored");
  await rm(nativeBook);

  const rounds = intEnv("BENCH_ASM_ROUNDS", 7);
  const times = { zlib: [] as number[], pure: [] as number[], native: [] as number[], hash: [] as number[] };
  type Side = "zlib" | "pure" | "native";
  const sides: Side[] = ["zlib", "pure", "native"];
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(r + k) % sides.length]!;
      if (side === "native") {
        times.native.push((await nativePipeline(chapters, path.join(tmp, "native-work"), nativeBook)).ms);
        await rm(nativeBook);
      } else {
        const b = await build(job, side === "zlib" ? "zlib" : "pure-js");
        times[side].push(b.ms);
        if (side === "zlib") times.hash.push(b.hashMs);
        await rm(b.built.stagedPath);
      }
    }
  }
  const mZ = median(times.zlib);
  const mP = median(times.pure);
  const mN = median(times.native);
  console.log(
    `\n${rounds} interleaved rounds (order rotated), medians; MB/s = ${MB(pageBytes).toFixed(1)} MB of pages / time\n`,
  );
  printTable(
    ["pipeline", "median", "min", "max", "MB/s", "vs native"],
    [
      [
        "buildBook, stored writer (shipped)",
        mZ,
        Math.min(...times.zlib),
        Math.max(...times.zlib),
        mbps(pageBytes, mZ),
        mN / mZ,
      ],
      [
        "buildBook, yazl's pure-JS CRC set (no effect since the stored writer)",
        mP,
        Math.min(...times.pure),
        Math.max(...times.pure),
        mbps(pageBytes, mP),
        mN / mP,
      ],
      [
        "unzip -q ×10 + rename + zip -0 -q -r",
        mN,
        Math.min(...times.native),
        Math.max(...times.native),
        mbps(pageBytes, mN),
        1,
      ],
    ].map(([name, m, lo, hi, rate, ratio]) => [
      name as string,
      `${(m as number).toFixed(0)} ms`,
      `${(lo as number).toFixed(0)} ms`,
      `${(hi as number).toFixed(0)} ms`,
      (rate as number).toFixed(1),
      `${(ratio as number).toFixed(2)}×`,
    ]),
  );
  console.log(
    `\nof the shipped builder's time: SHA-256 of the ${CHAPTERS} chapter files (the 409 check) median ${median(times.hash).toFixed(0)} ms; the rest opens, reads, CRC-checks and writes`,
  );
  return [
    {
      ok: mN / mZ >= GOAL_RATIO,
      text: `assembly throughput ${mbps(pageBytes, mZ).toFixed(1)} MB/s = ${(mN / mZ).toFixed(2)}× the native pipeline's ${mbps(pageBytes, mN).toFixed(1)} MB/s (goal ≥ ${GOAL_RATIO}×)`,
    },
  ];
}

async function peakRss(tmp: string, pages: readonly Buffer[]): Promise<Goal[]> {
  const targetBytes = intEnv("BENCH_ASM_RSS_MB", 1000) * 1e6;
  const perChapter = PAGES_PER_CHAPTER;
  const avg = pages.reduce((s, p) => s + p.length, 0) / pages.length;
  const count = Math.ceil(targetBytes / (avg * perChapter));
  const root = path.join(tmp, "library-b");
  // The same page bytes are reused across chapters: the builder's memory does not depend on pixels.
  const pageOf = (c: number, i: number) => pages[(c * perChapter + i) % pages.length]!;
  console.log(`\nwriting ${count} chapter CBZs × ${perChapter} pages (the ${pages.length} pages' bytes reused) …`);
  const chapters: ChapterFile[] = await writeChapters(root, count, (c) =>
    Array.from({ length: perChapter }, (_, i) => pageOf(c, i)),
  );
  let archiveBytes = 0;
  for (const c of chapters) archiveBytes += await fileSize(c.abs);
  const plan = await planBook(chapters);
  const jobFile = path.join(tmp, "rss-job.json");
  const job: Job = { plan, libraryRoot: root, staging: path.join(tmp, "staging-b") };
  await writeFile(jobFile, JSON.stringify(job));
  const result = await child(jobFile);
  const bookBytes = await fileSize(result.stagedPath);
  await rm(result.stagedPath);
  await rm(root, { recursive: true, force: true });
  // VmHWM, not maxRSS: a spawned child's ru_maxrss keeps the parent's high-water mark across
  // fork + exec (Linux), so it reports this bench's own ~400 MB.
  const mb = (kb: number) => (kb * 1024) / 1e6;
  const peakMb = mb(result.hwmKb);
  printTable(
    ["book", "pages", "chapter archives", "built in", "RSS after imports", "peak RSS (VmHWM)", "growth", "maxRSS"],
    [
      [
        `${MB(bookBytes).toFixed(0)} MB`,
        result.pageCount,
        `${count}, ${MB(archiveBytes).toFixed(0)} MB`,
        `${(result.ms / 1000).toFixed(1)} s`,
        `${mb(result.baselineKb).toFixed(1)} MB`,
        `${peakMb.toFixed(1)} MB`,
        `${(peakMb - mb(result.baselineKb)).toFixed(1)} MB`,
        `${mb(result.maxRssKb).toFixed(0)} MB (inherited)`,
      ],
    ],
  );
  console.log(
    "RSS after imports: node + the tsx loader (~35 MB) + sharp/libvips (which the archive reader loads) + the builder's modules",
  );
  if (result.pageCount !== count * perChapter)
    fail(`the 1 GB book holds ${result.pageCount} pages, not ${count * perChapter}`);
  return [
    {
      ok: peakMb < GOAL_RSS_MB,
      text: `peak RSS of the process assembling a ${MB(bookBytes).toFixed(0)} MB book: ${peakMb.toFixed(1)} MB, ${(peakMb - mb(result.baselineKb)).toFixed(1)} MB over its RSS after imports (goal < ${GOAL_RSS_MB} MB)`,
    },
  ];
}

function child(jobFile: string): Promise<RssResult> {
  return new Promise((resolve, reject) => {
    const script = path.join(import.meta.dirname, "assembly-rss-child.ts");
    const p = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), script, jobFile], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    p.stdout.on("data", (c: Buffer) => (out += c.toString()));
    p.on("error", reject);
    p.on("close", (code) => {
      const last = out.trim().split("\n").pop() ?? "";
      if (code !== 0) reject(new BenchError(`the RSS child exited ${code}: ${out.slice(-400)}`));
      else resolve(JSON.parse(last) as RssResult);
    });
  });
}

async function main(): Promise<Goal[]> {
  requireTools([TOOLS.unzip, { command: "zip", pkg: "zip" }]);
  console.log(machineLine());
  console.log(`${toolVersion("unzip", ["-v"])}; ${toolVersion("sh", ["-c", "zip -v | sed -n 2p"])}`);
  const tmp = await mkdtemp(path.join(process.env.BENCH_TMP ?? os.tmpdir(), "bench-assembly-"));
  try {
    const t0 = performance.now();
    const pages = await makePages(0, CHAPTERS * PAGES_PER_CHAPTER);
    console.log(`${pageSizeReport(pages)}, generated in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    const a = await throughput(tmp, pages);
    const b = await peakRss(tmp, pages);
    return [...a, ...b];
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

runBench("assembly", main);
