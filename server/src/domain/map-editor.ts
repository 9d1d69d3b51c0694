/**
 * The map editor's input: "start of each book as a chapter number; the end is implied" (docs/rules.md,
 * "Map trust" 8). Turns book starts into exact operator entries.
 *
 * How the ends are implied:
 * - Every book but the last holds the chapters in [its start, the next book's start): every whole
 *   number in that interval (a numbered chapter nobody has indexed yet is still printed there), plus
 *   the known chapters in it (decimals included). Decimals are never invented. But an implied end never passes the last
 *   known chapter: a later book far ahead (a saved book 29 at chapter 295 while the series knows
 *   chapters up to 174) must not make an earlier book claim 175–294, chapters nobody knows of. The
 *   book's own saved end counts as known (re-saving never shrinks a saved book), and so does an end
 *   the operator gives for the last book (a later book's saved end does not). The service leaves
 *   out of `knownChapters` what only the saved map names (a saved later book knows nothing of the
 *   chapters before it).
 * - The last book has no next start. It ends at `lastEnd` when the operator gives one; else at its
 *   saved end (the same volume's last chapter in the saved operator map, when not before its new
 *   start: moving only the start of a saved last book keeps its end); else at the last known
 *   chapter only when the work is finished and that book is the edition's last (its number is the
 *   book count): then every later chapter must be in it. Otherwise (running or paused work, unknown
 *   count, later books still to come) the end is not implied: guessing it would let an owned last
 *   book swallow chapters it does not hold, and covered chapters are never fetched. The last book
 *   then gets an empty entry (membership unknown, "Map trust" 4) and the warning `last_book_end_unknown`
 *   asks the operator for its end: the service refuses to guess.
 */
import { compareLabels, isWhole, parseLabel, sortLabels, wholeLabel, wholePart, type Label } from "./labels.ts";
import { MAX_MAP_CHAPTERS, canonicalLabels } from "./map-labels.ts";
import { toLabel } from "./map-labels.ts";
import type { MapEntryFacts, SeriesSnapshot } from "./types.ts";

export interface BookStart {
  volume: string;
  start: string;
}

export interface BookStartsOptions {
  /** Inclusive last chapter of the last book, when the operator states it. */
  lastEnd?: string | null;
  /** The work is finished (not running, not paused). */
  finished?: boolean;
  /** Books of the managed edition (edition count first); null = unknown. */
  bookCount?: number | null;
  /** The saved operator entries: a book's saved end is kept when only its start moves. */
  saved?: readonly MapEntryFacts[];
}

export type BookStartsProblemCode =
  | "invalid_volume"
  | "invalid_chapter"
  | "duplicate_volume"
  | "starts_not_increasing"
  | "end_before_start"
  | "too_many_chapters";

export interface BookStartsProblem {
  code: BookStartsProblemCode;
  message: string;
  volume?: string;
}

export interface BookStartsResult {
  /** Entries sorted by volume; empty when there are problems. */
  entries: MapEntryFacts[];
  problems: BookStartsProblem[];
  /** Non-blocking notes: `last_book_end_unknown`. */
  warnings: { code: "last_book_end_unknown"; message: string; volume: Label }[];
  /** How the last book's end was decided. */
  lastEnd: { chapter: Label | null; reason: "given" | "saved" | "finished_last_book" | "unknown" };
}

/**
 * Whole numbers w with from ≤ w ≤ upTo and (no `below`, or w < below); null when there are more than
 * `limit` (a typo such as a start of 100000 must not allocate forever).
 */
function wholeNumbers(from: Label, below: Label | null, upTo: Label, limit: number): Label[] | null {
  const out: Label[] = [];
  for (let n = isWhole(from) ? BigInt(from) : BigInt(wholePart(from)) + 1n; ; n += 1n) {
    const l = wholeLabel(n);
    if ((below !== null && compareLabels(l, below) >= 0) || compareLabels(l, upTo) > 0) return out;
    if (out.length >= limit) return null;
    out.push(l);
  }
}

/**
 * Operator entries from book starts (see the module comment for how ends are implied).
 * `knownChapters` are the series' chapter labels (slots and files), extras included: a known extra
 * inside a book's interval is printed in that book.
 */
