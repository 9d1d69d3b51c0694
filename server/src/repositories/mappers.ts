/** Row ↔ plain-data conversions shared by the repositories (the only place that knows column shapes). */
import { parseLabel, type Label } from "../domain/labels.ts";
import type {
  AssembledFromV1,
  ChapterSlotFacts,
  FileFacts,
  FileOrigin,
  MapEntryFacts,
  MapSourceKind,
  PlanWording,
  ReleaseFacts,
  SeriesFacts,
  SeriesForm,
  SeriesStatus,
  VolumeSlotFacts,
} from "../domain/types.ts";
import type { ChapterRelease, ChapterSlot, MapEntry, Series, VolumeSlot } from "../generated/prisma/client.ts";
import { intOrNull, str, strOrNull } from "./json-rows.ts";

export function labelOrNull(v: string | null): Label | null {
  return v === null ? null : parseLabel(v);
}

/** A stored label is canonical by construction; a damaged one is a bug worth failing on. */
function storedLabel(v: string): Label {
  const l = parseLabel(v);
  if (l === null) throw new Error(`stored label is not canonical: ${v}`);
  return l;
}

export function parseJsonArray<T>(text: string, fallback: T[] = []): T[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? (v as T[]) : fallback;
  } catch {
    return fallback;
  }
}

export function seriesFacts(row: Series): SeriesFacts {
  return {
    id: row.id,
    title: row.title,
    status: row.status as SeriesStatus,
    knownBookCount: row.knownBookCount,
    editionBookCount: row.editionBookCount,
    webtoon: row.webtoon,
    formOverride: (row.form as SeriesForm | null) ?? null,
    planWording: row.planWording as PlanWording,
    monitored: row.monitored,
    language: row.language,
  };
}

export function volumeFacts(row: Pick<VolumeSlot, "id" | "number" | "monitored">): VolumeSlotFacts {
  return { id: row.id, number: storedLabel(row.number), monitored: row.monitored };
}

export function chapterFacts(
  row: Pick<ChapterSlot, "id" | "number" | "monitored" | "parts" | "extra"> & Partial<Pick<ChapterSlot, "title">>,
): ChapterSlotFacts {
  return {
    id: row.id,
    number: storedLabel(row.number),
    monitored: row.monitored,
    parts: row.parts,
    extra: row.extra,
    title: row.title ?? null,
  };
}

export function entryFacts(row: Pick<MapEntry, "volume" | "chapters">): MapEntryFacts {
  const chapters = parseJsonArray<string>(row.chapters)
    .map((c) => parseLabel(c))
    .filter((c): c is Label => c !== null);
  return { volume: storedLabel(row.volume), chapters };
}

export function mapKind(kind: string): MapSourceKind {
  switch (kind) {
    case "operator":
    case "reading":
    case "catalogue":
    case "official":
    case "estimate":
      return kind;
    default:
      // An unknown kind is never operational: treat it like a stored estimate (ignored).
      return "estimate";
  }
}

/** The library_file columns of a file's facts, in the order `fileFacts` reads them. */
export const FILE_FACT_COLUMNS =
  "id, path, kind, volume, chapter, chapter_end, part, page_count, sha256, origin, language, tag_source";

/**
 * A file's facts from one row of a JSON select (json-rows.ts) that starts with FILE_FACT_COLUMNS;
 * the select may add columns after them (the audit reads size and state there).
 */
export function fileFacts(r: readonly unknown[]): FileFacts {
  const [id, path, kind, volume, chapter, chapterEnd, part, pageCount, sha256, origin, language, tagSource] = r;
  return {
    id: Number(id),
    path: str(path),
    kind: str(kind) === "book" ? "book" : "chapter",
    volume: labelOrNull(strOrNull(volume)),
    chapter: labelOrNull(strOrNull(chapter)),
    chapterEnd: labelOrNull(strOrNull(chapterEnd)),
    part: intOrNull(part),
    pageCount: Number(pageCount),
    sha256: str(sha256),
    origin: str(origin) as FileOrigin,
    language: strOrNull(language),
    tagSource: (strOrNull(tagSource) as FileFacts["tagSource"]) ?? null,
  };
}

export function parseAssembledFrom(text: string | null): AssembledFromV1 | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as Partial<AssembledFromV1>;
    if (v.version !== 1 || typeof v.volume !== "string" || !Array.isArray(v.chapters)) return null;
    const volume = parseLabel(v.volume);
    if (volume === null) return null;
    return {
      version: 1,
      volume,
      chapters: v.chapters.map((c) => parseLabel(String(c))).filter((c): c is Label => c !== null),
      sourceReleaseIds: Array.isArray(v.sourceReleaseIds) ? v.sourceReleaseIds.filter((x) => Number.isInteger(x)) : [],
      files: Array.isArray(v.files) ? v.files : [],
      ...(Array.isArray(v.notes) ? { notes: v.notes } : {}),
    };
  } catch {
    // Unknown or damaged provenance proves nothing.
    return null;
  }
}

export type ReleaseRow = Pick<
  ChapterRelease,
  "id" | "kind" | "volume" | "chapter" | "part" | "fileId" | "language" | "assembledFrom"
>;

export function releaseFacts(row: ReleaseRow): ReleaseFacts {
  return {
    id: row.id,
    kind: row.kind === "volume" ? "volume" : "chapter",
    volume: labelOrNull(row.volume),
    chapter: labelOrNull(row.chapter),
    part: row.part,
    fileId: row.fileId,
    language: row.language,
    assembledFrom: parseAssembledFrom(row.assembledFrom),
  };
}
