/**
 * Estimates (docs/rules.md, "Map trust" 7): where the chapters of unmapped books probably are.
 *
 * Unmapped books share the current main chapters evenly. Saved boundaries (the operational map)
 * stay fixed; the chapters left over are split between the fixed intervals: a run of consecutive
 * unmapped books takes the unmapped chapters strictly between the last chapter of the mapped book
 * before it and the first chapter of the mapped book after it (open-ended at either end of the
 * series). Without any mapped book, all unmapped books share all chapters. Within a run, the pool is
 * divided in reading order in equal parts, the first books taking one more when it does not divide
 * evenly: between two described books the loose chapters are divided in equal parts among the
 * empty books that separate them.
 *
 * An estimate is computed from scratch from the current chapters, volumes and map every time: a new
 * release or a new volume count moves it, and an old estimate is never an anchor (an
 * estimated membership is only presentation). It is never membership:
 * it feeds only ChapterState.estimatedBook and BookState.estimatedChapters, nothing reads it for a
 * decision, and it is never written back (docs/rules.md, "Map trust" 7).
 *
 * Not estimated: extras (optional, they never count as main chapters), chapters the map assigns, and
 * conflicting chapters (claimed by explicit evidence; an estimate must not look like a verdict).
 * Books with an explicit empty entry (unknown on purpose) are unmapped and do take a share: the
 * estimate is only a display hint and says "about here", not "in here".
 */
import { sortLabels, type Label } from "./labels.ts";
import { lowerBound, maxLabel, minLabel, toLabel, upperBound } from "./map-labels.ts";
import type { ChapterSlotFacts, OperationalMap } from "./types.ts";

/** Chapters to estimate: canonical, main (non-extra), not assigned or contested by the map. */
function estimableChapters(chapters: readonly (ChapterSlotFacts | Label)[], map: OperationalMap): Label[] {
  const out = new Set<Label>();
  for (const c of chapters) {
    const isFacts = typeof c !== "string";
    if (isFacts && c.extra) continue;
    const l = toLabel(isFacts ? c.number : c);
    if (l === null || map.chapterToBook.has(l) || map.conflicts.has(l)) continue;
    out.add(l);
  }
  return sortLabels([...out]);
}

/**
 * Chapter → estimated book for the chapters no saved boundary places (see the module comment).
 *
 * @param chapters the current chapter slots (extras are skipped) or plain main-chapter labels
 * @param volumes the current book numbers (slots, owned books); mapped books are anchors either way
 */
export function estimateBooks(
  chapters: readonly (ChapterSlotFacts | Label)[],
  volumes: readonly Label[],
  map: OperationalMap,
): Map<Label, Label> {
  const pool = estimableChapters(chapters, map);
  const result = new Map<Label, Label>();
  if (pool.length === 0) return result;

  const all = new Set<Label>();
  for (const v of volumes) {
    const l = toLabel(v);
    if (l !== null) all.add(l);
  }
  for (const v of map.books.keys()) all.add(v);
  for (const v of map.unknownBooks) all.add(v);
  const ordered = sortLabels([...all]);

  // Runs of consecutive unmapped books, each with the open interval its neighbours leave.
  const runs: { books: Label[]; after: Label | null; before: Label | null }[] = [];
  let lastAnchorEnd: Label | null = null;
  let current: Label[] = [];
  for (const v of ordered) {
    const fixed = map.books.get(v);
    if (fixed === undefined) {
      current.push(v);
      continue;
    }
    if (current.length > 0) runs.push({ books: current, after: lastAnchorEnd, before: minLabel(fixed) });
    current = [];
    lastAnchorEnd = maxLabel(fixed);
  }
  if (current.length > 0) runs.push({ books: current, after: lastAnchorEnd, before: null });

  for (const run of runs) {
    const from = run.after === null ? 0 : upperBound(pool, run.after);
    const to = run.before === null ? pool.length : lowerBound(pool, run.before);
    // Anchors out of order can leave nothing between them, or overlap an earlier run's interval:
    // a chapter is estimated once, by the first run that reaches it.
    const free = pool.slice(from, Math.max(from, to)).filter((c) => !result.has(c));
    if (free.length === 0) continue;
    const share = Math.floor(free.length / run.books.length);
    const extra = free.length % run.books.length;
    let cursor = 0;
    run.books.forEach((book, position) => {
      const take = share + (position < extra ? 1 : 0);
      for (const c of free.slice(cursor, cursor + take)) result.set(c, book);
      cursor += take;
    });
  }
  return result;
}

/** The inverse of an estimate: book → its estimated chapters in reading order. */
export function estimatedChaptersByBook(estimates: ReadonlyMap<Label, Label>): Map<Label, Label[]> {
  const out = new Map<Label, Label[]>();
  for (const [chapter, book] of estimates) {
    const list = out.get(book);
    if (list) list.push(chapter);
    else out.set(book, [chapter]);
  }
  for (const [book, list] of out) out.set(book, sortLabels(list));
  return out;
}
