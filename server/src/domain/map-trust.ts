/**
 * Map trust (docs/rules.md, "Map trust" 1–5): which chapter-to-book claims are operational.
 *
 * - Only `operator` and `reading` sources are operational. `catalogue` and `official` sources are
 *   suggestions (see map-suggestions.ts); `estimate` sources are legacy rows every reader ignores.
 * - Authority: the operator first, then the readings. A volume the operator has an entry for (empty
 *   or not) is the operator's: a reading of that volume is dropped. A reading's other entries lose
 *   the chapters the operator places, and an entry left with nothing is dropped. The operator's word
 *   is never trimmed by a reading.
 * - Several sources of one kind are one voice: their entries for a volume are united.
 * - A chapter claimed by two books inside that combined map (inside one source or across sources
 *   of one tier) stays unmapped; it is recorded in `conflicts`, its books in `ambiguousBooks`. No
 *   rule ever picks the higher volume: every claim is kept so that the ambiguity shows. `books`
 *   keeps each book's full claim; `chapterToBook` omits conflicts.
 * - An entry with an empty chapter set is explicitly unknown membership (`unknownBooks`).
 *
 * Labels are compared as exact canonical labels (docs/rules.md, "Labels"): stored entries are
 * re-canonicalised defensively and anything that is not a label is ignored.
 *
 * The other map rules live beside this file and are re-exported here: suggestions and adoption
 * (map-suggestions.ts), the book-start editor (map-editor.ts), label-set helpers
 * (map-labels.ts). Estimates are in estimates.ts, coverage in coverage.ts.
 */
import { compareLabels, parseLabel, sortLabels, unionLabels, type Label } from "./labels.ts";
import { MAX_MAP_BOOKS, MAX_MAP_CHAPTERS, canonicalLabels, maxLabel, toLabel } from "./map-labels.ts";
import type { MapEntryFacts, MapSourceFacts, MapSourceKind, MapState, OperationalMap } from "./types.ts";

// The rest of the map rules, re-exported so callers find every map-trust rule here.
export { MAX_MAP_BOOKS, MAX_MAP_CHAPTERS, canonicalLabels, sameLabelSet } from "./map-labels.ts";
export { adoptSuggestion, catalogueSuggestions, isSuggestionKind } from "./map-suggestions.ts";
export type {
  AdoptionResult,
  CatalogueSuggestion,
  SuggestionConflict,
  SuggestionEntry,
  SuggestionStatus,
} from "./map-suggestions.ts";
export { bookStartsOf, entriesFromBookStarts } from "./map-editor.ts";
export type { BookStart, BookStartsOptions, BookStartsResult } from "./map-editor.ts";

/** Operator and reading maps are operational; everything else is a suggestion or ignored. */
export function isOperationalKind(kind: MapSourceKind): boolean {
  return kind === "operator" || kind === "reading";
}

/** Entries of every source of one kind, united per volume. An empty set stays empty only if all are. */
function unitedEntries(sources: readonly MapSourceFacts[], kind: MapSourceKind): Map<Label, Label[]> {
  const united = new Map<Label, Label[]>();
  for (const source of sources) {
    if (source.kind !== kind) continue;
    for (const entry of source.entries) {
      const volume = toLabel(entry.volume);
      if (volume === null) continue;
      const chapters = canonicalLabels(entry.chapters);
      const known = united.get(volume);
      united.set(volume, known === undefined ? chapters : unionLabels(known, chapters));
    }
  }
  return united;
}

export interface OperationalMapOptions {
  /**
   * The series may still add chapters after its last book (running or paused). Owned chapters
   * after the last mapped chapter are then the uncollected tail, not a gap in the map, and do not
   * make it partial. Default false (a finished work prints every chapter in some book).
   */
  openTail?: boolean;
}

