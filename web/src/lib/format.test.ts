import { describe, expect, it } from "vitest";
import {
  UNKNOWN_CONTENT_SENTENCE,
  bookCell,
  completionLabel,
  coverageLabel,
  formLabel,
  languageLabel,
  mapExplanation,
  pagesLabel,
  planLabel,
  planTone,
  publicationLabel,
  seriesMeta,
  unitName,
  unknownContentNotice,
} from "./format";
import type { Coverage, MapState, Plan } from "./types";

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
    expect(planLabel("WAITING_FOR_SCAN" as never)).toBe("Waiting for scan");
  });

  it("names units with their exact labels", () => {
    expect(unitName({ kind: "CHAPTER", number: "10.5" })).toBe("Chapter 10.5");
    expect(unitName({ kind: "BOOK", number: "0" })).toBe("Book 0");
  });
});

describe("plans", () => {
  const plans: Plan[] = ["BOOK_ON_DISK", "ASSEMBLE_WHEN_CHAPTERS_COMPLETE", "IN_PART", "MISSING"];

  it("words every plan in both preferences, differently", () => {
    for (const plan of plans) {
      const books = planLabel(plan, "BOOKS_FIRST");
      const chapters = planLabel(plan, "CHAPTERS_FIRST");
      expect(books).not.toBe("");
      expect(chapters).not.toBe("");
      expect(books).not.toBe(chapters);
      expect(books).not.toMatch(/_/);
    }
    expect(planLabel("BOOK_ON_DISK")).toBe("Book on disk");
    expect(planLabel("ASSEMBLE_WHEN_CHAPTERS_COMPLETE", "BOOKS_FIRST")).toBe(
      "Assemble the book when its chapters are complete",
    );
    expect(planLabel("MISSING", "CHAPTERS_FIRST")).toBe("Chapters missing");
  });

  it("has no words and no tone for chapters (plan null)", () => {
    expect(planLabel(null, "BOOKS_FIRST")).toBe("");
    expect(planTone(null)).toBe("none");
    expect(plans.map(planTone)).toEqual(["good", "info", "warn", "bad"]);
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

  it("states the unknown content without an exact map only", () => {
    expect(UNKNOWN_CONTENT_SENTENCE).toBe(
      "The content of each book is unknown: chapters are kept and no book counts as covered.",
    );
    expect(unknownContentNotice("NONE")).toBe(UNKNOWN_CONTENT_SENTENCE);
    expect(unknownContentNotice("PARTIAL")).toBe(UNKNOWN_CONTENT_SENTENCE);
    expect(unknownContentNotice("EXACT")).toBeNull();
  });

  it("words the series completion", () => {
    expect(completionLabel(null)).toBeNull();
    expect(completionLabel("ALL_BOOKS")).toMatch(/every book is on disk/);
    expect(completionLabel("ALL_CHAPTERS")).toMatch(/chapters/);
  });
});

describe("bookCell", () => {
  it("shows the exact-map book as it is", () => {
    expect(bookCell({ book: "3", estimatedBook: "4" })).toEqual({ text: "3", estimate: false });
  });

  it("words an estimate as one, never as the book", () => {
    expect(bookCell({ book: null, estimatedBook: "10.5" })).toEqual({ text: "≈ vol 10.5 (estimate)", estimate: true });
  });

  it("is empty without either", () => {
    expect(bookCell({ book: null, estimatedBook: null })).toEqual({ text: "", estimate: false });
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
