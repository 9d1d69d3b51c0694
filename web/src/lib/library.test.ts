import { describe, expect, it } from "vitest";
import { filterSeries, isNested, normalizeTitle, parseSeriesId, sortByTitle, unitCounts, unitSections } from "./library";
import type { Unit } from "./types";

const titles = (list: { title: string }[]) => list.map((s) => s.title);

const library = [
  { id: 1, title: "One Piece" },
  { id: 2, title: "Pokémon Adventures" },
  { id: 3, title: "blue period" },
  { id: 4, title: "Vol 10 Stories" },
  { id: 5, title: "Vol 2 Stories" },
  { id: 6, title: "Chainsaw Man" },
];

describe("filterSeries", () => {
  it("keeps everything for an empty or blank query, in title order", () => {
    expect(titles(filterSeries(library, ""))).toEqual([
      "blue period",
      "Chainsaw Man",
      "One Piece",
      "Pokémon Adventures",
      "Vol 2 Stories",
      "Vol 10 Stories",
    ]);
    expect(filterSeries(library, "   ")).toHaveLength(library.length);
  });

  it("ignores case, accents, punctuation and word order", () => {
    expect(titles(filterSeries(library, "ONE-PIECE"))).toEqual(["One Piece"]);
    expect(titles(filterSeries(library, "piece one"))).toEqual(["One Piece"]);
    expect(titles(filterSeries(library, "pokemon"))).toEqual(["Pokémon Adventures"]);
    expect(titles(filterSeries(library, "BLUE"))).toEqual(["blue period"]);
  });

  it("matches parts of words and requires every word", () => {
    expect(titles(filterSeries(library, "chain"))).toEqual(["Chainsaw Man"]);
    expect(filterSeries(library, "one man")).toEqual([]);
  });

  it("does not change the list it was given", () => {
    const copy = [...library];
    filterSeries(library, "o");
    expect(library).toEqual(copy);
  });
});

describe("helpers", () => {
  it("normalises titles", () => {
    expect(normalizeTitle("  Pokémon:  Adventures!! ")).toBe("pokemon adventures");
  });

  it("sorts numbers in titles naturally", () => {
    expect(titles(sortByTitle([{ title: "Vol 10" }, { title: "vol 2" }]))).toEqual(["vol 2", "Vol 10"]);
  });

  it("parses series ids from the route", () => {
    expect(parseSeriesId("7")).toBe(7);
    for (const bad of [undefined, "", "0", "-1", "1.5", "07", "abc", "99999999999"]) {
      expect(parseSeriesId(bad), String(bad)).toBeNull();
    }
  });
});

function unit(kind: Unit["kind"], number: string, extra: Partial<Unit> = {}): Unit {
  return {
    kind,
    number,
    book: null,
    owned: false,
    monitored: true,
    coverage: null,
    plan: kind === "BOOK" ? "MISSING" : null,
    estimatedBook: null,
    pageCount: null,
    fileIds: [],
    problems: [],
    extra: false,
    ...extra,
  };
}

describe("unitSections", () => {
  const units = [
    unit("BOOK", "1", { owned: true, book: "1", plan: "BOOK_ON_DISK" }),
    unit("CHAPTER", "0", { book: "1", coverage: "COVERED_BY_VOLUME" }),
    unit("CHAPTER", "1", { book: "1", coverage: "COVERED_BY_VOLUME" }),
    unit("BOOK", "2"),
    unit("CHAPTER", "10.5", { owned: true }),
  ];

  it("keeps one list in the server's reading order with an exact map", () => {
    const sections = unitSections("EXACT", units);
    expect(sections.map((s) => s.key)).toEqual(["all"]);
    expect(sections[0]!.units.map((u) => `${u.kind}${u.number}`)).toEqual(["BOOK1", "CHAPTER0", "CHAPTER1", "BOOK2", "CHAPTER10.5"]);
  });

  it("splits books and chapters without an exact map, keeping order inside each", () => {
    for (const map of ["NONE", "PARTIAL"] as const) {
      const sections = unitSections(map, units);
      expect(sections.map((s) => s.title)).toEqual(["Books", "Chapters"]);
      expect(sections[0]!.units.map((u) => u.number)).toEqual(["1", "2"]);
      expect(sections[1]!.units.map((u) => u.number)).toEqual(["0", "1", "10.5"]);
    }
  });

  it("leaves empty sections out", () => {
    expect(unitSections("NONE", [unit("CHAPTER", "1")]).map((s) => s.key)).toEqual(["chapters"]);
    expect(unitSections("EXACT", [])).toEqual([]);
  });

  it("nests only mapped chapters under an exact map", () => {
    expect(isNested("EXACT", units[1]!)).toBe(true);
    expect(isNested("EXACT", units[4]!)).toBe(false);
    expect(isNested("PARTIAL", units[1]!)).toBe(false);
    expect(isNested("EXACT", units[0]!)).toBe(false);
  });

  it("counts owned units and problems", () => {
    const counts = unitCounts([...units, unit("CHAPTER", "11", { problems: ["degraded download"] })]);
    expect(counts).toEqual({ books: 2, booksOwned: 1, chapters: 4, chaptersOwned: 1, withProblems: 1 });
  });
});
