import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { debianPackageOf, missingModelMessage, ocrModels, ocrPlan } from "./ocr-models.ts";

describe("ocrModels", () => {
  it.each([
    ["ja", ["jpn", "jpn_vert"]],
    ["jpn", ["jpn", "jpn_vert"]],
    ["JA", ["jpn", "jpn_vert"]],
    ["ko", ["kor", "kor_vert"]],
    ["zh", ["chi_sim", "chi_sim_vert"]],
    ["zh-CN", ["chi_sim", "chi_sim_vert"]],
    ["zh-Hans", ["chi_sim", "chi_sim_vert"]],
    ["zh-Hant", ["chi_tra", "chi_tra_vert"]],
    ["zh-TW", ["chi_tra", "chi_tra_vert"]],
    ["zh_HK", ["chi_tra", "chi_tra_vert"]],
    ["fr", ["fra"]],
    ["fre", ["fra"]],
    ["de", ["deu"]],
    ["es", ["spa"]],
    ["it", ["ita"]],
    ["pt-BR", ["por"]],
    ["ru", ["rus"]],
    ["en", ["eng"]],
    ["en-US", ["eng"]],
    ["xx", []],
    ["", []],
  ])("%s → %j", (lang, models) => expect(ocrModels(lang)).toEqual(models));

  it("knows the scripts a reading may be in", () => {
    expect(ocrPlan("ja")?.scripts).toEqual(["japanese", "han"]);
    expect(ocrPlan("ru")?.scripts).toEqual(["cyrillic"]);
    expect(ocrPlan("fr")?.scripts).toEqual(["latin"]);
  });
});

describe("debianPackageOf", () => {
  it.each([
    ["jpn", "tesseract-ocr-jpn"],
    ["jpn_vert", "tesseract-ocr-jpn-vert"],
    ["chi_sim", "tesseract-ocr-chi-sim"],
    ["chi_tra_vert", "tesseract-ocr-chi-tra-vert"],
  ])("%s → %s", (m, p) => expect(debianPackageOf(m)).toBe(p));

  it("every known model maps to a Debian-style package name", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("ja", "ko", "zh", "zh-Hant", "fr", "de", "es", "it", "pt", "ru", "en", "nl", "pl", "el"),
        (lang) => {
          for (const m of ocrModels(lang)) expect(debianPackageOf(m)).toMatch(/^tesseract-ocr-[a-z]+(-[a-z]+)*$/);
        },
      ),
    );
  });
});

describe("missingModelMessage", () => {
  it("names the package, the model and what it reads", () => {
    expect(missingModelMessage("jpn_vert", "ja")).toBe(
      "Install the Debian package tesseract-ocr-jpn-vert (OCR model jpn_vert for Japanese vertical text)",
    );
    expect(missingModelMessage("kor", "ko")).toBe(
      "Install the Debian package tesseract-ocr-kor (OCR model kor for Korean text)",
    );
  });
});
