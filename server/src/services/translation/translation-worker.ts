/**
 * The translation worker: moves TranslationJob rows (engine "external") through protocol v1.
 * Every move goes through the pure `transition` and is written with a guarded update (id, expected
 * state, expected attempt), so a cancel, a retry or a toggle written meanwhile by the jobs service
 * wins and a late answer of an older attempt moves nothing. One cycle every `pollMs`:
 *
 * - cancelling + cancelPending: DELETE until the processor acknowledges, with back-off, even while
 *   fallback is disabled, and after a restart (the row is the durable record); a DELETE answered
 *   `cancelling` leaves the row cancelling without a pending DELETE, polled (while enabled) until the
 *   processor reports the job ended;
 * - with either toggle off, active rows are paused and nothing is sent; back on, they resume;
 * - queued rows start only while fewer than 2 jobs are outstanding (uploading … importing, cancelling,
 *   and paused ones that had been submitted), then upload the source (it stays in staging) and submit;
 * - submitted/running rows are polled (404 → submit again with the same id); progress is written
 *   and published; completed → the result is fetched into the attempt's staging dir and imported.
 * Connection failures keep the same processor id and wait retryDelayMs(n) (× retryScale).
 * Rows with engine "local" are gated the same way and handed to translation-local-runner.ts (the
 * local engine in this process, one job at a time); both share the import.
 * With several instances, an instance works a row only while it holds the row's claim (lease
 * `translation:<id>`, library/cluster.ts): the claim follows the job until it ends, and a job whose
 * instance died is claimed by the next worker that looks once the lease ran out. Each claim counts
 * the row's `epoch` up, and every write of the worker names its epoch: an instance that only
 * stalled past its claim (and wakes up after another one took the job over) moves nothing, imports
 * nothing (the publication checks the epoch in the journal entry's own transaction), and writes and
 * removes only files of its own claim's folder (`claims/<epoch>` in the attempt's staging dir). A
 * job whose import is being published is not taken over until that publication ended.
 */
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import {
  ENGINE_STEPS,
  engineSwitch,
  formatJobId,
  OUTSTANDING_STATES,
  retryDelayMs,
  transition,
  WORKING_STATES,
  type TranslationEvent,
} from "../../domain/translation-jobs.ts";
import type { TranslationJobRow as TranslationJob } from "../../repositories/translation-repo.ts";
import type { Publication } from "../../library/publication.ts";
import { translationRepo } from "../../repositories/translation-repo.ts";
import type { AppContext } from "../context.ts";
import { isAppError } from "../../errors.ts";
import { ProcessorError, processorClient, type ProcessorClient, type ProcessorStatus } from "./processor-client.ts";
import { importTranslation, ImportRefused } from "./translation-import.ts";
import { translationStagingDir } from "./translation-upload.ts";
import { readWorkerSettings, type WorkerSettings } from "./translation-worker-settings.ts";
import { localCheckpointDir, localRunner } from "./translation-local-runner.ts";
import { isLibraryFolderAway, libraryFolderState, mkdirStaging } from "../../library/library-root.ts";
import { factsOf } from "./translation-service.ts";

export const MAX_OUTSTANDING = 2;
const WORKING: readonly string[] = WORKING_STATES;
const OUTSTANDING: readonly string[] = OUTSTANDING_STATES;
const STEPS: readonly string[] = ENGINE_STEPS;
export const RESULT_FILE = "result.zip";
export const OUTPUT_FILE = "translated.cbz";

export interface WorkerTuning {
  pollMs: number;
  /** Multiplies retryDelayMs (tests shrink the back-off; production keeps 1). */
  retryScale: number;
}

