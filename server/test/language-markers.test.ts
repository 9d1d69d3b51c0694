import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { languageMarkers, markedSourceLanguage } from "../src/domain/language-markers.ts";

describe("language markers in release titles", () => {
  it.each([
    ["Blue Harbor v03 [JP]", ["ja"]],
    ["Blue Harbor v03 (Japanese)", ["ja"]],
    ["Blue Harbor v03 jpn", ["ja"]],
    ["Blue Harbor v01-05 [FR]", ["fr"]],
    ["Blue Harbor v01-05 French", ["fr"]],
    ["Blue Harbor v01-05 (Français)", ["fr"]],
    ["Blue Harbor v03 [EN]", ["en"]],
    ["Blue Harbor v03 (Digital)", []],
    ["Blue Harbor v03 [JP] [EN]", ["ja", "en"]],
  ])("%s → %j", (title, expected) => {
    expect(languageMarkers(title, { seriesTitle: "Blue Harbor" })).toEqual(expected);
  });

  it("counts short codes only inside brackets", () => {
    expect(languageMarkers("Where It Ends v02 de")).toEqual([]);
    expect(languageMarkers("Where It Ends v02 (de)")).toEqual(["de"]);
  });

  it("reads Raw as the work's original language, and as nothing when that is unknown", () => {
    expect(languageMarkers("Blue Harbor v03 Raw", { original: "ja" })).toEqual(["ja"]);
    expect(languageMarkers("Blue Harbor v03 Raw", { original: null })).toEqual([]);
  });

  it("ignores the series' own name", () => {
    expect(languageMarkers("The French Chef v01", { seriesTitle: "The French Chef" })).toEqual([]);
    expect(languageMarkers("The French Chef v01 [JP]", { seriesTitle: "The French Chef" })).toEqual(["ja"]);
  });

  it("picks the first ordered source language the title marks", () => {
    expect(markedSourceLanguage("X v01 [FR] [JP]", ["ja", "fr"])).toBe("ja");
    expect(markedSourceLanguage("X v01 [FR]", ["ja", "fr"])).toBe("fr");
    expect(markedSourceLanguage("X v01 [EN]", ["ja", "fr"])).toBeNull();
  });

  it("never marks a language for a title without markers (property)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Z][a-z]{3,8}$/), fc.integer({ min: 1, max: 99 }), (word, n) => {
        expect(
          markedSourceLanguage(
            `${word} Harbor v${n} (Digital)`,
            ["ja", "fr", "ko", "zh", "de", "es", "it", "pt", "en"],
            { seriesTitle: `${word} Harbor` },
          ),
        ).toBeNull();
      }),
    );
  });
});
