/**
 * Reading progress that follows the content (pure). A person's place is kept per library file: the
 * 1-based page to open next and whether the file was read to the end. When the library itself
 * changes, that place must not be lost:
 *
 * 1. A chapter file replaced by another copy of the same chapter (a download from another source,
 *    a duplicate kept) hands its progress to that copy: same page (within its page count).
 * 2. Chapter files assembled into a book (or found inside a book through its exact layout) give the
 *    book one place: the first page of the first chapter, in reading order, that is not completed;
 *    completed chapters' pages count as read. Every chapter completed: the book is completed.
 * 3. A book replaced by another copy of the same volume (an external volume replacing an assembly)
 *    hands its progress to that copy.
 *
 * Progress on a file that left the library ("pending") stays where it is until a file that holds its
 * content is active; then it moves there (and leaves the old file). When the target already has a
 * place of its own, the more recent of the two wins. Nothing here reads a clock or a database: the
 * service loads the facts, asks `followProgress`, and writes the moves.
 */
import { compareLabels, labelEquals, type Label } from "./labels.ts";

export interface ProgressValue {
  /** 1-based page to open next. */
  page: number;
  completed: boolean;
  /** Milliseconds since the epoch of the last change. */
  updatedAt: number;
}

export interface ProgressFile {
  id: number;
  kind: "book" | "chapter";
  volume: Label | null;
  chapter: Label | null;
  chapterEnd: Label | null;
  part: number | null;
  pageCount: number;
}

/** One entry of a book's layout: a chapter (or one part of it) and how many pages it takes, in reading order. */
export interface LayoutEntry {
  chapter: Label;
  part: number | null;
  pages: number;
  /** The chapter file the book was assembled from, when known (exact match before labels). */
  fileId: number | null;
}

export interface FollowInput {
  /** Progress on files that are no longer active, with the facts of those files. */
  pending: { file: ProgressFile; progress: ProgressValue }[];
  /** Active files of the same series that could hold the content. */
  active: ProgressFile[];
  /** Progress already on active files (by file id). */
  existing: ReadonlyMap<number, ProgressValue>;
  /** The reading-order layout of active books (by book file id); a book without one is matched by volume only. */
  layouts: ReadonlyMap<number, readonly LayoutEntry[]>;
}

export interface ProgressMove {
  /** The pending files whose progress this consumes (their records are removed). */
  from: number[];
  to: number;
  /** The target's new progress; null: the target keeps its own (more recent) place. */
  progress: ProgressValue | null;
}

/** Clamps a page into 1..pageCount (a file of 0 pages keeps page 1). */
export function clampPage(page: number, pageCount: number): number {
  const max = Math.max(1, pageCount);
  if (!Number.isFinite(page)) return 1;
  return Math.min(max, Math.max(1, Math.trunc(page)));
}

const samePart = (a: number | null, b: number | null) => (a ?? 0) === (b ?? 0);

function sameChapterContent(a: ProgressFile, b: ProgressFile): boolean {
  if (a.kind !== "chapter" || b.kind !== "chapter" || a.chapter === null || b.chapter === null) return false;
  const endA = a.chapterEnd ?? a.chapter;
  const endB = b.chapterEnd ?? b.chapter;
  return labelEquals(a.chapter, b.chapter) && labelEquals(endA, endB) && samePart(a.part, b.part);
}

/**
 * The book's place from its chapters' places (rule 2). `chapterProgress(entry)` gives each layout
 * entry's place or null when it has none. Null when no entry has a place at all.
 */
export function bookProgressFromChapters(
  layout: readonly LayoutEntry[],
  bookPageCount: number,
  chapterProgress: (entry: LayoutEntry, index: number) => ProgressValue | null,
): ProgressValue | null {
  const places = layout.map((e, i) => chapterProgress(e, i));
  const known = places.filter((p): p is ProgressValue => p !== null);
  if (known.length === 0) return null;
  const updatedAt = Math.max(...known.map((p) => p.updatedAt));
  let offset = 0;
  for (const [i, entry] of layout.entries()) {
    if (places[i]?.completed) {
      offset += Math.max(0, entry.pages);
      continue;
    }
    return { page: clampPage(offset + 1, bookPageCount), completed: false, updatedAt };
  }
  return { page: clampPage(bookPageCount, bookPageCount), completed: true, updatedAt };
}

/** The more recent of two places (a tie keeps the one further on). */
function newer(a: ProgressValue, b: ProgressValue): ProgressValue {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt > b.updatedAt ? a : b;
  if (a.completed !== b.completed) return a.completed ? a : b;
  return a.page >= b.page ? a : b;
}

/** The newest active file of `candidates` (highest id: the latest to enter the library). */
function newest(candidates: ProgressFile[]): ProgressFile | null {
  return candidates.reduce<ProgressFile | null>((best, f) => (best === null || f.id > best.id ? f : best), null);
}

