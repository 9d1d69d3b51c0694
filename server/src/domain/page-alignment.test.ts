import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { label, type Label } from "./labels.ts";
import {
  alignChapter,
  bookEvidence,
  chapterSequences,
  entriesWithProposal,
  evidenceNote,
  FOUND_SHARE,
  isFound,
  MATCH_BITS,
  MIN_MATCHED,
  type ChapterSequence,
  type EvidencePage,
} from "./page-alignment.ts";
import { SIGNATURE_BITS, type PageSignature } from "./page-signature.ts";

/* ---- generated pages: random 128-bit signatures, noise as flipped bits ---- */

const WORDS = SIGNATURE_BITS / 32;

/** A deterministic random page signature (xorshift from a seed). */
function randomWords(seed: number): Uint32Array {
  // Math.imul: exact 32-bit products, so distinct 32-bit seeds give distinct pages.
  let x = Math.imul(seed | 0, 0x9e3779b1) >>> 0 || 1;
  const out = new Uint32Array(WORDS);
  for (let i = 0; i < WORDS; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x;
  }
  return out;
}

/** The same page re-encoded, resized or slightly cropped: `bits` of its signature flipped. */
function noisy(words: Uint32Array, bits: number[]): Uint32Array {
  const out = Uint32Array.from(words);
  for (const b of bits) {
    const bit = ((b % SIGNATURE_BITS) + SIGNATURE_BITS) % SIGNATURE_BITS;
    out[bit >> 5] = ((out[bit >> 5] as number) ^ (1 << (31 - (bit & 31)))) >>> 0;
  }
  return out;
}

const pageOf = (words: Uint32Array, page: number): EvidencePage => ({ page, words });
const chapter = (n: string, seeds: number[], fileId = 100 + Number(n)): ChapterSequence => ({
  number: label(n),
  fileIds: [fileId],
  pages: seeds.map((s, i) => pageOf(randomWords(s), i + 1)),
});
const seeds = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
/** A book: its pages in order, renumbered 1.. */
const book = (parts: Uint32Array[][]): EvidencePage[] => parts.flat().map((w, i) => pageOf(w, i + 1));
const wordsOf = (c: ChapterSequence) => c.pages.map((p) => p.words);
const extra = (seed: number, count: number) => seeds(seed, count).map(randomWords);

describe("alignChapter", () => {
  it("finds a chapter inside a book with a cover before it and an advertisement inside it", () => {
    const c = chapter("5", seeds(500, 20));
    const pages = wordsOf(c);
    const b = book([extra(9000, 2), pages.slice(0, 10), extra(9100, 1), pages.slice(10), extra(9200, 3)]);
    const a = alignChapter(c.pages, b);
    expect(a).toEqual({ matched: 20, bookPages: [3, 23], matchedAnyOrder: 20 });
    expect(isFound(a.matched, 20)).toBe(true);
  });

  it("tolerates a missing credits page and noisy pages", () => {
    const c = chapter("5", seeds(500, 20));
    const pages = wordsOf(c).map((w, i) => noisy(w, seeds(i * 7, 12)));
    const b = book([pages.slice(0, 19)]);
    const a = alignChapter(c.pages, b);
    expect(a.matched).toBe(19);
    expect(isFound(a.matched, 20)).toBe(true);
  });

  it("does not join two halves of a chapter far apart in the book", () => {
    const c = chapter("5", seeds(500, 20));
    const pages = wordsOf(c);
    const b = book([pages.slice(0, 10), extra(7000, 60), pages.slice(10)]);
    const a = alignChapter(c.pages, b);
    expect(a.matched).toBe(10);
    expect(a.matchedAnyOrder).toBe(20);
    expect(isFound(a.matched, 20)).toBe(false);
  });

  it("needs MIN_MATCHED pages and FOUND_SHARE of them", () => {
    expect(isFound(MIN_MATCHED - 1, MIN_MATCHED - 1)).toBe(false);
    expect(isFound(MIN_MATCHED, MIN_MATCHED)).toBe(true);
    expect(isFound(16, 20)).toBe(FOUND_SHARE <= 0.8);
    expect(isFound(15, 20)).toBe(false);
  });
});

/* ---- properties ---- */

