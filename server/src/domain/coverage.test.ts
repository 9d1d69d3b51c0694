import { describe, expect, it } from "vitest";
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
  snapshot,
  type SnapshotSpec,
} from "./test-fixtures.ts";
import type { FileFacts } from "./types.ts";
import { buildCoverageIndex } from "./coverage.ts";
import { label } from "./labels.ts";

describe("on disk: parts and range files", () => {
  it("puts a whole chapter file on disk", () => {
    const f = chapterFile("3");
    const c = chapterOf(index({ chapters: "1-5", files: [f] }), "3");
    expect(c).toMatchObject({ onDisk: true, partsOnDisk: [1], fileIds: [f.id] });
  });

  it.each([
    ["parts 1 and 2 of 3", [1, 2], false, [1, 2]],
    ["every part", [1, 2, 3], true, [1, 2, 3]],
    ["a part twice, one missing", [1, 1, 3], false, [1, 3]],
  ])("a split chapter with %s", (_name, parts, onDisk, partsOnDisk) => {
    const files = parts.map((p) => partFile("7", p));
    const c = chapterOf(index({ chapters: [chapterSlot("7", { parts: 3 })], files }), "7");
    expect(c).toMatchObject({ onDisk, partsOnDisk, parts: 3 });
  });

  it("treats a whole copy of a split chapter as every part", () => {
    const c = chapterOf(index({ chapters: [chapterSlot("7", { parts: 2 })], files: [chapterFile("7")] }), "7");
    expect(c).toMatchObject({ onDisk: true, partsOnDisk: [1, 2] });
  });

  it("lets a range file hold every whole number and every slot inside it", () => {
    const f = rangeFile("1", "3");
    const idx = index({ chapters: "1-4, 2.5, 3.5", files: [f] });
    expect(idx.chapters.filter((c) => c.onDisk).map((c) => c.number)).toEqual(labels("1, 2, 2.5, 3"));
    expect(chapterOf(idx, "2.5").fileIds).toEqual([f.id]);
  });

  it("ignores a part number on a range file", () => {
    const idx = index({
      chapters: [chapterSlot("1", { parts: 2 }), chapterSlot("2")],
      files: [rangeFile("1", "2", { part: 1 })],
    });
    expect(chapterOf(idx, "1").onDisk).toBe(true);
  });

  it("lists files it cannot place as strays", () => {
    const noChapter = chapterFile("1", { chapter: null });
    const unknownChapter = chapterFile("99");
    const estimatedBook = bookFile("2", { tagSource: "estimate" });
    const noVolume = bookFile("1", { volume: null });
    const placed = chapterFile("1");
    const idx = index({
      chapters: "1-3",
      volumes: "1-2",
      files: [noChapter, unknownChapter, estimatedBook, noVolume, placed],
    });
    expect(idx.strayFileIds).toEqual(
      [noChapter.id, unknownChapter.id, estimatedBook.id, noVolume.id].sort((a, b) => a - b),
    );
    expect(bookOf(idx, "2").owned).toBe(false);
  });
});

