/**
 * What the active files of a series hold, read once for the coverage index (coverage.ts).
 *
 * - A chapter file holds its chapter; a range file ("c001-003", chapter..chapterEnd) holds every
 *   whole number of the range and every chapter slot inside it (decimals only when they are slots:
 *   a range never invents decimals). A part file holds one part of a split chapter.
 * - A book file holds its volume, unless that volume tag was derived from an estimate: an estimate
 *   is never evidence (docs/rules.md, "Map trust" 7), so such a book has no trusted volume and stays unplaced,
 *   like a book file without any volume or a chapter file without a chapter.
 * - Which books may cover their chapters is decided per file: see `judgeBookFile` (verification.ts).
 *
 * Everything is built with Maps and binary searches: no scan of chapters × files.
 */
import { compareLabels, expandRange, type Label } from "./labels.ts";
import { lowerBound, toLabel } from "./map-labels.ts";
import type { FileFacts } from "./types.ts";

/** Part number standing for a whole (unsplit or complete) copy of a chapter. */
const WHOLE = 0;

export interface Holdings {
  /** Chapter → active chapter files holding it (whole, range or part), ids ascending. */
  filesByChapter: Map<Label, number[]>;
  /** Chapter → parts on disk, each once (WHOLE = a whole copy): a short list, not a set per chapter. */
  partsByChapter: Map<Label, number[]>;
  /** Chapter file → the chapters it holds. */
  chaptersByFile: Map<number, Label[]>;
  /** Book files by trusted volume, ids ascending. */
  booksByVolume: Map<Label, FileFacts[]>;
  /** Files the holdings cannot place (no chapter, no trusted volume). */
  unplaced: number[];
}

/** The chapters a chapter file holds (see the module comment); empty when it names none. */
export function chaptersOfFile(file: FileFacts, sortedSlotLabels: readonly Label[]): Label[] {
  const first = toLabel(file.chapter);
  if (first === null) return [];
  const end = toLabel(file.chapterEnd);
  if (end === null || compareLabels(end, first) <= 0) return [first];
  const held = new Set<Label>(expandRange(first, end));
  for (let i = lowerBound(sortedSlotLabels, first); i < sortedSlotLabels.length; i++) {
    const slot = sortedSlotLabels[i] as Label;
    if (compareLabels(slot, end) > 0) break;
    held.add(slot);
  }
  return [...held];
}

/** One pass over the files. `sortedSlotLabels`: the chapter slot labels in reading order. */
export function fileHoldings(files: readonly FileFacts[], sortedSlotLabels: readonly Label[]): Holdings {
  const h: Holdings = {
    filesByChapter: new Map(),
    partsByChapter: new Map(),
    chaptersByFile: new Map(),
    booksByVolume: new Map(),
    unplaced: [],
  };
  for (const file of [...files].sort((a, b) => a.id - b.id)) {
    if (file.kind === "book") {
      const volume = file.tagSource === "estimate" ? null : toLabel(file.volume);
      if (volume === null) h.unplaced.push(file.id);
      else h.booksByVolume.set(volume, [...(h.booksByVolume.get(volume) ?? []), file]);
      continue;
    }
    const held = chaptersOfFile(file, sortedSlotLabels);
    if (held.length === 0) {
      h.unplaced.push(file.id);
      continue;
    }
    h.chaptersByFile.set(file.id, held);
    // A part number only means something on a file of one chapter.
    const part =
      held.length === 1 && file.part !== null && Number.isInteger(file.part) && file.part >= 1 ? file.part : WHOLE;
    for (const c of held) {
      const ids = h.filesByChapter.get(c);
      if (ids) ids.push(file.id);
      else h.filesByChapter.set(c, [file.id]);
      const parts = h.partsByChapter.get(c);
      if (!parts) h.partsByChapter.set(c, [part]);
      else if (!parts.includes(part)) parts.push(part);
    }
  }
  return h;
}

/**
 * Parts of a chapter on disk and whether it is complete: a whole copy is every part; otherwise
 * every part 1..parts must be present (a split chapter with a missing part is not on disk).
 */
export function chapterOnDisk(
  holdings: Holdings,
  chapter: Label,
  parts: number,
): { onDisk: boolean; partsOnDisk: number[] } {
  const present = holdings.partsByChapter.get(chapter);
  const count = Number.isInteger(parts) && parts >= 1 ? parts : 1;
  if (!present || present.length === 0) return { onDisk: false, partsOnDisk: [] };
  if (present.includes(WHOLE)) {
    const all: number[] = [];
    for (let p = 1; p <= count; p++) all.push(p);
    return { onDisk: true, partsOnDisk: all };
  }
  const partsOnDisk = [...present].sort((a, b) => a - b);
  let complete = true;
  for (let p = 1; p <= count; p++) if (!present.includes(p)) complete = false;
  return { onDisk: complete, partsOnDisk };
}

/** How a book file stands towards the current map entry of its volume (verification.ts). */
export type { BookFileProof } from "./verification.ts";
