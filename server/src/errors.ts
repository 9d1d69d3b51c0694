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
  map_revision_stale: { status: 409, title: "The map changed since it was read" },
  series_folder_taken: { status: 409, title: "A series already uses that folder" },
  scan_in_progress: { status: 409, title: "A library scan is already running" },
  reading_conflicts_with_map: { status: 422, title: "The reading contradicts the registered map" },
  suggestion_source_invalid: { status: 422, title: "Suggestions come only from catalogue or official sources" },
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
