/**
 * The assembly planner (docs/rules.md, "Assembly"): for a book that is not owned and whose
 * chapters are all on disk under an exact, unambiguous map entry, which chapter files make it, in
 * which order, and what the archive is called. Pure: the service loads the snapshot and the
 * coverage index, the builder (library/assembler.ts) reads the files.
 *
 * Per chapter, in map order:
 * - a whole copy of exactly that chapter (the series language and non-translations first, then the
 *   lowest file id), or a range file whose every chapter belongs to this book;
 * - otherwise the complete parts 1..n from ONE source (parts of different sources may cut or
 *   repeat pages, so they are never mixed); a chapter with a known missing part refuses. A file
 *   of a provider's source belongs to that source; a file placed by hand, to the release group its
 *   name carries ("c012 (part 1) [Group]"), and the files naming none to one local source.
 */
import { parseLibraryPath } from "./filename.ts";
import { compareLabels, type Label } from "./labels.ts";
import { languageInSeries } from "./file-language.ts";
import { safeNameWithTail } from "./safe-names.ts";
import type { ChapterState, CoverageIndex, FileFacts, SeriesSnapshot } from "./types.ts";

export type AssemblyRefusal =
  | "assembly_book_owned"
  | "assembly_map_not_exact"
  | "unit_not_found"
  | "assembly_ambiguous_map"
  | "assembly_missing_chapters"
  | "assembly_missing_part";

export interface AssemblySource {
  fileId: number;
  path: string;
  sha256: string;
  /** Part of a split chapter; null for a whole chapter (or a range). */
  part: number | null;
}

export interface AssemblyChapter {
  number: Label;
  /** Files in reading order; empty when an earlier range file already holds this chapter. */
  sources: AssemblySource[];
}

export interface AssemblyPlan {
  volume: Label;
  /** The archive's file name (no folder), safe on every filesystem. */
  fileName: string;
  language: string;
  chapters: AssemblyChapter[];
  /** Every source file once, in reading order: what the book retires. */
  fileIds: number[];
}

export type AssemblyDecision =
  { ok: true; plan: AssemblyPlan } | { ok: false; code: AssemblyRefusal; detail: string; chapters?: Label[] };

/** "3" → "003", "10.5" → "010.5": the v<NNN> of the output name. */
export function volumeTag(volume: Label): string {
  const dot = volume.indexOf(".");
  const int = dot < 0 ? volume : volume.slice(0, dot);
  return int.padStart(3, "0") + (dot < 0 ? "" : volume.slice(dot));
}

/** Bytes of an assembled book's name before `.cbz`: room for the folder on every filesystem. */
const ASSEMBLY_NAME_BYTES = 170;

/**
 * `<Series> - v<NNN> [<lang>].cbz`, each part made safe. A long title is shortened, never the
 * ` - v<NNN> [<lang>]` tail: without it two books of the series would get one name and neither
 * would say which book it is.
 */
export function assemblyFileName(title: string, volume: Label, language: string): string {
  return `${safeNameWithTail(title, " - ", `v${volumeTag(volume)} [${language}]`, ASSEMBLY_NAME_BYTES)}.cbz`;
}

/** Fresh page names that keep reading order: p0001.jpg…, wider when a book has more pages. */
export function pageName(index: number, total: number, originalName: string): string {
  const m = /\.([A-Za-z0-9]{1,5})$/.exec(originalName);
  const ext = (m?.[1] ?? "jpg").toLowerCase();
  const width = Math.max(4, String(total).length);
  return `p${String(index + 1).padStart(width, "0")}.${ext}`;
}

const sameLabel = (a: Label | null, b: Label) => a !== null && compareLabels(a, b) === 0;

/**
 * Lower is better: the series language (read at the series' precision: `languageInSeries`), then
 * not a machine translation, then the lowest id.
 */
function rank(f: FileFacts, language: string): number {
  const own = f.language === null || languageInSeries(f.language, language) === language;
  return (own ? 0 : 2) + (f.origin === "translation" ? 1 : 0);
}

function byPreference(language: string) {
  return (a: FileFacts, b: FileFacts) => rank(a, language) - rank(b, language) || a.id - b.id;
}

/**
 * The source of a file no provider's source mapping names: the release group of its name
 * (compared without case), or the one local source when the name carries none.
 */
export function localSourceOf(file: Pick<FileFacts, "path">): string {
  const group = parseLibraryPath(file.path).group?.trim().toLowerCase();
  return group ? `group:${group}` : "local";
}

/**
 * The plan, or the refusal that says why not. `sourceOf` names each file's provider source
 * mapping; the other files belong to their release group or the local source (localSourceOf).
 */
