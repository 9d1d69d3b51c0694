/**
 * Test parts for the reference processor: a small engine of our own (it "translates" by copying the
 * pages, checkpoints each page under the job's checkpoint folder keyed by the identity, counts the
 * pages it really processed, honours abort between pages and can be held at or fail on a page),
 * CBZ sources and a poller over the service's own client.
 */
import { mkdtemp, readdir, readFile, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ZipFile } from "yazl";
import { openArchive } from "../src/library/archive-reader.ts";
import { drawnPages } from "../src/library/test-pages.ts";
import { type ProcessorClient, type ProcessorStatus } from "../src/services/translation/processor-client.ts";
import { writeFileAtomic, writeResultZip } from "../src/translation/atomic-files.ts";
import { EngineError, type EngineJob, type ProcessorEngine, type ProgressFn } from "../src/processor/types.ts";
import { sha256File, statOrNull } from "../src/library/durable-fs.ts";

export interface TestEngineOptions {
  /** Waits at this page index (before processing it) until released or aborted. */
  holdAt?: number | null;
  /** Fails with EngineError("validation_failed") at this page index. */
  failAt?: number | null;
  /** Milliseconds the engine takes to stop after an abort (a page finishing). */
  stopDelayMs?: number;
}

export interface TestEngine extends ProcessorEngine {
  options: TestEngineOptions;
  /** Pages really processed (not read from checkpoints). */
  processed: number;
  runs: number;
  jobs: EngineJob[];
  signals: AbortSignal[];
  /** Resolves when the engine reached its hold point. */
  held: Promise<void>;
  release(): void;
}

export function testEngine(options: TestEngineOptions = {}): TestEngine {
  let onHeld: () => void = () => undefined;
  let releaseHold: () => void = () => undefined;
  const released = new Promise<void>((r) => (releaseHold = r));
  const engine: TestEngine = {
    fingerprint: "test-engine",
    options,
    processed: 0,
    runs: 0,
    jobs: [],
    signals: [],
    held: new Promise<void>((r) => (onHeld = r)),
    release: () => releaseHold(),
    async run(job: EngineJob, signal: AbortSignal, onProgress: ProgressFn): Promise<string> {
      engine.runs += 1;
      engine.jobs.push(job);
      engine.signals.push(signal);
      const stopped = async () => {
        await new Promise((r) => setTimeout(r, options.stopDelayMs ?? 0));
        throw new Error("interrupted");
      };
      const archive = await openArchive(job.source);
      try {
        const total = archive.pages.length;
        const pages: { name: string; data: Buffer }[] = [];
        for (let i = 0; i < total; i++) {
          if (signal.aborted) return await stopped();
          const name = archive.pages[i]!.name;
          const checkpoint = path.join(job.checkpointDir, `${job.identity}-${i}.page`);
          let data: Buffer | null = (await statOrNull(checkpoint)) ? await readFile(checkpoint) : null;
          if (!data) {
            if (options.holdAt === i) {
              onHeld();
              await Promise.race([released, new Promise((r) => signal.addEventListener("abort", r, { once: true }))]);
              if (signal.aborted) return await stopped();
            }
            if (options.failAt === i) throw new EngineError("validation_failed", `page ${i + 1} (${name}): echo`);
            data = await archive.readPage(i);
            engine.processed += 1;
            await writeFileAtomic(checkpoint, data);
          }
          pages.push({ name, data });
          onProgress(i + 1, total);
        }
        await writeResultZip(job.output, pages, {
          source_sha256: job.sourceSha256,
          source_language: job.sourceLanguage,
          target_language: job.targetLanguage,
          page_count: total,
          translated_regions: total * 2,
          untranslated_regions: 0,
          unconfirmed_regions: [],
          detected_source_language: job.sourceLanguage,
          detected_target_language: job.targetLanguage,
          model: job.ai.model,
        });
        return job.output;
      } finally {
        await archive.close();
      }
    },
  };
  return engine;
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

export async function writeCbz(file: string, pages: number, seed = 3): Promise<string> {
  const zip = new ZipFile();
  (await drawnPages(pages, seed, { width: 90, height: 130 })).forEach((p, i) =>
    zip.addBuffer(p, `${String(i + 1).padStart(3, "0")}.jpg`, { compress: false }),
  );
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  await writeFile(file, Buffer.concat(chunks));
  return sha256File(file);
}

let counter = 0;
/** A fresh job id (32 hex + retry number). */
export function jobId(retry = 0, hex?: string): string {
  counter += 1;
  return `${hex ?? `${Date.now().toString(16).padStart(16, "0")}${counter.toString(16).padStart(16, "0")}`}-${retry}`;
}

export const hexOf = (id: string) => id.split("-")[0]!;

/** Polls until the status is one of `want` (or throws after `ms`). */
export async function waitFor(
  client: ProcessorClient,
  id: string,
  want: ProcessorStatus["status"][],
  ms = 10_000,
): Promise<ProcessorStatus> {
  const end = Date.now() + ms;
  for (;;) {
    const st = await client.status(id);
    if (st && want.includes(st.status)) return st;
    if (Date.now() > end) throw new Error(`job ${id}: still ${st?.status ?? "404"} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every file under `dir`, recursively. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if ((await stat(p).catch(() => null))?.isFile()) out.push(p); // gone meanwhile: a renamed temporary
  }
  return out;
}

/**
 * Files under `dir` whose bytes contain `needle`. A file that goes away while we look (a record's
 * temporary file renamed into place after the status was answered) is read under its final name.
 */
export async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const f of await filesUnder(dir)) {
    const bytes = await readFile(f).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return null;
      throw e;
    });
    if (bytes?.includes(Buffer.from(needle, "utf8"))) hits.push(f);
  }
  // Files renamed into place while we looked were listed under their temporary names: look again.
  for (const f of await filesUnder(dir))
    if (!hits.includes(f) && (await readFile(f).catch(() => Buffer.alloc(0))).includes(Buffer.from(needle, "utf8")))
      hits.push(f);
  return hits;
}
