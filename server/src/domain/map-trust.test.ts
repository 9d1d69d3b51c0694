import { describe, expect, it } from "vitest";
import type { Label } from "./labels.ts";
import {
  MAX_MAP_BOOKS,
  MAX_MAP_CHAPTERS,
  operationalMap,
  parseOperatorEntries,
  validateOperatorEntries,
  type MapProblemCode,
} from "./map-trust.ts";
import { labels, mapEntry, mapSource } from "./test-fixtures.ts";
import type { MapSourceFacts, OperationalMap } from "./types.ts";

/** A readable summary of a map for assertions. */
function summary(map: OperationalMap) {
  return {
    state: map.state,
    books: Object.fromEntries([...map.books].map(([v, cs]) => [v, cs.join(",")])),
    unknown: [...map.unknownBooks],
    conflicts: Object.fromEntries([...map.conflicts].map(([c, vs]) => [c, vs.join(",")])),
    ambiguous: [...map.ambiguousBooks],
  };
}

const owned = (spec: string): Label[] => labels(spec);

describe("operationalMap: which sources are operational (map trust 1)", () => {
  it("has no map without sources", () => {
    const map = operationalMap([], owned("1-3"));
    expect(summary(map)).toEqual({ state: "none", books: {}, unknown: [], conflicts: {}, ambiguous: [] });
    expect(map.revision).toBe(0);
  });

  it.each(["catalogue", "official", "estimate"] as const)(
    "never uses a %s source, even a dense ordered one",
    (kind) => {
      const map = operationalMap([mapSource(kind, { "1": "1-10", "2": "11-20" })], owned("1-20"));
      expect(map.state).toBe("none");
      expect(map.books.size).toBe(0);
      expect(map.chapterToBook.size).toBe(0);
    },
  );

  it.each(["operator", "reading"] as const)("uses a %s source", (kind) => {
    const map = operationalMap([mapSource(kind, { "1": "1-3", "2": "4-5" })], owned("1-5"));
    expect(summary(map)).toMatchObject({ state: "exact", books: { "1": "1,2,3", "2": "4,5" } });
    expect(map.chapterToBook.get("4")).toBe("2");
  });

  it("keeps catalogue claims out while the operator maps other books", () => {
    const map = operationalMap(
      [
        mapSource("operator", { "1": "1-3" }),
        mapSource("catalogue", { "1": "1-4", "2": "5-8" }),
        mapSource("estimate", { "2": "4-8" }),
      ],
      [],
    );
    expect(summary(map).books).toEqual({ "1": "1,2,3" });
    expect(map.chapterToBook.has("5")).toBe(false);
  });

  it("takes the operator revision, 0 without an operator map", () => {
    expect(operationalMap([mapSource("operator", { "1": "1" }, { revision: 7 })], []).revision).toBe(7);
    expect(operationalMap([mapSource("reading", { "1": "1" }, { revision: 7 })], []).revision).toBe(0);
  });
});

describe("operationalMap: chapter zero, decimals and canonical labels", () => {
  it("maps chapter 0 and decimal boundaries exactly", () => {
    const map = operationalMap([mapSource("operator", [mapEntry("1", "0, 1, 2, 2.5"), mapEntry("2", "3, 10.05")])], []);
    expect(summary(map).books).toEqual({ "1": "0,1,2,2.5", "2": "3,10.05" });
    expect(map.chapterToBook.get("0")).toBe("1");
    expect(map.chapterToBook.has("10.5")).toBe(false);
  });

  it("re-canonicalises stored labels and ignores text that is not a label", () => {
    const source: MapSourceFacts = {
      id: 1,
      kind: "operator",
      name: "operator",
      revision: 1,
      entries: [{ volume: "01" as Label, chapters: ["010", "10.50", "x", "11"] as Label[] }],
    };
    const map = operationalMap([source], []);
    expect(summary(map).books).toEqual({ "1": "10,10.5,11" });
  });
});

describe("operationalMap: explicit unknown membership (map trust 4)", () => {
  it("records an empty entry as unknown, not as a book", () => {
    const map = operationalMap([mapSource("operator", { "1": "1-3", "2": "" })], []);
    expect(summary(map)).toMatchObject({ state: "exact", books: { "1": "1,2,3" }, unknown: ["2"] });
  });

  it("has no map when every entry is empty", () => {
    expect(operationalMap([mapSource("operator", { "1": "", "2": "" })], owned("1")).state).toBe("none");
  });
});

describe("operationalMap: operator and reading combined (operator first)", () => {
  it("lets the operator's entry own a book a reading also describes", () => {
    const map = operationalMap([mapSource("reading", { "1": "1-4" }), mapSource("operator", { "1": "1-3" })], []);
    expect(summary(map).books).toEqual({ "1": "1,2,3" });
    expect(map.conflicts.size).toBe(0);
  });

  it("lets an empty operator entry suppress the reading of that book", () => {
    const map = operationalMap([mapSource("operator", { "2": "" }), mapSource("reading", { "2": "4-6" })], []);
    expect(summary(map)).toMatchObject({ books: {}, unknown: ["2"], state: "none" });
  });

  it("trims the operator's chapters from a reading of another book instead of conflicting", () => {
    const map = operationalMap([mapSource("operator", { "1": "1-4" }), mapSource("reading", { "2": "4-6" })], []);
    expect(summary(map).books).toEqual({ "1": "1,2,3,4", "2": "5,6" });
    expect(map.conflicts.size).toBe(0);
  });

  it("drops a reading left with nothing after trimming (it does not become 'unknown')", () => {
    const map = operationalMap([mapSource("operator", { "1": "1-6" }), mapSource("reading", { "2": "4-6" })], []);
    expect(summary(map)).toMatchObject({ books: { "1": "1,2,3,4,5,6" }, unknown: [] });
  });

  it("keeps readings of books the operator does not describe", () => {
    const map = operationalMap(
      [mapSource("operator", { "1": "1-3" }), mapSource("reading", { "2": "4-6", "3": "" })],
      [],
    );
    expect(summary(map)).toMatchObject({ books: { "1": "1,2,3", "2": "4,5,6" }, unknown: ["3"] });
  });

  it("unites several sources of one kind per book", () => {
    const map = operationalMap([mapSource("reading", { "1": "1-2" }), mapSource("reading", { "1": "3" })], []);
    expect(summary(map).books).toEqual({ "1": "1,2,3" });
  });
});

