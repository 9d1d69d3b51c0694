/**
 * Completion plan of a book, the series completion status and the user-facing wording of
 * plans (docs/rules.md, "Plans").
 *
 * Plans read only exact facts of the coverage index: never `estimatedChapters`, never a catalogue.
 * An estimate may lay a book out on screen but it never makes a book assemblable (docs/rules.md,
 * "Map trust" 7).
 *
 * | plan                                     | condition (first that holds)                                          |
 * |------------------------------------------|-----------------------------------------------------------------------|
 * | book on disk                             | an active book file exists (`owned`), suspect or not                   |
 * | assemble when its chapters are complete  | exact map, the book's entry is known and unambiguous, and its chapters |
 * |                                          | are complete on disk                                                  |
 * | in part                                  | some of its mapped chapters are on disk, or they are all on disk but   |
 * |                                          | the boundary is not exact (map partial/none, entry unknown, ambiguous) |
 * | missing                                  | nothing of it is on disk                                              |
 *
 * The counts exclude decimal extras (a book whose every numbered chapter is on disk is complete from
 * chapters, extras or not), as `chaptersMapped`/`chaptersOnDisk` already do. An estimated layout
 * never counts: estimates never authorise assembly (docs/rules.md, "Map trust" 7).
 */
import type { BookState, OperationalMap, Plan, PlanWording, SeriesCompletion } from "./types.ts";

/** The book's chapters are exactly known: the map is exact and its entry is non-empty and unambiguous. */
export function hasExactBoundary(book: BookState, map: OperationalMap): boolean {
  return map.state === "exact" && book.chapters !== null && book.chapters.length > 0 && !book.ambiguous;
}

/**
 * Every main chapter of the book's entry is on disk. `coverage` (from coverage.ts) says so for unowned
 * books; the counts say so for owned ones too, which the series' completion needs (an owned book
 * whose chapters are complete is redundant in an "all chapters" series).
 */
export function chaptersComplete(book: BookState): boolean {
  if (book.coverage === "covered_by_chapters") return true;
  return book.chaptersMapped > 0 && book.chaptersOnDisk >= book.chaptersMapped;
}

/** The book can be completed from its chapters alone (exact boundary and complete chapters). */
export function completesFromChapters(book: BookState, map: OperationalMap): boolean {
  return hasExactBoundary(book, map) && chaptersComplete(book);
}

export function bookPlan(book: BookState, map: OperationalMap): Plan {
  if (book.owned) return "book on disk";
  if (completesFromChapters(book, map)) return "assemble when its chapters are complete";
  // Content is on disk but the book cannot be built from it: the boundary is not exact.
  if (book.chaptersOnDisk > 0 || book.coverage === "covered_by_chapters") return "in part";
  return "missing";
}

/**
 * The books the series' completion judges: the edition's book slots. A book without a slot (an old
 * file numbered past the managed edition) neither completes nor blocks the series. When no book has a slot, every book
 * counts. A book beyond the managed edition (`extra`) never counts, slot or not.
 */
function editionBooks(books: readonly BookState[]): readonly BookState[] {
  const inEdition = books.filter((b) => !b.extra);
  const slotted = inEdition.filter((b) => b.slotId !== null);
  return slotted.length > 0 ? slotted : inEdition;
}

/**
 * "all books" when every book is on disk; else "all chapters" when every book completes from its
 * chapters (an owned book is then redundant); else null. "all books" is checked first: with every book
 * on disk, the chapter files inside them are the duplicates, not the books.
 */
export function seriesCompletion(books: readonly BookState[], map: OperationalMap): SeriesCompletion {
  const edition = editionBooks(books);
  if (edition.length === 0) return null;
  if (edition.every((b) => b.owned)) return "all books";
  if (edition.every((b) => completesFromChapters(b, map))) return "all chapters";
  return null;
}

/** An owned book in a series that completes from chapters: nothing needs it (docs/rules.md, "Plans"). */
export function isRedundantBook(book: { owned: boolean }, status: SeriesCompletion): boolean {
  return status === "all chapters" && book.owned;
}

/**
 * The sentence a book row shows for its plan. Books first: the book is the goal and chapters fill
 * gaps; chapters first: chapters are the goal and the book is the fallback.
 */
export const PLAN_WORDING: Readonly<Record<Plan, Readonly<Record<PlanWording, string>>>> = {
  "book on disk": {
    books_first: "Book on disk",
    chapters_first: "Book on disk",
  },
  "assemble when its chapters are complete": {
    books_first: "Chapters complete: assemble the book",
    chapters_first: "Chapters complete: the book can be assembled from them",
  },
  "in part": {
    books_first: "Some chapters on disk: search the book, then the missing chapters",
    chapters_first: "Some chapters on disk: search the missing chapters, the book only if they fall short",
  },
  missing: {
    books_first: "Search the book, then chapters",
    chapters_first: "Search chapters, then the book",
  },
};

export function planWording(plan: Plan, preference: PlanWording): string {
  return PLAN_WORDING[plan][preference];
}
