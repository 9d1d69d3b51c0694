/**
 * The life of one download job as a state machine: `transition(state, event) → { next, effects }`, or
 * null when the event does not apply in that state (the caller refuses it). The stored state changes
 * only `WHERE state = <expected>` (repositories/download-queue-repo.ts), so two workers cannot both
 * move a row.
 *
 *   queued ─start→ fetching ─fetched→ judging ─passed→ publishing ─published→ published
 *                     │                  └─degraded→ degraded (release blocked, replacement queued)
 *                     ├─transient (attempts ≤ 3)→ waiting ─due→ queued
 *                     └─transient (attempt 4) / permanent→ failed
 *   queued | waiting | fetching | judging ─cancel→ cancelled (staging removed)
 *   fetching | judging | publishing ─interrupted (restart)→ queued (staging removed), or published
 *   when the publication had committed before the crash.
 *
 * Retries (docs/rules.md, "Content conformity of downloads"): 3 retries after the first attempt, back-off 30
 * s × 2^n capped at 600 s, n = 0 for the first retry. `attempts` counts attempts started.
 */

export const JOB_STATES = [
  "queued",
  "waiting",
  "fetching",
  "judging",
  "degraded",
  "publishing",
  "published",
  "failed",
  "cancelled",
] as const;
export type JobState = (typeof JOB_STATES)[number];

/** States a job may still leave by itself (the audit treats them as active downloads). */
export const LIVE_JOB_STATES: readonly JobState[] = ["queued", "waiting", "fetching", "judging", "publishing"];
export const FINAL_JOB_STATES: readonly JobState[] = ["degraded", "published", "failed", "cancelled"];

/**
 * What became of the downloads a Wanted ledger entry queued or found under way, read when the ledger
 * is read: the ledger is written by a pass, and a chapter fetched since must not still read "Queued".
 * `under_way` while any is live; `published` once all are (every part of a split chapter);
 * otherwise `failed` (failed, cancelled or degraded: the next pass decides again). Null with none.
 */
export type LedgerDownloads = "under_way" | "published" | "failed";

export function ledgerDownloads(states: readonly string[]): LedgerDownloads | null {
  if (states.length === 0) return null;
  if (states.some((s) => (LIVE_JOB_STATES as readonly string[]).includes(s))) return "under_way";
  return states.every((s) => s === "published") ? "published" : "failed";
}

export const MAX_RETRIES = 3;
export const RETRY_BASE_MS = 30_000;
export const RETRY_CAP_MS = 600_000;

export type JobEvent =
  | { type: "start" }
  | { type: "fetched" }
  | { type: "passed" }
  | { type: "degraded" }
  | { type: "published"; fileId: number }
  | { type: "transient"; attempts: number; error: string }
  | { type: "permanent"; error: string }
  | { type: "due" }
  | { type: "cancel" }
  | { type: "interrupted"; publishedFileId?: number | null };

export type JobEffect =
  | { type: "remove_staging" }
  | { type: "schedule_retry"; delayMs: number }
  | { type: "block_release" }
  | { type: "queue_replacement" }
  | { type: "record_error"; error: string }
  | { type: "record_file"; fileId: number };

export interface JobTransition {
  next: JobState;
  effects: JobEffect[];
}

/** Delay before retry n (0-based): 30 s, 60 s, 120 s … capped at 600 s. */
export function retryDelay(retry: number, baseMs = RETRY_BASE_MS, capMs = RETRY_CAP_MS): number {
  return Math.min(capMs, baseMs * 2 ** Math.min(Math.max(0, retry), 20));
}

const to = (next: JobState, ...effects: JobEffect[]): JobTransition => ({ next, effects });

/** Whether the operator may still cancel a download: the machine accepts a cancel and none is pending. */
export function isCancellable(state: JobState, cancelRequested: boolean): boolean {
  return !cancelRequested && transition(state, { type: "cancel" }) !== null;
}

/**
 * The operator may block a download's release by itself once the download has ended without
 * reaching the library: failed or cancelled. A degraded release is blocked already, a published
 * one is in the library (the audit retires a file and rejects a source), and a live one is blocked
 * with its cancel. Only a release of a linked source can be blocked.
 */
export function isBlockable(state: JobState, hasRelease: boolean, blocked: boolean): boolean {
  return hasRelease && !blocked && (state === "failed" || state === "cancelled");
}

export function transition(
  state: JobState,
  event: JobEvent,
  retry: { baseMs?: number; capMs?: number } = {},
): JobTransition | null {
  switch (event.type) {
    case "start":
      return state === "queued" ? to("fetching") : null;
    case "fetched":
      return state === "fetching" ? to("judging") : null;
    case "passed":
      return state === "judging" ? to("publishing") : null;
    case "degraded":
      return state === "judging"
        ? to("degraded", { type: "remove_staging" }, { type: "block_release" }, { type: "queue_replacement" })
        : null;
    case "published":
      return state === "publishing"
        ? to("published", { type: "record_file", fileId: event.fileId }, { type: "remove_staging" })
        : null;
    case "transient":
      if (state !== "fetching") return null;
      // attempts = attempts started, this one included: retries 1..3 wait, the 4th failure is final.
      return event.attempts <= MAX_RETRIES
        ? to(
            "waiting",
            { type: "record_error", error: event.error },
            { type: "remove_staging" },
            { type: "schedule_retry", delayMs: retryDelay(event.attempts - 1, retry.baseMs, retry.capMs) },
          )
        : to("failed", { type: "record_error", error: event.error }, { type: "remove_staging" });
    case "permanent":
      return state === "fetching" || state === "judging" || state === "publishing"
        ? to("failed", { type: "record_error", error: event.error }, { type: "remove_staging" })
        : null;
    case "due":
      return state === "waiting" ? to("queued") : null;
    case "cancel":
      // Publishing is one atomic step of the publication module: too late to cancel.
      return state === "queued" || state === "waiting" || state === "fetching" || state === "judging"
        ? to("cancelled", { type: "remove_staging" })
        : null;
    case "interrupted":
      if (state === "publishing" && typeof event.publishedFileId === "number")
        return to("published", { type: "record_file", fileId: event.publishedFileId }, { type: "remove_staging" });
      return state === "fetching" || state === "judging" || state === "publishing"
        ? to("queued", { type: "remove_staging" })
        : null;
  }
}
