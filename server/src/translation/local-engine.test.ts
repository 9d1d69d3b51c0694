/** The local path's prerequisites, each an actionable error before any page is touched. */
import { beforeAll, describe, expect, it } from "vitest";
import type { LanguageIdentifier } from "../domain/translation-language.ts";
import { fontFor } from "./fonts.ts";
import { loadLanguageIdentifier } from "./language-id.ts";
import { checkPrerequisites, type LocalEngineDeps } from "./local-engine.ts";
import { LocalTranslationError } from "./types.ts";

let identifier: LanguageIdentifier;
beforeAll(async () => {
  identifier = await loadLanguageIdentifier();
});

const ai = { baseUrl: "http://127.0.0.1:9/v1", model: "m", apiKey: "k" };
const deps = (over: Partial<LocalEngineDeps> = {}): Pick<LocalEngineDeps, "font" | "missingModels" | "identifier"> => ({
  font: fontFor,
  missingModels: () => [],
  identifier: () => Promise.resolve(identifier),
  ...over,
});
const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: unknown) => (e instanceof LocalTranslationError ? e.code : String(e)),
  );

describe("checkPrerequisites", () => {
  it.each(["en", "fr", "de", "ru", "el", "ja", "ko", "zh", "he", "ar"])(
    "accepts %s as a destination: the identifier confirms it and an installed font letters it",
    async (target) => {
      const tools = await checkPrerequisites({ sourceLanguage: "ja", targetLanguage: target, ai }, deps());
      expect(tools.identifier).toBe(identifier);
      expect(tools.font.file).toMatch(/\.(ttf|otf|ttc)$/);
    },
  );

  it("letters Japanese, Korean and Chinese with their regional CJK faces", async () => {
    for (const [target, face] of [
      ["ja", /JP/],
      ["ko", /KR/],
      ["zh", /SC/],
    ] as const)
      expect(
        (await checkPrerequisites({ sourceLanguage: "fr", targetLanguage: target, ai }, deps())).font.family,
      ).toMatch(face);
  });

  it("refuses a destination the identifier cannot confirm, naming the ones it can", async () => {
    const e = (await checkPrerequisites({ sourceLanguage: "ja", targetLanguage: "sw", ai }, deps()).then(
      () => null,
      (x: unknown) => x,
    )) as LocalTranslationError;
    expect(e).toBeInstanceOf(LocalTranslationError);
    expect(e.code).toBe("target_script_unsupported");
    expect(e.message).toContain("sw needs an external processor");
    expect(e.message).toContain("ja, ka, kn, ko");
  });

  it("refuses a destination no installed font can letter, naming the package", async () => {
    const noFont = () => Promise.reject(new LocalTranslationError("font_missing", "Install fonts-noto-core"));
    expect(
      await codeOf(checkPrerequisites({ sourceLanguage: "ja", targetLanguage: "hi", ai }, deps({ font: noFont }))),
    ).toBe("font_missing");
  });

  it("refuses a source the identifier cannot confirm (the book's source language could never be verified)", async () => {
    // Indonesian has an OCR model but the identifier does not know it.
    expect(await codeOf(checkPrerequisites({ sourceLanguage: "id", targetLanguage: "en", ai }, deps()))).toBe(
      "source_language_unsupported",
    );
  });

  it("a missing OCR model and missing AI settings are named before any page", async () => {
    const missing = () => [{ model: "kor", debianPackage: "tesseract-ocr-kor", message: "install tesseract-ocr-kor" }];
    expect(
      await codeOf(
        checkPrerequisites({ sourceLanguage: "ko", targetLanguage: "en", ai }, deps({ missingModels: missing })),
      ),
    ).toBe("ocr_model_missing");
    expect(
      await codeOf(
        checkPrerequisites({ sourceLanguage: "ja", targetLanguage: "en", ai: { ...ai, apiKey: "" } }, deps()),
      ),
    ).toBe("ai_not_configured");
  });
});
