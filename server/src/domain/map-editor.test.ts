import { describe, expect, it } from "vitest";
import { bookStartsOf, entriesFromBookStarts, type BookStartsProblemCode } from "./map-editor.ts";
import { labels, mapEntries } from "./test-fixtures.ts";

const starts = (spec: Record<string, string>) => Object.entries(spec).map(([volume, start]) => ({ volume, start }));

describe("entriesFromBookStarts: books before the last", () => {
  it("gives each book [its start, the next start), every whole number included", () => {
    const result = entriesFromBookStarts(starts({ "1": "1", "2": "5", "3": "9" }), labels("1-3, 6, 9-12"), {
      lastEnd: "12",
    });
    expect(result.entries).toEqual(mapEntries({ "1": "1-4", "2": "5-8", "3": "9-12" }));
    expect(result.problems).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it("includes known decimals and chapter zero but never invents decimals", () => {
    const result = entriesFromBookStarts(starts({ "1": "0", "2": "3.5" }), labels("0, 1, 2, 2.5, 3.5, 4"), {
      lastEnd: "4",
    });
    expect(result.entries).toEqual([
      { volume: "1", chapters: labels("0, 1, 2, 2.5, 3") },
      { volume: "2", chapters: labels("3.5, 4") },
    ]);
  });

  it("sorts books by volume and accepts non-canonical input", () => {
    const result = entriesFromBookStarts(starts({ "02": "004", "1": "1" }), labels("1-5"), { lastEnd: "5" });
    expect(result.entries).toEqual(mapEntries({ "1": "1-3", "2": "4-5" }));
  });
});

describe("entriesFromBookStarts: the end of the last book", () => {
  const known = labels("1-30, 30.5");
  it("ends at the end the operator gives", () => {
    const result = entriesFromBookStarts(starts({ "1": "1", "2": "11" }), known, { lastEnd: "20" });
    expect(result.entries[1]?.chapters).toEqual(labels("11-20"));
    expect(result.lastEnd).toEqual({ chapter: "20", reason: "given" });
  });

  it("includes a given end that is not a known chapter", () => {
    const result = entriesFromBookStarts(starts({ "1": "1" }), labels("1-3"), { lastEnd: "4.5" });
    expect(result.entries[0]?.chapters).toEqual(labels("1-4, 4.5"));
  });

  it("ends at the last known chapter when a finished work's last book is the edition's last", () => {
    const result = entriesFromBookStarts(starts({ "1": "1", "2": "11", "3": "21" }), known, {
      finished: true,
      bookCount: 3,
    });
    expect(result.entries[2]?.chapters).toEqual(labels("21-30, 30.5"));
    expect(result.lastEnd).toEqual({ chapter: "30.5", reason: "finished_last_book" });
  });

  it.each([
    ["a running work", { finished: false, bookCount: 3 }],
    ["a finished work whose later books are not given", { finished: true, bookCount: 4 }],
    ["a finished work with an unknown book count", { finished: true, bookCount: null }],
  ])("leaves the last book unknown for %s and asks for its end", (_name, options) => {
    const result = entriesFromBookStarts(starts({ "1": "1", "2": "11", "3": "21" }), known, options);
    expect(result.entries).toEqual(mapEntries({ "1": "1-10", "2": "11-20", "3": "" }));
    expect(result.lastEnd).toEqual({ chapter: null, reason: "unknown" });
    expect(result.warnings).toEqual([{ code: "last_book_end_unknown", message: expect.any(String), volume: "3" }]);
  });

  it("does not imply an end when no known chapter reaches the last start", () => {
    const result = entriesFromBookStarts(starts({ "1": "1", "2": "40" }), known, { finished: true, bookCount: 2 });
    expect(result.entries[1]).toEqual({ volume: "2", chapters: [] });
  });
});

describe("entriesFromBookStarts: refusals", () => {
  it.each<[string, { volume: string; start: string }[], object, BookStartsProblemCode[]]>([
    [
      "starts that do not increase with the volume",
      starts({ "1": "5", "2": "5" }),
      { lastEnd: "9" },
      ["starts_not_increasing"],
    ],
    ["a later book starting earlier", starts({ "1": "10", "2": "1" }), { lastEnd: "20" }, ["starts_not_increasing"]],
    [
      "a volume given twice",
      [
        { volume: "1", start: "1" },
        { volume: "01", start: "5" },
      ],
      { lastEnd: "9" },
      ["duplicate_volume"],
    ],
    ["an invalid volume", starts({ v1: "1" }), {}, ["invalid_volume"]],
    ["an invalid start", starts({ "1": "one" }), {}, ["invalid_chapter"]],
    ["an invalid end", starts({ "1": "1" }), { lastEnd: "end" }, ["invalid_chapter"]],
    ["an end before the last start", starts({ "1": "1", "2": "10" }), { lastEnd: "9" }, ["end_before_start"]],
    ["a range too large to expand", starts({ "1": "1" }), { lastEnd: "100000" }, ["too_many_chapters"]],
  ])("refuses %s", (_name, input, options, codes) => {
    const result = entriesFromBookStarts(input, labels("1-20"), options);
    expect(result.problems.map((p) => p.code)).toEqual(codes);
    expect(result.entries).toEqual([]);
  });
});

describe("bookStartsOf", () => {
  it("reads the start of each book back from entries, skipping unknown books", () => {
    expect(bookStartsOf(mapEntries({ "2": "11-20", "1": "0-10", "3": "" }))).toEqual([
      { volume: "1", start: "0" },
      { volume: "2", start: "11" },
    ]);
  });

  it("round-trips with entriesFromBookStarts for contiguous whole-number books", () => {
    const original = mapEntries({ "1": "1-10", "2": "11-20", "3": "21-25" });
    const rebuilt = entriesFromBookStarts(bookStartsOf(original), labels("1-25"), { lastEnd: "25" });
    expect(rebuilt.entries).toEqual(original);
  });
});

describe("entriesFromBookStarts: extents of saved books", () => {
  it("keeps a saved last book's end when only its start moves (207–213 → start 208: 208–213)", () => {
    const saved = mapEntries({ "43": "201-206", "44": "207-213" });
    const result = entriesFromBookStarts(starts({ "43": "201", "44": "208" }), labels("1-219"), {
      finished: true,
      bookCount: 44,
      saved,
    });
    expect(result.entries.at(-1)).toEqual({ volume: "44", chapters: labels("208-213") });
    expect(result.lastEnd).toEqual({ chapter: "213", reason: "saved" });
    // Book 43 now reaches 207: the chapters before the next start.
    expect(result.entries[0]?.chapters).toEqual(labels("201-207"));
  });

  it("an end the operator gives wins over the saved one; a saved end before the new start does not apply", () => {
    const saved = mapEntries({ "44": "207-213" });
    const given = entriesFromBookStarts(starts({ "44": "207" }), labels("1-219"), { lastEnd: "219", saved });
    expect(given.lastEnd).toEqual({ chapter: "219", reason: "given" });
    const moved = entriesFromBookStarts(starts({ "44": "215" }), labels("1-219"), { saved });
    expect(moved.lastEnd).toEqual({ chapter: null, reason: "unknown" });
  });

  it("an implied end never passes the last known chapter: a saved later book far ahead claims nothing for an earlier one", () => {
    const saved = mapEntries({ "13": "135-144", "14": "145-154", "29": "295-302" });
    const result = entriesFromBookStarts(starts({ "13": "135", "14": "145", "29": "295" }), labels("1-174"), {
      saved,
    });
    expect(result.entries).toEqual(mapEntries({ "13": "135-144", "14": "145-174", "29": "295-302" }));
  });

  it("a book's own saved end counts as known: re-saving never shrinks it", () => {
    const saved = mapEntries({ "1": "1-10", "2": "11-20" });
    const result = entriesFromBookStarts(starts({ "1": "1", "2": "30" }), labels("1-5"), { saved, lastEnd: "35" });
    expect(result.entries[0]?.chapters).toEqual(labels("1-29"));
    const unknownTail = entriesFromBookStarts(starts({ "1": "1", "2": "30" }), labels("1-5"), { saved });
    expect(unknownTail.entries[0]?.chapters).toEqual(labels("1-10"));
  });
});
