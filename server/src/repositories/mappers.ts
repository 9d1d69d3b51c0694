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
import type { MapEntry, Series } from "../generated/prisma/client.ts";
import { bool, intOrNull, str, strOrNull } from "./json-rows.ts";

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

export function entryFacts(row: Pick<MapEntry, "volume" | "chapters">): MapEntryFacts {
  const chapters: Label[] = [];
  for (const c of parseJsonArray<string>(row.chapters)) {
    const l = parseLabel(c);
    if (l !== null) chapters.push(l);
  }
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

/*
 * The snapshot's bulk rows (snapshots-repo.ts), arrays from a JSON select (json-rows.ts), mapped
 * straight into facts: one object per row, with thousands of rows in a long series.
 */

/** The volume_slot columns `volumeFactsOfRow` reads, in its order (a select may add columns after them). */
export const VOLUME_FACT_COLUMNS = "id, number, monitored";

export function volumeFactsOfRow(r: readonly unknown[]): VolumeSlotFacts {
  return { id: Number(r[0]), number: storedLabel(str(r[1])), monitored: bool(r[2]) };
}

/** The chapter_slot columns `chapterFactsOfRow` reads, in its order. */
export const CHAPTER_FACT_COLUMNS = "id, number, monitored, parts, extra, title";

export function chapterFactsOfRow(r: readonly unknown[]): ChapterSlotFacts {
  return {
    id: Number(r[0]),
    number: storedLabel(str(r[1])),
    monitored: bool(r[2]),
    parts: Number(r[3]),
    extra: bool(r[4]),
    title: strOrNull(r[5]),
  };
}

/** The chapter_release columns `releaseFactsOfRow` reads, in its order. */
export const RELEASE_FACT_COLUMNS = "id, kind, volume, chapter, part, file_id, language, assembled_from";

export function releaseFactsOfRow(r: readonly unknown[]): ReleaseFacts {
  return {
    id: Number(r[0]),
    kind: r[1] === "volume" ? "volume" : "chapter",
    volume: labelOrNull(strOrNull(r[2])),
    chapter: labelOrNull(strOrNull(r[3])),
    part: intOrNull(r[4]),
    fileId: intOrNull(r[5]),
    language: str(r[6]),
    assembledFrom: parseAssembledFrom(strOrNull(r[7])),
  };
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
