/**
 * `pnpm bench sha256`: sha256File (server/src/library/archive-index.ts) on a 1 GiB file against
 * coreutils `sha256sum` on the same file, interleaved rounds, medians. Goal: throughput ≥ 1.0× the
 * native tool's. The file lives in a temporary directory on the same disk as the library and is
 * deleted afterwards; it is written just before the rounds, so both sides read it from the page
 * cache (what a re-hash of a recent download sees), and the figure is hashing plus read calls.
 *
 * Also printed (information): a candidate implementation with 1 MiB reads into a reused buffer, to
 * show what the read size is worth against the stream's default 64 KiB chunks.
 */
import { createHash, randomFillSync } from "node:crypto";
import { mkdtemp, open, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { sha256File } from "../src/library/archive-index.ts";
import {
  TOOLS,
  fail,
  intEnv,
  machineLine,
  median,
  percentile,
  printTable,
  requireTools,
  runBench,
  timeCommand,
  toolVersion,
  type Goal,
} from "./harness.ts";

const MIB = 1024 * 1024;
const SIZE_MIB = intEnv("BENCH_SHA_MIB", 1024);
const ROUNDS = intEnv("BENCH_SHA_ROUNDS", 5);
const GOAL = 1.0;

/** Pseudo-random content (hashing cost does not depend on it; a sparse or zero file could be special-cased by a filesystem). */
async function writeFile(file: string, mib: number): Promise<void> {
  const block = Buffer.alloc(4 * MIB);
  randomFillSync(block);
  const fh = await open(file, "w");
  try {
    for (let off = 0; off < mib * MIB; off += block.length) {
      block.writeUInt32LE(off / block.length, 0);
      await fh.write(block, 0, Math.min(block.length, mib * MIB - off), off);
    }
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * A candidate for sha256File, printed for information: 1 MiB reads into one reused buffer (no
 * stream machinery, 16× fewer read calls and hash updates than the default 64 KiB stream).
 */
async function sha256LargeReads(file: string): Promise<string> {
  const hash = createHash("sha256");
  const buf = Buffer.allocUnsafe(MIB);
  const fh = await open(file, "r");
  try {
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
    }
  } finally {
    await fh.close();
  }
  return hash.digest("hex");
}

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await f();
  return { ms: performance.now() - t0, value };
}

async function main(): Promise<Goal[]> {
  requireTools([TOOLS.sha256sum]);
  // Same disk as the library (LIBRARY_ROOT defaults under the checkout); os.tmpdir() is on it here too.
  const dir = await mkdtemp(path.join(process.env.BENCH_TMP ?? os.tmpdir(), "mls-bench-sha-"));
  const file = path.join(dir, "big.bin");
  try {
    console.log(
      `sha256: ${SIZE_MIB} MiB file, ${ROUNDS} interleaved rounds; ${machineLine()}; ${toolVersion("sha256sum")}`,
    );
    const tw = performance.now();
    await writeFile(file, SIZE_MIB);
    console.log(`wrote ${file} in ${((performance.now() - tw) / 1000).toFixed(1)} s`);

    const ours: number[] = [];
    const native: number[] = [];
    const candidate: number[] = [];
    let expected: string | null = null;
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate who goes first so that neither always inherits the other's warm state.
      const order =
        round % 2 === 0 ? (["ours", "native", "candidate"] as const) : (["native", "ours", "candidate"] as const);
      for (const side of order) {
        if (side === "native") {
          const r = await timeCommand("sha256sum", [file]);
          const digest = r.stdout.split(" ")[0] ?? "";
          if (expected !== null && digest !== expected) fail(`sha256sum printed ${digest}, expected ${expected}`);
          expected = digest;
          native.push(r.ms);
        } else {
          const r = await timed(() => (side === "ours" ? sha256File(file) : sha256LargeReads(file)));
          if (expected !== null && r.value !== expected) fail(`${side} hashed ${r.value}, expected ${expected}`);
          expected = r.value;
          (side === "ours" ? ours : candidate).push(r.ms);
        }
      }
    }
    const mbps = (t: number) => `${((SIZE_MIB * MIB) / 1e6 / (t / 1000)).toFixed(0)} MB/s`;
    const row = (name: string, xs: number[]) => [
      name,
      xs.length,
      `${median(xs).toFixed(0)} ms`,
      `${percentile(xs, 100).toFixed(0)} ms`,
      mbps(median(xs)),
    ];
    console.log("");
    printTable(
      ["measure", "runs", "median", "max", "throughput"],
      [
        row("sha256File (ours)", ours),
        row("sha256sum (coreutils)", native),
        row("info: candidate, 1 MiB reads into a reused buffer", candidate),
      ],
    );
    const ratio = median(native) / median(ours);
    console.log(`\ndigest ${expected}`);
    return [
      {
        ok: ratio >= GOAL,
        text: `sha256File throughput / sha256sum = ${ratio.toFixed(2)}× (goal ≥ ${GOAL.toFixed(1)}×; ${median(ours).toFixed(0)} ms vs ${median(native).toFixed(0)} ms for ${SIZE_MIB} MiB)`,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runBench("sha256", main);
