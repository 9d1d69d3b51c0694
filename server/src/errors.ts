/**
 * Every coded error the service answers with, in one place, with its HTTP status. REST turns an
 * AppError into RFC 9457 problem+json; GraphQL puts the same code in `extensions.code`.
 */
export const ERRORS = {
  bad_request: { status: 400, title: "Malformed request" },
  invalid_label: { status: 400, title: "Not an exact decimal number" },
  invalid_map: { status: 400, title: "The map entries are not valid" },
  invalid_field: { status: 400, title: "A field has an invalid value" },
  unauthenticated: { status: 401, title: "Authentication required" },
  bad_credentials: { status: 401, title: "Wrong user name or password" },
  series_not_found: { status: 404, title: "No such series" },
  not_found: { status: 404, title: "Not found" },
  task_not_found: { status: 404, title: "No such scheduled task" },
  method_not_allowed: { status: 405, title: "The path does not take that method" },
  unit_not_found: { status: 404, title: "The series has no such book or chapter" },
  map_revision_stale: { status: 409, title: "The map changed since it was read" },
  series_folder_taken: { status: 409, title: "A series already uses that folder" },
  scan_in_progress: { status: 409, title: "A library scan is already running" },
  library_root_missing: { status: 503, title: "The library folder is missing (is its disk mounted?)" },
  library_root_empty: {
    status: 503,
    title: "The library folder holds no series folder while files are recorded in it (is its disk mounted?)",
  },
  series_has_files: {
    status: 409,
    title: "The library still holds files of the series: only a series whose files are all gone can be removed",
  },
  series_busy: {
    status: 409,
    title: "Work for the series is under way (downloads, torrents, translations, file moves): wait for it or cancel it",
  },
  reading_conflicts_with_map: { status: 422, title: "The reading contradicts the registered map" },
  suggestion_source_invalid: { status: 422, title: "Suggestions come only from catalogue or official sources" },
  // Archives (the hardened reader refuses before touching any file).
  archive_not_found: { status: 404, title: "The archive is not on disk" },
  archive_unreadable: { status: 422, title: "Not a readable ZIP/CBZ archive" },
  archive_truncated: { status: 422, title: "The archive is truncated" },
  archive_entry_unsafe: { status: 422, title: "An entry name points outside the archive" },
  archive_symlink: { status: 422, title: "The archive holds a symbolic link" },
  archive_duplicate_entry: { status: 422, title: "The archive holds two entries with the same name" },
  archive_encrypted: { status: 422, title: "The archive holds an encrypted entry" },
  archive_crc_mismatch: { status: 422, title: "An entry does not match its checksum" },
  archive_unsupported: { status: 422, title: "An entry uses an unsupported compression method" },
  archive_too_many_entries: { status: 413, title: "The archive holds too many entries" },
  archive_too_large: { status: 413, title: "The archive expands beyond the size limit" },
  archive_ratio_exceeded: { status: 413, title: "An entry expands beyond the compression-ratio limit" },
  archive_entry_too_large: { status: 413, title: "An entry is larger than allowed" },
  image_too_large: { status: 413, title: "An image is larger than the pixel limit" },
  image_unreadable: { status: 422, title: "A page is not a readable image" },
  // Files, previews and the recycle bin.
  file_not_found: { status: 404, title: "No such library file" },
  page_not_found: { status: 404, title: "No such page in the file" },
  // The Komga-compatible API answers a page outside the book as Komga does (400).
  page_number_invalid: { status: 400, title: "Page number does not exist" },
  range_not_satisfiable: { status: 416, title: "The requested byte range is outside the file" },
  recycle_entry_not_found: { status: 404, title: "No such recycle-bin entry" },
  mapping_not_found: { status: 404, title: "No such provider/source mapping" },
  provider_not_found: { status: 404, title: "No such provider or source" },
  provider_unavailable: { status: 409, title: "The provider is disabled or not configured" },
  provider_failed: { status: 502, title: "The provider failed to answer" },
  source_rejected: { status: 409, title: "That source mapping was rejected for this series: it is never linked again" },
  download_not_found: { status: 404, title: "No such download" },
  download_not_judgeable: { status: 409, title: "The download is not waiting to be judged" },
  download_not_cancellable: {
    status: 409,
    title: "The download is publishing or finished: it can no longer be cancelled",
  },
  download_not_blockable: {
    status: 409,
    title: "The download cannot be blocked: it is still under way, or it names no release of a linked source",
  },
  blocked_release_not_found: { status: 404, title: "No such blocked release" },
  confirmation_invalid: { status: 400, title: "The confirmation token is malformed or not for this operation" },
  snapshot_stale: { status: 409, title: "What was reviewed has changed: preview again" },
  download_active: {
    status: 409,
    title: "A download or import touching these files is active: try again when it ends",
  },
  restore_target_taken: { status: 409, title: "A file already exists at the original path" },
  // Several instances: an instance that stalled past its lease wakes up after another took its work over.
  attempt_superseded: {
    status: 409,
    title: "Another instance took this work over: this attempt publishes nothing",
  },
  journal_entry_taken_over: {
    status: 409,
    title: "Another instance took this operation over: it finishes it",
  },
  nothing_to_retire: { status: 409, title: "There is nothing to retire" },
  book_suspect: { status: 409, title: "The book is suspect: its chapter files are never retired through it" },
  thumbnails_busy: { status: 503, title: "The thumbnail worker is busy: retry shortly" },
  // Verified and assembled books.
  book_not_owned: { status: 404, title: "No owned book for that volume" },
  verification_not_found: { status: 404, title: "No proof is recorded for that book" },
  digest_stale: { status: 409, title: "The book's content changed: read its current digest again" },
  map_entry_not_registered: { status: 422, title: "Register the book's map entry first (operator map or a reading)" },
  proof_chapters_mismatch: { status: 422, title: "The proof's chapters differ from the map's chapters for the volume" },
  assembly_book_owned: { status: 409, title: "The book is already owned" },
  slot_owned: { status: 409, title: "The slot is already owned: another copy would be a duplicate" },
  slot_download_active: {
    status: 409,
    title: "A download of the slot is under way: cancel it before fetching another release",
  },
  assembly_map_not_exact: { status: 409, title: "The book has no exact map entry" },
  assembly_ambiguous_map: { status: 409, title: "The book's map entry is ambiguous" },
  assembly_missing_chapters: { status: 409, title: "Some of the book's chapters are not on disk" },
  assembly_missing_part: { status: 409, title: "A split chapter of the book is missing a part" },
  assembly_changed_files: { status: 409, title: "A chapter file changed since the preview" },
  assembly_nothing_to_do: { status: 409, title: "No book of the series can be assembled now" },
  book_starts_empty: { status: 422, title: "Give the start of at least one book" },
  // Page evidence.
  page_evidence_pending: { status: 409, title: "The page signatures are still being computed: try again shortly" },
  page_evidence_no_proposal: {
    status: 409,
    title: "The pages do not show which chapters the book holds (no proposal to adopt)",
  },
  page_evidence_map_conflict: {
    status: 409,
    title: "Another book's map entry claims chapters the page evidence puts in this book",
  },
  torrent_path_outside_mount: {
    status: 422,
    title: "The torrent's files lie outside the mount mapping (or are symbolic links)",
  },
  length_required: { status: 411, title: "Send the body with a Content-Length header" },
  torrent_job_not_found: { status: 404, title: "No such torrent job" },
  torrent_job_not_retryable: { status: 409, title: "Only a failed torrent job can be retried" },
  torrent_job_not_dismissable: { status: 409, title: "A torrent job on its way cannot be dismissed" },
  torrent_job_not_awaiting_assignment: { status: 409, title: "The torrent job does not wait for an assignment" },
  torrent_book_not_pending: { status: 409, title: "The book does not wait for an assignment in this torrent job" },
  torrent_file_not_found: { status: 422, title: "The torrent holds no such file" },
  torrent_file_not_assignable: {
    status: 422,
    title: "The file cannot be assigned (not an image ZIP/CBZ, or not fully downloaded)",
  },
  indexer_not_active: { status: 409, title: "The indexer/torrent channel is off or not configured" },
  translation_job_not_found: { status: 404, title: "No such translation job" },
  translation_target_unknown: { status: 422, title: "The managed edition has no such book or chapter" },
  translation_pack_refused: { status: 422, title: "The archive holds several books or chapters: split it first" },
  translation_source_empty: { status: 422, title: "The archive holds no page image" },
  translation_source_incomplete: { status: 400, title: "The body ended before its Content-Length" },
  translation_not_retryable: {
    status: 409,
    title: "Only a failed (or cancelled) translation job can be retried, and only its newest attempt",
  },
  translation_cancelled: { status: 409, title: "The job id was cancelled: a retry uses the next number" },
  translation_job_active: { status: 409, title: "A translation of this book or chapter is already under way" },
  translation_job_id_invalid: { status: 400, title: "A translation job id is <32 lowercase hex>-<retry number>" },
  translation_not_cancellable: { status: 409, title: "The translation job is no longer active" },
  processor_unavailable: {
    status: 503,
    title: "The translation processor cannot be reached (retried with the same job id)",
  },
  processor_refused: { status: 502, title: "The translation processor refused the request" },
  secret_is_service_login: {
    status: 422,
    title:
      "That is this service's own API key or login password: it must never be entered as a translation key or token",
  },
  // Hardening: request limits, cross-site refusals, sessions and login throttling.
  query_too_complex: { status: 400, title: "The GraphQL document exceeds the query limits" },
  csrf_refused: {
    status: 403,
    title: "A state change with the session cookie must come from this service's own pages",
  },
  payload_too_large: { status: 413, title: "The request body is larger than allowed" },
  unsupported_media_type: { status: 415, title: "The body is not in a content type this endpoint takes" },
  login_throttled: { status: 429, title: "Too many failed logins: wait before trying again" },
  password_set_by_environment: {
    status: 409,
    title: "ADMIN_PASSWORD sets the password: change it there and restart the service",
  },
  session_not_found: { status: 404, title: "No such session" },
  // Public catalogues (MangaDex, MangaUpdates, AniList): suggestions only.
  catalogue_failed: { status: 502, title: "A catalogue failed to answer: nothing was changed" },
  catalogue_entry_not_found: { status: 404, title: "The catalogue has no entry with that id" },
  catalogue_disabled: { status: 409, title: "That catalogue is disabled in the settings" },
  catalogue_link_not_found: { status: 404, title: "The series is not linked to that catalogue" },
  catalogue_offer_stale: {
    status: 409,
    title: "The linked catalogues no longer offer that value: reload the series and review again",
  },
  cover_not_found: { status: 404, title: "The series has no stored cover" },
  suggestion_not_found: { status: 404, title: "The series has no such map suggestion" },
  nothing_to_adopt: { status: 422, title: "Nothing of those books can be adopted from the suggestion" },
  internal: { status: 500, title: "Internal error" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERRORS;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly extra: Record<string, unknown>;

  constructor(code: ErrorCode, detail?: string, extra: Record<string, unknown> = {}) {
    super(detail ?? ERRORS[code].title);
    this.code = code;
    this.status = ERRORS[code].status;
    this.title = ERRORS[code].title;
    this.extra = extra;
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
