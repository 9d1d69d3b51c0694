/**
 * Page evidence: which chapter files' pages a book file holds, in order (pure; the signatures come
 * from page-signature.ts, computed in the background by the library).
 *
 * Alignment (one chapter sequence against one book sequence, blank pages left out of both): a local
 * alignment (Smith–Waterman) over Hamming distances. Two pages match when their signatures differ
 * in at most MATCH_BITS bits; the alignment scores +MATCH per matched pair, −MISMATCH per pair that
 * does not match, −GAP_BOOK per book page skipped (a cover, a credits page, an advertisement the
 * chapter does not have) and −GAP_CHAPTER per chapter page skipped (a credits page the book dropped).
 * A skipped run costs more than a short chapter earns, so the best alignment is one contiguous run
 * in order: two halves of a chapter far apart in the book, or its pages shuffled, never add up.
 *
 * A chapter is found in a book ("in order") only when at least FOUND_SHARE of its evidence pages
 * match in that one run, and at least MIN_MATCHED of them: a single shared page (a recycled cover,
 * a recap page) never makes a match. `matchedAnyOrder` counts the chapter pages that have a match
 * anywhere in the book, to tell "not inside" from "inside, but not in order".
 *
 * Proposal (the map entry the evidence supports): the chapters found in the book, when they are
 * consecutive in reading order — no known chapter between the first and the last is missing from
 * them, and their runs follow each other in the book in the order of their numbers without
 * overlapping — and their runs explain the book's evidence pages except at most UNEXPLAINED_SHARE.
 *
 * Chapter sequences (`chapterSequences`): a whole-chapter file is one candidate; the parts of a
 * split chapter are read in part order as one candidate (the first file of each part, when every
 * part 1..n is present). Range files ("c003-004") are left out: their pages cannot be told apart by
 * chapter. When a chapter has several candidates (two sources), the one with the most matched pages
 * is reported.
 */
import { compareLabels, type Label } from "./labels.ts";
import { hamming, hashWords, SIGNATURE_BITS, type PageSignature } from "./page-signature.ts";

/** Two signatures this close are the same page (re-encoded, resized, slightly cropped). */
export const MATCH_BITS = 24;
export const MATCH = 4;
export const MISMATCH = 3;
export const GAP_BOOK = 1;
export const GAP_CHAPTER = 2;
/** A chapter is in a book when this share of its evidence pages match as one run in order… */
export const FOUND_SHARE = 0.8;
/** …and at least this many. */
export const MIN_MATCHED = 3;
/** A proposal may leave this share of the book's evidence pages unexplained (covers, extras). */
export const UNEXPLAINED_SHARE = 0.1;

/** A page as the alignment reads it. */
export interface EvidencePage {
  /** 1-based page number in its archive. */
  page: number;
  words: Uint32Array;
}

export interface ChapterSequence {
  number: Label;
  /** The files the sequence is read from, in reading order. */
  fileIds: number[];
  /** Evidence pages (blank pages left out), in reading order. */
  pages: EvidencePage[];
}

export interface Alignment {
  /** Chapter pages matched in the best run in order. */
  matched: number;
  /** First and last book page (1-based page numbers) of that run; null when nothing matched. */
  bookPages: [number, number] | null;
  /** Chapter pages with a match anywhere in the book. */
  matchedAnyOrder: number;
}

export interface ChapterEvidence extends Alignment {
  number: Label;
  fileIds: number[];
  /** Evidence pages of the chapter (blank pages left out). */
  pages: number;
  /** Found: FOUND_SHARE of its pages (and MIN_MATCHED) match as one run in order. */
  inOrder: boolean;
}

export interface BookEvidence {
  volume: Label;
  fileId: number;
  /** Evidence pages of the book (blank pages left out). */
  pages: number;
  /** Chapters with any evidence in the book (a run or pages in any order), in reading order. */
  chapters: ChapterEvidence[];
  proposal: { volume: Label; chapters: Label[] } | null;
}

/** The evidence pages of a signature list: blank pages left out, words parsed once. */
export function evidencePages(signatures: readonly PageSignature[]): EvidencePage[] {
  return signatures.filter((s) => !s.blank).map((s) => ({ page: s.page, words: hashWords(s.hash) }));
}

/** Whether a chapter's alignment finds it in the book (see the module comment). */
export function isFound(matched: number, pages: number): boolean {
  return matched >= MIN_MATCHED && matched >= Math.ceil(FOUND_SHARE * pages - 1e-9);
}

const STOP = 0;
const DIAG = 1;
const UP = 2; // a chapter page skipped
const LEFT = 3; // a book page skipped

