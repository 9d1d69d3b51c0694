import { AppError, type ErrorCode } from "../../errors.ts";

/** The problem codes the archive reader answers with (listed in errors.ts). */
export type ArchiveErrorCode = Extract<ErrorCode, `archive_${string}` | `image_${string}`>;

export interface ArchiveErrorInit {
  code: ArchiveErrorCode;
  detail: string;
  /** The offending entry, when one entry is the reason. */
  entry?: string | null;
  cause?: unknown;
}

/**
 * A refused archive. `entry` (the entry name, or null) is also in `extra`, so REST problems and
 * GraphQL extensions carry it. Details never hold absolute paths: they reach the client.
 */
export class ArchiveError extends AppError {
  override readonly name = "ArchiveError";
  declare readonly code: ArchiveErrorCode;
  readonly entry: string | null;

  constructor(init: ArchiveErrorInit) {
    const entry = init.entry ?? null;
    super(init.code, init.detail, { entry });
    this.entry = entry;
    if (init.cause !== undefined) this.cause = init.cause;
  }
}

export function describeError(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
