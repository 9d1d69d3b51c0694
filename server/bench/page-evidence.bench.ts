/**
 * `pnpm bench page-evidence`: page evidence's two costs.
 *
 * 1. Signatures per second: `pageSignatures` (server/src/library/page-signatures.ts: sharp's
 *    shrink-on-load decode to a 36×36 grey raster, then the 128-bit DCT hash), one page at a time as
 *    the background worker computes them, against libvips' own shrink-on-load to the same small
 *    decode over the same pages, in the same run, in interleaved rounds: `vipsthumbnail -s 36x36!`
 *    over every page of a round in one process (the goal's comparator: no process start per page),
 *    and, for information, `vips thumbnail <page> <out>.v 36 --height 36 --size force` spawned per
 *    page. Goal: ≥ 0.7× the native pages per second. Ours gets the pages as buffers; the native tool
 *    reads the same bytes from files just written.
 * 2. Alignment: `bookEvidence` of a 200-page book against the 12 chapters it was made from (each
 *    page re-encoded: a few signature bits flipped; covers and credits inserted), median of repeated
 *    runs. Goal: < 20 ms.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { label, type Label } from "../src/domain/labels.ts";
import { bookEvidence, type ChapterSequence, type EvidencePage } from "../src/domain/page-alignment.ts";
import { SIGNATURE_BITS } from "../src/domain/page-signature.ts";
import { pageSignatures } from "../src/library/page-signatures.ts";
import {
  TOOLS,
  fail,
  intEnv,
  machineLine,
  median,
  printTable,
  requireTools,
  runBench,
  timeCommand,
  toolVersion,
  type Goal,
} from "./harness.ts";
import { makePages, pageSizeReport } from "./pages.ts";

const PAGES = intEnv("BENCH_SIG_PAGES", 100);
const ROUNDS = intEnv("BENCH_SIG_ROUNDS", 5);
const ALIGN_RUNS = intEnv("BENCH_ALIGN_RUNS", 30);
const SIG_GOAL = 0.7;
const ALIGN_GOAL_MS = 20;

const rate = (pages: number, totalMs: number) => (pages * 1000) / totalMs;

/** A deterministic pseudo-random generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = SIGNATURE_BITS / 32;

function randomWords(next: () => number): Uint32Array {
  const w = new Uint32Array(WORDS);
  for (let i = 0; i < WORDS; i++) w[i] = Math.floor(next() * 4294967296) >>> 0;
  return w;
}

/** The same page re-encoded: `bits` of its signature flipped. */
function noisy(words: Uint32Array, bits: number, next: () => number): Uint32Array {
  const w = Uint32Array.from(words);
  for (let k = 0; k < bits; k++) {
    const bit = Math.floor(next() * SIGNATURE_BITS);
    w[bit >> 5] = ((w[bit >> 5] as number) ^ (1 << (31 - (bit & 31)))) >>> 0;
  }
  return w;
}

/** 12 chapters of 16 pages and a 200-page book made from them (cover, credits, ads between). */
function alignmentFixture(): { book: EvidencePage[]; chapters: ChapterSequence[]; known: Label[] } {
  const next = rng(42);
  const chapters: ChapterSequence[] = [];
  const book: EvidencePage[] = [];
  const push = (words: Uint32Array) => book.push({ page: book.length + 1, words });
  for (let k = 0; k < 2; k++) push(randomWords(next)); // cover and title page
  for (let c = 1; c <= 12; c++) {
    const pages: EvidencePage[] = [];
    for (let p = 1; p <= 16; p++) {
      const words = randomWords(next);
      pages.push({ page: p, words });
      push(noisy(words, 1 + Math.floor(next() * 8), next));
    }
    if (c % 2 === 0) push(randomWords(next)); // a credits or ad page every other chapter
    chapters.push({ number: label(c), fileIds: [c], pages });
  }
  while (book.length < 200) push(randomWords(next));
  return { book, chapters, known: chapters.map((c) => c.number) };
}

function alignment(): { medianMs: number; p95Ms: number; proposal: string } {
  const { book, chapters, known } = alignmentFixture();
  const times: number[] = [];
  let proposal = "";
  for (let i = 0; i < ALIGN_RUNS + 3; i++) {
    const t = performance.now();
    const e = bookEvidence(label(1), 1, book, chapters, known);
    const ms = performance.now() - t;
    if (i >= 3) times.push(ms); // three warm-up runs
    proposal = e.proposal ? `${e.proposal.chapters[0]}–${e.proposal.chapters.at(-1)}` : "none";
  }
  times.sort((a, b) => a - b);
  return { medianMs: median(times), p95Ms: times[Math.floor(0.95 * (times.length - 1))]!, proposal };
}