export function translationWorker(ctx: AppContext, deps: { publication: Pick<Publication, "publish"> }) {
  const repo = translationRepo(ctx.db);
  const tuning: WorkerTuning = { pollMs: 1000, retryScale: 1 };
  let readSettings: () => Promise<WorkerSettings> = () => readWorkerSettings(ctx);
  const busy = new Map<number, Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let started = false;
  let ticking: Promise<void> | null = null;

  const jobId = (row: TranslationJob) => formatJobId(row.jobKey, row.attempt);
  const claimKey = (id: number) => `translation:${id}`;
  /** The jobs this instance holds a claim on (library/cluster.ts), with the epoch of each claim. */
  const epochs = new Map<number, number>();
  const local = localRunner(ctx, {
    apply: (row, event, extra) => apply(row, event, extra),
    get: (id) => repo.get(id),
    resultPath: (row) => path.join(workDir(row), RESULT_FILE),
    importResult: (row) => importResult(row),
  });
  const stagingOf = (row: TranslationJob) => translationStagingDir(ctx.config, row.jobKey, row.attempt);
  const claimsDir = (row: TranslationJob) => path.join(stagingOf(row), "claims");
  /**
   * Where the worker writes the result and the output of a job: the attempt's staging dir alone on
   * the database (epoch 0, never counted up), a folder per claim with several instances.
   */
  const workDir = (row: TranslationJob) =>
    row.epoch === 0 ? stagingOf(row) : path.join(claimsDir(row), String(row.epoch));

  function announce(row: TranslationJob): void {
    ctx.events.translations.publish({
      jobId: jobId(row),
      seriesId: row.seriesId,
      state: row.state,
      pagesDone: row.pagesDone,
      pagesTotal: row.pagesTotal,
      errorCode: row.errorCode,
    });
  }

  /** Applies one event with a guarded write; null when refused or when the row moved meanwhile. */
  async function apply(
    row: TranslationJob,
    event: TranslationEvent,
    extra: Partial<TranslationJob> = {},
  ): Promise<TranslationJob | null> {
    const r = transition(factsOf(row), event);
    if ("refused" in r) return null;
    const data: Partial<TranslationJob> = {
      state: r.next.state,
      pausedFrom: r.next.pausedFrom,
      pausedReason: r.next.pausedReason,
      cancelPending: r.next.cancelPending,
      ...extra,
    };
    if (r.error !== undefined)
      Object.assign(data, { errorCode: r.error?.code ?? null, errorMessage: r.error?.message ?? null });
    if (r.progress)
      Object.assign(data, {
        pagesDone: r.progress.pagesDone ?? row.pagesDone,
        pagesTotal: r.progress.pagesTotal ?? row.pagesTotal,
      });
    for (const eff of r.effects) {
      if (eff.type === "retry_later") data.nextAttemptAt = new Date(Date.now() + eff.delayMs * tuning.retryScale);
    }
    if (!(await repo.move(row.id, { state: row.state, attempt: row.attempt, epoch: row.epoch }, data))) return null;
    const next = { ...row, ...data } as TranslationJob;
    for (const eff of r.effects) {
      if (eff.type === "remove_sources") {
        await rm(stagingOf(next), { recursive: true, force: true });
        await rm(localCheckpointDir(ctx.config, next.jobKey), { recursive: true, force: true });
      }
      if (eff.type === "remove_output")
        await Promise.all([RESULT_FILE, OUTPUT_FILE].map((f) => rm(path.join(workDir(next), f), { force: true })));
    }
    if (data.state !== row.state || data.pagesDone !== row.pagesDone || data.errorCode !== row.errorCode)
      announce(next);
    if (next.state !== row.state) ctx.events.publish("series_changed", row.seriesId);
    return next;
  }

  /** A connection failure (same id, back-off), or a refusal that no event of the machine covers. */
  async function failed(row: TranslationJob, e: unknown): Promise<void> {
    // Retried like a lost connection: a refused DELETE too (e.g. a wrong token; the cancellation is
    // durable), and the library folder gone (an unmounted disk), which is no refusal of the processor.
    if ((e instanceof ProcessorError && e.transient) || row.state === "cancelling" || isLibraryFolderAway(e)) {
      const n = row.transientFailures + 1;
      await apply(row, { type: "connection_failed", failures: n, attempt: row.attempt }, { transientFailures: n });
      return;
    }
    const code = e instanceof ProcessorError ? (e.processorCode ?? e.code) : "processor_refused";
    const message = (e as Error).message;
    ctx.log(`translation ${jobId(row)}: ${message}`);
    // A permanent refusal of upload or submit: the machine has no processor event for these states,
    // so the row fails directly, still guarded by state and attempt.
    if (
      await repo.move(
        row.id,
        { state: row.state, attempt: row.attempt, epoch: row.epoch },
        { state: "failed", errorCode: code, errorMessage: message, nextAttemptAt: null },
      )
    ) {
      announce({ ...row, state: "failed", errorCode: code });
      ctx.events.publish("series_changed", row.seriesId);
    }
  }

  const okAgain = (row: TranslationJob) =>
    row.transientFailures > 0 || row.nextAttemptAt ? { transientFailures: 0, nextAttemptAt: null } : {};

  async function submit(
    client: ProcessorClient,
    row: TranslationJob,
    s: WorkerSettings,
  ): Promise<TranslationJob | null> {
    if (!s.ai)
      throw new ProcessorError(
        false,
        "the AI provider (base URL, model, key) is not configured",
        null,
        "ai_not_configured",
      );
    const body = {
      source_sha256: row.sourceSha256 ?? "",
      source_language: row.sourceLanguage,
      target_language: row.targetLanguage,
      ai: { base_url: s.ai.baseUrl, model: s.ai.model, api_key: s.ai.apiKey },
    };
    let status: ProcessorStatus;
    try {
      status = await client.submit(jobId(row), body);
    } catch (e) {
      // The processor lost the source (or never got it): upload again under the same id, then submit.
      if (!(e instanceof ProcessorError && e.processorCode === "source_missing")) throw e;
      await client.uploadSource(jobId(row), row.sourcePath ?? "");
      status = await client.submit(jobId(row), body);
    }
    const moved =
      row.state === "uploading" ? await apply(row, { type: "submitted", attempt: row.attempt }, okAgain(row)) : row;
    return moved ? onStatus(moved, status) : null;
  }

  async function onStatus(row: TranslationJob, st: ProcessorStatus): Promise<TranslationJob | null> {
    const ev: TranslationEvent = {
      type: "processor_status",
      status: st.status,
      pagesDone: st.progress?.pagesDone ?? null,
      pagesTotal: st.progress?.pagesTotal ?? null,
      error: st.error,
      attempt: row.attempt,
    };
    const r = transition(factsOf(row), ev);
    if ("refused" in r) return row;
    return apply(row, ev, okAgain(row));
  }

  async function step(row: TranslationJob, s: WorkerSettings): Promise<void> {
    if (!s.processor) return;
    const client = processorClient(s.processor);
    const id = jobId(row);
    try {
      if (row.state === "cancelling" && row.cancelPending) {
        const answer = await client.cancel(id);
        await apply(
          row,
          { type: answer === "cancelling" ? "cancel_accepted" : "cancel_acknowledged", attempt: row.attempt },
          { transientFailures: 0, nextAttemptAt: null },
        );
        return;
      }
      if (row.state === "cancelling") {
        // The processor accepted the cancel and is stopping the job: it is outstanding until it ended there.
        const st = await client.status(id);
        if (st) await onStatus(row, st);
        else await apply(row, { type: "cancel_acknowledged", attempt: row.attempt }, okAgain(row));
        return;
      }
      let cur: TranslationJob | null = row;
      if (cur.state === "queued") cur = await apply(cur, { type: "upload_started" });
      if (cur?.state === "uploading") {
        // After a restart the processor may already hold the job: then only its status is needed.
        const known = await client.status(id);
        if (known) cur = await apply(cur, { type: "submitted", attempt: cur.attempt });
        else {
          await client.uploadSource(id, cur.sourcePath ?? "");
          cur = await submit(client, cur, s);
        }
      } else if (cur && (cur.state === "submitted" || cur.state === "running")) {
        const st = await client.status(id);
        cur = st ? await onStatus(cur, st) : await submit(client, cur, s);
      }
      if (cur && (cur.state === "completed" || cur.state === "importing")) await fetchAndImport(client, cur);
    } catch (e) {
      const fresh = await repo.get(row.id);
      // Another claim's (this instance stalled past its own): its failures are not this one's to record.
      if (fresh && fresh.attempt === row.attempt && fresh.epoch === row.epoch) await failed(fresh, e);
    }
  }

  async function fetchAndImport(client: ProcessorClient, row: TranslationJob): Promise<void> {
    const result = path.join(workDir(row), RESULT_FILE);
    await mkdirStaging(path.dirname(result));
    await rm(result, { force: true });
    await client.result(jobId(row), result);
    await importResult(row);
  }

  /** Publishes the result ZIP in the claim's folder (fetched from the processor or written by the local engine). */
  async function importResult(row: TranslationJob): Promise<void> {
    const dir = workDir(row);
    const result = path.join(dir, RESULT_FILE);
    let cur: TranslationJob | null = row;
    if (cur.state === "completed")
      cur = await apply(cur, { type: "result_fetched", attempt: cur.attempt }, okAgain(cur));
    // Cancelled, paused or retried meanwhile: nothing is published (the cached result waits).
    if (!cur || cur.state !== "importing") return;
    try {
      const fileId = await importTranslation(ctx, deps.publication, cur, {
        result,
        output: path.join(dir, OUTPUT_FILE),
        isCurrent: async () => {
          const now = await repo.get(row.id);
          return now?.state === "importing" && now.epoch === row.epoch;
        },
      });
      await apply(cur, { type: "import_succeeded", fileId, attempt: cur.attempt }, { fileId });
    } catch (e) {
      if (isAppError(e) && (e.code === "attempt_superseded" || e.code === "journal_entry_taken_over")) {
        // Another instance took the job (or this import's journal entry) over while this one stalled.
        ctx.log(`translation ${jobId(cur)}: claim ${cur.epoch} was taken over while importing (${e.code}); stopped`);
        return;
      }
      if (!(e instanceof ImportRefused)) throw e;
      ctx.log(`translation ${jobId(cur)}: import refused: ${e.code}`);
      await apply(cur, { type: "import_failed", code: e.code, message: e.message, attempt: cur.attempt });
    }
  }

  /** Pauses (either toggle off) or resumes (both on) a row; true when the row may work now. */
  async function gate(row: TranslationJob, on: boolean): Promise<boolean> {
    if (!on) {
      if (STEPS.includes(row.state) || row.state === "queued") await apply(row, { type: "toggle_off" });
      return false;
    }
    if (row.state === "paused") {
      if (row.pausedReason === "toggle_off") await apply(row, { type: "toggle_on" });
      return false; // resumes on the next cycle
    }
    return true;
  }

  /**
   * The row under this instance's claim, or null while another instance works it. A new claim is a
   * new epoch (from then on the writes of an earlier claim's instance are refused) and removes the
   * folders of earlier claims; a claim whose epoch another instance counted up meanwhile (this one
   * stalled past its lease) is given up.
   */
  async function claimRow(row: TranslationJob): Promise<TranslationJob | null> {
    const key = claimKey(row.id);
    const mine = epochs.get(row.id);
    if (mine !== undefined && mine !== row.epoch) {
      ctx.log(`translation ${jobId(row)}: claim ${mine} was taken over (now claim ${row.epoch}); given up`);
      epochs.delete(row.id);
      await ctx.cluster.release([key]);
      return null;
    }
    if (!(await ctx.cluster.claim(key))) return null;
    if (mine !== undefined || ctx.cluster.exclusive) {
      epochs.set(row.id, row.epoch);
      return row;
    }
    const epoch = await repo.takeOver(row.id, row.epoch);
    if (epoch === null) {
      // Counted up by another instance just now, or its import is being published: looked at again next cycle.
      await ctx.cluster.release([key]);
      return null;
    }
    epochs.set(row.id, epoch);
    const claimed = { ...row, epoch };
    for (const name of await readdir(claimsDir(claimed)).catch(() => [] as string[]))
      if (Number(name) < epoch) await rm(path.join(claimsDir(claimed), name), { recursive: true, force: true });
    return claimed;
  }

  const selectedEngine = (s: WorkerSettings) => (s.processor ? "external" : "local");
  const switchOf = (row: TranslationJob, s: WorkerSettings) =>
    engineSwitch(factsOf(row), row.engine === "local" ? "local" : "external", selectedEngine(s));

  /**
   * A job never submitted anywhere follows the settings' engine (a processor URL set or cleared
   * since it was queued); null when the row moved meanwhile (looked at again next cycle).
   */
  async function followEngine(row: TranslationJob, s: WorkerSettings): Promise<TranslationJob | null> {
    const next = switchOf(row, s);
    if (!next || local.holds(row.id)) return row;
    const data = { ...next, transientFailures: 0, nextAttemptAt: null };
    if (!(await repo.move(row.id, { state: row.state, attempt: row.attempt, epoch: row.epoch }, data))) return null;
    ctx.log(
      `translation ${jobId(row)}: ${next.engine === "local" ? "local processing" : "the processor"} takes the job`,
    );
    return { ...row, ...data };
  }

  /** One cycle; false when there is nothing to work on (the worker then sleeps until kicked). */
  async function tick(): Promise<boolean> {
    const rows = await translationRepo(ctx.db).working(["external", "local"], WORKING);
    // Claims on rows that left the working states (finished here or elsewhere) are given up.
    const working = new Set(rows.map((r) => r.id));
    const finished = [...epochs.keys()].filter((id) => !working.has(id));
    for (const id of finished) epochs.delete(id);
    await ctx.cluster.release(finished.map(claimKey));
    if (rows.length === 0) return false;
    // Sources and results are staged in the library folder: while it is missing (or an empty mount
    // point), the jobs wait.
    if ((await libraryFolderState(ctx)) !== "present") return true;
    const s = await readSettings();
    const now = Date.now();
    let outstanding = rows
      .filter((r) => r.engine === "external")
      .filter(
        (r) =>
          OUTSTANDING.includes(r.state) ||
          (r.state === "paused" && ["submitted", "running", "completed", "importing"].includes(r.pausedFrom ?? "")),
      ).length;
    for (const { series, ...read } of rows) {
      if (!started) return true;
      // A job waiting to retry its upload may meanwhile have been handed to the other engine.
      const waiting = read.nextAttemptAt && read.nextAttemptAt.getTime() > now && !switchOf(read, s);
      if (busy.has(read.id) || waiting) continue;
      // With several instances a job is worked by the one that claimed it, until it ends or that instance dies.
      const claimed = await claimRow(read);
      if (!claimed) continue;
      const row = await followEngine(claimed, s);
      if (!row) continue;
      if (row.engine === "local") {
        const open = row.state === "cancelling" || (await gate(row, s.enabled && series.translationFallbackEnabled));
        const fresh = await repo.get(row.id);
        if (fresh && fresh.epoch === row.epoch) await local.step(fresh, s, open);
        continue;
      }
      const cancel = row.state === "cancelling" && row.cancelPending;
      if (!cancel && !(await gate(row, s.enabled && series.translationFallbackEnabled))) continue;
      if (row.state === "queued") {
        if (outstanding >= MAX_OUTSTANDING || !s.processor) continue;
        outstanding += 1;
      }
      if (!cancel && !STEPS.includes(row.state) && row.state !== "queued" && row.state !== "cancelling") continue;
      const p = step(row, s)
        .catch((e: unknown) => ctx.log(`translation ${jobId(row)}: ${(e as Error).message}`))
        .finally(() => busy.delete(row.id));
      busy.set(row.id, p);
    }
    return true;
  }

  // Idle (no job to work on), the worker does not poll the database: it sleeps until the jobs
  // service kicks it (a job created, retried, cancelled or resumed) or the service starts again.
  let idle = false;
  // A kick that came while a cycle was reading: that cycle may have read before the change it
  // announces (another connection's commit), so it does not leave the worker asleep.
  let kickedDuringCycle = false;

  function cycle(): void {
    kickedDuringCycle = false;
    ticking = tick()
      .then((work) => {
        idle = !work && busy.size === 0 && !kickedDuringCycle;
      })
      .catch((e: unknown) => ctx.log(`translations: ${(e as Error).message}`))
      .finally(() => {
        ticking = null;
        if (!idle) schedule();
      });
  }

  function schedule(): void {
    if (!started) return;
    timer = setTimeout(cycle, tuning.pollMs);
    timer.unref();
  }

  return {
    /** Starts the cycle (rows left by a previous process simply continue: each step is idempotent with the same id). */
    start(): void {
      if (started) return;
      started = true;
      idle = false;
      cycle();
    },
    /** Wakes a sleeping worker (a no-op while it cycles anyway). */
    kick(): void {
      if (!started) return;
      if (ticking) kickedDuringCycle = true;
      if (!idle) return;
      idle = false;
      if (timer) clearTimeout(timer);
      timer = null;
      if (!ticking) cycle();
    },
    async stop(): Promise<void> {
      started = false;
      if (timer) clearTimeout(timer);
      timer = null;
      await ticking;
      await Promise.all([...busy.values()]);
      await local.stop();
      await ctx.cluster.release([...epochs.keys()].map(claimKey));
      epochs.clear();
    },
    /** Runs one cycle now (tests, and after the jobs service queued or cancelled a row). */
    async runOnce(): Promise<void> {
      const was = started;
      started = true;
      try {
        await tick();
      } finally {
        started = was;
      }
      await Promise.all([...busy.values()]);
    },
    tune(next: Partial<WorkerTuning>): void {
      Object.assign(tuning, next);
    },
    useSettings(fn: () => Promise<WorkerSettings>): void {
      readSettings = fn;
    },
    retryDelayMs: (failures: number) => retryDelayMs(failures) * tuning.retryScale,
  };
}

export type TranslationWorker = ReturnType<typeof translationWorker>;
