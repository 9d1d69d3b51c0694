/**
 * The book-level verdict of the local translation path (pure): from the per-page validation results
 * (domain/translation-validation) to the protocol v1 receipt, or the reason nothing may be released.
 *
 * - A page refused by validation is never released: the book fails with `validation_failed`.
 * - A book with no translated region (OCR found nothing readable) fails with `no_text_found`.
 * - An accepted echo (readable English kept as is in an English destination) is evidence, not a
 *   translation: it is counted in neither translated nor untranslated regions.
 * - Detected languages come from the text itself (script first, then the offline identifier): the
 *   source from the pooled OCR text, the destination from the pooled translations. When the text
 *   cannot confirm the expected language the book fails with `language_not_confirmed`; the import's
 *   receipt check would refuse it anyway, and failing here keeps the provider's output out of staging.
 */
import { baseLanguage } from "./translation-jobs.ts";
import { identifyLanguage, summarisePage, type PageSummary, type RegionResult } from "./translation-validation.ts";

export interface CheckedPage {
  name: string;
  /** OCR texts of the regions that were read (in region order). */
  sources: readonly string[];
  /** The provider's translations (same order). */
  translations: readonly string[];
  results: readonly RegionResult[];
}

export interface BookFacts {
  sourceSha256: string;
  sourceLanguage: string;
  targetLanguage: string;
  model: string;
  pages: readonly CheckedPage[];
}

/** translation.json as protocol v1 defines it (api-contract "Result"). */
export interface TranslationReceiptJson {
  source_sha256: string;
  source_language: string;
  target_language: string;
  page_count: number;
  translated_regions: number;
  untranslated_regions: number;
  unconfirmed_regions: unknown[];
  detected_source_language: string;
  detected_target_language: string;
  model: string;
}

export type BookVerdict =
  | { ok: true; receipt: TranslationReceiptJson; echoed: number }
  | { ok: false; code: "validation_failed" | "no_text_found" | "language_not_confirmed"; message: string };

/** A page with no region read passes through unchanged; otherwise it releases only when validation does. */
export function pageSummary(page: CheckedPage): PageSummary | null {
  return page.results.length === 0 ? null : summarisePage(page.results);
}

/** The language the text is in, narrowed to `expected` when the script alone decides (e.g. kana → ja). */
function detected(texts: readonly string[], expected: string): string | null {
  const guess = identifyLanguage(texts.join("\n"), [expected]);
  return guess === "undetermined" ? null : baseLanguage(guess.language);
}

export function bookVerdict(book: BookFacts): BookVerdict {
  let translated = 0;
  let echoed = 0;
  for (const page of book.pages) {
    const s = pageSummary(page);
    if (!s) continue;
    if (!s.release) {
      const codes = [...new Set(s.codes)].join(", ");
      return {
        ok: false,
        code: "validation_failed",
        message: `Page ${page.name} did not pass validation (${codes}); nothing was imported`,
      };
    }
    translated += s.translated;
    echoed += s.echoed;
  }
  if (translated === 0) {
    return {
      ok: false,
      code: "no_text_found",
      message: "No page had text that OCR could read and the provider translated",
    };
  }
  const source = baseLanguage(book.sourceLanguage);
  const target = baseLanguage(book.targetLanguage);
  // Echoed regions are English kept as is: they say nothing about the source language.
  // (Every other region of a released page counts as translated, short ones pooled by summarisePage.)
  const kept = (p: CheckedPage, i: number) => p.results[i]?.verdict !== "echo_accepted";
  const sourceTexts = book.pages.flatMap((p) => p.sources.filter((_, i) => kept(p, i)));
  const targetTexts = book.pages.flatMap((p) => p.translations.filter((_, i) => kept(p, i)));
  const detectedSource = detected(sourceTexts, source);
  const detectedTarget = detected(targetTexts, target);
  if (detectedSource !== source) {
    return {
      ok: false,
      code: "language_not_confirmed",
      message: `The OCR text was not confirmed as ${source} (${detectedSource ?? "undetermined"})`,
    };
  }
  if (detectedTarget !== target) {
    return {
      ok: false,
      code: "language_not_confirmed",
      message: `The translations were not confirmed as ${target} (${detectedTarget ?? "undetermined"})`,
    };
  }
  return {
    ok: true,
    echoed,
    receipt: {
      source_sha256: book.sourceSha256,
      source_language: source,
      target_language: target,
      page_count: book.pages.length,
      translated_regions: translated,
      untranslated_regions: 0,
      unconfirmed_regions: [],
      detected_source_language: detectedSource,
      detected_target_language: detectedTarget,
      model: book.model,
    },
  };
}