/**
 * The operational map after the trust rules (see the module comment).
 *
 * `state`: "none" when no operational entry has chapters; "partial" when an owned ordinary
 * (non-extra) chapter lies outside its books (rule 5 in docs/rules.md, "Map trust") — a conflicting chapter
 * counts as outside, it is unmapped; with `openTail`, chapters after the last mapped chapter do not count (a
 * running work's new chapters stay unassigned instead of calling the map broken); "exact" otherwise.
 *
 * @param ownedMainChapters chapters on disk that are not extras (the caller decides on-disk).
 */
export function operationalMap(
  sources: readonly MapSourceFacts[],
  ownedMainChapters: readonly Label[],
  options: OperationalMapOptions = {},
): OperationalMap {
  const operator = unitedEntries(sources, "operator");
  const reading = unitedEntries(sources, "reading");
  const operatorChapters = new Set<Label>();
  if (reading.size > 0) for (const chapters of operator.values()) for (const c of chapters) operatorChapters.add(c);

  const combined = new Map(operator);
  for (const [volume, chapters] of reading) {
    if (operator.has(volume)) continue; // the operator's entry (even an empty one) owns the book
    if (chapters.length === 0) {
      combined.set(volume, []);
      continue;
    }
    const rest = chapters.filter((c) => !operatorChapters.has(c));
    if (rest.length > 0) combined.set(volume, rest);
  }

  // Claims in book order: the first book of each chapter, and every book of a contested one.
  const books = new Map<Label, Label[]>();
  const unknownBooks = new Set<Label>();
  const firstClaim = new Map<Label, Label>();
  const contested = new Map<Label, Label[]>();
  let inOrder = true;
  let lastFirst: Label | undefined;
  for (const volume of sortLabels([...combined.keys()])) {
    const chapters = combined.get(volume) ?? [];
    if (chapters.length === 0) {
      unknownBooks.add(volume);
      continue;
    }
    books.set(volume, chapters);
    for (const c of chapters) {
      const first = firstClaim.get(c);
      if (first === undefined) {
        if (lastFirst !== undefined && compareLabels(lastFirst, c) >= 0) inOrder = false;
        lastFirst = c;
        firstClaim.set(c, volume);
      } else {
        const list = contested.get(c);
        if (list) list.push(volume);
        else contested.set(c, [first, volume]);
      }
    }
  }

  // chapterToBook in chapter order: as claimed when the books hold increasing chapters (the usual
  // map), otherwise sorted; contested chapters are left out.
  let chapterToBook = firstClaim;
  if (!inOrder || contested.size > 0) {
    chapterToBook = new Map<Label, Label>();
    for (const c of inOrder ? firstClaim.keys() : sortLabels([...firstClaim.keys()]))
      if (!contested.has(c)) chapterToBook.set(c, firstClaim.get(c)!);
  }
  const conflicts = new Map<Label, Label[]>();
  const ambiguousBooks = new Set<Label>();
  for (const c of sortLabels([...contested.keys()])) {
    const volumes = contested.get(c)!;
    conflicts.set(c, volumes);
    for (const v of volumes) ambiguousBooks.add(v);
  }

  let revision = 0;
  for (const s of sources) if (s.kind === "operator") revision = Math.max(revision, s.revision);

  const state = mapState(books, chapterToBook, ownedMainChapters, options.openTail ?? false);
  return { state, books, unknownBooks, chapterToBook, conflicts, ambiguousBooks, revision };
}

function mapState(
  books: Map<Label, Label[]>,
  chapterToBook: Map<Label, Label>,
  ownedMainChapters: readonly Label[],
  openTail: boolean,
): MapState {
  if (books.size === 0) return "none";
  let last: Label | null = null;
  for (const chapters of books.values()) {
    const top = maxLabel(chapters);
    if (top !== null && (last === null || compareLabels(top, last) > 0)) last = top;
  }
  for (const raw of ownedMainChapters) {
    const c = toLabel(raw);
    if (c === null || chapterToBook.has(c)) continue;
    if (openTail && last !== null && compareLabels(c, last) > 0) continue;
    return "partial";
  }
  return "exact";
}

