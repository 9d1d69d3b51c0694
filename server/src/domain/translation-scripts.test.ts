/** Which destinations the local path letters: Latin, Greek and Cyrillic only. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  LOCAL_LETTERING_SCRIPTS,
  languageScripts,
  localDestinationSupported,
  SCRIPTED_LANGUAGES,
} from "./translation-scripts.ts";

describe("localDestinationSupported", () => {
  it.each(["en", "fr", "de", "pt-BR", "ru", "uk", "el", "sr"])("accepts %s", (lang) => {
    expect(localDestinationSupported(lang)).toBe(true);
  });

  it.each(["ja", "ko", "zh", "zh-Hant", "ar", "he", "hi", "th", "ka"])("refuses %s", (lang) => {
    expect(localDestinationSupported(lang)).toBe(false);
  });

  it("refuses a language whose scripts the checks do not know", () => {
    expect(localDestinationSupported("tlh")).toBe(false);
    expect(localDestinationSupported("")).toBe(false);
  });

  it("property: accepted exactly when every script of the language is Latin, Greek or Cyrillic", () => {
    fc.assert(
      fc.property(fc.constantFrom(...SCRIPTED_LANGUAGES), (lang) => {
        const scripts = languageScripts(lang) ?? [];
        expect(localDestinationSupported(lang)).toBe(scripts.every((s) => LOCAL_LETTERING_SCRIPTS.has(s)));
      }),
    );
  });
});
