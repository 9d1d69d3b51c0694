/**
 * "Chapter N starts on page P" marks made while reading a book, and the chapter list they submit
 * (in page order). Only input handling: whether the chapters fit the map is the server's answer.
 */
import { canonicalLabel, compareLabels, nextWhole } from "$lib/map-editor/labels";

export interface Mark {
  page: number;
  /** Canonical chapter label. */
  chapter: string;
}

export type MarkResult = { ok: true; marks: Mark[] } | { ok: false; message: string };

/** Adds a mark (one per page: marking a page again replaces its chapter). */
export function addMark(marks: readonly Mark[], page: number, chapterText: string): MarkResult {
  const chapter = canonicalLabel(chapterText);
  if (chapter === null) return { ok: false, message: "Enter the chapter as a number, such as 7 or 7.5." };
  const other = marks.find((m) => m.chapter === chapter && m.page !== page);
  if (other)
    return {
      ok: false,
      message: `Chapter ${chapter} is already marked on page ${other.page}. Remove that mark first.`,
    };
  const next = [...marks.filter((m) => m.page !== page), { page, chapter }].sort((a, b) => a.page - b.page);
  return { ok: true, marks: next };
}

export function removeMark(marks: readonly Mark[], page: number): Mark[] {
  return marks.filter((m) => m.page !== page);
}

/** The chapter the input suggests next: after the highest chapter marked so far, else `first`. */
export function suggestedChapter(marks: readonly Mark[], first: string): string {
  const top = [...marks]
    .map((m) => m.chapter)
    .sort(compareLabels)
    .at(-1);
  return top === undefined ? first : nextWhole(top);
}

export interface ChapterList {
  /** Chapters in page order, as submitted. */
  chapters: string[];
  /** Why the marks cannot be submitted yet; empty when they can. */
  problems: string[];
}

/** The submitted list: chapters in page order, which must rise with the pages. */
export function chaptersFromMarks(marks: readonly Mark[]): ChapterList {
  const ordered = [...marks].sort((a, b) => a.page - b.page);
  const problems: string[] = [];
  if (ordered.length === 0) problems.push("Mark at least the page where the first chapter starts.");
  for (let i = 1; i < ordered.length; i++) {
    const prev = ordered[i - 1];
    const cur = ordered[i];
    if (prev && cur && compareLabels(cur.chapter, prev.chapter) <= 0) {
      problems.push(
        `Chapter ${cur.chapter} (page ${cur.page}) comes after chapter ${prev.chapter} (page ${prev.page}): chapters must rise with the pages.`,
      );
    }
  }
  return { chapters: ordered.map((m) => m.chapter), problems };
}

/**
 * The chapter the first mark suggests: after the highest chapter the map places in an earlier
 * book, else 1.
 */
export function firstChapterHint(volume: string, entries: readonly { volume: string; chapters: string[] }[]): string {
  let top: string | null = null;
  for (const e of entries) {
    if (compareLabels(e.volume, volume) >= 0) continue;
    for (const c of e.chapters) if (top === null || compareLabels(c, top) > 0) top = c;
  }
  return top === null ? "1" : nextWhole(top);
}
