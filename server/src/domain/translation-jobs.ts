/**
 * The life of one translation job attempt as a pure state machine (docs/rules.md, "Translation jobs"):
 * `transition(job, event) → { next, effects }`, or `{ refused: code }` when the event does not apply.
 * The runner persists `next` with a guarded update (WHERE state = <expected> AND attempt = <expected>)
 * and then performs the effects; a refused event changes nothing.
 *
 *   queued ─upload_started→ uploading ─submitted→ submitted ─status running→ running ─status completed→
 *   completed ─result_fetched→ importing (publish) ─import_succeeded→ imported (remove sources/output)
 *   (local engine: queued ─submitted→ submitted directly)
 *   any active ─connection_failed→ same state, retry_later (same processor id); the 8th → failed (an AI provider's refusal on the local path: with its error)
 *   submitted | running ─status failed→ failed;  importing ─import_failed→ failed (output kept outside the library)
 *   failed | cancelled ─retry→ queued, attempt + 1 (new_attempt)
 *   active | paused ─cancel→ cancelling (send_delete, durable) ─cancel_acknowledged→ cancelled
 *     (the processor answers the DELETE with its job still stopping: ─cancel_accepted→ cancelling without
 *     a pending DELETE, until it reports the job cancelled — or failed or completed — in its status; the job
 *     stays outstanding meanwhile)
 *     (queued was never sent to anyone: straight to cancelled)
 *   active | paused ─destination_changed (old language)→ like cancel
 *   active ─toggle_off→ paused (toggle_off);  active | paused(toggle_off) ─native_release→ paused (native_release)
 *   paused(toggle_off) ─toggle_on→ pausedFrom (resume)
 *   paused(native_release) ─native_cleared (both toggles on)→ pausedFrom (resume)
 *   paused(native_release) ─native_cleared (a toggle off)→ paused (toggle_off): the toggle now holds it
 *   (which job meets which native event: domain/translation-native.ts)
 *   cancelled ─submit_again→ refused translation_cancelled (a retry uses the next number)
 *
 * Events that come from the processor or the import (uploaded, submitted, processor_status,
 * connection_failed, result_fetched, import_*, cancel_acknowledged) may carry the `attempt` they
 * belong to: an answer for another attempt is refused (translation_stale_attempt), so a late answer
 * of an old or cancelled attempt never moves or publishes the new one. `publish` is emitted only by
 * result_fetched in `completed` (and by resuming a paused import), never from cancelling/cancelled.
 */
import { parseLabel } from "./labels.ts";
import { sha256Hex } from "./translation-sha256.ts";

export const TRANSLATION_STATES = [
  "queued",
  "uploading",
  "submitted",
  "running",
  "completed",
  "importing",
  "imported",
  "failed",
  "cancelling",
  "cancelled",
  "paused",
] as const;
export type TranslationState = (typeof TRANSLATION_STATES)[number];

/** States in which the job still works towards an import (an "active" job: cancel and the toggles act on it). */
export const ACTIVE_STATES: readonly TranslationState[] = [
  "queued",
  "uploading",
  "submitted",
  "running",
  "completed",
  "importing",
];
/** States a job never leaves by itself (failed and cancelled leave only by an explicit retry). */
export const TERMINAL_STATES: readonly TranslationState[] = ["imported", "failed", "cancelled"];
/** States a worker follows: every one but the terminal ones. */
export const WORKING_STATES: readonly TranslationState[] = TRANSLATION_STATES.filter(
  (s) => !TERMINAL_STATES.includes(s),
);
/** A job sent on its way (an engine holds it): active and no longer queued. */
export const ENGINE_STEPS: readonly TranslationState[] = ACTIVE_STATES.filter((s) => s !== "queued");
/** Outstanding at the processor: sent and not yet ended there (a cancelled job until it stopped). */
export const OUTSTANDING_STATES: readonly TranslationState[] = [...ENGINE_STEPS, "cancelling"];

export function isActive(state: TranslationState): boolean {
  return ACTIVE_STATES.includes(state);
}

export type ProcessorStatus = "queued" | "running" | "completed" | "failed" | "cancelling" | "cancelled";
export interface JobError {
  code: string;
  message: string;
}

