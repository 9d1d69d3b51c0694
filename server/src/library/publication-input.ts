/**
 * Checks of what callers hand the publication module. The callers are other services, so a
 * failure here is a caller's bug; it still answers a coded error rather than writing a bad row.
 */
import { parseLabel } from "../domain/labels.ts";
import { AppError } from "../errors.ts";
import type { PublishFile, PublishRelease } from "./journal.ts";

const invalid = (field: string, why: string): never => {
  throw new AppError("invalid_field", `${field} ${why}`, { field });
};

function label(v: unknown, field: string): string | null {
  if (v === null) return null;
  if (typeof v !== "string" || parseLabel(v) === null) return invalid(field, "must be an exact decimal string or null");
  return v;
}

function count(v: unknown, field: string, min: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > 1_000_000)
    return invalid(field, `must be an integer ≥ ${min}`);
  return v;
}

function optionalId(v: unknown, field: string): number | null {
  if (v === undefined || v === null) return null;
  return count(v, field, 1);
}

function oneOf<T extends string>(v: unknown, field: string, values: readonly T[]): T {
  if (typeof v !== "string" || !(values as readonly string[]).includes(v))
    return invalid(field, `must be one of ${values.join(", ")}`);
  return v as T;
}

function language(v: unknown, field: string): string {
  if (typeof v !== "string" || !/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/.test(v))
    return invalid(field, "must be a language code");
  return v;
}

function shortText(v: unknown, field: string, max: number): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" || v.length > max) return invalid(field, `must be a string of at most ${max} characters`);
  return v;
}

export function checkPublishFile(f: PublishFile): PublishFile {
  if (typeof f !== "object" || f === null) return invalid("file", "must be an object");
  return {
    kind: oneOf(f.kind, "file.kind", ["book", "chapter"] as const),
    volume: label(f.volume, "file.volume"),
    chapter: label(f.chapter, "file.chapter"),
    chapterEnd: label(f.chapterEnd, "file.chapterEnd"),
    part: f.part === null ? null : count(f.part, "file.part", 1),
    pageCount: count(f.pageCount, "file.pageCount", 0),
    language: f.language === null ? null : language(f.language, "file.language"),
    origin: oneOf(f.origin, "file.origin", ["download", "assembled", "import", "translation"] as const),
    tagSource: f.tagSource === null ? null : oneOf(f.tagSource, "file.tagSource", ["comicinfo", "filename"] as const),
  };
}

export function checkPublishRelease(r: PublishRelease): PublishRelease {
  if (typeof r !== "object" || r === null) return invalid("release", "must be an object");
  return {
    kind: oneOf(r.kind, "release.kind", ["chapter", "volume"] as const),
    volume: label(r.volume, "release.volume"),
    chapter: label(r.chapter, "release.chapter"),
    part: r.part === null ? null : count(r.part, "release.part", 1),
    language: language(r.language, "release.language"),
    // Versioned provenance JSON: stored verbatim, but it must be JSON.
    assembledFrom: r.assembledFrom === null ? null : json(r.assembledFrom, "release.assembledFrom"),
    providerId: optionalId(r.providerId, "release.providerId"),
    sourceMappingId: optionalId(r.sourceMappingId, "release.sourceMappingId"),
    externalId: shortText(r.externalId, "release.externalId", 500),
    scanlator: shortText(r.scanlator, "release.scanlator", 500),
  };
}

function json(v: unknown, field: string): string {
  if (typeof v !== "string") return invalid(field, "must be JSON text or null");
  try {
    JSON.parse(v);
  } catch {
    return invalid(field, "must be JSON text or null");
  }
  return v;
}

export function checkReason(v: unknown): string {
  if (typeof v !== "string" || v.trim() === "" || v.length > 500)
    return invalid("reason", "must be a non-empty text of at most 500 characters");
  return v;
}

/** Distinct positive file ids, at least one. */
export function checkFileIds(v: unknown): number[] {
  if (!Array.isArray(v) || v.length > 10_000)
    throw new AppError("bad_request", "fileIds must be an array of file ids", { field: "fileIds" });
  const ids = v.map((x) => {
    if (typeof x !== "number" || !Number.isInteger(x) || x <= 0)
      throw new AppError("bad_request", "fileIds must hold positive integers", { field: "fileIds" });
    return x;
  });
  if (ids.length === 0) throw new AppError("nothing_to_retire", "no file ids were given");
  return [...new Set(ids)];
}
