/**
 * The units view of one series (GET /api/manga/{id}/units, docs/api.md),
 * built from the snapshot and the coverage index that coverage.ts built once for the request.
 *
 * Reading order (docs/rules.md, "Series page grouping", asks only for reading order; this is how):
 * - Exact map: one run per book, books in label order. In a books-form series the book comes first
 *   and its chapters follow (the book is the header of what it holds); in a chapters-form series its
 *   chapters come first and the book closes the run (the book collects chapters already read).
 *   A chapter with no book (conflicting claims, the uncollected tail of a running work) is anchored
 *   to the last book, in book order, whose first mapped chapter is below it: inside that book's range
 *   it sits among the book's chapters in label order, past the range it follows the whole run (book
 *   included); a chapter below every book's range leads the list.
 * - No exact map ("partial", "none"): book membership is not known, so there is no interleaving: the
 *   books in label order, then the chapters (chapters form: chapters first, then books).
 * - Always last: optional extras that belong to no book, and the stray chapter files of the index.
 *
 * `book` is the chapter's book from the exact operational map (ChapterState.book) and nothing else;
 * a book unit's own `book` is null (it belongs to no book). `estimatedBook` is copied for display and
 * nothing here reads it.
 */
import { compareLabels, type Label } from "./labels.ts";
import { bookPlan, seriesCompletion } from "./plans.ts";
import { seriesForm } from "./series-form.ts";
import type {
  BookState,
  ChapterState,
  Coverage,
  CoverageIndex,
  FileFacts,
  SeriesForm,
  SeriesSnapshot,
  Unit,
  UnitsView,
} from "./types.ts";

function bookUnit(book: BookState, index: CoverageIndex): Unit {
  return {
    kind: "book",
    number: book.number,
    book: null,
    owned: book.owned,
    monitored: book.monitored,
    coverage: book.coverage,
    plan: bookPlan(book, index.map),
    estimatedBook: null,
    // Page count describes a file: only an owned book has one.
    pageCount: book.owned ? book.pageCount : null,
    fileIds: [...book.fileIds],
    duplicateFileIds: book.owned ? [...book.duplicateFileIds] : [],
    problems: [...book.problems],
    extra: book.extra,
  };
}

/** Problems a chapter row states: conflicting claims, a split chapter with parts missing. */
function chapterProblems(ch: ChapterState, index: CoverageIndex): string[] {
  const out: string[] = [];
  if (!ch.ambiguous && ch.parts <= 1) return out;
  if (ch.ambiguous) {
    const books = index.map.conflicts.get(ch.number);
    out.push(
      books && books.length > 0
        ? `claimed by books ${books.join(", ")}: not assigned`
        : "claimed by several books: not assigned",
    );
  }
  if (ch.parts > 1 && ch.partsOnDisk.length > 0 && !ch.onDisk) {
    const have = new Set(ch.partsOnDisk);
    const missing: number[] = [];
    for (let p = 1; p <= ch.parts; p++) if (!have.has(p)) missing.push(p);
    out.push(`split chapter: part${missing.length === 1 ? "" : "s"} ${missing.join(", ")} of ${ch.parts} missing`);
  }
  return out;
}

function chapterUnit(ch: ChapterState, index: CoverageIndex): Unit {
  // Coverage says what covers the chapter, owned or not; whether its files are duplicates is
  // `duplicateFileIds` (a verified book covers but never retires; a range file reaching into
  // another book is no duplicate).
  const coverage: Coverage | null = ch.coverage;
  const unit: Unit = {
    kind: "chapter",
    number: ch.number,
    book: ch.book,
    owned: ch.onDisk,
    monitored: ch.monitored,
    coverage,
    plan: null,
    estimatedBook: ch.estimatedBook,
    pageCount: null,
    // The index is built for this view and read by nothing after it: its lists are handed over
    // rather than copied (thousands of them in a long series).
    fileIds: ch.fileIds,
    duplicateFileIds: ch.duplicateFileIds,
    problems: chapterProblems(ch, index),
    extra: ch.extra,
  };
  if (ch.title) unit.title = ch.title;
  return unit;
}

/**
 * Stray chapter files (no slot, no book) become extra rows so they stay visible and retirable. Files
 * already listed by a chapter state are skipped; a file without a chapter label, or an unplaced book
 * file, has no row (the audit lists it).
 */