/** `attempt`, when given, is the attempt the answer belongs to (see the header). */
type Fenced = { attempt?: number };
export type TranslationEvent =
  | { type: "upload_started" }
  | ({ type: "uploaded"; sha256: string } & Fenced)
  | ({ type: "submitted" } & Fenced)
  | ({
      type: "processor_status";
      status: ProcessorStatus;
      pagesDone?: number | null;
      pagesTotal?: number | null;
      error?: JobError | null;
    } & Fenced)
  /**
   * A temporary failure: the processor unreachable, or (`cause`) the AI provider's temporary refusal
   * on the local path, which the job shows while it waits and fails with after MAX_PROVIDER_FAILURES.
   */
  | ({ type: "connection_failed"; failures: number; cause?: JobError } & Fenced)
  | ({ type: "result_fetched" } & Fenced)
  | ({ type: "import_succeeded"; fileId: number } & Fenced)
  | ({ type: "import_failed"; code: string; message: string } & Fenced)
  | { type: "retry" }
  | { type: "cancel" }
  | ({ type: "cancel_acknowledged" } & Fenced)
  | ({ type: "cancel_accepted" } & Fenced)
  | { type: "destination_changed"; newLanguage: string }
  | { type: "toggle_off" }
  | { type: "toggle_on" }
  | { type: "native_release" }
  /** The slot has no obtainable native release any more and no sound native file holds it. */
  | { type: "native_cleared"; enabled: boolean }
  | { type: "submit_again" };

export type PausedReason = "toggle_off" | "native_release";
export interface JobFacts {
  state: TranslationState;
  attempt: number;
  targetLanguage: string;
  pausedFrom: TranslationState | null;
  pausedReason: PausedReason | null;
  cancelPending: boolean;
}

export type Effect =
  /** Try the same step again later with the same processor id. */
  | { type: "retry_later"; delayMs: number }
  /** DELETE /jobs/{id}; durable: keep cancelPending until the processor acknowledges (also while disabled). */
  | { type: "send_delete" }
  /** A new row/attempt with its own staging directory; the old attempt's answers are ignored. */
  | { type: "new_attempt"; attempt: number }
  /** Validate the fetched result and publish it through the publication module. */
  | { type: "publish" }
  /** After a successful import: checkpoints and the source archive leave staging. */
  | { type: "remove_sources" }
  /** The attempt's (incomplete or cancelled) output leaves staging. */
  | { type: "remove_output" }
  | { type: "stop_polling" }
  /** Continue the work of the state the job is now in (after a pause). */
  | { type: "resume" };

export interface Moved {
  next: JobFacts;
  effects: Effect[];
  /** The error to record with the row (processor failure, import failure, unreachable processor). */
  error?: JobError | null;
  /** Progress to record (processor_status). */
  progress?: { pagesDone: number | null; pagesTotal: number | null };
}
export type TransitionResult = Moved | { refused: string };

export type TranslationEngineKind = "external" | "local";

/** States of a job no engine has taken yet: queued, or its source being uploaded (never submitted). */
const NOT_SUBMITTED: readonly TranslationState[] = ["queued", "uploading"];

/**
 * A job that was never submitted anywhere (queued, uploading its source, or paused in one of those)
 * follows the settings: a non-empty processor URL selects the processor, clearing it returns to local
 * processing. It starts over queued with the selected engine. A job already submitted keeps its
 * engine (the processor holds its id; the local path holds its run and checkpoints). Null: no change.
 */
export function engineSwitch(
  job: Pick<JobFacts, "state" | "pausedFrom">,
  current: TranslationEngineKind,
  selected: TranslationEngineKind,
): { engine: TranslationEngineKind; state: TranslationState; pausedFrom: TranslationState | null } | null {
  if (current === selected) return null;
  if (NOT_SUBMITTED.includes(job.state)) return { engine: selected, state: "queued", pausedFrom: null };
  if (job.state === "paused" && job.pausedFrom !== null && NOT_SUBMITTED.includes(job.pausedFrom))
    return { engine: selected, state: "paused", pausedFrom: "queued" };
  return null;
}