describe("operationalMap: conflicts never pick the higher volume (map trust 3)", () => {
  it("leaves a chapter claimed twice inside one source unmapped", () => {
    const map = operationalMap([mapSource("operator", { "1": "1-5", "2": "5-8" })], []);
    expect(map.chapterToBook.has("5")).toBe(false);
    expect(summary(map)).toMatchObject({ conflicts: { "5": "1,2" }, ambiguous: ["1", "2"] });
    expect(summary(map).books).toEqual({ "1": "1,2,3,4,5", "2": "5,6,7,8" });
  });

  it("leaves a chapter claimed by two operator sources unmapped", () => {
    const map = operationalMap([mapSource("operator", { "3": "20" }), mapSource("operator", { "4": "20" })], []);
    expect(summary(map).conflicts).toEqual({ "20": "3,4" });
  });

  it("leaves a chapter two readings place in different books unmapped", () => {
    const map = operationalMap([mapSource("reading", { "1": "9-10" }), mapSource("reading", { "2": "10-12" })], []);
    expect(summary(map).conflicts).toEqual({ "10": "1,2" });
    expect(map.chapterToBook.get("9")).toBe("1");
    expect(map.chapterToBook.get("11")).toBe("2");
  });
});

describe("operationalMap: state (map trust 5)", () => {
  const source = mapSource("operator", { "1": "1-10", "2": "11-20" });
  it.each([
    ["every owned chapter inside a book", "1-20", false, "exact"],
    ["no owned chapter", "", false, "exact"],
    ["an owned chapter between books is outside", "1-20, 10.5", false, "partial"],
    ["an owned chapter before the first book is outside", "0, 1-20", true, "partial"],
    ["a finished work: chapters after the last book are outside", "1-25", false, "partial"],
    ["a running work: chapters after the last book are its open tail", "1-25", true, "exact"],
    ["a running work: a gap is still outside", "1-20, 15.5, 21", true, "partial"],
  ])("%s", (_name, ownedSpec, openTail, state) => {
    expect(operationalMap([source], owned(ownedSpec), { openTail }).state).toBe(state);
  });

  it("counts an owned conflicting chapter as outside (it is unmapped)", () => {
    const conflicting = mapSource("operator", { "1": "1-5", "2": "5-8" });
    expect(operationalMap([conflicting], owned("1-4")).state).toBe("exact");
    expect(operationalMap([conflicting], owned("1-5")).state).toBe("partial");
  });
});

describe("validateOperatorEntries", () => {
  const raw = (volume: string, chapters: string[]) => ({ volume, chapters });
  it.each<[string, { volume: string; chapters: string[] }[], MapProblemCode[]]>([
    ["a valid map", [raw("1", ["0", "1", "2"]), raw("2", ["3", "3.5"])], []],
    ["an explicitly unknown book", [raw("1", [])], []],
    ["an invalid volume", [raw("one", ["1"])], ["invalid_volume"]],
    ["a negative volume", [raw("-1", ["1"])], ["invalid_volume"]],
    ["an invalid chapter", [raw("1", ["1", "1,5"])], ["invalid_chapter"]],
    ["a float written with an exponent", [raw("1", ["1e3"])], ["invalid_chapter"]],
    ["a volume given twice (canonically)", [raw("3", ["1"]), raw("03", ["2"])], ["duplicate_volume"]],
    ["a chapter repeated in one book (canonically)", [raw("1", ["10.5", "10.50"])], ["duplicate_chapter"]],
    ["a chapter in two books", [raw("1", ["1", "2"]), raw("2", ["2", "3"])], ["chapter_in_two_volumes"]],
    [
      "several problems at once",
      [raw("x", []), raw("1", ["a", "1"]), raw("2", ["1"])],
      ["invalid_volume", "invalid_chapter", "chapter_in_two_volumes"],
    ],
  ])("%s", (_name, entries, codes) => {
    expect(validateOperatorEntries(entries).map((p) => p.code)).toEqual(codes);
  });

  it("names the books a chapter is claimed by", () => {
    const [problem] = validateOperatorEntries([raw("2", ["7"]), raw("1", ["7"])]);
    expect(problem).toMatchObject({ code: "chapter_in_two_volumes", chapter: "7", volumes: ["1", "2"] });
  });

  it("refuses maps beyond the size limits", () => {
    const books = Array.from({ length: MAX_MAP_BOOKS + 1 }, (_, i) => raw(String(i + 1), []));
    expect(validateOperatorEntries(books).map((p) => p.code)).toEqual(["too_many_books"]);
    const chapters = Array.from({ length: MAX_MAP_CHAPTERS + 1 }, (_, i) => String(i));
    expect(validateOperatorEntries([raw("1", chapters)]).map((p) => p.code)).toEqual(["too_many_chapters"]);
  });

  it("parses into canonical entries sorted by volume and chapter", () => {
    const parsed = parseOperatorEntries([raw("10", ["3"]), raw("2", ["002", "1.50", "1"])]);
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries).toEqual([
      { volume: "2", chapters: ["1", "1.5", "2"] },
      { volume: "10", chapters: ["3"] },
    ]);
  });
});
