import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { languageInSeries, normalizeLanguageTag } from "./file-language.ts";

describe("normalizeLanguageTag", () => {
  it.each<[string | null, string | null]>([
    ["en", "en"],
    ["EN", "en"],
    ["en-US", "en-US"],
    ["en-us", "en-US"],
    ["pt_BR", "pt-BR"],
    ["PT-br", "pt-BR"],
    ["es-419", "es-419"],
    ["zh-hant", "zh-Hant"],
    ["zh-Hant-TW", "zh-Hant"],
    ["sr-Latn-RS", "sr-Latn"],
    ["de-DE-1996", "de-DE"],
    ["jpn", "jpn"],
    [" fr ", "fr"],
    ["und", null],
    ["mul", null],
    ["zxx", null],
    ["English", null],
    ["en-", null],
    ["", null],
    [null, null],
  ])("%s → %s", (text, expected) => {
    expect(normalizeLanguageTag(text)).toBe(expected);
  });
});

describe("languageInSeries", () => {
  it.each<[string, string, string]>([
    // [file's stored language, series language, the file's language in that series]
    ["en", "en", "en"],
    ["en-US", "en", "en"],
    ["en-GB", "en", "en"],
    ["pt", "pt-BR", "pt-BR"],
    ["pt-BR", "pt-BR", "pt-BR"],
    ["pt-br", "pt-BR", "pt-BR"],
    ["pt-PT", "pt-BR", "pt-PT"],
    ["pt-BR", "pt", "pt"],
    ["es-419", "es", "es"],
    ["es", "es-419", "es-419"],
    ["zh-Hant", "zh-Hans", "zh-Hant"],
    ["fr", "en", "fr"],
    ["fr-CA", "en-US", "fr-CA"],
    ["ja", "en", "ja"],
  ])("%s in a %s series → %s", (language, series, expected) => {
    expect(languageInSeries(language, series)).toBe(expected);
  });

  const tag = fc
    .tuple(fc.constantFrom("en", "pt", "es", "zh", "fr"), fc.option(fc.constantFrom("US", "BR", "PT", "419", "Hant")))
    .map(([base, sub]) => (sub === null ? base : `${base}-${sub}`));

  it("is the series' language or the file's own, and another base language is never the series'", () => {
    fc.assert(
      fc.property(tag, tag, (language, series) => {
        const read = languageInSeries(language, series);
        expect([language, series]).toContain(read);
        if (language.split("-")[0] !== series.split("-")[0]) expect(read).toBe(language);
        // The series' own language always reads as itself.
        expect(languageInSeries(series, series)).toBe(series);
      }),
    );
  });
});