describe("covered_by_volume and duplicates (exact map only)", () => {
  const base: SnapshotSpec = { chapters: "1-6", volumes: "1-2", operator: { "1": "1-3", "2": "4-6" } };

  it("covers the chapters an owned book holds and makes their files duplicates", () => {
    const book = bookFile("1");
    const dup = chapterFile("2");
    const other = chapterFile("5");
    const idx = index({ ...base, files: [book, dup, other] });
    expect(chapterOf(idx, "1")).toMatchObject({
      book: "1",
      coverage: "covered_by_volume",
      wanted: false,
      duplicateFileIds: [],
    });
    expect(chapterOf(idx, "2")).toMatchObject({
      coverage: "covered_by_volume",
      duplicateFileIds: [dup.id],
      onDisk: true,
    });
    expect(chapterOf(idx, "5")).toMatchObject({ book: "2", coverage: null, duplicateFileIds: [] });
    expect(bookOf(idx, "1")).toMatchObject({ owned: true, coversChapters: true, duplicateFileIds: [dup.id] });
  });

  it("leaves chapters of a missing book uncovered and wanted", () => {
    const idx = index({ ...base, files: [bookFile("1")] });
    expect(chapterOf(idx, "4")).toMatchObject({ coverage: null, wanted: true });
  });

  // A hand import (a scanned book too) holds what its boundaries name: it is never replaced for being
  // one, so its chapters are not fetched; a translation leaves the native chapters wanted, an
  // oversized pack is replaced (its size says another edition or a wrong split).
  it.each([
    ["a machine translation", { origin: "translation" as const }, false, false],
    ["a hand import", { origin: "import" as const }, true, false],
    ["a scanned book", { origin: "scan" as const }, true, false],
    ["an oversized book", { pageCount: 601 }, false, true],
  ])("never covers through %s on its own (a suspect book)", (_name, over, held, replace) => {
    const idx = index({ ...base, files: [bookFile("1", over), chapterFile("2")] });
    expect(bookOf(idx, "1")).toMatchObject({
      owned: true,
      coversChapters: false,
      verified: false,
      duplicateFileIds: [],
    });
    expect(bookOf(idx, "1").suspect).not.toBeNull();
    expect(bookOf(idx, "1")).toMatchObject({ replace, holdsChapters: held, wanted: replace });
    expect(chapterOf(idx, "1")).toMatchObject({ coverage: null, held, wanted: !held });
    expect(chapterOf(idx, "2").duplicateFileIds).toEqual([]);
  });

  it("lets a book of exactly 600 pages cover", () => {
    expect(bookOf(index({ ...base, files: [bookFile("1", { pageCount: 600 })] }), "1").coversChapters).toBe(true);
  });

  // Before verified books, a hand import covered on its own: now it is suspect and needs a proof to cover.
  it.each([
    ["hand import", { origin: "import" as const }],
    ["machine translation", { origin: "translation" as const }],
    ["oversized pack", { pageCount: 900 }],
  ])("lets a verified %s satisfy missing chapters but never retire chapter files", (reason, over) => {
    const book = bookFile("1", over);
    const dup = chapterFile("2");
    const idx = index({ ...base, files: [book, dup], verifications: [proofFor(book, "1-3")] });
    expect(bookOf(idx, "1")).toMatchObject({
      suspect: reason,
      verified: true,
      coversChapters: true,
      duplicateFileIds: [],
      problems: [],
    });
    expect(chapterOf(idx, "1")).toMatchObject({ coverage: "covered_by_volume", wanted: false });
    expect(chapterOf(idx, "2")).toMatchObject({ coverage: "covered_by_volume", duplicateFileIds: [] });
  });

  it.each([
    ["the content changed", (b: FileFacts) => proofFor(b, "1-3", { digest: "sha256:0000" })],
    ["the map entry changed", (b: FileFacts) => proofFor(b, "1-2")],
    ["it names another volume", (b: FileFacts) => proofFor(b, "1-3", { volume: label("2") })],
  ])("ignores a proof when %s", (_name, proof) => {
    const book = bookFile("1", { origin: "import" });
    const idx = index({ ...base, files: [book], verifications: [proof(book)] });
    expect(bookOf(idx, "1")).toMatchObject({ suspect: "hand import", verified: false, coversChapters: false });
    expect(chapterOf(idx, "1")).toMatchObject({ coverage: null, held: true, wanted: false });
  });

  it("judges a book's size against the edition: far above the median of its books is an oversized pack", () => {
    const files = [
      bookFile("1", { pageCount: 190 }),
      bookFile("2", { pageCount: 200 }),
      bookFile("3", { pageCount: 210 }),
      bookFile("4", { pageCount: 450 }),
    ];
    const idx = index({
      chapters: "1-8",
      volumes: "1-4",
      operator: { "1": "1-2", "2": "3-4", "3": "5-6", "4": "7-8" },
      files,
    });
    expect(bookOf(idx, "4")).toMatchObject({ suspect: "oversized pack", coversChapters: false });
    expect(bookOf(idx, "3")).toMatchObject({ suspect: null, coversChapters: true });
  });

  it("adds nothing to a sound book: verified or not, it covers and retires alike", () => {
    const book = bookFile("1");
    const dup = chapterFile("2");
    const snap = snapshot({ ...base, files: [book, dup] });
    const plain = buildCoverageIndex(snap);
    const proven = buildCoverageIndex({ ...snap, verifications: [proofFor(book, "1-3")] });
    expect(proven.chapters).toEqual(plain.chapters);
    expect(bookOf(proven, "1")).toEqual({ ...bookOf(plain, "1"), verified: true });
  });

  it("takes a covering file over a translation of the same book", () => {
    const idx = index({
      ...base,
      files: [bookFile("1", { origin: "translation" }), bookFile("1", { pageCount: 180 })],
    });
    expect(bookOf(idx, "1")).toMatchObject({ coversChapters: true, pageCount: 180 });
    expect(bookOf(idx, "1").fileIds).toHaveLength(2);
  });

  it("never places a book whose volume tag came from an estimate", () => {
    const idx = index({ ...base, files: [bookFile("1", { tagSource: "estimate" }), chapterFile("2")] });
    expect(bookOf(idx, "1")).toMatchObject({ owned: false, coversChapters: false });
    expect(chapterOf(idx, "2").duplicateFileIds).toEqual([]);
  });

  it("covers a mapped extra (it keeps its book membership)", () => {
    const idx = index({
      chapters: [...chapterSlots("1-2"), chapterSlot("1.5", { extra: true })],
      operator: { "1": "1, 1.5, 2" },
      files: [bookFile("1")],
    });
    expect(chapterOf(idx, "1.5")).toMatchObject({ extra: true, book: "1", coverage: "covered_by_volume" });
  });

  // "covered_by_volume: the exact map says an owned book holds the chapter": a partial map covers
  // nothing, but what its saved boundaries put in an owned book is held, never fetched twice.
  it("covers nothing under a partial map, but holds what an owned book's saved boundaries name", () => {
    const idx = index({ ...base, chapters: "1-7", files: [bookFile("1"), chapterFile("7")] });
    expect(idx.map.state).toBe("partial");
    expect(chapterOf(idx, "1")).toMatchObject({ book: "1", coverage: null, held: true, wanted: false });
    expect(chapterOf(idx, "4")).toMatchObject({ book: "2", coverage: null, held: false, wanted: true });
    expect(chapterOf(idx, "7")).toMatchObject({ book: null, coverage: null });
  });

  it("finds no duplicates while the map is partial, and finds them once it is exact", () => {
    const inside = chapterFile("2");
    const partial = index({ ...base, chapters: "1-7", files: [bookFile("1"), inside, chapterFile("7")] });
    expect(partial.map.state).toBe("partial");
    expect(chapterOf(partial, "2")).toMatchObject({ coverage: null, duplicateFileIds: [] });
    const exact = index({ ...base, chapters: "1-7", files: [bookFile("1"), inside] });
    expect(exact.map.state).toBe("exact");
    expect(chapterOf(exact, "2").duplicateFileIds).toEqual([inside.id]);
  });

  it("never covers or duplicates a conflicting chapter", () => {
    const dup = chapterFile("3");
    const idx = index({
      chapters: "1-6",
      operator: { "1": "1-3", "2": "3-6" },
      files: [bookFile("1"), bookFile("2"), dup],
    });
    expect(chapterOf(idx, "3")).toMatchObject({ book: null, ambiguous: true, coverage: null, duplicateFileIds: [] });
    // Chapter 3 is owned and in no book: the map is partial, so book 1 only holds chapter 2.
    expect(idx.map.state).toBe("partial");
    expect(chapterOf(idx, "2")).toMatchObject({ book: "1", coverage: null, held: true, wanted: false });
  });

  it.each(["catalogue", "official", "estimate"] as const)("never covers through a %s map", (kind) => {
    const idx = index({
      chapters: "1-3",
      volumes: "1",
      [kind]: { "1": "1-3" },
      files: [bookFile("1"), chapterFile("2")],
    });
    expect(idx.chapters.map((c) => c.coverage)).toEqual(["covered_unmapped", "covered_unmapped", "covered_unmapped"]);
    expect(idx.chapters.every((c) => c.book === null && c.duplicateFileIds.length === 0)).toBe(true);
  });

  it("duplicates a range file only when every chapter it holds is covered", () => {
    const partly = rangeFile("2", "4");
    const inside = rangeFile("1", "2");
    const idx = index({ ...base, files: [bookFile("1"), partly, inside] });
    expect(chapterOf(idx, "2").duplicateFileIds).toEqual([inside.id]);
    expect(bookOf(idx, "1").duplicateFileIds).toEqual([inside.id]);
  });

  it("lists a range file across two owned books on both", () => {
    const across = rangeFile("3", "4");
    const idx = index({ ...base, files: [bookFile("1"), bookFile("2"), across] });
    expect(bookOf(idx, "1").duplicateFileIds).toEqual([across.id]);
    expect(bookOf(idx, "2").duplicateFileIds).toEqual([across.id]);
  });

  it("duplicates the part files of a covered split chapter", () => {
    const p1 = partFile("2", 1);
    const idx = index({
      ...base,
      chapters: [chapterSlot("1"), chapterSlot("2", { parts: 2 }), chapterSlot("3")],
      files: [bookFile("1"), p1],
    });
    expect(chapterOf(idx, "2")).toMatchObject({ onDisk: false, duplicateFileIds: [p1.id] });
  });
});