/* ------------------------------------------------------------------------------------------ */
/* Validation of an operator map (PUT /chapter-map): refused with 400 `invalid_map` when any problem is found. */
/* ------------------------------------------------------------------------------------------ */

export type MapProblemCode =
  | "invalid_volume"
  | "invalid_chapter"
  | "duplicate_volume"
  | "duplicate_chapter"
  | "chapter_in_two_volumes"
  | "too_many_books"
  | "too_many_chapters";

export interface MapProblem {
  code: MapProblemCode;
  message: string;
  volume?: string;
  chapter?: string;
  /** The books a chapter is claimed by (chapter_in_two_volumes). */
  volumes?: Label[];
}

/** What an operator submits: free text that may not be canonical yet. */
export interface RawMapEntry {
  volume: string;
  chapters: readonly string[];
}

export interface ParsedOperatorMap {
  /** Canonical entries sorted by volume (chapters sorted); meaningful only without problems. */
  entries: MapEntryFacts[];
  problems: MapProblem[];
}

/**
 * Canonicalises an operator map and lists what makes it unacceptable: labels that are not exact
 * decimals, a volume given twice ("3" and "03" are one volume), a chapter repeated in one book
 * ("10.5" and "10.50"), a chapter in two books ("Map trust" 3: the service never stores a
 * contradiction of its own), and sizes beyond MAX_MAP_BOOKS / MAX_MAP_CHAPTERS. An empty chapter list
 * is valid: it says the book's membership is unknown ("Map trust" 4).
 */
export function parseOperatorEntries(input: readonly RawMapEntry[]): ParsedOperatorMap {
  const problems: MapProblem[] = [];
  if (input.length > MAX_MAP_BOOKS) {
    problems.push({ code: "too_many_books", message: `at most ${MAX_MAP_BOOKS} books can be mapped` });
    return { entries: [], problems };
  }
  const byVolume = new Map<Label, Label[]>();
  const owner = new Map<Label, Label>();
  let total = 0;
  for (const entry of input) {
    const volume = parseLabel(entry.volume);
    if (volume === null) {
      problems.push({
        code: "invalid_volume",
        message: `book ${JSON.stringify(entry.volume)} is not an exact number`,
        volume: entry.volume,
      });
      continue;
    }
    if (byVolume.has(volume)) {
      problems.push({ code: "duplicate_volume", message: `book ${volume} is listed twice`, volume });
      continue;
    }
    const chapters: Label[] = [];
    const seen = new Set<Label>();
    for (const raw of entry.chapters) {
      const c = parseLabel(raw);
      if (c === null) {
        problems.push({
          code: "invalid_chapter",
          message: `chapter ${JSON.stringify(raw)} of book ${volume} is not an exact number`,
          volume,
          chapter: raw,
        });
        continue;
      }
      if (seen.has(c)) {
        problems.push({
          code: "duplicate_chapter",
          message: `chapter ${c} is listed twice in book ${volume}`,
          volume,
          chapter: c,
        });
        continue;
      }
      seen.add(c);
      chapters.push(c);
      const other = owner.get(c);
      if (other !== undefined) {
        problems.push({
          code: "chapter_in_two_volumes",
          message: `chapter ${c} is in book ${other} and in book ${volume}`,
          chapter: c,
          volumes: sortLabels([other, volume]),
        });
      } else owner.set(c, volume);
    }
    total += chapters.length;
    byVolume.set(volume, sortLabels(chapters));
  }
  if (total > MAX_MAP_CHAPTERS) {
    problems.push({ code: "too_many_chapters", message: `at most ${MAX_MAP_CHAPTERS} chapters can be mapped` });
  }
  const entries = sortLabels([...byVolume.keys()]).map((volume) => ({ volume, chapters: byVolume.get(volume) ?? [] }));
  return { entries, problems };
}

/** The problems of an operator map; empty = acceptable. See parseOperatorEntries. */
export function validateOperatorEntries(input: readonly RawMapEntry[]): MapProblem[] {
  return parseOperatorEntries(input).problems;
}
