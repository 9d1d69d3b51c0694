/**
 * "Chapter N starts on page P" marks made while reading a book, and the chapter list they submit
 * (in page order). Only input handling: whether the chapters fit the map is the server's answer,
 * and so is the order of chapter numbers (`labelOrder`, asked through map-editor/label-order.ts).
 */
import { rankIn, type OrderLabels } from "$lib/map-editor/label-order";
import { canonicalLabel } from "$lib/map-editor/labels";

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

/**
 * The chapter the input suggests next: `next`, the whole number the service names after the
 * marked chapters (`nextWhole` of their order), else `first` while nothing is marked.
 */
export function suggestedChapter(marks: readonly Mark[], first: string, next: string | null): string {
  return marks.length === 0 || next === null ? first : next;
}

export interface ChapterList {
  /** Chapters in page order, as submitted. */
  chapters: string[];
  /** Why the marks cannot be submitted yet; empty when they can. */
  problems: string[];
  /** The service has not ordered the marked chapters yet: nothing can be submitted meanwhile. */
  pending: boolean;
}

/**
 * The submitted list: chapters in page order, which must rise with the pages in `order`, the
 * service's order of the marked chapters (null until it answered).
 */
export function chaptersFromMarks(marks: readonly Mark[], order: readonly string[] | null): ChapterList {
  const ordered = [...marks].sort((a, b) => a.page - b.page);
  const problems: string[] = [];
  if (ordered.length === 0) problems.push("Mark at least the page where the first chapter starts.");
  const ranks = ordered.map((m) => (order === null ? null : rankIn(order, m.chapter)));
  const pending = ranks.some((r) => r === null);
  for (let i = 1; i < ordered.length && !pending; i++) {
    const prev = ordered[i - 1];
    const cur = ordered[i];
    if (prev && cur && (ranks[i] ?? 0) <= (ranks[i - 1] ?? 0)) {
      problems.push(
        `Chapter ${cur.chapter} (page ${cur.page}) comes after chapter ${prev.chapter} (page ${prev.page}): chapters must rise with the pages.`,
      );
    }
  }
  return { chapters: ordered.map((m) => m.chapter), problems, pending };
}

/**
 * The chapter the first mark suggests: after the highest chapter the map places in an earlier
 * book, else 1. Which books are earlier and which chapter is highest is the service's order.
 */
export async function firstChapterHint(
  volume: string,
  entries: readonly { volume: string; chapters: readonly string[] }[],
  order: OrderLabels,
): Promise<string> {
  const volumes = (await order([volume, ...entries.map((e) => e.volume)])).labels;
  const own = rankIn(volumes, volume);
  if (own === null) return "1";
  const earlier = entries.filter((e) => (rankIn(volumes, e.volume) ?? own) < own).flatMap((e) => e.chapters);
  return earlier.length === 0 ? "1" : (await order(earlier)).nextWhole;
}