/** The best local alignment of a chapter inside a book (see the module comment). */
export function alignChapter(chapter: readonly EvidencePage[], book: readonly EvidencePage[]): Alignment {
  const m = chapter.length;
  const n = book.length;
  if (m === 0 || n === 0) return { matched: 0, bookPages: null, matchedAnyOrder: 0 };
  const match = new Uint8Array(m * n);
  let anyOrder = 0;
  for (let i = 0; i < m; i++) {
    const a = (chapter[i] as EvidencePage).words;
    let found = false;
    for (let j = 0; j < n; j++)
      if (hamming(a, (book[j] as EvidencePage).words) <= MATCH_BITS) {
        match[i * n + j] = 1;
        found = true;
      }
    if (found) anyOrder += 1;
  }
  if (anyOrder === 0) return { matched: 0, bookPages: null, matchedAnyOrder: 0 };
  // Scores of the previous and current row, and the move into each cell.
  let prev = new Int32Array(n + 1);
  let cur = new Int32Array(n + 1);
  const move = new Uint8Array((m + 1) * (n + 1));
  let best = 0;
  let bestI = 0;
  let bestJ = 0;
  for (let i = 1; i <= m; i++) {
    cur[0] = 0;
    for (let j = 1; j <= n; j++) {
      const diag = (prev[j - 1] as number) + (match[(i - 1) * n + (j - 1)] ? MATCH : -MISMATCH);
      const up = (prev[j] as number) - GAP_CHAPTER;
      const left = (cur[j - 1] as number) - GAP_BOOK;
      let score = 0;
      let from = STOP;
      if (diag > score) {
        score = diag;
        from = DIAG;
      }
      if (up > score) {
        score = up;
        from = UP;
      }
      if (left > score) {
        score = left;
        from = LEFT;
      }
      cur[j] = score;
      move[i * (n + 1) + j] = from;
      if (score > best) {
        best = score;
        bestI = i;
        bestJ = j;
      }
    }
    [prev, cur] = [cur, prev];
  }
  let matched = 0;
  let first = -1;
  let last = -1;
  for (let i = bestI, j = bestJ; i > 0 && j > 0;) {
    const from = move[i * (n + 1) + j];
    if (from === STOP) break;
    if (from === DIAG) {
      if (match[(i - 1) * n + (j - 1)]) {
        matched += 1;
        const page = (book[j - 1] as EvidencePage).page;
        if (last < 0) last = page;
        first = page;
      }
      i -= 1;
      j -= 1;
    } else if (from === UP) i -= 1;
    else j -= 1;
  }
  return { matched, bookPages: matched > 0 ? [first, last] : null, matchedAnyOrder: anyOrder };
}

/**
 * The evidence of one book file: every chapter with any evidence in it, and the proposal.
 * `knownChapters`: the series' main chapter labels (slots and files), for "consecutive".
 */
export function bookEvidence(
  volume: Label,
  fileId: number,
  book: readonly EvidencePage[],
  chapters: readonly ChapterSequence[],
  knownChapters: readonly Label[],
): BookEvidence {
  const best = new Map<Label, ChapterEvidence>();
  for (const c of chapters) {
    const a = alignChapter(c.pages, book);
    if (a.matched === 0 && a.matchedAnyOrder === 0) continue;
    const e: ChapterEvidence = {
      number: c.number,
      fileIds: [...c.fileIds],
      pages: c.pages.length,
      ...a,
      inOrder: isFound(a.matched, c.pages.length),
    };
    const held = best.get(c.number);
    if (!held || rank(e) > rank(held)) best.set(c.number, e);
  }
  // Pages in any order below MIN_MATCHED say nothing: not listed.
  const listed = [...best.values()]
    .filter((e) => e.inOrder || Math.max(e.matched, e.matchedAnyOrder) >= MIN_MATCHED)
    .sort((a, b) => compareLabels(a.number, b.number));
  return {
    volume,
    fileId,
    pages: book.length,
    chapters: listed,
    proposal: proposalOf(volume, book, listed, knownChapters),
  };
}

/** Found first, then more pages matched in order, then in any order. */
function rank(e: ChapterEvidence): number {
  return (e.inOrder ? 1e6 : 0) + e.matched * 1e3 + e.matchedAnyOrder;
}

function proposalOf(
  volume: Label,
  book: readonly EvidencePage[],
  listed: readonly ChapterEvidence[],
  knownChapters: readonly Label[],
): BookEvidence["proposal"] {
  const found = listed.filter((e) => e.inOrder && e.bookPages !== null);
  if (found.length === 0 || book.length === 0) return null;
  // Consecutive in reading order: no known chapter between the first and the last is missing.
  const numbers = new Set(found.map((e) => e.number));
  const first = found[0] as ChapterEvidence;
  const last = found[found.length - 1] as ChapterEvidence;
  for (const k of knownChapters)
    if (compareLabels(k, first.number) > 0 && compareLabels(k, last.number) < 0 && !numbers.has(k)) return null;
  // Their runs follow each other in the book in the order of their numbers, without overlapping.
  for (let i = 1; i < found.length; i++) {
    const before = (found[i - 1] as ChapterEvidence).bookPages as [number, number];
    const after = (found[i] as ChapterEvidence).bookPages as [number, number];
    if (after[0] <= before[1]) return null;
  }
  // They explain the book's evidence pages but for UNEXPLAINED_SHARE.
  let explained = 0;
  for (const p of book)
    if (
      found.some(
        (e) => p.page >= (e.bookPages as [number, number])[0] && p.page <= (e.bookPages as [number, number])[1],
      )
    )
      explained += 1;
  if (explained < (1 - UNEXPLAINED_SHARE) * book.length - 1e-9) return null;
  return { volume, chapters: found.map((e) => e.number) };
}

