import { describe, expect, it } from "vitest";
import { BOOK_PROBLEMS, buildCoverageIndex } from "./coverage.ts";
import { label } from "./labels.ts";
import {
  assembledRelease,
  bookFile,
  chapterFile,
  chapterSlot,
  chapterSlots,
  labels,
  partFile,
  rangeFile,
  snapshot,
  type SnapshotSpec,
} from "./test-fixtures.ts";
import type { BookState } from "./types.ts";

const bookOf = (spec: SnapshotSpec, n: string): BookState => {
  const b = buildCoverageIndex(snapshot(spec)).books.find((x) => x.number === label(n));
  if (!b) throw new Error(`no book ${n}`);
  return b;
};
const onDisk = (spec: string) => labels(spec).map((c) => chapterFile(c));

describe("covered_by_chapters: every main chapter of the exact entry on disk", () => {
  const base: SnapshotSpec = { chapters: "1-6", volumes: "1-2", operator: { "1": "1-3", "2": "4-6" } };

  it("covers a book whose mapped chapters are all on disk, and counts them", () => {
    expect(bookOf({ ...base, files: onDisk("1-3") }, "1")).toMatchObject({
      coverage: "covered_by_chapters",
      chaptersMapped: 3,
      chaptersOnDisk: 3,
      wanted: false,
    });
    expect(bookOf({ ...base, files: onDisk("1-3") }, "2")).toMatchObject({
      coverage: null,
      chaptersMapped: 3,
      chaptersOnDisk: 0,
      wanted: true,
    });
  });

  it("does not cover with one chapter missing, and names it", () => {
    const b = bookOf({ ...base, files: onDisk("1, 3") }, "1");
    expect(b).toMatchObject({ coverage: null, chaptersOnDisk: 2, chaptersMapped: 3 });
    expect(b.problems).toEqual([`${BOOK_PROBLEMS.missingChapters}: 2`]);
  });

  it("accepts range files", () => {
    expect(bookOf({ ...base, files: [rangeFile("1", "3")] }, "1").coverage).toBe("covered_by_chapters");
  });

  it("requires every part of a split chapter", () => {
    const chapters = [chapterSlot("1"), chapterSlot("2", { parts: 2 }), chapterSlot("3")];
    const spec = { ...base, chapters, operator: { "1": "1-3" } };
    expect(bookOf({ ...spec, files: [...onDisk("1, 3"), partFile("2", 1)] }, "1").coverage).toBeNull();
    expect(bookOf({ ...spec, files: [...onDisk("1, 3"), partFile("2", 1), partFile("2", 2)] }, "1").coverage).toBe(
      "covered_by_chapters",
    );
  });

  it("does not require optional extras and does not count them", () => {
    const chapters = [...chapterSlots("1-3"), chapterSlot("2.5", { extra: true })];
    const b = bookOf({ chapters, operator: { "1": "1, 2, 2.5, 3" }, files: onDisk("1-3") }, "1");
    expect(b).toMatchObject({ coverage: "covered_by_chapters", chaptersMapped: 3, chaptersOnDisk: 3 });
  });

  it("requires mapped chapters that have no slot yet (mapped chapter zero included)", () => {
    expect(bookOf({ chapters: "1-3", operator: { "1": "0-3" }, files: onDisk("1-3") }, "1")).toMatchObject({
      coverage: null,
      chaptersMapped: 4,
    });
    expect(bookOf({ chapters: "1-3", operator: { "1": "0-3" }, files: onDisk("0-3") }, "1").coverage).toBe(
      "covered_by_chapters",
    );
  });

  it("is also computed for an owned book (it may be redundant)", () => {
    expect(bookOf({ ...base, files: [bookFile("1"), ...onDisk("1-3")] }, "1")).toMatchObject({
      owned: true,
      coverage: "covered_by_chapters",
    });
  });

  it("never covers an ambiguous book, and says why", () => {
    const b = bookOf({ chapters: "1-6", operator: { "1": "1-4", "2": "4-6" }, files: onDisk("1-6") }, "1");
    expect(b).toMatchObject({ ambiguous: true, coverage: null });
    expect(b.problems).toEqual([`${BOOK_PROBLEMS.ambiguous}: chapter 4 also claimed by book 2`]);
  });

  it("never covers an explicitly unknown book", () => {
    expect(
      bookOf({ chapters: "1-6", operator: { "1": "1-3", "2": "", "3": "7-9" }, files: onDisk("4-6") }, "2").coverage,
    ).toBeNull();
  });

  it.each(["catalogue", "official", "estimate"] as const)("never covers through a %s map", (kind) => {
    expect(bookOf({ chapters: "1-3", volumes: "1", [kind]: { "1": "1-3" }, files: onDisk("1-3") }, "1")).toMatchObject({
      coverage: null,
      chapters: null,
    });
  });
});

