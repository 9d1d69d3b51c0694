/**
 * A series at a glance, for the library card (GraphQL `Series.overview`): counts, gaps and the
 * cover, computed from the units view only (the same view the series page groups).
 *
 * Decisions:
 * - Counted units: every book unit, and the main chapter units. Optional extras (and stray chapter
 *   files, which the units view lists as extras) never count: they are optional by definition.
 * - Owned: the unit is on disk (a book file; every part of a chapter).
 * - Missing: a monitored unit that is neither owned nor covered (coverage null). A book covered by
 *   its chapters, or a chapter inside an owned book, is not missing; an unmonitored hole is the
 *   operator's choice and not a gap. This is the series page's "monitored hole" (grouping.ts), so
 *   the card and the page's "Problems only" agree. A book and its own chapters may both be missing:
 *   each kind is counted on its own, as the card shows books and chapters separately.
 * - hasGaps: missingBooks + missingChapters > 0.
 * - completion: the units view's status ("all books", "all chapters" or null).
 * - Cover: the first owned book with a file in reading order, else the first owned main chapter,
 *   else the first owned extra; null when nothing is owned. Books come first whatever the form:
 *   a book's first page is its printed cover, a chapter's first page is usually a title page.
 * - Estimates (`estimatedBook`) are never read: an estimate changes no count (a property test).
 */
import type { SeriesCompletion, Unit, UnitsView } from "./types.ts";

export interface SeriesOverview {
  /** The file whose first page is the series' cover; null when nothing is owned. */
  coverFileId: number | null;
  completion: SeriesCompletion;
  books: number;
  booksOwned: number;
  /** Main chapters (extras excluded). */
  chapters: number;
  chaptersOwned: number;
  missingBooks: number;
  missingChapters: number;
  hasGaps: boolean;
}

/** Monitored, not on disk, covered by nothing. */
export const isMissingUnit = (u: Pick<Unit, "monitored" | "owned" | "coverage">): boolean =>
  u.monitored && !u.owned && u.coverage === null;

export function seriesOverview(view: UnitsView): SeriesOverview {
  let books = 0,
    booksOwned = 0,
    chapters = 0,
    chaptersOwned = 0,
    missingBooks = 0,
    missingChapters = 0;
  let firstBook: number | null = null,
    firstChapter: number | null = null,
    firstExtra: number | null = null;
  for (const u of view.units) {
    const file = u.owned ? (u.fileIds[0] ?? null) : null;
    if (u.kind === "book") {
      books += 1;
      if (u.owned) booksOwned += 1;
      if (isMissingUnit(u)) missingBooks += 1;
      firstBook ??= file;
    } else if (u.extra) {
      firstExtra ??= file;
    } else {
      chapters += 1;
      if (u.owned) chaptersOwned += 1;
      if (isMissingUnit(u)) missingChapters += 1;
      firstChapter ??= file;
    }
  }
  return {
    coverFileId: firstBook ?? firstChapter ?? firstExtra,
    completion: view.status,
    books,
    booksOwned,
    chapters,
    chaptersOwned,
    missingBooks,
    missingChapters,
    hasGaps: missingBooks + missingChapters > 0,
  };
}
