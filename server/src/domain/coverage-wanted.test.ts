/** Coverage, continued: what is wanted, the counting unit, estimates, the map state, big series, editions. */
import { describe, expect, it } from "vitest";
import { seriesForm } from "./series-form.ts";
import {
  bookFile,
  bookOf,
  chapterFile,
  chapterOf,
  chapterSlot,
  chapterSlots,
  coverageOf as index,
  labels,
  partFile,
  proofFor,
  rangeFile,
  seriesFacts,
  snapshot,
  volumeSlots,
  type SnapshotSpec,
} from "./test-fixtures.ts";
import type { CoverageIndex } from "./types.ts";
import { buildCoverageIndex } from "./coverage.ts";

describe("wanted", () => {
  it.each([
    ["a monitored missing chapter", {}, true],
    ["an unmonitored chapter", { chapters: [chapterSlot("1", { monitored: false })] }, false],
    ["a chapter of an unmonitored series", { series: { monitored: false } }, false],
    ["a chapter on disk", { files: [chapterFile("1")] }, false],
    ["a split chapter missing a part", { chapters: [chapterSlot("1", { parts: 2 })], files: [partFile("1", 1)] }, true],
  ] as [string, SnapshotSpec, boolean][])("chapters form: %s", (_name, spec, wanted) => {
    expect(chapterOf(index({ chapters: "1", series: { status: "running" }, ...spec }), "1").wanted).toBe(wanted);
  });

  it("never wants a chapter without a slot", () => {
    const idx = index({ chapters: "1", operator: { "1": "1-2" }, series: { status: "running" } });
    expect(chapterOf(idx, "2")).toMatchObject({ slotId: null, monitored: false, wanted: false });
  });

  describe("books form: chapters only through explicit assignments", () => {
    const books: SnapshotSpec = { series: { status: "finished", knownBookCount: 3 }, chapters: "1-9", volumes: "1-3" };
    it("does not want a chapter no saved boundary assigns", () => {
      expect(chapterOf(index(books), "5").wanted).toBe(false);
    });

    it("wants the chapters assigned to a missing monitored book", () => {
      const idx = index({ ...books, operator: { "2": "4-6" } });
      expect(idx.chapters.filter((c) => c.wanted).map((c) => c.number)).toEqual(labels("4-6"));
    });

    it("wants the chapters of an owned book that cannot cover them", () => {
      const idx = index({ ...books, operator: { "2": "4-6" }, files: [bookFile("2", { pageCount: 700 })] });
      expect(chapterOf(idx, "4").wanted).toBe(true);
    });

    it("does not want the chapters of an unmonitored book", () => {
      const idx = index({ ...books, volumes: volumeSlots("1-3", { monitored: false }), operator: { "2": "4-6" } });
      expect(chapterOf(idx, "4").wanted).toBe(false);
    });

    it("follows the form the caller decided", () => {
      expect(chapterOf(index(books, { form: "chapters" }), "5").wanted).toBe(true);
    });
  });

  it.each([
    ["a monitored missing book", {}, true],
    ["an owned book", { files: [bookFile("1")] }, false],
    [
      "an owned translation (owned, even if it covers nothing)",
      { files: [bookFile("1", { origin: "translation" })] },
      false,
    ],
    ["a book complete from chapters", { operator: { "1": "1-2" }, files: [chapterFile("1"), chapterFile("2")] }, false],
    ["an unmonitored book", { volumes: volumeSlots("1", { monitored: false }) }, false],
    ["a book of an unmonitored series", { series: { monitored: false } }, false],
  ] as [string, SnapshotSpec, boolean][])("books: %s", (_name, spec, wanted) => {
    expect(bookOf(index({ chapters: "1-2", volumes: "1", ...spec }), "1").wanted).toBe(wanted);
  });
});

describe("the counting unit is the series form", () => {
  it.each([
    [{ status: "finished", knownBookCount: 10 }, "books"],
    [{ status: "paused", editionBookCount: 12 }, "books"],
    [{ status: "running", knownBookCount: 10 }, "chapters"],
    [{ status: "finished", knownBookCount: 10, webtoon: true }, "chapters"],
    [{ status: "finished", knownBookCount: null }, "chapters"],
    [{ status: "running", formOverride: "books" }, "books"],
  ] as const)("%o → %s", (over, form) => {
    expect(seriesForm(seriesFacts(over))).toBe(form);
  });
});

describe("estimates are display only", () => {
  const spec: SnapshotSpec = {
    chapters: "1-12",
    volumes: "1-3",
    operator: { "1": "1-4" },
    files: [bookFile("2"), chapterFile("6")],
  };
  it("fills estimatedBook and estimatedChapters, never book or coverage", () => {
    const idx = index(spec);
    expect(chapterOf(idx, "6")).toMatchObject({ book: null, estimatedBook: "2", coverage: null, duplicateFileIds: [] });
    expect(chapterOf(idx, "2")).toMatchObject({ book: "1", estimatedBook: null });
    expect(bookOf(idx, "2")).toMatchObject({
      chapters: null,
      estimatedChapters: labels("5-8"),
      coverage: null,
      duplicateFileIds: [],
    });
  });

  it("changes nothing else when turned off", () => {
    const snap = snapshot(spec);
    const withEstimates = buildCoverageIndex(snap);
    const without = buildCoverageIndex(snap, { estimates: false });
    const strip = (i: CoverageIndex) => ({
      ...i,
      chapters: i.chapters.map((c) => ({ ...c, estimatedBook: null })),
      books: i.books.map((b) => ({ ...b, estimatedChapters: [] })),
    });
    expect(strip(withEstimates)).toEqual(without);
  });
});

