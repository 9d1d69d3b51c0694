/**
 * API errors in words: what went wrong and what to do next. The server's message (its problem
 * title or GraphQL error message) says what happened; the code picks the advice.
 */
import type { CombinedError } from "@urql/core";

export interface Problem {
  code: string;
  message: string;
  /** What the user can do about it. */
  next: string;
}

const NEXT: Record<string, string> = {
  map_revision_stale: "Someone changed the map meanwhile. Reload it, check the change, and save again.",
  snapshot_stale: "The files changed since the preview. Open a fresh preview and confirm again.",
  confirmation_invalid: "The confirmation expired or does not match. Open a fresh preview and confirm again.",
  download_active: "A download is touching these files. Wait for it to finish, then preview again.",
  restore_target_taken: "Another file now sits at the original path. Move or retire it first, then restore.",
  nothing_to_retire: "Nothing is left to retire: the page shows the current state.",
  digest_stale: "The book's content changed. Reload the page to get its current digest.",
  map_entry_not_registered: "Register the book's chapters first, in the map editor or from the reader.",
  proof_chapters_mismatch: "List exactly the chapters the map gives this book.",
  book_not_owned: "The book is not on disk, so there is nothing to check.",
  verification_not_found: "The book has no proof to withdraw.",
  reading_conflicts_with_map: "The map gives this book other chapters. Change the map, or mark the chapters again.",
  invalid_map: "Fix the highlighted entries and try again.",
  invalid_label: "Numbers are exact decimals such as 12 or 12.5.",
  invalid_field: "Check the value and try again.",
  torrent_file_not_assignable: "Pick an image ZIP/CBZ the client has downloaded in full.",
  torrent_book_not_pending: "That book no longer waits: the list shows what still does.",
  torrent_job_not_awaiting_assignment: "The torrent no longer waits for an assignment: reload the list.",
  torrent_file_not_found: "The torrent no longer holds that file: reload the list.",
  archive_unreadable: "That file is not a readable ZIP/CBZ: pick another file for the book.",
  indexer_not_active: "Turn the indexer and torrent client on in Settings, then try again.",
  assembly_book_owned: "The book is already on disk.",
  assembly_map_not_exact: "Assembly needs the exact chapters of each book: set the map first.",
  assembly_ambiguous_map: "Two books claim the same chapter. Fix the map first.",
  assembly_missing_chapters: "Some chapters are not on disk yet. Fetch them first.",
  assembly_missing_part: "A chapter is missing a part. Fetch the missing part first.",
  assembly_changed_files: "The chapter files changed since the preview. Open a fresh preview.",
  series_not_found: "The series is gone. Go back to the library.",
  file_not_found: "The file is gone. Rescan the library or go back to the series.",
  recycle_entry_not_found: "The entry was already restored or purged. Reload the list.",
  thumbnails_busy: "Thumbnails are being made. Try again in a moment.",
  scan_in_progress: "A scan is running. Wait for it to finish.",
  series_has_files:
    "The library still holds files of this series. Delete or move its folder first, then scan the library and try again.",
  series_busy:
    "Something is still under way for this series (downloads, torrents, translations or file moves). Cancel it or wait for it to end, then try again.",
  secret_is_service_login:
    "Never enter this service's own API key or login password here: use the key of the AI provider or the processor's own token.",
  length_required: "The upload needs its size up front. Choose the file again and upload it as a whole.",
  translation_target_unknown: "That number is not in the managed edition: choose a book or chapter this series lists.",
  translation_pack_refused: "Split the pack into single books first, then upload each book on its own.",
  translation_source_empty: "The archive holds no page image. Upload an image ZIP/CBZ.",
  translation_source_incomplete: "The upload was cut short. Upload the file again.",
  translation_job_active: "A translation of it is already under way. Cancel that job first, or wait for it to end.",
  translation_not_retryable: "Only the newest attempt of a failed or cancelled job can be retried. Reload the list.",
  translation_not_cancellable: "The job already ended. Reload the list.",
  translation_cancelled: "That attempt was cancelled: retry to start a new attempt.",
  translation_job_not_found: "The job is gone. Reload the list.",
  translation_job_id_invalid: "Reload the list and try again.",
  processor_unavailable:
    "The processor cannot be reached; the service keeps retrying with the same job. Check the processor URL and that it is running.",
  processor_unreachable:
    "The processor could not be reached after several tries. Check the processor URL and token in the settings, then retry.",
  processor_refused: "The processor refused the request. Check its token and log, then retry.",
  no_text_found: "The processor found no text to translate in the source. Check that you uploaded the right archive.",
  catalogue_failed:
    "The catalogue did not answer (nothing was changed). Try again later, or check its address in the settings.",
  catalogue_entry_not_found: "The catalogue has no such entry any more. Search again and pick another one.",
  catalogue_disabled: "That catalogue is turned off. Turn it on in the settings first.",
  catalogue_link_not_found: "The series is no longer linked to that catalogue. Reload the page.",
  catalogue_offer_stale: "The catalogues changed meanwhile. Reload the page and check the new values.",
  nothing_to_adopt: "Your map already has this book, or all its chapters are contested. Edit the starts instead.",
  suggestion_not_found: "The suggestion is gone. Reload the page.",
  unauthenticated: "Sign in again.",
  csrf_refused: "Reload the page and try again from the service's own pages.",
  payload_too_large: "Send less at once.",
  query_too_complex: "Ask for less at once.",
  unsupported_media_type: "Reload the page and try again.",
  login_throttled: "Too many wrong passwords: wait for the time given, then try again.",
  password_set_by_environment: "ADMIN_PASSWORD sets the password: change it there and restart the service.",
  session_not_found: "That browser is already signed out. Reload the list.",
  internal: "Try again. If it keeps failing, check the service's log.",
};

const NETWORK_NEXT = "Check that the service is running, then try again.";

export function adviceFor(code: string): string {
  if (code.startsWith("archive_") || code.startsWith("image_"))
    return "The file is damaged or unsafe. Open Audit files to review and retire it.";
  return NEXT[code] ?? "Try again; if it keeps failing, reload the page.";
}

/** A GraphQL result's error, a REST problem body, or anything thrown, as a Problem. */
export function toProblem(error: unknown): Problem {
  const combined = error as Partial<CombinedError> | null;
  if (combined && Array.isArray(combined.graphQLErrors) && combined.graphQLErrors.length > 0) {
    const first = combined.graphQLErrors[0];
    const code = String(first?.extensions?.code ?? "internal").toLowerCase();
    return { code, message: first?.message ?? "The request failed.", next: adviceFor(code) };
  }
  if (combined && combined.networkError) {
    return { code: "network", message: "The service could not be reached.", next: NETWORK_NEXT };
  }
  const problem = error as { code?: unknown; title?: unknown; detail?: unknown; message?: unknown } | null;
  if (problem && typeof problem.code === "string") {
    const message =
      typeof problem.detail === "string" && problem.detail
        ? problem.detail
        : String(problem.title ?? problem.message ?? "The request failed.");
    return { code: problem.code, message, next: adviceFor(problem.code) };
  }
  const message = error instanceof Error ? error.message : "The request failed.";
  return { code: "internal", message, next: adviceFor("internal") };
}

/** Thrown by `rest()` for a problem+json answer. */
export class RestProblem extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Same-origin REST call with the session cookie; problem+json answers throw a RestProblem. */
export async function rest<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return undefined as T;
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const code = typeof json.code === "string" ? json.code : "internal";
    const message = String(json.detail ?? json.title ?? `HTTP ${res.status}`);
    throw new RestProblem(code, message, res.status, json);
  }
  return json as T;
}
