/**
 * Translation jobs and settings in words. Pure: the rules stay on the server; these only say what
 * the API answered (status, exact state, reasons and codes) in sentences, and edit form lists.
 */
import { adviceFor } from "../errors";
import type { TranslationJob, TranslationProgressEvent, TranslationStatus } from "./queries";

export function targetWords(target: { kind: string; number: string }): string {
  return `${target.kind === "volume" ? "Book" : "Chapter"} ${target.number}`;
}

const STATUS: Record<TranslationStatus, { label: string; tone: string }> = {
  QUEUED: { label: "Queued", tone: "info" },
  RUNNING: { label: "Running", tone: "info" },
  COMPLETED: { label: "Completed", tone: "good" },
  FAILED: { label: "Failed", tone: "bad" },
  CANCELLING: { label: "Cancelling", tone: "warn" },
  CANCELLED: { label: "Cancelled", tone: "" },
};

export function statusWords(status: TranslationStatus): { label: string; tone: string } {
  return STATUS[status] ?? { label: status.toLowerCase(), tone: "" };
}

const STATE: Record<string, string> = {
  queued: "waiting for its turn",
  uploading: "sending the source to the processor",
  submitted: "submitted to the processor",
  running: "being translated",
  completed: "translated, waiting to be imported",
  importing: "being checked and imported",
  imported: "imported into the library",
  failed: "failed",
  cancelling: "cancelled; waiting for the processor to confirm",
  cancelled: "cancelled",
  paused: "paused",
};

/** The exact internal state as a phrase. */
export function stateWords(state: string): string {
  return STATE[state] ?? state;
}

export function pausedWords(reason: string | null): string {
  if (reason === "toggle_off")
    return "Paused because translation fallback is switched off (globally or for this series). It resumes when both are on.";
  if (reason === "native_release")
    return "Paused because a release in the series language appeared; that release has priority. It resumes by itself if that release cannot be had after all; once it is in the library, cancel this job if you no longer want the translation.";
  return reason ? `Paused (${reason}).` : "Paused.";
}

/** What to do about a job's error code. */
/** What to do after a failure of the local path (the job's message names the package or page). */
const LOCAL_ADVICE: Record<string, string> = {
  ocr_model_missing: "Install the Debian package named above on the machine running the service, then retry.",
  font_missing: "Install the Debian package named above on the machine running the service, then retry.",
  ai_not_configured: "Set the AI provider's base URL, model and key under Settings → Translation, then retry.",
  target_script_unsupported:
    "Local processing checks only the destinations its language identifier knows (named above): set an external processor under Settings → Translation for this language.",
  source_language_unsupported:
    "Local processing cannot verify this source language: set an external processor under Settings → Translation for it.",
  ai_request_failed:
    "The AI provider refused the request: check its base URL, model and key under Settings → Translation, then retry.",
  ai_answer_malformed:
    "The AI provider answered in a form that could not be matched to the text regions. Retry; another model may follow the format better.",
  validation_failed:
    "The translation did not pass the checks, so nothing entered the library. Retry; pages that passed are kept and not sent again.",
  no_text_found:
    "No readable text was found in the source pages. Check that the source language is right, or use an external processor.",
  source_unreadable: "The source archive could not be read. Upload another copy of the book.",
};

export function jobErrorAdvice(code: string): string {
  if (LOCAL_ADVICE[code]) return LOCAL_ADVICE[code];
  if (code.startsWith("receipt_") || code.startsWith("result_")) {
    return "The processor's result did not pass the import checks, so nothing entered the library. Retry; if it fails again, check the processor.";
  }
  return adviceFor(code);
}

export function shortSha(sha: string | null): string {
  return sha ? sha.slice(0, 12) : "none";
}

/** The hex part of a job id: the same for every attempt of one target. */
export function jobKey(id: string): string {
  return id.split("-")[0] ?? id;
}

/** The job as the newest live event shows it (events older than the job's own answer are ignored). */
export function withLive(job: TranslationJob, event: TranslationProgressEvent | undefined): TranslationJob {
  if (!event || Date.parse(event.at) < Date.parse(job.updatedAt)) return job;
  const progress =
    event.pagesDone !== null ? { pagesDone: event.pagesDone, pagesTotal: event.pagesTotal } : job.progress;
  return { ...job, state: event.state, progress };
}

const SKIP: Record<string, string> = {
  fallback_off: "translation fallback is switched off in the settings",
  series_fallback_off: "translation fallback is off for this series",
  no_foreign_source: "no verified source in one of the source languages offers it",
  limit: "this pass queued as many translations for the series as one pass may; the next pass takes it",
  already_translating: "a translation is already under way",
  already_translated: "it was already translated",
  needs_retry: "its last translation failed: retry it in the list below",
  cancelled: "its translation was cancelled: retry it to start again",
  native_obtainable: "a release in the series language can be downloaded instead",
  disabled: "translation is disabled for it",
  foreign_fetch_failed: "the foreign release could not be fetched; the next pass tries again",
};

export function skipWords(skip: { kind: string; number: string; reason: string }): string {
  const why = SKIP[skip.reason] ?? skip.reason.replaceAll("_", " ");
  if (skip.kind === "series") return `Nothing was searched: ${why}.`;
  return `${targetWords(skip)}: ${why}.`;
}

/** Adds a language code to an ordered list; answers a problem in words when it cannot. */
export function addLanguage(list: readonly string[], raw: string): { list: string[] } | { problem: string } {
  const code = raw.trim() === "" ? "" : raw.trim().toLowerCase() === "original" ? "original" : raw.trim();
  if (code === "") return { problem: "Type a language code such as ja, or original." };
  if (/\s|,/.test(code)) return { problem: "One language code at a time, such as ja." };
  if (list.includes(code)) return { problem: `${code} is already in the list.` };
  return { list: [...list, code] };
}

/** Moves one item up (-1) or down (+1); out of range leaves the list as it is. */
export function moveItem<T>(list: readonly T[], index: number, delta: -1 | 1): T[] {
  const to = index + delta;
  const out = [...list];
  if (index < 0 || index >= list.length || to < 0 || to >= list.length) return out;
  [out[index], out[to]] = [out[to] as T, out[index] as T];
  return out;
}

export function languageName(code: string): string {
  if (code === "original") return "original (the work's own language, when known)";
  try {
    const name = new Intl.DisplayNames(["en"], { type: "language" }).of(code);
    return name && name !== code ? `${code} (${name})` : code;
  } catch {
    return code;
  }
}

export interface UploadTarget {
  kind: "volume" | "chapter";
  number: string;
  sourceLanguage: string;
}

export function uploadUrl(seriesId: number, t: UploadTarget): string {
  const q = new URLSearchParams({ source_language: t.sourceLanguage.trim(), [t.kind]: t.number.trim() });
  return `/api/manga/${seriesId}/translations/upload?${q.toString()}`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