describe("map state in the index", () => {
  it.each([
    ["running", "exact"],
    ["paused", "exact"],
    ["finished", "partial"],
  ] as const)("a %s series with chapters after its last book is %s", (status, state) => {
    const idx = index({ series: { status }, chapters: "1-6", operator: { "1": "1-3" }, files: [chapterFile("5")] });
    expect(idx.map.state).toBe(state);
  });

  it("ignores extras for the partial state", () => {
    const idx = index({
      chapters: [...chapterSlots("1-3"), chapterSlot("9", { extra: true })],
      operator: { "1": "1-3" },
      files: [chapterFile("9")],
    });
    expect(idx.map.state).toBe("exact");
  });
});

// Its speed is measured by `pnpm bench units` (no test asserts a time).
describe("a big series", () => {
  it("builds a 2,000-chapter, 150-book series", () => {
    const chapters = chapterSlots("1-2000");
    const operator: Record<string, string> = {};
    for (let v = 1; v <= 140; v++) operator[String(v)] = `${(v - 1) * 13 + 1}-${v * 13}`;
    const files = [
      ...Array.from({ length: 80 }, (_, i) => bookFile(String(i + 1))),
      ...Array.from({ length: 1900 }, (_, i) => chapterFile(String(i + 50))),
      ...Array.from({ length: 30 }, (_, i) => rangeFile(String(i * 60 + 1), String(i * 60 + 5))),
    ];
    const snap = snapshot({ series: { status: "running" }, chapters, volumes: "1-150", operator, files });
    const index = buildCoverageIndex(snap);
    expect(index.chapters).toHaveLength(2000);
    expect(buildCoverageIndex(snap)).toEqual(index);
  });
});

describe("one definition of wanted", () => {
  const finishedBooks = { status: "finished" as const, knownBookCount: 2 };

  it("books form without an explicit assignment: chapter slots are never wanted (map saved, then deleted)", () => {
    const idx = index({ series: finishedBooks, volumes: "1-2", chapters: "1-3" });
    expect(seriesForm(seriesFacts(finishedBooks))).toBe("books");
    expect(idx.chapters.map((c) => c.wanted)).toEqual([false, false, false]);
    expect(idx.books.map((b) => b.wanted)).toEqual([true, true]);
  });

  it("books form: an explicit assignment to a missing book lets its chapters fall back", () => {
    const idx = index({ series: finishedBooks, volumes: "1-2", chapters: "1-3", operator: { "1": "1-3" } });
    expect(idx.chapters.map((c) => c.wanted)).toEqual([true, true, true]);
  });

  it("books form: a hand-imported book is no missing book, its chapters are held", () => {
    const idx = index({
      series: finishedBooks,
      volumes: "1-2",
      chapters: "1-3",
      operator: { "1": "1-3" },
      files: [bookFile("1", { origin: "scan" })],
    });
    expect(bookOf(idx, "1")).toMatchObject({ owned: true, suspect: "hand import", wanted: false });
    expect(idx.chapters.map((c) => [c.coverage, c.held, c.wanted])).toEqual([
      [null, true, false],
      [null, true, false],
      [null, true, false],
    ]);
  });

  it("an oversized pack is replaced: the book stays wanted, and so do its chapters through the map", () => {
    const idx = index({
      series: finishedBooks,
      volumes: "1-2",
      chapters: "1-3",
      operator: { "1": "1-3" },
      files: [bookFile("1", { origin: "scan", pageCount: 900 })],
    });
    expect(bookOf(idx, "1")).toMatchObject({ owned: true, suspect: "oversized pack", replace: true, wanted: true });
    expect(idx.chapters.map((c) => c.wanted)).toEqual([true, true, true]);
  });

  it("a proof lifts the replacement: a verified oversized pack covers and is wanted no more", () => {
    const book = bookFile("1", { origin: "scan", pageCount: 900 });
    const idx = index({
      series: finishedBooks,
      volumes: "1-2",
      chapters: "1-3",
      operator: { "1": "1-3" },
      files: [book],
      verifications: [proofFor(book, "1-3")],
    });
    expect(bookOf(idx, "1")).toMatchObject({ verified: true, replace: false, wanted: false });
    expect(idx.chapters.map((c) => [c.coverage, c.wanted])).toEqual([
      ["covered_by_volume", false],
      ["covered_by_volume", false],
      ["covered_by_volume", false],
    ]);
  });

  it("no map and only a hand import: nothing is covered_unmapped, the chapters are held", () => {
    const idx = index({ series: { status: "running" }, chapters: "1-3", files: [bookFile("1", { origin: "scan" })] });
    expect(idx.map.state).toBe("none");
    expect(idx.chapters.map((c) => [c.coverage, c.held, c.wanted])).toEqual([
      [null, true, false],
      [null, true, false],
      [null, true, false],
    ]);
  });
});

describe("the managed edition governs the books", () => {
  it("lists only the edition's slots, whatever order the counts arrived in", () => {
    // Created with a known count of 6 (slots 1–6), then edition_book_count 3.
    const idx = index({ series: { status: "finished", knownBookCount: 6, editionBookCount: 3 }, volumes: "1-6" });
    expect(idx.books.map((b) => b.number)).toEqual(labels("1-3"));
    expect(idx.books.every((b) => !b.extra && b.wanted)).toBe(true);
  });

  it("keeps a book beyond the edition that a file or map entry names, as an extra never wanted", () => {
    const idx = index({
      series: { status: "finished", knownBookCount: 6, editionBookCount: 3 },
      volumes: "1-6",
      operator: { "5": "40-45" },
      files: [bookFile("4")],
    });
    expect(idx.books.map((b) => [b.number, b.extra, b.wanted])).toEqual([
      ["1", false, true],
      ["2", false, true],
      ["3", false, true],
      ["4", true, false],
      ["5", true, false],
    ]);
  });
});