async function main(): Promise<Goal[]> {
  requireTools([TOOLS.vips, TOOLS.vipsthumbnail]);
  const dir = await mkdtemp(path.join(process.env.BENCH_TMP ?? os.tmpdir(), "mls-bench-sig-"));
  try {
    console.log(
      `page evidence: ${PAGES} pages in ${ROUNDS} interleaved rounds; ${machineLine()}; ${toolVersion("vips", ["--version"])}`,
    );
    const tg = performance.now();
    const pages = await makePages(0, PAGES);
    const files = pages.map((_, i) => path.join(dir, `page-${String(i).padStart(3, "0")}.jpg`));
    await Promise.all(pages.map((p, i) => writeFile(files[i]!, p)));
    console.log(`${pageSizeReport(pages)}; generated in ${((performance.now() - tg) / 1000).toFixed(1)} s\n`);
    const out = path.join(dir, "thumb.v");
    const nativeArgs = (f: string) => ["thumbnail", f, out, "36", "--height", "36", "--size", "force"];

    // Warm-up: libvips and JIT on our side, the binary and its libraries in the page cache natively.
    for (const [i, p] of pages.slice(0, 4).entries()) await pageSignatures(p, i + 1);
    for (const f of files.slice(0, 3)) await timeCommand("vips", nativeArgs(f));

    const ours = { ms: 0, n: 0 };
    const native = { ms: 0, n: 0 };
    const batch = { ms: 0, n: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const from = Math.round((round * PAGES) / ROUNDS);
      const to = Math.round(((round + 1) * PAGES) / ROUNDS);
      const steps = {
        ours: async () => {
          const t = performance.now();
          for (let i = from; i < to; i++) {
            const s = await pageSignatures(pages[i]!, i + 1);
            if (s.length !== 1 || s[0]!.blank) fail(`page ${i + 1} gave no usable signature`);
          }
          ours.ms += performance.now() - t;
          ours.n += to - from;
        },
        native: async () => {
          for (let i = from; i < to; i++) {
            native.ms += (await timeCommand("vips", nativeArgs(files[i]!))).ms;
            native.n += 1;
          }
        },
      };
      const batchStep = async () => {
        const r = await timeCommand("vipsthumbnail", ["-s", "36x36!", "-o", `${dir}/%s-t.v`, ...files.slice(from, to)]);
        batch.ms += r.ms;
        batch.n += to - from;
      };
      const all = { ...steps, batch: batchStep };
      const order = (["ours", "batch", "native"] as const).map((_, k, a) => a[(k + round) % a.length]!);
      for (const side of order) await all[side]();
    }
    const oursRate = rate(ours.n, ours.ms);
    const nativeRate = rate(batch.n, batch.ms);
    const a = alignment();
    printTable(
      ["measure", "pages", "pages/s", "ms/page"],
      [
        [
          "ours: pageSignatures (36 px grey shrink-on-load + DCT hash), one at a time",
          ours.n,
          oursRate.toFixed(1),
          (ours.ms / ours.n).toFixed(2),
        ],
        [
          "native: vipsthumbnail -s 36x36! over the round's pages, one process per round",
          batch.n,
          nativeRate.toFixed(1),
          (batch.ms / batch.n).toFixed(2),
        ],
        [
          "info: vips thumbnail <page> <out>.v 36 --height 36 --size force, a process per page",
          native.n,
          rate(native.n, native.ms).toFixed(1),
          (native.ms / native.n).toFixed(2),
        ],
      ],
    );
    console.log(
      `\nalignment: 200-page book against 12 chapters of 16 pages, ${ALIGN_RUNS} runs: median ${a.medianMs.toFixed(2)} ms, ` +
        `p95 ${a.p95Ms.toFixed(2)} ms; proposal ${a.proposal}`,
    );
    if (a.proposal !== "1–12") fail(`the alignment proposed ${a.proposal}, not chapters 1–12`);
    const ratio = oursRate / nativeRate;
    return [
      {
        ok: ratio >= SIG_GOAL,
        text: `signatures/s ours / vipsthumbnail = ${ratio.toFixed(2)}× (goal ≥ ${SIG_GOAL}×; ${oursRate.toFixed(1)} vs ${nativeRate.toFixed(1)} pages/s)`,
      },
      {
        ok: a.medianMs < ALIGN_GOAL_MS,
        text: `alignment of a 200-page book against 12 chapters: median ${a.medianMs.toFixed(2)} ms (goal < ${ALIGN_GOAL_MS} ms)`,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runBench("page-evidence", main);
