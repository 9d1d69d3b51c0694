/**
 * `pnpm bench thumbnails`: the audit thumbnail of the first page of 200 archives
 * (server/src/library/thumbnails.ts over archive-reader.ts) against a native pipeline per archive,
 * `unzip -p <cbz> page001.jpg | vipsthumbnail stdin -s 300x` (a process pair per archive, as a
 * script would do it), measured in the same run, interleaved archive by archive.
 *
 * Goal: time per thumbnail ≤ 0.25 × the native pipeline, for "one process with the archive already
 * indexed": the archive is opened and its directory judged (openArchive) before the clock starts;
 * timed is `thumbnails.get(file, fingerprint, "first")` with the cache empty, its reading step
 * given the open handle's `readPage(0)`: cache miss, the file's stat before and after, the page
 * read and CRC-checked, its header checked, the 192 px WebP made, both cache files written
 * (first = last here, one shrink).
 *
 * Also printed: the module's full cold path (its own reader: open, index, read page 0 and the last
 * page, two shrinks, two cache files) per archive and per thumbnail, a cached hit, and an
 * in-process breakdown of one cold render with two cheaper encoders beside the module's.
 * Archives: 4 stored pages each, page 1 a distinct 1400×2000 scan-like JPEG (bench/pages.ts).
 */
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import sharp from "sharp";
import { openArchive, sharpInputOptions } from "../src/library/archive-reader.ts";
import { statFile } from "../src/library/archive-index.ts";
import { THUMBNAIL_WIDTH, createThumbnails, type EdgeReader, type FileFingerprint } from "../src/library/thumbnails.ts";
import { DEFAULT_ARCHIVE_LIMITS } from "../src/config.ts";
import { pageName, writeCbz } from "./cbz.ts";
import {
  TOOLS,
  fail,
  intEnv,
  machineLine,
  median,
  ms,
  percentile,
  printTable,
  requireTools,
  runBench,
  timeCommand,
  toolVersion,
  type Goal,
} from "./harness.ts";
import { makePages, pageSizeReport } from "./pages.ts";

const ARCHIVES = intEnv("BENCH_THUMB_ARCHIVES", 200);
const WARMUP = intEnv("BENCH_THUMB_WARMUP", 5);
const PAGES_PER_ARCHIVE = 4;
const GOAL = 0.25;
const BREAKDOWN_PAGES = intEnv("BENCH_THUMB_BREAKDOWN_PAGES", 40);

/**
 * Where the cold render's time goes (information): the steps of thumbnails.ts `shrink` and `store`
 * taken apart with the same sharp calls (its pipeline as written: rotate, resize to 192 px wide,
 * WebP quality 72), and two cheaper encoders for comparison.
 */
async function breakdown(pages: readonly Buffer[], dir: string): Promise<void> {
  const input = sharpInputOptions(DEFAULT_ARCHIVE_LIMITS);
  const resized = (p: Buffer) => sharp(p, input).rotate().resize({ width: THUMBNAIL_WIDTH, withoutEnlargement: true });
  let out: Buffer = Buffer.alloc(0);
  const steps: [string, (p: Buffer, k: number) => Promise<unknown>][] = [
    [
      "decode (shrink-on-load) + resize, raw out",
      async (p) => {
        await resized(p).raw().toBuffer();
      },
    ],
    [
      "the module's shrink: + WebP q72 (effort 4)",
      async (p) => {
        out = await resized(p).webp({ quality: 72 }).toBuffer();
        return out;
      },
    ],
    ["alternative: WebP q72 effort 0", (p) => resized(p).webp({ quality: 72, effort: 0 }).toBuffer()],
    ["alternative: JPEG q80 (mozjpeg defaults of sharp)", (p) => resized(p).jpeg({ quality: 80 }).toBuffer()],
    [
      "the module's store: 2 × (write temporary + rename)",
      async (_p, k) => {
        await mkdir(path.join(dir, "bd"), { recursive: true });
        for (const side of ["first", "last"]) {
          const target = path.join(dir, "bd", `${k}-${side}.webp`);
          await writeFile(`${target}.tmp`, out);
          await rename(`${target}.tmp`, target);
        }
      },
    ],
  ];
  const times = steps.map(() => [] as number[]);
  const bytes = steps.map(() => [] as number[]);
  for (const [k, p] of pages.entries()) {
    for (const [i, [, step]] of steps.entries()) {
      const t = performance.now();
      const r = await step(p, k);
      times[i]!.push(performance.now() - t);
      if (Buffer.isBuffer(r)) bytes[i]!.push(r.length);
    }
  }
  console.log(`\nbreakdown of a cold render, in-process, ${pages.length} pages (information):`);
  printTable(
    ["step", "median", "output"],
    steps.map(([name], i) => [
      name,
      ms(median(times[i]!)),
      bytes[i]!.length > 0 ? `${(median(bytes[i]!) / 1024).toFixed(1)} KB` : "",
    ]),
  );
}

interface Sides {
  indexed: number[];
  indexedRead: number[];
  full: number[];
  cached: number[];
  native: number[];
}

