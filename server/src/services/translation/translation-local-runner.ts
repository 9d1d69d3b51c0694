/**
 * Jobs with engine "local" (no processor URL): the service runs the local engine itself, one job at
 * a time (docs/rules.md, "Local translation"). The job moves through the same pure machine as
 * external jobs — queued → submitted → running (progress per page) → completed → importing →
 * imported — with the engine standing in for the processor, so every rule (attempt fencing, pause,
 * cancel, import) is shared.
 *
 * Pause, cancel, a retry or a new destination written by the jobs service are seen on the worker's
 * next cycle (≤ 1 s) or at the next page: the engine's signal is aborted, it stops between pages and
 * aborts the provider request in flight; completed pages stay checkpointed under the job's stable
 * key, so a restart or an explicit retry resumes from them. A cancel needs no DELETE: it is
 * acknowledged as soon as the run stopped.
 */
import path from "node:path";
import { stateDirs, type Config } from "../../config.ts";
import { formatJobId, type TranslationEvent } from "../../domain/translation-jobs.ts";
import { localDestinationSupported } from "../../domain/translation-scripts.ts";
import type { TranslationJobRow as TranslationJob } from "../../repositories/translation-repo.ts";
import { createLocalEngine } from "../../translation/local-engine.ts";
import { LocalTranslationError, type LocalEngine } from "../../translation/types.ts";
import type { AppContext } from "../context.ts";
import type { WorkerSettings } from "./translation-worker-settings.ts";

/** What the runner needs from the worker: guarded moves and the import it shares with external jobs. */
export interface LocalRunnerHost {
  apply(row: TranslationJob, event: TranslationEvent, extra?: Partial<TranslationJob>): Promise<TranslationJob | null>;
  get(id: number): Promise<TranslationJob | null>;
  resultPath(row: TranslationJob): string;
  importResult(row: TranslationJob): Promise<void>;
}

/** The checkpoints of a job's target: shared by its attempts, so an explicit retry reuses them. */
export function localCheckpointDir(config: Pick<Config, "libraryRoot" | "dataDir">, jobKey: string): string {
  return path.join(stateDirs(config).staging, "translations", "checkpoints", jobKey);
}

const RUNNING: readonly string[] = ["submitted", "running"];

