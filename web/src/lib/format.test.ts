import { describe, expect, it } from "vitest";
import {
  bytesLabel,
  completionLabel,
  completionWords,
  coverageLabel,
  formLabel,
  languageLabel,
  mapExplanation,
  mapLabel,
  pagesLabel,
  publicationLabel,
  seriesMeta,
  shortHash,
  unitName,
} from "./format";
import type { Coverage, MapState } from "./types";

describe("labels", () => {
  it("names forms and publication states", () => {
    expect(formLabel("BOOKS")).toBe("Books");
    expect(formLabel("CHAPTERS")).toBe("Chapters");
    expect(publicationLabel("RUNNING")).toBe("Running");
    expect(publicationLabel("FINISHED")).toBe("Finished");
    expect(publicationLabel("PAUSED")).toBe("Paused");
  });

  it("shows a value from a newer server instead of hiding it", () => {
    expect(formLabel("OMNIBUS" as never)).toBe("Omnibus");
    expect(mapLabel("FUZZY_MAP" as never)).toBe("Fuzzy map");
  });

  it("names units with their exact labels", () => {
    expect(unitName({ kind: "CHAPTER", number: "10.5" })).toBe("Chapter 10.5");
    expect(unitName({ kind: "BOOK", number: "0" })).toBe("Book 0");
  });
});

describe("coverage", () => {
  it("words every coverage value and nothing for null", () => {
    const all: Coverage[] = ["COVERED_BY_VOLUME", "COVERED_UNMAPPED", "COVERED_BY_CHAPTERS"];
    const words = all.map(coverageLabel);
    expect(new Set(words).size).toBe(3);
    expect(coverageLabel("COVERED_UNMAPPED")).toMatch(/no map/);
    expect(coverageLabel(null)).toBe("");
  });
});

describe("map state", () => {
  it("explains every state in one line", () => {
    for (const map of ["EXACT", "PARTIAL", "NONE"] as MapState[]) {
      const line = mapExplanation(map);
      expect(line).not.toContain("\n");
      expect(line.length).toBeGreaterThan(10);
    }
  });

  it("words the series completion", () => {
    expect(completionLabel(null)).toBeNull();
    expect(completionLabel("ALL_BOOKS")).toMatch(/every book is on disk/);
    expect(completionLabel("ALL_CHAPTERS")).toMatch(/chapters/);
  });
});

describe("small words", () => {
  it("counts pages", () => {
    expect(pagesLabel(null)).toBe("");
    expect(pagesLabel(1)).toBe("1 page");
    expect(pagesLabel(212)).toBe("212 pages");
  });

  it("names languages, keeping unknown codes readable", () => {
    expect(languageLabel("en")).toBe("English");
    expect(languageLabel("")).toBe("");
    expect(languageLabel("not a language!")).toBe("NOT A LANGUAGE!");
  });

  it("builds the series line", () => {
    expect(seriesMeta({ knownBookCount: 12, language: "en", monitored: false })).toBe(
      "12 books known · English · not monitored",
    );
    expect(seriesMeta({ knownBookCount: 1, language: "en", monitored: true })).toBe("1 book known · English");
    expect(seriesMeta({ knownBookCount: null, language: "en", monitored: true })).toBe("English");
  });
});

describe("completionWords", () => {
  const none = { completion: null, missingBooks: 0, missingChapters: 0, booksOwned: 0, chaptersOwned: 0 } as const;

  it("says all books or all chapters when the series is complete", () => {
    expect(completionWords({ ...none, completion: "ALL_BOOKS", booksOwned: 4 })).toBe("all books");
    expect(completionWords({ ...none, completion: "ALL_CHAPTERS", chaptersOwned: 40 })).toBe("all chapters");
  });

  it("counts what is missing, books first", () => {
    expect(completionWords({ ...none, missingBooks: 3, missingChapters: 12, booksOwned: 1 })).toBe(
      "3 books missing · 12 chapters missing",
    );
    expect(completionWords({ ...none, missingBooks: 1, booksOwned: 1 })).toBe("1 book missing");
    expect(completionWords({ ...none, missingChapters: 1, chaptersOwned: 3 })).toBe("1 chapter missing");
  });

  it("says nothing is missing, or that nothing is on disk yet", () => {
    expect(completionWords({ ...none, chaptersOwned: 12 })).toBe("nothing missing");
    expect(completionWords(none)).toBe("nothing on disk yet");
  });
});

describe("sizes and digests", () => {
  it("words byte sizes in decimal units", () => {
    expect(bytesLabel(512)).toBe("512 B");
    expect(bytesLabel(1_234)).toBe("1.2 kB");
    expect(bytesLabel(45_600_000)).toBe("46 MB");
    expect(bytesLabel(2_500_000_000)).toBe("2.5 GB");
    expect(bytesLabel(-1)).toBe("");
  });

  it("shortens a sha256 and keeps short values whole", () => {
    const hex = "0123456789abcdef".repeat(4);
    expect(shortHash(hex)).toBe("01234567…cdef");
    expect(shortHash(`sha256:${hex}`)).toBe("01234567…cdef");
    expect(shortHash("abc")).toBe("abc");
  });
});
