import { describe, expect, it } from "vitest";
import { byCatalogue, conflictSentence, gradeWord, hitFacts, statusWord } from "./catalogue";
import type { CatalogueHit } from "./queries";

const hit = (catalogue: CatalogueHit["catalogue"], id: string): CatalogueHit => ({
  catalogue,
  catalogueId: id,
  title: id,
  status: null,
  year: null,
  coverPreviewUrl: null,
  volumes: null,
  chapters: null,
  url: null,
});

describe("catalogue words", () => {
  it("states only what the catalogue states", () => {
    expect(hitFacts({ year: 2019, status: "COMPLETED", volumes: 3, chapters: 24 })).toBe(
      "2019 · Completed · 3 books · 24 chapters",
    );
    expect(hitFacts({ year: null, status: null, volumes: 1, chapters: null })).toBe("1 book");
    expect(statusWord(null)).toBe("Status unknown");
    expect(gradeWord("CONFLICT")).toEqual({ text: "Conflict", tone: "warn" });
  });

  it("groups results per catalogue in catalogue order", () => {
    const groups = byCatalogue([hit("ANILIST", "a"), hit("MANGADEX", "m1"), hit("MANGADEX", "m2")]);
    expect(groups.map((g) => [g.catalogue, g.hits.map((h) => h.catalogueId)])).toEqual([
      ["MANGADEX", ["m1", "m2"]],
      ["ANILIST", ["a"]],
    ]);
  });

  it("words a contested chapter", () => {
    expect(conflictSentence({ chapter: "8", volumes: ["2", "3"] })).toBe(
      "Chapter 8 is listed under books 2 and 3: it is in none of them.",
    );
  });
});