export const RETRY_BASE_MS = 5_000;
export const RETRY_CAP_MS = 300_000;
/** The 8th consecutive connection failure of an attempt fails it (processor_unreachable); a pending DELETE never gives up. */
export const MAX_TRANSIENT_FAILURES = 8;
/**
 * The AI provider's temporary refusals (429, 5xx, a timeout) are retried as long as a processor's
 * connection failures (a rate limit or a short outage passes by itself, and a failed job waits for
 * the operator); the job shows the provider's error while it waits, and fails with it at the last.
 */
export const MAX_PROVIDER_FAILURES = MAX_TRANSIENT_FAILURES;

/** Delay after the n-th consecutive connection failure (n ≥ 1): 5 s, 10 s, 20 s … capped at 5 min. */
export function retryDelayMs(failures: number): number {
  const n = Math.min(Math.max(0, Math.floor(failures) - 1), 20);
  return Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** n);
}

const refuse = (code: string): TransitionResult => ({ refused: code });
const move = (job: JobFacts, patch: Partial<JobFacts>, effects: Effect[] = [], extra: Partial<Moved> = {}): Moved => ({
  next: { ...job, ...patch },
  effects,
  ...extra,
});

/** Base language code: "en-US" → "en", "pt_BR" → "pt". */
export function baseLanguage(code: string): string {
  return code.trim().toLowerCase().split(/[-_]/)[0] ?? "";
}

function cancelMove(job: JobFacts): Moved {
  const from = job.state === "paused" ? job.pausedFrom : job.state;
  // A queued attempt was never sent to the processor: nothing to cancel there.
  if (from === "queued")
    return move(job, { state: "cancelled", pausedFrom: null, pausedReason: null, cancelPending: false }, [
      { type: "remove_output" },
    ]);
  return move(job, { state: "cancelling", pausedFrom: null, pausedReason: null, cancelPending: true }, [
    { type: "stop_polling" },
    { type: "send_delete" },
  ]);
}

/** The state a processor status moves a submitted/running job to (null: no move). */
function statusState(status: ProcessorStatus): TranslationState | null {
  if (status === "queued") return "submitted";
  if (status === "running") return "running";
  if (status === "completed") return "completed";
  return null;
}

function onProcessorStatus(
  job: JobFacts,
  e: Extract<TranslationEvent, { type: "processor_status" }>,
): TransitionResult {
  const progress = { pagesDone: e.pagesDone ?? null, pagesTotal: e.pagesTotal ?? null };
  if (job.state === "cancelling") {
    // Only the processor's own "cancelled" settles a pending cancel; anything else is ignored (never published).
    // Once the DELETE was accepted, any end of the processor's job settles it (a result is never fetched).
    const settles =
      e.status === "cancelled" || (!job.cancelPending && (e.status === "failed" || e.status === "completed"));
    return settles
      ? move(job, { state: "cancelled", cancelPending: false }, [{ type: "stop_polling" }, { type: "remove_output" }])
      : refuse("translation_cancelling");
  }
  const polled = job.state === "paused" ? job.pausedFrom : job.state;
  if (polled !== "submitted" && polled !== "running" && polled !== "completed")
    return refuse("translation_invalid_move");
  if (e.status === "failed") {
    const error = e.error ?? { code: "processor_failed", message: "The processor reported the job as failed" };
    return move(job, { state: "failed", pausedFrom: null, pausedReason: null }, [{ type: "stop_polling" }], {
      error,
      progress,
    });
  }
  if (e.status === "cancelled" || e.status === "cancelling") {
    // Cancelled on the processor's side (e.g. by its operator): no publication, nothing left to send.
    return move(
      job,
      { state: "cancelled", pausedFrom: null, pausedReason: null, cancelPending: false },
      [{ type: "stop_polling" }, { type: "remove_output" }],
      { progress },
    );
  }
  let target = statusState(e.status)!;
  // A completed job stays completed even when a stale "running" answer arrives late.
  if (polled === "completed") target = "completed";
  else if (polled === "running" && target === "submitted") target = "running";
  // A paused job records where it would be; the cached result waits for re-enablement.
  if (job.state === "paused") return move(job, { pausedFrom: target }, [], { progress });
  return move(job, { state: target }, [], { progress });
}

