/**
 * The external engine: manga-image-translator run by `--engine-python` through the adapter script
 * shipped here (adapter/mit_adapter.py). The job JSON — with the AI endpoint, model and key — goes
 * to the adapter's stdin only (never argv or env); the adapter answers NDJSON events on fd 3;
 * stdout/stderr are logs (the key redacted). Pages done earlier (checkpoints) are skipped. The
 * processor, not the engine, decides: each page's regions go through the worker validation
 * (checkRegion, then the page's and the book's pooled language via bookVerdict) and page geometry
 * is compared before the result ZIP and receipt are written. Pages the book's pool condemns lose
 * their checkpoints, so an explicit retry asks the engine again for them.
 */
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import sharp from "sharp";
import { bookVerdict, type CheckedPage } from "../domain/local-translation.ts";
import type { LanguageIdentifier } from "../domain/translation-language.ts";
import { checkPages, checkRegion } from "../domain/translation-validation.ts";
import { openArchive, sharpInputOptions } from "../library/archive-reader.ts";
import { writeResultZip } from "../translation/atomic-files.ts";
import { openCheckpoints, type PageRecord } from "../translation/checkpoints.ts";
import { loadLanguageIdentifier } from "../translation/language-id.ts";
import { redact } from "./jobs.ts";
import { EngineError, type EngineJob, type ProcessorEngine, type ProgressFn } from "./types.ts";

export const ADAPTER_SCRIPT = path.join(import.meta.dirname, "adapter", "mit_adapter.py");
const ADAPTER_VERSION = "mit-adapter v1";
const KILL_GRACE_MS = 5000;

export interface ExternalEngineOptions {
  python: string;
  root: string;
  /** Content of the --config file (engine configuration JSON), or null. */
  configText: string | null;
  cpu: boolean;
  adapterScript?: string;
  log?: (line: string) => void;
  /** The language identifier of the checks (default: the built-in one, loaded on first use). */
  identifier?: () => Promise<LanguageIdentifier>;
}

/** What the engine reports per region (its own OCR text and translation), checkpointed as is. */
type EngineRegion = { source: string; translation: string };

type AdapterEvent =
  | { event: "progress"; index: number; pages_total?: number }
  | { event: "page_done"; index: number; output: string; regions: { source?: unknown; translation?: unknown }[] }
  | { event: "error"; code?: unknown; message?: unknown }
  | { event: "done" };

const extOf = (name: string) =>
  path
    .extname(name)
    .toLowerCase()
    .match(/^\.[a-z0-9]{1,5}$/)?.[0] ?? ".png";

/** The environment the engine inherits: the processor's own, minus anything that could carry the processor token. */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.TRANSLATION_PROCESSOR_TOKEN;
  return env;
}

async function geometry(data: Buffer, name: string) {
  const m = await sharp(data, sharpInputOptions()).metadata();
  return { name, width: m.width ?? 0, height: m.height ?? 0 };
}