describe("covered_unmapped: no map, owned books", () => {
  it("covers every chapter slot, which is then never wanted", () => {
    const idx = index({ chapters: "1-4", volumes: "1-2", files: [bookFile("1"), chapterFile("2")] });
    expect(idx.map.state).toBe("none");
    expect(idx.chapters.map((c) => [c.coverage, c.wanted, c.duplicateFileIds])).toEqual(
      Array.from({ length: 4 }, () => ["covered_unmapped", false, []]),
    );
  });

  it("applies when the only operator entries are explicitly unknown", () => {
    expect(chapterOf(index({ chapters: "1", operator: { "1": "" }, files: [bookFile("1")] }), "1").coverage).toBe(
      "covered_unmapped",
    );
  });

  it.each([
    ["no book is owned", []],
    ["the only book is a translation", [bookFile("1", { origin: "translation" })]],
    ["the only book is oversized", [bookFile("1", { pageCount: 900 })]],
    ["the only book's volume is an estimate", [bookFile("1", { tagSource: "estimate" })]],
  ])("does not apply when %s", (_name, files) => {
    expect(chapterOf(index({ chapters: "1-2", files }), "1")).toMatchObject({ coverage: null, wanted: true });
  });

  it("does not apply once a map exists", () => {
    const idx = index({ chapters: "1-4", operator: { "1": "1-2" }, files: [bookFile("1")] });
    expect(chapterOf(idx, "3").coverage).toBeNull();
  });
});