function onConnectionFailed(job: JobFacts, failures: number, cause?: JobError): TransitionResult {
  if (job.state === "cancelling") return move(job, {}, [{ type: "retry_later", delayMs: retryDelayMs(failures) }]);
  if (!isActive(job.state)) return refuse("translation_invalid_move");
  if (cause && failures >= MAX_PROVIDER_FAILURES) {
    return move(job, { state: "failed" }, [{ type: "stop_polling" }], {
      error: { code: cause.code, message: `${cause.message} (${failures} attempts)` },
    });
  }
  if (failures >= MAX_TRANSIENT_FAILURES) {
    return move(job, { state: "failed" }, [{ type: "stop_polling" }], {
      error: { code: "processor_unreachable", message: `The processor could not be reached (${failures} attempts)` },
    });
  }
  // The provider's refusal is shown while the job waits for its next try.
  return move(
    job,
    {},
    [{ type: "retry_later", delayMs: retryDelayMs(failures) }],
    cause ? { error: { code: cause.code, message: `${cause.message}; trying again` } } : {},
  );
}

function onPause(job: JobFacts, reason: PausedReason): TransitionResult {
  if (isActive(job.state))
    return move(job, { state: "paused", pausedFrom: job.state, pausedReason: reason }, [{ type: "stop_polling" }]);
  // A native release outranks a switched-off toggle: toggle_on alone must not resume it.
  if (job.state === "paused" && reason === "native_release" && job.pausedReason !== "native_release")
    return move(job, { pausedReason: reason });
  return refuse("translation_not_affected");
}

/** Back to the state the job was paused from; a paused import publishes again. */
function resumeMove(job: JobFacts, back: TranslationState): Moved {
  const effects: Effect[] = [{ type: "resume" }];
  if (back === "importing") effects.push({ type: "publish" });
  return move(job, { state: back, pausedFrom: null, pausedReason: null }, effects);
}

/**
 * What the operator may do with one attempt: retry the newest attempt of a target when it ended
 * failed or cancelled and its source archive is still in staging; cancel while the machine accepts
 * a cancel and none is pending.
 */
export function jobActions(
  job: JobFacts,
  attempt: { newest: boolean; hasSource: boolean },
): { retryable: boolean; cancellable: boolean } {
  return {
    retryable: attempt.newest && attempt.hasSource && !("refused" in transition(job, { type: "retry" })),
    cancellable: job.state !== "cancelling" && !("refused" in transition(job, { type: "cancel" })),
  };
}