export function entriesFromBookStarts(
  starts: readonly BookStart[],
  knownChapters: readonly string[],
  options: BookStartsOptions = {},
): BookStartsResult {
  const problems: BookStartsProblem[] = [];
  const rows: { volume: Label; start: Label }[] = [];
  const seen = new Set<Label>();
  for (const s of starts) {
    const volume = parseLabel(s.volume);
    const start = parseLabel(s.start);
    if (volume === null)
      problems.push({
        code: "invalid_volume",
        message: `book ${JSON.stringify(s.volume)} is not an exact number`,
        volume: s.volume,
      });
    else if (start === null)
      problems.push({
        code: "invalid_chapter",
        message: `start ${JSON.stringify(s.start)} of book ${volume} is not an exact number`,
        volume,
      });
    else if (seen.has(volume))
      problems.push({ code: "duplicate_volume", message: `book ${volume} is listed twice`, volume });
    else {
      seen.add(volume);
      rows.push({ volume, start });
    }
  }
  rows.sort((a, b) => compareLabels(a.volume, b.volume));
  for (let i = 1; i < rows.length; i++) {
    const prev = rows[i - 1];
    const row = rows[i];
    if (prev && row && compareLabels(row.start, prev.start) <= 0) {
      problems.push({
        code: "starts_not_increasing",
        message: `book ${row.volume} starts at ${row.start}, not after book ${prev.volume} (${prev.start})`,
        volume: row.volume,
      });
    }
  }
  const known = canonicalLabels(knownChapters);
  const lastKnown = known.at(-1) ?? null;
  const savedEnds = new Map<Label, Label>();
  for (const e of options.saved ?? []) {
    const volume = parseLabel(e.volume);
    const top = canonicalLabels(e.chapters).at(-1);
    if (volume !== null && top !== undefined) savedEnds.set(volume, top);
  }
  const last = rows[rows.length - 1];
  let lastEnd: BookStartsResult["lastEnd"] = { chapter: null, reason: "unknown" };
  const savedLastEnd = last ? savedEnds.get(last.volume) : undefined;
  if (options.lastEnd !== undefined && options.lastEnd !== null) {
    const end = parseLabel(options.lastEnd);
    if (end === null)
      problems.push({
        code: "invalid_chapter",
        message: `end ${JSON.stringify(options.lastEnd)} is not an exact number`,
      });
    else if (last && compareLabels(end, last.start) < 0)
      problems.push({
        code: "end_before_start",
        message: `the last book ends at ${end}, before its start ${last.start}`,
        volume: last.volume,
      });
    else lastEnd = { chapter: end, reason: "given" };
  } else if (last && savedLastEnd !== undefined && compareLabels(savedLastEnd, last.start) >= 0) {
    lastEnd = { chapter: savedLastEnd, reason: "saved" };
  } else if (
    last &&
    options.finished &&
    options.bookCount != null &&
    Number.isInteger(options.bookCount) &&
    options.bookCount > 0
  ) {
    const top = known[known.length - 1];
    if (last.volume === wholeLabel(options.bookCount) && top !== undefined && compareLabels(top, last.start) >= 0) {
      lastEnd = { chapter: top, reason: "finished_last_book" };
    }
  }
  const fail = (): BookStartsResult => ({ entries: [], problems, warnings: [], lastEnd });
  // An end the operator gives now says its chapters exist; a later book's saved end does not.
  const given = lastEnd.reason === "given" ? lastEnd.chapter : null;
  if (problems.length > 0) return fail();

  const entries: MapEntryFacts[] = [];
  let budget = MAX_MAP_CHAPTERS;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (!row) continue;
    const next = rows[i + 1]?.start ?? null;
    if (next === null && lastEnd.chapter === null) {
      entries.push({ volume: row.volume, chapters: [] });
      continue;
    }
    // Before the next start, the end never passes the last known chapter (or the book's own saved
    // end): never a run of chapters nobody knows of.
    const end =
      next === null
        ? lastEnd.chapter
        : maxLabel([lastKnown ?? row.start, given ?? row.start, savedEnds.get(row.volume) ?? row.start]);
    const inside = (c: Label): boolean =>
      compareLabels(c, row.start) >= 0 &&
      (next === null || compareLabels(c, next) < 0) &&
      end !== null &&
      compareLabels(c, end) <= 0;
    const wholes = wholeNumbers(row.start, next, end ?? row.start, budget);
    if (wholes === null) {
      problems.push({
        code: "too_many_chapters",
        message: `at most ${MAX_MAP_CHAPTERS} chapters can be mapped`,
        volume: row.volume,
      });
      return fail();
    }
    const set = new Set<Label>([row.start, ...wholes, ...known.filter(inside)]);
    if (end !== null && next === null) set.add(end);
    budget -= set.size;
    if (budget < 0) {
      problems.push({
        code: "too_many_chapters",
        message: `at most ${MAX_MAP_CHAPTERS} chapters can be mapped`,
        volume: row.volume,
      });
      return fail();
    }
    entries.push({ volume: row.volume, chapters: sortLabels([...set]) });
  }
  const warnings: BookStartsResult["warnings"] =
    last && lastEnd.chapter === null
      ? [
          {
            code: "last_book_end_unknown",
            message: `the end of book ${last.volume} is not implied: give its last chapter`,
            volume: last.volume,
          },
        ]
      : [];
  return { entries, problems, warnings, lastEnd };
}

function maxLabel(labels: readonly Label[]): Label {
  return labels.reduce((a, b) => (compareLabels(b, a) > 0 ? b : a));
}

/** The start of each book of an operator map (its smallest chapter), for the editor. */
export function bookStartsOf(entries: readonly MapEntryFacts[]): { volume: Label; start: Label }[] {
  const out: { volume: Label; start: Label }[] = [];
  for (const e of entries) {
    const volume = parseLabel(e.volume);
    const chapters = canonicalLabels(e.chapters);
    if (volume !== null && chapters[0] !== undefined) out.push({ volume, start: chapters[0] });
  }
  return out.sort((a, b) => compareLabels(a.volume, b.volume));
}

/**
 * The chapters the editor counts as known: chapter files and chapter slots, except the slots only a
 * saved operator or reading entry made (a saved later book does not vouch for the chapters before it).
 */
export function editorKnownChapters(snapshot: Pick<SeriesSnapshot, "chapters" | "files" | "mapSources">): Label[] {
  const fileChapters = snapshot.files
    .flatMap((f) => (f.kind === "chapter" ? [toLabel(f.chapter), toLabel(f.chapterEnd)] : []))
    .filter((c): c is Label => c !== null);
  const onDisk = new Set(fileChapters);
  const mapOnly = new Set(
    snapshot.mapSources
      .filter((m) => m.kind === "operator" || m.kind === "reading")
      .flatMap((m) => m.entries.flatMap((e) => e.chapters.map((c) => toLabel(c))))
      .filter((c): c is Label => c !== null && !onDisk.has(c)),
  );
  const slots = snapshot.chapters
    .map((c) => toLabel(c.number))
    .filter((c): c is Label => c !== null && !mapOnly.has(c));
  return [...slots, ...fileChapters];
}