async function main(): Promise<Goal[]> {
  requireTools([TOOLS.unzip, TOOLS.vipsthumbnail]);
  const dir = await mkdtemp(path.join(process.env.BENCH_TMP ?? os.tmpdir(), "mls-bench-thumb-"));
  try {
    console.log(
      `thumbnails: ${ARCHIVES} archives (+${WARMUP} warm-up); ${machineLine()}; ${toolVersion("vipsthumbnail", ["--vips-version"])}`,
    );
    const lib = path.join(dir, "library");
    const nativeCwd = path.join(dir, "native");
    await mkdir(lib);
    await mkdir(nativeCwd);
    const n = ARCHIVES + WARMUP;
    const tg = performance.now();
    const firsts = await makePages(0, n);
    const rest = await makePages(100_000, PAGES_PER_ARCHIVE - 1);
    const files: { file: string; fp: FileFingerprint }[] = [];
    for (let i = 0; i < n; i++) {
      const file = path.join(lib, `Series ${i} - c001.cbz`);
      await writeCbz(file, [firsts[i]!, ...rest]);
      const st = await statFile(file);
      files.push({ file, fp: { sha256: `bench-${i}`, size: st.size, mtimeMs: st.mtimeMs } });
    }
    console.log(
      `${pageSizeReport(firsts)}; generated and archived in ${((performance.now() - tg) / 1000).toFixed(1)} s\n`,
    );

    const limits = { ...DEFAULT_ARCHIVE_LIMITS };
    // "Already indexed": the reading step takes page 0 from a handle opened before the clock.
    let handle: Awaited<ReturnType<typeof openArchive>> | null = null;
    let readMs = 0;
    const fromOpenHandle: EdgeReader = async () => {
      if (!handle) fail("no open archive");
      const t = performance.now();
      const page = await handle.readPage(0);
      readMs = performance.now() - t;
      return { first: page, last: page };
    };
    const indexedThumbs = createThumbnails({ dir: path.join(dir, "cache-indexed"), limits, readEdges: fromOpenHandle });
    const fullThumbs = createThumbnails({ dir: path.join(dir, "cache-full"), limits });

    const s: Sides = { indexed: [], indexedRead: [], full: [], cached: [], native: [] };
    const measure = async (i: number, keep: boolean) => {
      const { file, fp } = files[i]!;
      const steps = {
        indexed: async () => {
          handle = await openArchive(file, limits);
          try {
            const t = performance.now();
            const r = await indexedThumbs.get(file, fp, "first");
            const elapsed = performance.now() - t;
            if (r.cached || r.fingerprint === null || r.data.length === 0)
              fail(`${file}: not a fresh cacheable thumbnail`);
            if (keep) {
              s.indexed.push(elapsed);
              s.indexedRead.push(readMs);
            }
          } finally {
            await handle.close();
            handle = null;
          }
        },
        full: async () => {
          let t = performance.now();
          const r = await fullThumbs.get(file, fp, "first");
          const elapsed = performance.now() - t;
          if (r.cached) fail(`${file}: the full cold path found a cached thumbnail`);
          t = performance.now();
          const again = await fullThumbs.get(file, fp, "first");
          const hit = performance.now() - t;
          if (!again.cached) fail(`${file}: the second request was not served from the cache`);
          if (keep) {
            s.full.push(elapsed);
            s.cached.push(hit);
          }
        },
        native: async () => {
          const q = (x: string) => `'${x.replaceAll("'", "'\\''")}'`;
          const r = await timeCommand(
            `cd ${q(nativeCwd)} && unzip -p ${q(file)} ${pageName(0)} | vipsthumbnail stdin -s 300x`,
            [],
            { shell: true },
          );
          if (keep) s.native.push(r.ms);
        },
      };
      // Rotate the order so that no side always runs first (after a spawn, or on a cold cache line).
      const order = (["indexed", "native", "full"] as const).map((_, k, a) => a[(k + i) % a.length]!);
      for (const side of order) await steps[side]();
    };
    for (let i = 0; i < WARMUP; i++) await measure(ARCHIVES + i, false);
    for (let i = 0; i < ARCHIVES; i++) await measure(i, true);
    if (fullThumbs.stats().renders !== ARCHIVES + WARMUP)
      fail(`the worker rendered ${fullThumbs.stats().renders} times for ${ARCHIVES + WARMUP} archives`);

    const row = (name: string, xs: number[]) => [
      name,
      xs.length,
      ms(median(xs)),
      ms(percentile(xs, 90)),
      ms(percentile(xs, 99)),
    ];
    const fullMedian = median(s.full);
    printTable(
      ["measure (per archive, first page)", "runs", "median", "p90", "p99"],
      [
        row(`ours, archive indexed: thumbnails.get cold → ${THUMBNAIL_WIDTH} px WebP`, s.indexed),
        row("  of which readPage(0) (read, CRC, header check)", s.indexedRead),
        row("native: unzip -p | vipsthumbnail stdin -s 300x", s.native),
        row("info: ours full cold (open+index, first+last, 2 thumbnails)", s.full),
        row("info: ours cached (second request)", s.cached),
      ],
    );
    const ratio = median(s.indexed) / median(s.native);
    console.log(
      `\ninfo: full cold path per thumbnail ${ms(fullMedian / 2)} = ${(fullMedian / 2 / median(s.native)).toFixed(2)}× native; cached ${(median(s.cached) / median(s.native)).toFixed(3)}× native`,
    );
    await breakdown(firsts.slice(0, BREAKDOWN_PAGES), dir);
    return [
      {
        ok: ratio <= GOAL,
        text: `thumbnail of an indexed archive / native pipeline = ${ratio.toFixed(3)}× (goal ≤ ${GOAL}×; ${ms(median(s.indexed))} vs ${ms(median(s.native))})`,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runBench("thumbnails", main);