export function transition(job: JobFacts, event: TranslationEvent): TransitionResult {
  if ("attempt" in event && event.attempt !== undefined && event.attempt !== job.attempt)
    return refuse("translation_stale_attempt");
  const s = job.state;
  switch (event.type) {
    case "upload_started":
      return s === "queued" ? move(job, { state: "uploading" }) : refuse("translation_invalid_move");
    case "uploaded":
      // The runner records the hash; the job stays uploading until the submit answers.
      if (s === "uploading" || (s === "paused" && job.pausedFrom === "uploading")) return move(job, {});
      return refuse("translation_invalid_move");
    case "submitted":
      if (s === "uploading" || s === "queued") return move(job, { state: "submitted" });
      // A submit already on its way when the toggle went off may finish (docs/rules.md, "Translation fallback" 7).
      if (s === "paused" && (job.pausedFrom === "uploading" || job.pausedFrom === "queued"))
        return move(job, { pausedFrom: "submitted" });
      return refuse(s === "cancelled" || s === "cancelling" ? "translation_cancelled" : "translation_invalid_move");
    case "processor_status":
      return onProcessorStatus(job, event);
    case "connection_failed":
      return onConnectionFailed(job, event.failures, event.cause);
    case "result_fetched":
      return s === "completed"
        ? move(job, { state: "importing" }, [{ type: "stop_polling" }, { type: "publish" }])
        : refuse(s === "cancelling" || s === "cancelled" ? "translation_cancelled" : "translation_invalid_move");
    case "import_succeeded":
      // A publication already running when the job was paused may finish (it is atomic).
      if (s === "importing" || (s === "paused" && job.pausedFrom === "importing")) {
        return move(job, { state: "imported", pausedFrom: null, pausedReason: null }, [
          { type: "remove_sources" },
          { type: "remove_output" },
        ]);
      }
      return refuse("translation_invalid_move");
    case "import_failed":
      // The output stays in staging, outside the library, for inspection; an explicit retry is needed.
      if (s === "importing" || (s === "paused" && job.pausedFrom === "importing")) {
        return move(job, { state: "failed", pausedFrom: null, pausedReason: null }, [], {
          error: { code: event.code, message: event.message },
        });
      }
      return refuse("translation_invalid_move");
    case "retry":
      if (s !== "failed" && s !== "cancelled") return refuse("translation_not_retryable");
      return move(
        job,
        { state: "queued", attempt: job.attempt + 1, pausedFrom: null, pausedReason: null, cancelPending: false },
        [{ type: "new_attempt", attempt: job.attempt + 1 }],
        { error: null, progress: { pagesDone: null, pagesTotal: null } },
      );
    case "cancel":
      if (s === "cancelling") return move(job, {}); // idempotent: the DELETE is already pending
      if (isActive(s) || s === "paused") return cancelMove(job);
      return refuse("translation_not_cancellable");
    case "cancel_accepted":
      return s === "cancelling" && job.cancelPending
        ? move(job, { cancelPending: false })
        : refuse("translation_invalid_move");
    case "cancel_acknowledged":
      return s === "cancelling"
        ? move(job, { state: "cancelled", cancelPending: false }, [{ type: "stop_polling" }, { type: "remove_output" }])
        : refuse("translation_invalid_move");
    case "destination_changed":
      if (!(isActive(s) || s === "paused")) return refuse("translation_not_affected");
      if (baseLanguage(job.targetLanguage) === baseLanguage(event.newLanguage))
        return refuse("translation_not_affected");
      return cancelMove(job);
    case "toggle_off":
      return onPause(job, "toggle_off");
    case "native_release":
      return onPause(job, "native_release");
    case "toggle_on": {
      if (s !== "paused" || job.pausedReason !== "toggle_off" || job.pausedFrom === null)
        return refuse("translation_not_affected");
      return resumeMove(job, job.pausedFrom);
    }
    case "native_cleared": {
      if (s !== "paused" || job.pausedReason !== "native_release" || job.pausedFrom === null)
        return refuse("translation_not_affected");
      // A switched-off toggle still holds the job: it resumes when both are on again (toggle_on).
      if (!event.enabled) return move(job, { pausedReason: "toggle_off" });
      return resumeMove(job, job.pausedFrom);
    }
    case "submit_again":
      if (s === "cancelled" || s === "cancelling") return refuse("translation_cancelled");
      if (isActive(s) || s === "paused") return move(job, {}); // same id, same identity: the processor answers its current status
      return refuse("translation_not_retryable");
  }
}

// ── Job ids ──────────────────────────────────────────────────────────────────────────────────────

export const JOB_ID_RE = /^([0-9a-f]{32})-(0|[1-9][0-9]{0,8})$/;

export interface JobTarget {
  seriesId: number;
  kind: "volume" | "chapter";
  number: string;
  destination: string;
}

/**
 * The stable 32-hex part of a job id: the first 32 hex digits of sha256 over
 * `translation-v1|<seriesId>|<kind>|<canonical number>|<lowercase destination>`.
 * "007" and "7" are the same target; the retry number is not part of it.
 */
export function jobKey(target: JobTarget): string {
  const num = parseLabel(target.number) ?? target.number.trim();
  const canonical = `translation-v1|${target.seriesId}|${target.kind}|${num}|${target.destination.trim().toLowerCase()}`;
  return sha256Hex(canonical).slice(0, 32);
}

export function formatJobId(key: string, attempt: number): string {
  return `${key}-${attempt}`;
}

export function parseJobId(id: string): { key: string; attempt: number } | null {
  const m = JOB_ID_RE.exec(id);
  if (!m) return null;
  return { key: m[1]!, attempt: Number(m[2]) };
}
