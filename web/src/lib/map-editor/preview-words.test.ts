import { describe, expect, it } from "vitest";
import { describePreview } from "./preview-words";
import type { BookSide, ChapterSide, MapChangePreview } from "./types";

const ch = (coverage: ChapterSide["coverage"], book: string | null, wanted = false): ChapterSide => ({
  coverage,
  book,
  wanted,
});
const bk = (over: Partial<BookSide>): BookSide => ({
  coverage: null,
  coversChapters: false,
  chapters: null,
  wanted: false,
  ...over,
});

const base: MapChangePreview = {
  revision: 0,
  mapBefore: "NONE",
  mapAfter: "NONE",
  becomeDuplicateFileIds: [],
  stopDuplicateFileIds: [],
  books: [],
  chapters: [],
};

describe("describePreview", () => {
  it("says nothing for no change", () => {
    expect(describePreview(base)).toEqual([]);
  });

  it("words a new exact map", () => {
    const preview: MapChangePreview = {
      ...base,
      mapAfter: "EXACT",
      books: [
        {
          number: "1",
          before: bk({}),
          after: bk({ coversChapters: true, chapters: ["1", "2", "3"] }),
          becomeDuplicates: [],
          stopDuplicates: [],
        },
        {
          number: "3",
          before: bk({ wanted: true }),
          after: bk({ coverage: "COVERED_BY_CHAPTERS", chapters: ["13", "14"] }),
          becomeDuplicates: [],
          stopDuplicates: [],
        },
      ],
      chapters: [
        {
          number: "1",
          before: ch("COVERED_UNMAPPED", null),
          after: ch("COVERED_BY_VOLUME", "1"),
          becomeDuplicates: [],
          stopDuplicates: [],
        },
        {
          number: "2",
          before: ch("COVERED_UNMAPPED", null),
          after: ch("COVERED_BY_VOLUME", "1"),
          becomeDuplicates: [],
          stopDuplicates: [],
        },
        {
          number: "4",
          before: ch(null, null, false),
          after: ch("COVERED_BY_VOLUME", "2"),
          becomeDuplicates: [11, 12],
          stopDuplicates: [],
        },
        {
          number: "9",
          before: ch("COVERED_UNMAPPED", null),
          after: ch(null, null, true),
          becomeDuplicates: [],
          stopDuplicates: [],
        },
      ],
      becomeDuplicateFileIds: [11, 12],
    };
    const groups = describePreview(preview);
    const text = Object.fromEntries(groups.map((g) => [g.key, g.items]));
    expect(text.map).toEqual(["No map → exact map"]);
    expect(text["books-cover"]).toEqual(["Book 1: chapters 1–3"]);
    expect(text["books-assemble"]).toEqual(["Book 3: chapters 13–14"]);
    expect(text["books-unwanted"]).toEqual(["Book 3"]);
    expect(text["chapters-covered"]).toEqual(["Chapter 4 (book 2)"]);
    expect(text["chapters-placed"]).toEqual(["Chapters 1–2 (book 1)"]);
    expect(text["chapters-uncovered"]).toEqual(["Chapter 9"]);
    expect(text["chapters-wanted"]).toEqual(["Chapter 9"]);
    expect(text.dup).toEqual([
      "2 chapter files become duplicates (chapter 4); nothing is retired until you retire them.",
    ]);
  });

  it("words boundaries moving between books", () => {
    const preview: MapChangePreview = {
      ...base,
      mapBefore: "EXACT",
      mapAfter: "EXACT",
      books: [
        {
          number: "1",
          before: bk({ coversChapters: true, chapters: ["1", "2"] }),
          after: bk({ coversChapters: true, chapters: ["1", "2", "3"] }),
          becomeDuplicates: [],
          stopDuplicates: [],
        },
        {
          number: "2",
          before: bk({ coversChapters: true, chapters: ["3", "4"] }),
          after: bk({ coversChapters: true, chapters: ["4"] }),
          becomeDuplicates: [],
          stopDuplicates: [],
        },
      ],
      chapters: [
        {
          number: "3",
          before: ch("COVERED_BY_VOLUME", "2"),
          after: ch("COVERED_BY_VOLUME", "1"),
          becomeDuplicates: [],
          stopDuplicates: [],
        },
      ],
    };
    const text = Object.fromEntries(describePreview(preview).map((g) => [g.key, g.items]));
    expect(text.map).toBeUndefined();
    expect(text["books-chapters"]).toEqual([
      "Book 1: chapters 1–3 (was chapters 1–2)",
      "Book 2: chapter 4 (was chapters 3–4)",
    ]);
    expect(text["chapters-moved"]).toEqual(["Chapter 3 (book 2 → book 1)"]);
    expect(text["chapters-placed"]).toBeUndefined();
  });

  it("words a removal", () => {
    const preview: MapChangePreview = {
      ...base,
      mapBefore: "EXACT",
      books: [
        {
          number: "2",
          before: bk({ coverage: "COVERED_BY_CHAPTERS", coversChapters: true }),
          after: bk({}),
          becomeDuplicates: [],
          stopDuplicates: [5],
        },
      ],
      chapters: [
        {
          number: "7",
          before: ch("COVERED_BY_VOLUME", "2"),
          after: ch(null, null),
          becomeDuplicates: [],
          stopDuplicates: [5],
        },
      ],
      stopDuplicateFileIds: [5],
    };
    const text = Object.fromEntries(describePreview(preview).map((g) => [g.key, g.items]));
    expect(text["chapters-uncovered"]).toEqual(["Chapter 7"]);
    expect(text["books-uncover"]).toEqual(["Book 2"]);
    expect(text["books-unassemble"]).toEqual(["Book 2"]);
    expect(text.undup).toEqual(["1 chapter file stops being duplicates (chapter 7)."]);
  });
});