export function createExternalEngine(o: ExternalEngineOptions): ProcessorEngine {
  const log = o.log ?? (() => undefined);
  let config: unknown = {};
  if (o.configText !== null) {
    try {
      config = JSON.parse(o.configText);
    } catch {
      throw new Error("--config must hold a JSON object (the engine configuration)");
    }
  }
  const fingerprint = createHash("sha256")
    .update(JSON.stringify([ADAPTER_VERSION, o.configText ?? "", o.cpu]))
    .digest("hex");

  /** Runs the adapter over the pages still missing; resolves when it reported done. */
  function runAdapter(
    job: EngineJob,
    jobJson: string,
    signal: AbortSignal,
    onEvent: (e: AdapterEvent) => Promise<void>,
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(o.python, [o.adapterScript ?? ADAPTER_SCRIPT], {
        cwd: o.root,
        env: childEnv(),
        stdio: ["pipe", "pipe", "pipe", "pipe"],
      });
      let failure: EngineError | null = null;
      let done = false;
      let chain = Promise.resolve();
      const logStream = (s: Readable | null, what: string) => {
        if (s)
          createInterface({ input: s }).on("line", (l) =>
            log(`engine ${job.id} ${what}: ${redact(l, job.ai.apiKey).slice(0, 500)}`),
          );
      };
      logStream(child.stdout, "out");
      logStream(child.stderr, "err");
      const events = createInterface({ input: child.stdio[3] as Readable });
      events.on("line", (line) => {
        let e: AdapterEvent;
        try {
          e = JSON.parse(line) as AdapterEvent;
        } catch {
          failure ??= new EngineError("engine_protocol", "the adapter wrote a malformed event");
          return;
        }
        if (e.event === "done") done = true;
        else if (e.event === "error") {
          const code = typeof e.code === "string" && /^[a-z_]{1,40}$/.test(e.code) ? e.code : "engine_failed";
          failure ??= new EngineError(
            code,
            redact(String(e.message ?? "the engine failed"), job.ai.apiKey).slice(0, 1000),
          );
        } else
          chain = chain
            .then(() => onEvent(e))
            .catch(
              (x: unknown) =>
                void (failure ??=
                  x instanceof EngineError ? x : new EngineError("engine_protocol", (x as Error).message)),
            );
      });
      let killTimer: NodeJS.Timeout | null = null;
      const abort = () => {
        child.kill("SIGTERM");
        killTimer = setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS);
      };
      signal.addEventListener("abort", abort, { once: true });
      child.on(
        "error",
        (e) =>
          (failure ??= new EngineError(
            "engine_unavailable",
            `cannot start ${path.basename(o.python)}: ${(e as NodeJS.ErrnoException).code ?? e.message}`,
          )),
      );
      child.on("close", (code) => {
        signal.removeEventListener("abort", abort);
        if (killTimer) clearTimeout(killTimer);
        void chain.then(() => {
          if (signal.aborted) return reject(new Error("interrupted"));
          if (failure) return reject(failure);
          if (!done || code !== 0)
            return reject(
              new EngineError("engine_failed", `the engine stopped (exit code ${code ?? "signal"}) before it finished`),
            );
          resolve();
        });
      });
      // The credential travels here and nowhere else.
      child.stdin?.on("error", () => undefined);
      child.stdin?.end(jobJson);
    });
  }

  return {
    fingerprint,
    async run(job: EngineJob, signal: AbortSignal, onProgress: ProgressFn): Promise<string> {
      const checkpoints = await openCheckpoints<EngineRegion>(job.checkpointDir, { hash: job.identity });
      const work = path.join(job.checkpointDir, `.work-${randomBytes(6).toString("hex")}`);
      const archive = await openArchive(job.source);
      try {
        const total = archive.pages.length;
        const done = new Map<number, PageRecord<EngineRegion>>();
        const sourceGeometry = [];
        const pages: { index: number; name: string; input: string; output: string }[] = [];
        await mkdir(path.join(work, "in"), { recursive: true });
        await mkdir(path.join(work, "out"), { recursive: true });
        for (let i = 0; i < total; i++) {
          const name = archive.pages[i]!.name;
          const data = await archive.readPage(i);
          sourceGeometry.push(await geometry(data, name));
          const cp = await checkpoints.read(i, name);
          if (cp) {
            done.set(i, cp.record);
            continue;
          }
          const file = `p${String(i).padStart(5, "0")}${extOf(name)}`;
          await writeFile(path.join(work, "in", file), data);
          pages.push({ index: i, name, input: path.join(work, "in", file), output: path.join(work, "out", file) });
        }
        onProgress(done.size, total);
        if (signal.aborted) throw new Error("interrupted");
        if (pages.length > 0) {
          const jobJson = JSON.stringify({
            protocol: 1,
            engine_root: o.root,
            source_language: job.sourceLanguage,
            target_language: job.targetLanguage,
            ai: { base_url: job.ai.baseUrl, model: job.ai.model, api_key: job.ai.apiKey },
            cpu: o.cpu,
            config,
            pages: pages.map((p) => ({ index: p.index, input: p.input, output: p.output })),
          });
          await runAdapter(job, jobJson, signal, async (e) => {
            if (e.event === "progress") return;
            if (e.event !== "page_done") return;
            const page = pages.find((p) => p.index === e.index);
            if (!page || path.resolve(String(e.output)) !== page.output)
              throw new EngineError("engine_protocol", `the adapter reported an unknown page ${String(e.index)}`);
            const regions = (Array.isArray(e.regions) ? e.regions : []).map((r) => ({
              source: String(r.source ?? ""),
              translation: String(r.translation ?? ""),
            }));
            done.set(
              page.index,
              await checkpoints.write(
                { index: page.index, name: page.name, model: null, regions },
                await readFile(page.output),
              ),
            );
            onProgress(done.size, total);
          });
        }
        if (done.size !== total)
          throw new EngineError("engine_failed", `the engine finished ${done.size} of ${total} pages`);
        const ordered = [...Array(total).keys()].map((i) => done.get(i)!);
        const outputs = await Promise.all(
          ordered.map(async (c) => ({ c, data: await readFile(checkpoints.imagePath(c)) })),
        );
        const geometryCheck = checkPages(
          sourceGeometry,
          await Promise.all(outputs.map(({ c, data }) => geometry(data, c.name))),
        );
        if (!geometryCheck.ok)
          throw new EngineError("validation_failed", `${geometryCheck.code}: ${geometryCheck.detail}`);
        const identifier = await (o.identifier ?? loadLanguageIdentifier)();
        const checked: CheckedPage[] = ordered.map((c) => ({
          name: c.name,
          sources: c.regions.map((r) => r.source),
          translations: c.regions.map((r) => r.translation),
          results: c.regions.map((r) =>
            checkRegion(
              {
                source: r.source,
                translation: r.translation,
                sourceLanguage: job.sourceLanguage,
                targetLanguage: job.targetLanguage,
              },
              identifier,
            ),
          ),
        }));
        const verdict = bookVerdict({
          sourceSha256: job.sourceSha256,
          sourceLanguage: job.sourceLanguage,
          targetLanguage: job.targetLanguage,
          identifier,
          model: job.ai.model,
          pages: checked,
        });
        if (!verdict.ok) {
          for (const i of verdict.retryPages) await checkpoints.remove(i);
          throw new EngineError(verdict.code, verdict.message);
        }
        await writeResultZip(
          job.output,
          outputs.map(({ c, data }) => ({ name: c.name, data })),
          verdict.receipt,
        );
        return job.output;
      } finally {
        await archive.close();
        await rm(work, { recursive: true, force: true });
      }
    },
  };
}