describe("covered_by_chapters: the chapters between its mapped neighbours", () => {
  const base: SnapshotSpec = { chapters: "1-30", volumes: "1-3", operator: { "1": "1-10", "3": "21-30" } };

  it("covers a book without an entry when everything between its neighbours is on disk", () => {
    expect(bookOf({ ...base, files: onDisk("11-20") }, "2")).toMatchObject({
      coverage: "covered_by_chapters",
      chapters: null,
      chaptersMapped: 0,
    });
  });

  it("does not cover with a chapter in between missing", () => {
    expect(bookOf({ ...base, files: onDisk("11-14, 16-20") }, "2").coverage).toBeNull();
  });

  it("does not cover when a whole number in between is not known at all", () => {
    expect(bookOf({ ...base, chapters: "1-14, 16-30", files: onDisk("11-14, 16-20") }, "2").coverage).toBeNull();
  });

  it("covers every unmapped book of one gap together", () => {
    const spec = { ...base, volumes: "1-4", operator: { "1": "1-10", "4": "21-30" }, files: onDisk("11-20") };
    expect(bookOf(spec, "2").coverage).toBe("covered_by_chapters");
    expect(bookOf(spec, "3").coverage).toBe("covered_by_chapters");
  });

  it("skips optional extras and chapters another book claims", () => {
    const chapters = [...chapterSlots("1-30"), chapterSlot("15.5", { extra: true })];
    const spec = {
      ...base,
      chapters,
      volumes: "1-5",
      operator: { "1": "1-10", "3": "21-30", "5": "13" },
      files: onDisk("11, 12, 14-20"),
    };
    expect(bookOf(spec, "2").coverage).toBe("covered_by_chapters");
  });

  it.each([
    [
      "the last book (no neighbour after it)",
      { volumes: "1-4", operator: { "1": "1-10", "2": "11-20" }, files: onDisk("21-30") },
      "3",
    ],
    ["the first book (no neighbour before it)", { volumes: "0-3", operator: { "1": "1-10" } }, "0"],
    ["an ambiguous neighbour", { operator: { "1": "1-11", "3": "11, 21-30" }, files: onDisk("11-20") }, "2"],
    [
      "a contested chapter in between",
      {
        sources: [],
        operator: { "1": "1-10", "3": "21-30", "4": "15", "5": "15" },
        volumes: "1-5",
        files: onDisk("11-20"),
      },
      "2",
    ],
    ["nothing in between", { operator: { "1": "1-10", "3": "11-20" }, files: onDisk("1-20") }, "2"],
    ["an estimate only (no saved boundaries)", { operator: undefined, files: onDisk("1-30") }, "2"],
  ] as [string, SnapshotSpec, string][])("does not cover %s", (_name, over, book) => {
    expect(bookOf({ ...base, files: onDisk("11-20"), ...over }, book).coverage).toBeNull();
  });
});