export function planAssembly(
  snapshot: SeriesSnapshot,
  index: CoverageIndex,
  volume: Label,
  sourceOf: ReadonlyMap<number, string> = new Map(),
): AssemblyDecision {
  const book = index.books.find((b) => compareLabels(b.number, volume) === 0);
  // Not a book of the series at all (no slot of the edition, no file, no map entry): unknown, not refused.
  if (!book) return { ok: false, code: "unit_not_found", detail: `the series has no book ${volume}` };
  if (book.owned) return { ok: false, code: "assembly_book_owned", detail: `book ${volume} is already owned` };
  if (book.ambiguous || index.map.ambiguousBooks.has(volume)) {
    return {
      ok: false,
      code: "assembly_ambiguous_map",
      detail: `the map entry of book ${volume} conflicts with another book`,
    };
  }
  const entry = index.map.books.get(volume);
  if (entry === undefined || entry.length === 0) {
    return {
      ok: false,
      code: "assembly_map_not_exact",
      detail: `book ${volume} has no exact operator or reading map entry`,
    };
  }
  // Only an exact map makes a book cover its chapters (coverage.ts): an assembly under any other
  // would retire chapter files that nothing covers.
  if (index.map.state !== "exact") {
    return {
      ok: false,
      code: "assembly_map_not_exact",
      detail: `the map is not exact: chapters on disk belong to no book, so book ${volume} would cover none`,
    };
  }
  const states = new Map<Label, ChapterState>(index.chapters.map((c) => [c.number, c]));
  const ambiguous = entry.filter(
    (c) => states.get(c)?.ambiguous || sameLabel(states.get(c)?.book ?? null, volume) === false,
  );
  if (ambiguous.length > 0) {
    return {
      ok: false,
      code: "assembly_ambiguous_map",
      detail: `chapters ${ambiguous.join(", ")} are claimed by another book`,
      chapters: ambiguous,
    };
  }
  const missing = entry.filter((c) => (states.get(c)?.partsOnDisk.length ?? 0) === 0);
  if (missing.length > 0) {
    return {
      ok: false,
      code: "assembly_missing_chapters",
      detail: `chapters ${missing.join(", ")} of book ${volume} are not on disk`,
      chapters: missing,
    };
  }
  const partial = entry.filter((c) => !states.get(c)?.onDisk);
  if (partial.length > 0) {
    return {
      ok: false,
      code: "assembly_missing_part",
      detail: `chapters ${partial.join(", ")} of book ${volume} miss a part`,
      chapters: partial,
    };
  }

  const language = snapshot.series.language;
  const files = new Map(snapshot.files.map((f) => [f.id, f]));
  const inBook = new Set(entry);
  const supplied = new Set<Label>();
  const chapters: AssemblyChapter[] = [];
  const noSingleSource: Label[] = [];
  const source = (f: FileFacts): AssemblySource => ({ fileId: f.id, path: f.path, sha256: f.sha256, part: f.part });

  for (const number of entry) {
    if (supplied.has(number)) {
      chapters.push({ number, sources: [] });
      continue;
    }
    const state = states.get(number) as ChapterState;
    const candidates = state.fileIds
      .map((id) => files.get(id))
      .filter((f): f is FileFacts => f !== undefined && f.kind === "chapter");
    candidates.sort(byPreference(language));
    const whole = candidates.find(
      (f) =>
        f.part === null && sameLabel(f.chapter, number) && (f.chapterEnd === null || sameLabel(f.chapterEnd, number)),
    );
    // A range file starting here serves only when it holds nothing outside this book.
    const range = candidates.find(
      (f) => f.part === null && sameLabel(f.chapter, number) && rangeInside(f, index, inBook),
    );
    const pick = whole ?? range;
    if (pick) {
      chapters.push({ number, sources: [source(pick)] });
      for (const c of heldChapters(pick, index)) supplied.add(c);
      continue;
    }
    const parts = partsFromOneSource(candidates, number, state.parts, sourceOf);
    if (!parts) {
      noSingleSource.push(number);
      continue;
    }
    chapters.push({ number, sources: parts.map(source) });
    supplied.add(number);
  }
  if (noSingleSource.length > 0) {
    return {
      ok: false,
      code: "assembly_missing_part",
      detail: `chapters ${noSingleSource.join(", ")} of book ${volume} have no complete set of parts from one source`,
      chapters: noSingleSource,
    };
  }
  const fileIds = [...new Set(chapters.flatMap((c) => c.sources.map((s) => s.fileId)))];
  return {
    ok: true,
    plan: { volume, fileName: assemblyFileName(snapshot.series.title, volume, language), language, chapters, fileIds },
  };
}

/** The chapters of the index a chapter file holds (it is listed in their fileIds). */
function heldChapters(f: FileFacts, index: CoverageIndex): Label[] {
  return index.chapters.filter((c) => c.fileIds.includes(f.id)).map((c) => c.number);
}

function rangeInside(f: FileFacts, index: CoverageIndex, inBook: ReadonlySet<Label>): boolean {
  const held = heldChapters(f, index);
  return held.length > 0 && held.every((c) => inBook.has(c));
}

/** Parts 1..n of one chapter from one source (the first complete source by lowest file id). */
function partsFromOneSource(
  candidates: FileFacts[],
  number: Label,
  parts: number,
  sourceOf: ReadonlyMap<number, string>,
): FileFacts[] | null {
  const count = Number.isInteger(parts) && parts >= 1 ? parts : 1;
  const bySource = new Map<string, Map<number, FileFacts>>();
  for (const f of candidates) {
    if (f.part === null || !sameLabel(f.chapter, number)) continue;
    const key = sourceOf.get(f.id) ?? localSourceOf(f);
    const got = bySource.get(key) ?? new Map<number, FileFacts>();
    // candidates are sorted by preference: the first file of a part wins.
    if (!got.has(f.part)) got.set(f.part, f);
    bySource.set(key, got);
  }
  for (const got of bySource.values()) {
    const list: FileFacts[] = [];
    for (let p = 1; p <= count; p++) {
      const f = got.get(p);
      if (!f) break;
      list.push(f);
    }
    if (list.length === count) return list;
  }
  return null;
}