/** A chapter file as `chapterSequences` reads it. */
export interface SequenceFile {
  id: number;
  chapter: Label | null;
  chapterEnd: Label | null;
  part: number | null;
  /** Its signatures; null while they are not computed. */
  signatures: readonly PageSignature[] | null;
}

/**
 * The candidate page sequences of each chapter (see the module comment); `parts`: the parts a split
 * chapter has (its slot's count). Files whose signatures are not ready give no sequence.
 */
export function chapterSequences(
  files: readonly SequenceFile[],
  parts: (chapter: Label) => number = () => 1,
): ChapterSequence[] {
  const out: ChapterSequence[] = [];
  const split = new Map<Label, Map<number, SequenceFile>>();
  for (const f of [...files].sort((a, b) => a.id - b.id)) {
    if (f.chapter === null || f.signatures === null) continue;
    if (f.chapterEnd !== null && compareLabels(f.chapterEnd, f.chapter) !== 0) continue;
    if (f.part === null) {
      out.push({ number: f.chapter, fileIds: [f.id], pages: evidencePages(f.signatures) });
      continue;
    }
    const got = split.get(f.chapter) ?? new Map<number, SequenceFile>();
    if (!got.has(f.part)) got.set(f.part, f);
    split.set(f.chapter, got);
  }
  for (const [chapter, got] of split) {
    const count = Math.max(parts(chapter), ...got.keys());
    const ordered: SequenceFile[] = [];
    for (let p = 1; p <= count; p++) {
      const f = got.get(p);
      if (f) ordered.push(f);
    }
    if (ordered.length !== count) continue;
    out.push({
      number: chapter,
      fileIds: ordered.map((f) => f.id),
      pages: ordered.flatMap((f) => evidencePages(f.signatures as PageSignature[])),
    });
  }
  return out.sort((a, b) => compareLabels(a.number, b.number) || (a.fileIds[0] ?? 0) - (b.fileIds[0] ?? 0));
}

/** "chapters 25–32 found in order at pages 3–190": the proof's note for a proposal. */
export function evidenceNote(evidence: BookEvidence): string {
  const found = evidence.chapters.filter((c) => c.inOrder && c.bookPages !== null);
  if (found.length === 0) return "page evidence: no chapter found in order";
  const chapters =
    found.length === 1
      ? `chapter ${found[0]?.number}`
      : `chapters ${found[0]?.number}–${found[found.length - 1]?.number}`;
  const firstPage = Math.min(...found.map((c) => (c.bookPages as [number, number])[0]));
  const lastPage = Math.max(...found.map((c) => (c.bookPages as [number, number])[1]));
  const pages = found.reduce((sum, c) => sum + c.pages, 0);
  const matched = found.reduce((sum, c) => sum + c.matched, 0);
  return (
    `page evidence: ${chapters} found in order at pages ${firstPage}–${lastPage} ` +
    `(${matched} of ${pages} chapter pages matched, ${SIGNATURE_BITS}-bit page signatures)`
  );
}

/**
 * The operator map after adopting a proposal: the volume's entry replaced by the proposed chapters,
 * every other entry as it is. Refused (the chapters and the books claiming them) when another
 * operator entry names one of the chapters: page evidence never moves a chapter out of another
 * book by itself.
 */
export function entriesWithProposal(
  operator: readonly { volume: Label; chapters: readonly Label[] }[],
  proposal: { volume: Label; chapters: readonly Label[] },
):
  | { ok: true; entries: { volume: Label; chapters: Label[] }[] }
  | { ok: false; conflicts: { chapter: Label; volume: Label }[] } {
  const wanted = new Set(proposal.chapters);
  const conflicts: { chapter: Label; volume: Label }[] = [];
  for (const e of operator)
    if (compareLabels(e.volume, proposal.volume) !== 0)
      for (const c of e.chapters) if (wanted.has(c)) conflicts.push({ chapter: c, volume: e.volume });
  if (conflicts.length > 0) return { ok: false, conflicts };
  const entries = operator
    .filter((e) => compareLabels(e.volume, proposal.volume) !== 0)
    .map((e) => ({ volume: e.volume, chapters: [...e.chapters] }));
  entries.push({ volume: proposal.volume, chapters: [...proposal.chapters].sort(compareLabels) });
  return { ok: true, entries: entries.sort((a, b) => compareLabels(a.volume, b.volume)) };
}