function strayUnits(files: readonly FileFacts[], strayIds: readonly number[], listed: ReadonlySet<number>): Unit[] {
  const wanted = new Set(strayIds);
  const byLabel = new Map<Label, Unit>();
  for (const f of files) {
    if (!wanted.has(f.id) || listed.has(f.id) || f.kind !== "chapter" || f.chapter === null) continue;
    const row = byLabel.get(f.chapter);
    if (row) row.fileIds.push(f.id);
    else
      byLabel.set(f.chapter, {
        kind: "chapter",
        number: f.chapter,
        book: null,
        owned: true,
        monitored: false,
        coverage: null,
        plan: null,
        estimatedBook: null,
        pageCount: null,
        fileIds: [f.id],
        duplicateFileIds: [],
        problems: ["file without a chapter slot"],
        extra: true,
      });
  }
  return [...byLabel.values()];
}

const byNumber = (a: { number: Label }, b: { number: Label }): number => compareLabels(a.number, b.number);

interface Range {
  first: Label;
  last: Label;
}

/** Exact-map order: book runs with their chapters, loose chapters placed by the runs' ranges. */
function interleave(form: SeriesForm, books: Unit[], chapters: Unit[], ranges: Map<Label, Range>): Unit[] {
  const runIndex = new Map<Label, number>(books.map((b, i) => [b.number, i]));
  const inner: Unit[][] = books.map(() => []);
  // Chapters past a run's end are rare (a running work's tail): their lists are made when needed.
  const after: (Unit[] | undefined)[] = [];
  const leading: Unit[] = [];
  // Sweep: books sorted by their first chapter; the anchor is the highest book index seen so far.
  const starts = books
    .map((b, i) => ({ i, range: ranges.get(b.number) }))
    .filter((s): s is { i: number; range: Range } => s.range !== undefined)
    .sort((a, b) => compareLabels(a.range.first, b.range.first));
  let next = 0;
  let anchor = -1;
  for (const ch of chapters) {
    while (next < starts.length && compareLabels(starts[next]!.range.first, ch.number) < 0)
      anchor = Math.max(anchor, starts[next++]!.i);
    const own = ch.book === null ? undefined : runIndex.get(ch.book);
    if (own !== undefined) inner[own]!.push(ch);
    else if (anchor < 0) leading.push(ch);
    else {
      // Inside the anchor's range: among its chapters; past its end: after the whole run.
      const range = ranges.get(books[anchor]!.number)!;
      if (compareLabels(ch.number, range.last) < 0) inner[anchor]!.push(ch);
      else (after[anchor] ??= []).push(ch);
    }
  }
  const out = leading;
  for (let i = 0; i < books.length; i++) {
    if (form === "books") out.push(books[i]!);
    for (const ch of inner[i]!) out.push(ch);
    if (form !== "books") out.push(books[i]!);
    for (const ch of after[i] ?? []) out.push(ch);
  }
  return out;
}

/** Reading order of the units (see the module comment); sorts `books` and `chapters` in place. */
function orderUnits(
  form: SeriesForm,
  exact: boolean,
  books: Unit[],
  chapters: Unit[],
  ranges: Map<Label, Range>,
): Unit[] {
  books.sort(byNumber);
  chapters.sort(byNumber);
  const isTrailing = (ch: Unit) => ch.extra && ch.book === null;
  const trailing = chapters.filter(isTrailing);
  const body = trailing.length === 0 ? chapters : chapters.filter((ch) => !isTrailing(ch));
  let ordered: Unit[];
  if (exact) ordered = interleave(form, books, body, ranges);
  else ordered = form === "books" ? books.concat(body) : body.concat(books);
  for (const ch of trailing) ordered.push(ch);
  return ordered;
}

export function buildUnitsView(snapshot: SeriesSnapshot, index: CoverageIndex): UnitsView {
  const form = seriesForm(snapshot.series);
  const books = index.books.map((b) => bookUnit(b, index));
  const chapters = index.chapters.map((c) => chapterUnit(c, index));
  if (index.strayFileIds.length > 0) {
    const listed = new Set(index.chapters.flatMap((c) => c.fileIds));
    chapters.push(...strayUnits(snapshot.files, index.strayFileIds, listed));
  }
  const ranges = new Map<Label, Range>();
  for (const b of index.books) {
    if (b.chapters === null || b.chapters.length === 0) continue;
    let first = b.chapters[0]!;
    let last = first;
    for (const c of b.chapters) {
      if (compareLabels(c, first) < 0) first = c;
      if (compareLabels(c, last) > 0) last = c;
    }
    ranges.set(b.number, { first, last });
  }
  return {
    seriesId: snapshot.series.id,
    form,
    map: index.map.state,
    status: seriesCompletion(index.books, index.map),
    planWording: snapshot.series.planWording,
    units: orderUnits(form, index.map.state === "exact", books, chapters, ranges),
  };
}
