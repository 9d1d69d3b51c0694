/**
 * Validation of the audit's untrusted input, shared by REST (query strings) and GraphQL (typed
 * arguments): both hand over plain values and get the same coded errors.
 */
import { AppError } from "../../errors.ts";
import {
  AUDIT_FLAGS,
  AUDIT_SORT_KEYS,
  DEFAULT_AUDIT_SORT,
  parseAuditSort,
  type AuditFilter,
  type AuditFlag,
  type AuditSort,
} from "../../domain/audit.ts";
import type { ThumbnailSide } from "../../library/thumbnails.ts";

/** Most files one reviewed retirement may move. */
export const MAX_SELECTION = 1000;

/** The list query: REST gives strings, GraphQL typed values; undefined/null means "not given". */
export interface AuditQueryInput {
  page?: unknown;
  sort?: unknown;
  /** A list, or one comma-separated string. */
  flags?: unknown;
  problemsOnly?: unknown;
  kind?: unknown;
  language?: unknown;
  provider?: unknown;
  sourceId?: unknown;
}

const given = (v: unknown) => v !== undefined && v !== null && v !== "";

function field(name: string, detail: string): AppError {
  return new AppError("invalid_field", detail, { field: name });
}

function asPage(v: unknown): number {
  if (!given(v)) return 1;
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d{1,9}$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw field("page", "page must be a whole number from 1");
  return n;
}

function asSort(v: unknown): AuditSort {
  if (!given(v)) return DEFAULT_AUDIT_SORT;
  const sort = typeof v === "string" ? parseAuditSort(v) : null;
  if (!sort)
    throw field(
      "sort",
      `sort must be one of ${AUDIT_SORT_KEYS.join(", ")}, optionally with a leading "-" for descending`,
    );
  return sort;
}

function asFlags(v: unknown): AuditFlag[] | undefined {
  if (!given(v)) return undefined;
  const list = typeof v === "string" ? v.split(",") : Array.isArray(v) ? v : null;
  if (!list) throw field("flags", "flags must be a list of flags");
  return list.map((x) => {
    const s = typeof x === "string" ? x.trim() : x;
    if (!(AUDIT_FLAGS as readonly unknown[]).includes(s))
      throw field("flags", `unknown flag ${JSON.stringify(x)}: one of ${AUDIT_FLAGS.join(", ")}`);
    return s as AuditFlag;
  });
}

function asBoolean(name: string, v: unknown): boolean | undefined {
  if (!given(v)) return undefined;
  if (v === true || v === "true" || v === "1") return true;
  if (v === false || v === "false" || v === "0") return false;
  throw field(name, `${name} must be true or false`);
}

function asText(name: string, v: unknown, max = 500): string | undefined {
  if (!given(v)) return undefined;
  if (typeof v !== "string" || v.length > max)
    throw field(name, `${name} must be a string of at most ${max} characters`);
  return v;
}

export function parseAuditQuery(q: AuditQueryInput): { page: number; sort: AuditSort; filter: AuditFilter } {
  const kind = asText("kind", q.kind);
  if (kind !== undefined && kind !== "book" && kind !== "chapter") throw field("kind", "kind must be book or chapter");
  const filter: AuditFilter = {};
  const flags = asFlags(q.flags);
  const problemsOnly = asBoolean("problems", q.problemsOnly);
  const language = asText("language", q.language, 20);
  const provider = asText("provider", q.provider, 200);
  const sourceId = asText("source_id", q.sourceId);
  if (flags) filter.flags = flags;
  if (problemsOnly !== undefined) filter.problemsOnly = problemsOnly;
  if (kind !== undefined) filter.kind = kind;
  if (language !== undefined) filter.language = language;
  if (provider !== undefined) filter.provider = provider;
  if (sourceId !== undefined) filter.sourceId = sourceId;
  return { page: asPage(q.page), sort: asSort(q.sort), filter };
}

/** 1..MAX_SELECTION distinct positive file ids, ascending. */
export function parseFileIds(v: unknown): number[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_SELECTION) {
    throw field("file_ids", `file_ids must list 1 to ${MAX_SELECTION} file ids`);
  }
  const ids = v.map((x) => {
    if (typeof x !== "number" || !Number.isInteger(x) || x <= 0 || x > 2 ** 31 - 1)
      throw field("file_ids", "file_ids must be positive integers");
    return x;
  });
  return [...new Set(ids)].sort((a, b) => a - b);
}

export function parseSide(v: unknown): ThumbnailSide {
  if (!given(v)) return "first";
  if (v === "first" || v === "last") return v;
  throw field("page", "page must be first or last");
}