/** Length of the longest increasing subsequence: what an in-order run can match at most. */
function lis(xs: readonly number[]): number {
  const tails: number[] = [];
  for (const x of xs) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((tails[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    tails[lo] = x;
  }
  return tails.length;
}

const noiseArb = fc.array(fc.integer({ min: 0, max: SIGNATURE_BITS - 1 }), { maxLength: MATCH_BITS - 8 });

describe("page alignment properties", () => {
  it("a shuffled chapter is never in order: its run matches at most its longest ordered subsequence", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 8, max: 30 })
          .chain((n) =>
            fc.tuple(fc.constant(n), fc.shuffledSubarray(seeds(0, n), { minLength: n, maxLength: n }), fc.nat()),
          ),
        ([n, order, seed]) => {
          const c = chapter("3", seeds(seed * 100, n));
          const pages = wordsOf(c);
          const shuffled = book([extra(seed + 50_000, 2), order.map((i) => pages[i] as Uint32Array)]);
          const a = alignChapter(c.pages, shuffled);
          expect(a.matchedAnyOrder).toBe(n);
          expect(a.matched).toBeLessThanOrEqual(lis(order));
          if (lis(order) < Math.ceil(FOUND_SHARE * n)) expect(isFound(a.matched, n)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a single shared page never makes a match", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.nat(), fc.nat({ max: 29 }), (n, seed, at) => {
        const b = chapter("9", seeds(seed * 1000 + 1, 40));
        const shared = b.pages[at % 40] as EvidencePage;
        // A distractor chapter: its own pages, one of which also is in the book.
        const pages = extra(seed * 1000 + 500, n);
        pages[((seed % n) + n) % n] = shared.words;
        const distractor: ChapterSequence = { number: label("2"), fileIds: [1], pages: pages.map(pageOf) };
        const a = alignChapter(distractor.pages, b.pages);
        expect(a.matched).toBeLessThanOrEqual(1);
        expect(isFound(a.matched, n)).toBe(false);
        const e = bookEvidence(label("1"), 1, b.pages, [distractor], []);
        expect(e.proposal).toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it("a book rebuilt from its chapters with noise (re-encoding, resizing, a crop) is always found and proposed", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 3, max: 25 }), { minLength: 1, maxLength: 12 }),
        fc.nat({ max: 20_000 }),
        noiseArb,
        fc.integer({ min: 0, max: 2 }),
        (sizes, seed, noise, inserts) => {
          const first = 10 + (seed % 50);
          const chapters = sizes.map((size, i) => chapter(String(first + i), seeds(seed * 10_000 + i * 100, size)));
          // The book: a cover, each chapter re-encoded (noise), now and then a page inserted between
          // chapters. Their seeds lie above every chapter's, so no inserted page is a chapter's page.
          const parts: Uint32Array[][] = [extra(1_500_000_000 + seed, 1)];
          chapters.forEach((c, i) => {
            parts.push(
              wordsOf(c).map((w, k) =>
                noisy(
                  w,
                  noise.map((b) => b + k + i),
                ),
              ),
            );
            if (i % 3 === 2) parts.push(extra(1_800_000_000 + seed * 20 + i, inserts));
          });
          const b = book(parts);
          const known = chapters.map((c) => c.number);
          const e = bookEvidence(label("4"), 7, b, chapters, known);
          expect(e.chapters.map((c) => [c.number, c.inOrder, c.matched])).toEqual(
            chapters.map((c) => [c.number, true, c.pages.length]),
          );
          // Proposed unless the extra pages exceed a tenth of the book.
          const chapterPages = sizes.reduce((s, x) => s + x, 0);
          const unexplained = b.length - chapterPages;
          if (unexplained <= 0.1 * b.length) expect(e.proposal).toEqual({ volume: "4", chapters: known });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("bookEvidence: the proposal", () => {
  const chapters = ["25", "26", "27", "28"].map((n, i) => chapter(n, seeds(2500 + i * 100, 20)));
  const inBook = (list: ChapterSequence[]) => book([extra(1, 2), ...list.map(wordsOf)]);

  it("proposes the chapters found in order when they explain the book but for a tenth", () => {
    const e = bookEvidence(
      label("4"),
      12,
      inBook(chapters),
      chapters,
      chapters.map((c) => c.number),
    );
    expect(e.proposal).toEqual({ volume: "4", chapters: ["25", "26", "27", "28"] });
    expect(e.chapters[0]).toMatchObject({ number: "25", fileIds: [125], pages: 20, matched: 20, bookPages: [3, 22] });
    expect(evidenceNote(e)).toBe(
      `page evidence: chapters 25–28 found in order at pages 3–82 (80 of 80 chapter pages matched, ${SIGNATURE_BITS}-bit page signatures)`,
    );
  });

  it("no proposal when a known chapter between the found ones is missing from them", () => {
    const without27 = chapters.filter((c) => c.number !== "27");
    const e = bookEvidence(
      label("4"),
      12,
      inBook(chapters),
      without27,
      chapters.map((c) => c.number),
    );
    expect(e.chapters.map((c) => c.number)).toEqual(["25", "26", "28"]);
    expect(e.proposal).toBeNull();
  });

  it("no proposal when the chapters appear out of their reading order", () => {
    const swapped = [chapters[0], chapters[2], chapters[1], chapters[3]] as ChapterSequence[];
    const e = bookEvidence(
      label("4"),
      12,
      inBook(swapped),
      chapters,
      chapters.map((c) => c.number),
    );
    expect(e.chapters.every((c) => c.inOrder)).toBe(true);
    expect(e.proposal).toBeNull();
  });

  it("no proposal for a book of another edition: a fifth of its pages are not these chapters", () => {
    const b = book([...chapters.map(wordsOf), extra(77_000, 20)]);
    const e = bookEvidence(
      label("4"),
      12,
      b,
      chapters,
      chapters.map((c) => c.number),
    );
    expect(e.chapters.every((c) => c.inOrder)).toBe(true);
    expect(e.proposal).toBeNull();
  });

  it("reports the best of two copies of a chapter, and lists pages found out of order without proposing", () => {
    const other = chapter("26", seeds(40_000, 20), 999);
    const e = bookEvidence(
      label("4"),
      12,
      inBook(chapters),
      [...chapters, other],
      chapters.map((c) => c.number),
    );
    expect(e.chapters.find((c) => c.number === "26")?.fileIds).toEqual([126]);
    const pages = wordsOf(chapters[0] as ChapterSequence);
    const shuffled = book([[...pages].reverse()]);
    const s = bookEvidence(label("4"), 12, shuffled, [chapters[0] as ChapterSequence], []);
    expect(s.chapters).toMatchObject([{ number: "25", inOrder: false, matchedAnyOrder: 20 }]);
    expect(s.proposal).toBeNull();
  });
});

describe("chapterSequences", () => {
  const sig = (page: number, seed: number, blank = false): PageSignature => ({
    page,
    hash: [...randomWords(seed)].map((w) => w.toString(16).padStart(8, "0")).join(""),
    blank,
    mean: 200,
    stdev: blank ? 1 : 40,
  });
  const file = (id: number, chapter: string, over: Partial<{ part: number | null; end: string | null }> = {}) => ({
    id,
    chapter: label(chapter) as Label,
    chapterEnd: over.end === undefined ? null : (over.end as Label | null),
    part: over.part ?? null,
    signatures: [sig(1, id * 10), sig(2, id * 10 + 1, true), sig(3, id * 10 + 2)],
  });

  it("reads whole files, joins complete parts in part order, leaves out range files and blank pages", () => {
    const seqs = chapterSequences(
      [
        file(1, "1"),
        file(3, "2", { part: 2 }),
        file(2, "2", { part: 1 }),
        file(4, "3", { end: "4" }),
        file(5, "5", { part: 1 }),
      ],
      (c) => (c === "5" ? 2 : 1),
    );
    expect(seqs.map((s) => [s.number, s.fileIds, s.pages.length])).toEqual([
      ["1", [1], 2],
      ["2", [2, 3], 4],
    ]);
  });

  it("waits for signatures: a file without them gives no sequence", () => {
    expect(chapterSequences([{ ...file(1, "1"), signatures: null }])).toEqual([]);
  });
});

describe("entriesWithProposal", () => {
  const L = (xs: string[]) => xs.map((x) => label(x));
  it("replaces the volume's entry and keeps the others", () => {
    const r = entriesWithProposal(
      [
        { volume: label("1"), chapters: L(["1", "2"]) },
        { volume: label("2"), chapters: [] },
      ],
      { volume: label("2"), chapters: L(["4", "3"]) },
    );
    expect(r).toEqual({
      ok: true,
      entries: [
        { volume: "1", chapters: ["1", "2"] },
        { volume: "2", chapters: ["3", "4"] },
      ],
    });
  });

  it("refuses a chapter another book's entry names", () => {
    const r = entriesWithProposal([{ volume: label("1"), chapters: L(["1", "2", "3"]) }], {
      volume: label("2"),
      chapters: L(["3", "4"]),
    });
    expect(r).toEqual({ ok: false, conflicts: [{ chapter: "3", volume: "1" }] });
  });
});