export function localRunner(
  ctx: AppContext,
  host: LocalRunnerHost,
  makeEngine: () => LocalEngine = () => createLocalEngine({ archiveLimits: ctx.config.archiveLimits, log: ctx.log }),
) {
  let engine: LocalEngine | null = null;
  let current: { rowId: number; attempt: number; epoch: number; abort: AbortController; done: Promise<void> } | null =
    null;

  const jobId = (row: TranslationJob) => formatJobId(row.jobKey, row.attempt);

  async function run(row: TranslationJob, s: WorkerSettings, abort: AbortController): Promise<void> {
    let cur: TranslationJob | null = row;
    if (cur.state === "queued") cur = await host.apply(cur, { type: "submitted", attempt: cur.attempt });
    if (!cur) return;
    // Progress writes are chained so each guarded move starts from the row the previous one wrote.
    let chain: Promise<void> = Promise.resolve();
    const progress = (done: number, total: number) => {
      chain = chain.then(async () => {
        if (!cur || abort.signal.aborted) return;
        const recovered = cur.errorCode !== null || cur.transientFailures > 0;
        if (cur.pagesDone === done && cur.pagesTotal === total && cur.state === "running" && !recovered) return;
        const moved = await host.apply(
          cur,
          { type: "processor_status", status: "running", pagesDone: done, pagesTotal: total, attempt: cur.attempt },
          // A page got through: the provider's earlier temporary refusal is over.
          recovered && done > 0 ? { errorCode: null, errorMessage: null, transientFailures: 0 } : {},
        );
        if (moved) cur = moved;
        else abort.abort(); // the row moved meanwhile (paused, cancelled, retried): stop between pages
      });
    };
    try {
      engine ??= makeEngine();
      // The service letters Latin, Greek and Cyrillic only; the processor's engine may do more.
      if (!localDestinationSupported(cur.targetLanguage))
        throw new LocalTranslationError(
          "target_script_unsupported",
          `Local processing letters Latin, Greek and Cyrillic destinations only; ${cur.targetLanguage} needs an external processor (Settings → Translation → processor URL)`,
        );
      if (!s.ai)
        throw new LocalTranslationError(
          "ai_not_configured",
          "Set the AI provider's base URL, model and key in Settings → Translation",
        );
      await engine.run({
        jobId: jobId(cur),
        source: cur.sourcePath ?? "",
        sourceSha256: cur.sourceSha256 ?? "",
        sourceLanguage: cur.sourceLanguage,
        targetLanguage: cur.targetLanguage,
        ai: s.ai,
        checkpointDir: localCheckpointDir(ctx.config, cur.jobKey),
        output: host.resultPath(cur),
        signal: abort.signal,
        onProgress: progress,
      });
      await chain;
      if (!cur || abort.signal.aborted) return;
      cur = await host.apply(cur, { type: "processor_status", status: "completed", attempt: cur.attempt });
      if (cur) await host.importResult(cur);
    } catch (e) {
      await chain;
      const fresh = await host.get(row.id);
      // Another attempt's, or another claim's (this instance stalled past its own): not this run's to record.
      if (!fresh || fresh.attempt !== row.attempt || fresh.epoch !== row.epoch) return;
      if (e instanceof LocalTranslationError && e.code === "interrupted") return; // the row already says why
      if (e instanceof LocalTranslationError && e.transient) {
        const n = fresh.transientFailures + 1;
        ctx.log(`translation ${jobId(fresh)}: ${e.message} (will retry)`);
        await host.apply(
          fresh,
          {
            type: "connection_failed",
            failures: n,
            attempt: fresh.attempt,
            cause: { code: e.code, message: e.message },
          },
          { transientFailures: n },
        );
        return;
      }
      const code = e instanceof LocalTranslationError ? e.code : "local_engine_failed";
      ctx.log(`translation ${jobId(fresh)}: ${code}: ${(e as Error).message}`);
      await host.apply(fresh, {
        type: "processor_status",
        status: "failed",
        error: { code, message: (e as Error).message },
        attempt: fresh.attempt,
      });
    }
  }

  return {
    /** True while a local job runs in this process. */
    busy: () => current !== null,
    /** True while this row's run is going on in this process. */
    holds: (rowId: number) => current?.rowId === rowId,
    /**
     * Called by the worker's cycle for every local row (in id order). Starts at most one run, aborts
     * the run of a row that left submitted/running, acknowledges cancels, imports a finished result.
     */
    async step(row: TranslationJob, s: WorkerSettings, gateOpen: boolean): Promise<void> {
      if (current?.rowId === row.id) {
        if (current.attempt !== row.attempt || current.epoch !== row.epoch || !RUNNING.includes(row.state) || !gateOpen)
          current.abort.abort();
        return;
      }
      if (row.state === "cancelling") {
        // Nothing was sent anywhere: the cancel is settled once no run of this row is going on.
        await host.apply(
          row,
          { type: "cancel_acknowledged", attempt: row.attempt },
          { transientFailures: 0, nextAttemptAt: null },
        );
        return;
      }
      if (!gateOpen) return;
      if (row.state === "completed" || row.state === "importing") {
        await host.importResult(row);
        return;
      }
      if ((row.state !== "queued" && !RUNNING.includes(row.state)) || current) return;
      const abort = new AbortController();
      const entry = { rowId: row.id, attempt: row.attempt, epoch: row.epoch, abort, done: Promise.resolve() };
      current = entry;
      entry.done = run(row, s, abort)
        .catch((e: unknown) => ctx.log(`translation ${jobId(row)}: ${(e as Error).message}`))
        .finally(() => {
          if (current === entry) current = null;
        });
    },
    /** Aborts the running job (service stop) and releases the OCR workers. */
    async stop(): Promise<void> {
      current?.abort.abort();
      await current?.done;
      await engine?.close();
      engine = null;
    },
    /** Waits for the running job (tests). */
    async settle(): Promise<void> {
      await current?.done;
    },
  };
}

export type LocalRunner = ReturnType<typeof localRunner>;