function layoutIndex(layout: readonly LayoutEntry[], file: ProgressFile): number {
  const byId = layout.findIndex((e) => e.fileId === file.id);
  if (byId >= 0) return byId;
  if (file.kind !== "chapter" || file.chapter === null) return -1;
  return layout.findIndex((e) => labelEquals(e.chapter, file.chapter!) && samePart(e.part, file.part));
}

/**
 * Where each pending place goes. Pending places with no active holder stay pending (no move names
 * them). A pending place is consumed by at most one move; a move never targets an inactive file.
 */
export function followProgress(input: FollowInput): ProgressMove[] {
  const moves: ProgressMove[] = [];
  const bookGroups = new Map<number, { from: number[] }>();
  const activeIds = new Set(input.active.map((f) => f.id));
  const pendingByFile = new Map(input.pending.filter((p) => !activeIds.has(p.file.id)).map((p) => [p.file.id, p]));
  const chapterTargets = new Map<number, number[]>();

  for (const { file } of pendingByFile.values()) {
    if (file.kind === "chapter") {
      // Rule 1: another copy of the same chapter.
      const copy = newest(input.active.filter((a) => sameChapterContent(a, file)));
      if (copy) {
        chapterTargets.set(copy.id, [...(chapterTargets.get(copy.id) ?? []), file.id]);
        continue;
      }
      // Rule 2: a book whose layout holds it.
      const books = input.active.filter((a) => {
        const layout = a.kind === "book" ? input.layouts.get(a.id) : undefined;
        return layout !== undefined && layoutIndex(layout, file) >= 0;
      });
      const book = newest(books);
      if (book) {
        const group = bookGroups.get(book.id) ?? { from: [] };
        group.from.push(file.id);
        bookGroups.set(book.id, group);
      }
      continue;
    }
    // Rule 3: another copy of the same volume.
    if (file.volume === null) continue;
    const copy = newest(
      input.active.filter((a) => a.kind === "book" && a.volume !== null && labelEquals(a.volume, file.volume!)),
    );
    if (copy) chapterTargets.set(copy.id, [...(chapterTargets.get(copy.id) ?? []), file.id]);
  }

  const byId = new Map(input.active.map((f) => [f.id, f]));
  for (const [to, from] of [...chapterTargets].sort((a, b) => a[0] - b[0])) {
    const target = byId.get(to)!;
    const incoming = from
      .map((id) => pendingByFile.get(id)!.progress)
      .map((p) => ({ ...p, page: clampPage(p.page, target.pageCount) }))
      .reduce(newer);
    const own = input.existing.get(to);
    const winner = own ? newer(own, incoming) : incoming;
    moves.push({ from: [...from].sort((a, b) => a - b), to, progress: winner === own ? null : winner });
  }

  for (const [to, group] of [...bookGroups].sort((a, b) => a[0] - b[0])) {
    const book = byId.get(to)!;
    const layout = input.layouts.get(to)!;
    const fromSet = new Set(group.from);
    const place = bookProgressFromChapters(layout, book.pageCount, (entry) => {
      // The entry's place: from a pending file of this group, else from an active copy of the chapter.
      const pending = [...pendingByFile.values()].filter(
        (p) => fromSet.has(p.file.id) && layoutIndex([entry], p.file) === 0,
      );
      const active = input.active.filter(
        (a) =>
          a.kind === "chapter" &&
          (entry.fileId === a.id ||
            (a.chapter !== null && labelEquals(a.chapter, entry.chapter) && samePart(a.part, entry.part))),
      );
      const places = [
        ...pending.map((p) => p.progress),
        ...active.map((a) => input.existing.get(a.id)).filter((p): p is ProgressValue => p !== undefined),
      ];
      return places.length === 0 ? null : places.reduce(newer);
    });
    const own = input.existing.get(to);
    const winner = place === null ? null : own ? newer(own, place) : place;
    moves.push({ from: [...group.from].sort((a, b) => a - b), to, progress: winner === own ? null : winner });
  }
  return moves;
}

/** Reading order of files inside one series: books by volume, chapters by chapter and part, books first on ties. */
export function compareReadingOrder(a: ProgressFile, b: ProgressFile): number {
  const ka = a.kind === "book" ? a.volume : a.chapter;
  const kb = b.kind === "book" ? b.volume : b.chapter;
  if (a.kind !== b.kind) return a.kind === "book" ? -1 : 1;
  if (ka !== null && kb !== null) {
    const c = compareLabels(ka, kb);
    if (c !== 0) return c;
  } else if (ka !== kb) return ka === null ? 1 : -1;
  return (a.part ?? 0) - (b.part ?? 0) || a.id - b.id;
}
