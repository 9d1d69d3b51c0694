import { describe, expect, it } from "vitest";
import { filterLibrary, filterSeries, normalizeTitle, parseSeriesId, sortByTitle } from "./library";

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

describe("filterLibrary", () => {
  const withGaps = [
    { id: 1, title: "Harbor of Paper Cranes", overview: { hasGaps: true } },
    { id: 2, title: "Lanterns of the Salt Road", overview: { hasGaps: false } },
    { id: 3, title: "Moss & Meteor", overview: { hasGaps: true } },
  ];

  it("keeps only series with gaps when asked, in title order", () => {
    expect(titles(filterLibrary(withGaps, { query: "", gapsOnly: true }))).toEqual([
      "Harbor of Paper Cranes",
      "Moss & Meteor",
    ]);
    expect(titles(filterLibrary(withGaps, { query: "", gapsOnly: false }))).toHaveLength(3);
  });

  it("combines the search with the gaps filter", () => {
    expect(titles(filterLibrary(withGaps, { query: "MOSS", gapsOnly: true }))).toEqual(["Moss & Meteor"]);
    expect(titles(filterLibrary(withGaps, { query: "lantern", gapsOnly: true }))).toEqual([]);
  });
});
