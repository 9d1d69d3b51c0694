/**
 * The language identifier (eld) with the pooled judge, on short manga dialogue: what the checks
 * decide for pages of one or two bubbles and for a short book. These figures are why pages pool
 * their bubbles and short pages wait for the book (docs/benchmarks.md, "Language identification").
 */
import { beforeAll, describe, expect, it } from "vitest";
import { DIALOGUE, measurePools } from "../../test/language-samples.ts";
import { judgePool, type LanguageIdentifier } from "../domain/translation-language.ts";
import { loadLanguageIdentifier } from "./language-id.ts";

let id: LanguageIdentifier;
beforeAll(async () => {
  id = await loadLanguageIdentifier();
});
const judge = (texts: readonly string[], expected: string, rivals: readonly string[]) =>
  judgePool(texts, expected, rivals, id);

describe("the language identifier on short manga dialogue", () => {
  it("is eld, knows the tested languages, and is loaded once", async () => {
    expect(id.name).toMatch(/^eld \d+\.\d+\.\d+ \(medium/);
    for (const l of ["en", "fr", "es", "de", "it", "pt", "ru", "ja", "ko", "zh", "ar", "he", "hi"])
      expect(id.languages.has(l)).toBe(true);
    expect(await loadLanguageIdentifier()).toBe(id);
  });

  it("a single bubble is often too short to judge, and is never falsely confirmed", () => {
    const f = measurePools(judge, 1);
    expect(f.falseConfirmations, f.falseExamples.join("\n")).toBe(0);
    expect(f.undetermined / f.total).toBeGreaterThan(0.2);
  });

  it("a page of two bubbles is confirmed in most cases, and never as another language", () => {
    const f = measurePools(judge, 2);
    expect(f.falseConfirmations, f.falseExamples.join("\n")).toBe(0);
    expect(f.otherLanguage).toBe(0);
    // The rest are too short or too close to call: they wait for the book's pool.
    expect(f.confirmed / f.total).toBeGreaterThan(0.75);
    const three = measurePools(judge, 3);
    expect(three.falseConfirmations).toBe(0);
    expect(three.confirmed / three.total).toBeGreaterThan(0.95);
  });

  it("a short book (six bubbles) is confirmed in every tested language", () => {
    const f = measurePools(judge, 6);
    expect(f.falseConfirmations, f.falseExamples.join("\n")).toBe(0);
    expect(f.byLanguage).toEqual(Object.fromEntries(Object.keys(DIALOGUE).map((l) => [l, 100])));
  });

  it("judges capitals (comic lettering read by OCR) like mixed case", () => {
    const lines = [
      "BONJOUR MON AMI ! TU VAS BIEN ?",
      "JE SUIS EN RETARD, ATTENDS-MOI ICI.",
      "MERCI BEAUCOUP POUR TON AIDE.",
    ];
    expect(judge(lines, "fr", ["en"])).toMatchObject({ verdict: "confirmed", language: "fr" });
    expect(judge(["¡HOLA, AMIGO MÍO! ¿ESTÁS BIEN?", "MUCHAS GRACIAS POR TU AYUDA."], "es", ["en"])).toMatchObject({
      verdict: "confirmed",
    });
  });

  it("tells the source kept or another language from a translation", () => {
    expect(judge(["Bonjour mon ami, comment vas-tu aujourd'hui ?"], "en", ["fr"])).toMatchObject({
      verdict: "other",
      language: "fr",
    });
    expect(judge(["Hallo, mein Freund! Geht es dir gut?"], "en", ["fr"])).toMatchObject({
      verdict: "other",
      language: "de",
    });
  });
});