describe("owned books: proofs, size and origin", () => {
  const base: SnapshotSpec = { chapters: "1-6", volumes: "1-2", operator: { "1": "1-3", "2": "4-6" } };

  it("lets a proven assembly above 600 pages cover", () => {
    const book = bookFile("1", { origin: "assembled", pageCount: 900 });
    const b = bookOf({ ...base, files: [book], releases: [assembledRelease(book, "1-3")] }, "1");
    expect(b).toMatchObject({ provenAssembly: true, coversChapters: true, pageCount: 900, problems: [] });
  });

  it("compares the proof with the entry as exact labels", () => {
    const book = bookFile("1", { origin: "assembled", pageCount: 900 });
    const release = assembledRelease(
      book,
      ["3", "02", "1.0"].map((x) => x as never),
    );
    expect(bookOf({ ...base, files: [book], releases: [release] }, "1").provenAssembly).toBe(true);
  });

  it.each([
    ["boundaries changed since the assembly", { "1": "1-4", "2": "5-6" }, 300],
    ["boundaries changed, oversized", { "1": "1-2", "2": "3-6" }, 900],
    ["its book lost its entry", { "2": "4-6" }, 300],
  ] as const)("disables an assembly's coverage when %s", (_name, operator, pageCount) => {
    const book = bookFile("1", { origin: "assembled", pageCount });
    const b = bookOf({ ...base, operator, files: [book], releases: [assembledRelease(book, "1-3")] }, "1");
    expect(b).toMatchObject({ provenAssembly: false, coversChapters: false });
    expect(b.problems).toEqual([expect.stringMatching(new RegExp(`^${BOOK_PROBLEMS.boundariesChanged}:`))]);
  });

  it("ignores a proof recorded for another volume", () => {
    const book = bookFile("1", { origin: "assembled", pageCount: 900 });
    const release = assembledRelease(book, "4-6", { volume: label("2") });
    expect(bookOf({ ...base, files: [book], releases: [release] }, "1")).toMatchObject({
      provenAssembly: false,
      coversChapters: false,
    });
  });

  it("never proves a book that is not an assembly", () => {
    const book = bookFile("1", { origin: "download", pageCount: 900 });
    const b = bookOf({ ...base, files: [book], releases: [assembledRelease(book, "1-3")] }, "1");
    expect(b).toMatchObject({ provenAssembly: false, coversChapters: false });
    expect(b.problems).toEqual([expect.stringMatching(new RegExp(`^${BOOK_PROBLEMS.oversized}:`))]);
  });

  it("reports an oversized book even before it is mapped", () => {
    expect(
      bookOf({ chapters: "1-3", volumes: "1", files: [bookFile("1", { pageCount: 1200 })] }, "1").problems,
    ).toEqual([expect.stringMatching(new RegExp(`^${BOOK_PROBLEMS.oversized}:`))]);
  });

  // A translation used to show nothing: now it is a suspect book, covering nothing.
  it("reports nothing for a book that is fine, and a suspect translation standing in for one", () => {
    expect(bookOf({ ...base, files: [bookFile("1")] }, "1").problems).toEqual([]);
    expect(bookOf({ ...base, files: [bookFile("1", { origin: "translation" })] }, "1").problems).toEqual([
      expect.stringMatching(new RegExp(`^${BOOK_PROBLEMS.suspect}: machine translation`)),
    ]);
  });

  it("lists every book the slots, files and operational map name, never a catalogue's", () => {
    const idx = buildCoverageIndex(
      snapshot({ volumes: "1", operator: { "2": "1", "3": "" }, catalogue: { "4": "2" }, files: [bookFile("5")] }),
    );
    expect(idx.books.map((b) => [b.number, b.slotId !== null])).toEqual([
      ["1", true],
      ["2", false],
      ["3", false],
      ["5", false],
    ]);
  });

  it("lists at most ten missing chapters", () => {
    const b = bookOf({ chapters: "1-20", operator: { "1": "1-20" }, files: onDisk("1") }, "1");
    expect(b.problems).toEqual([`${BOOK_PROBLEMS.missingChapters}: 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 9 more`]);
  });
});
