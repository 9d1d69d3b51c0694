/**
 * Which tesseract models read a source language, which Debian package ships each, and which
 * scripts OCR output may be in for that language (text in another script is a misread: dropped).
 * Pure table; the files are resolved in translation/tessdata.ts.
 */
import type { Script } from "./translation-validation.ts";

export interface OcrLanguagePlan {
  /** English name, for messages. */
  name: string;
  /** Model for horizontal text (e.g. "jpn"). */
  horizontal: string;
  /** Model for vertical text (e.g. "jpn_vert"), when the language is written vertically. */
  vertical: string | null;
  /** Scripts a correct reading is in (Japanese may be all kanji: "han"). */
  scripts: readonly Script[];
}

const plan = (
  name: string,
  horizontal: string,
  scripts: Script[],
  vertical: string | null = null,
): OcrLanguagePlan => ({ name, horizontal, vertical, scripts });
const LATIN: Script[] = ["latin"];

const BY_CODE: Readonly<Record<string, OcrLanguagePlan>> = {
  ja: plan("Japanese", "jpn", ["japanese", "han"], "jpn_vert"),
  ko: plan("Korean", "kor", ["hangul"], "kor_vert"),
  zh: plan("Chinese (simplified)", "chi_sim", ["han"], "chi_sim_vert"),
  "zh-hant": plan("Chinese (traditional)", "chi_tra", ["han"], "chi_tra_vert"),
  en: plan("English", "eng", LATIN),
  fr: plan("French", "fra", LATIN),
  de: plan("German", "deu", LATIN),
  es: plan("Spanish", "spa", LATIN),
  it: plan("Italian", "ita", LATIN),
  pt: plan("Portuguese", "por", LATIN),
  nl: plan("Dutch", "nld", LATIN),
  pl: plan("Polish", "pol", LATIN),
  id: plan("Indonesian", "ind", LATIN),
  vi: plan("Vietnamese", "vie", LATIN),
  tr: plan("Turkish", "tur", LATIN),
  sv: plan("Swedish", "swe", LATIN),
  ru: plan("Russian", "rus", ["cyrillic"]),
  uk: plan("Ukrainian", "ukr", ["cyrillic"]),
  el: plan("Greek", "ell", ["greek"]),
};

/** ISO 639-3 (and 639-2/B) codes and regional Chinese variants → the keys above. */
const ALIASES: Readonly<Record<string, string>> = {
  jpn: "ja",
  kor: "ko",
  zho: "zh",
  chi: "zh",
  "zh-hans": "zh",
  "zh-cn": "zh",
  "zh-sg": "zh",
  "zh-tw": "zh-hant",
  "zh-hk": "zh-hant",
  "zh-mo": "zh-hant",
  "zh-hant-tw": "zh-hant",
  "zh-hant-hk": "zh-hant",
  eng: "en",
  fra: "fr",
  fre: "fr",
  deu: "de",
  ger: "de",
  spa: "es",
  ita: "it",
  por: "pt",
  "pt-br": "pt",
  nld: "nl",
  dut: "nl",
  pol: "pl",
  ind: "id",
  vie: "vi",
  tur: "tr",
  swe: "sv",
  rus: "ru",
  ukr: "uk",
  ell: "el",
  gre: "el",
};

/** The plan for a language code, or null when no tesseract model is known for it. */
export function ocrPlan(language: string): OcrLanguagePlan | null {
  const code = language.trim().toLowerCase().replace(/_/g, "-");
  const key = BY_CODE[code] ? code : (ALIASES[code] ?? code.split("-")[0] ?? "");
  const base = ALIASES[key] ?? key;
  return BY_CODE[base] ?? null;
}

/** The models a language needs: horizontal first, then vertical. */
export function ocrModels(language: string): string[] {
  const p = ocrPlan(language);
  return p ? [p.horizontal, ...(p.vertical ? [p.vertical] : [])] : [];
}

/** The Debian package shipping a tesseract model: jpn_vert → tesseract-ocr-jpn-vert. */
export function debianPackageOf(model: string): string {
  return `tesseract-ocr-${model.toLowerCase().replace(/_/g, "-")}`;
}

/** "Install the Debian package tesseract-ocr-jpn-vert (OCR model jpn_vert for Japanese vertical text)". */
export function missingModelMessage(model: string, language: string): string {
  const p = ocrPlan(language);
  const what = p ? `${p.name}${p.vertical === model ? " vertical" : ""} text` : `language ${language}`;
  return `Install the Debian package ${debianPackageOf(model)} (OCR model ${model} for ${what})`;
}
