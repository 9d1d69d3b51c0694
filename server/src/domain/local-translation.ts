/**
 * The verdict of a translated book (pure), used by the local path and by the reference processor:
 * from the per-region checks (translation-validation.ts) to page verdicts, the book verdict and
 * the protocol v1 receipt, or the reason nothing may be released.
 *
 * Regions: a region refused by its own checks (marker, echo, source script, …) refuses its page,
 * whatever any pool says.
 *
 * Pages: the translations of a page's passed regions are pooled and judged (translation-language):
 * - confirmed as the destination → the page is released on its own evidence ("page" pool);
 * - confidently the source or another language → the page is refused (`source_language`,
 *   `wrong_language`);
 * - undetermined (most often: a bubble or two of short dialogue) → the page waits for the book
 *   ("book" pool).
 * A page of accepted echoes only has no translation to judge and is released as it is.
 *
 * Book: every page's passed translations are pooled. Pages that waited are released only when the
 * book's pool is confirmed as the destination; otherwise the book fails with `validation_failed`
 * naming `wrong_language`, `source_language` or `language_undetermined` (undetermined is never a
 * pass), and those pages are named for a new request on retry. The OCR text of the passed regions
 * is pooled per book the same way and must be confirmed as the source language (it is what fills
 * `detected_source_language`); otherwise `language_not_confirmed`.
 *
 * An accepted echo (readable English kept as is in an English destination) is evidence, not a
 * translation: it is counted in neither translated nor untranslated regions, and is left out of
 * both pools. A book with no translated region fails with `no_text_found`.
 */
import { describeJudgement, judgePool, type LanguageIdentifier, type PoolJudgement } from "./translation-language.ts";
import { baseCode } from "./translation-scripts.ts";
import type { LanguageCode, RegionCode, RegionResult } from "./translation-validation.ts";

export interface CheckedPage {
  name: string;
  /** OCR texts of the regions that were read (in region order). */
  sources: readonly string[];
  /** The provider's translations (same order). */
  translations: readonly string[];
  results: readonly RegionResult[];
}

export interface LanguageContext {
  sourceLanguage: string;
  targetLanguage: string;
  identifier: LanguageIdentifier;
}

export interface BookFacts extends LanguageContext {
  sourceSha256: string;
  model: string;
  pages: readonly CheckedPage[];
}

/** The book-level language figures a receipt carries as evidence (extra keys, ignored by importers). */
export interface ReceiptEvidence {
  language_identifier: string;
  target: {
    judgement: PoolJudgement;
    /** Pages released on their own pooled text, and pages that waited for the book's. */
    pages_by_page_pool: number;
    pages_by_book_pool: number;
  };
  source: { judgement: PoolJudgement };
  echoed_regions: number;
}

/** translation.json as protocol v1 defines it (docs/api.md, "Translation worker"), plus the evidence. */
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
  evidence?: ReceiptEvidence;
}

export type PageVerdict =
  /** No region was read: the page passes through unchanged. */
  | { status: "empty" }
  | { status: "refused"; codes: (RegionCode | LanguageCode)[]; target?: PoolJudgement }
  | {
      status: "released" | "deferred";
      /** Which pool decides the page's language: its own, or the book's (null: only echoes). */
      pool: "page" | "book" | null;
      translated: number;
      echoed: number;
      target: PoolJudgement | null;
    };

const rivalsOf = (expected: string, other: string) => [other, "en"].filter((l) => baseCode(l) !== baseCode(expected));

/** The text of the regions that passed their own checks (echoes left out). */
const passedTexts = (page: CheckedPage, of: "sources" | "translations") =>
  page[of].filter((_, i) => page.results[i]?.verdict === "passed");

/** A page's verdict from its regions' checks and its own pooled translations. */
export function judgePage(page: CheckedPage, ctx: LanguageContext): PageVerdict {
  if (page.results.length === 0) return { status: "empty" };
  const refused = page.results.filter((r) => r.verdict === "refused");
  if (refused.length > 0) return { status: "refused", codes: refused.map((r) => r.code ?? "script_mismatch") };
  const translated = page.results.filter((r) => r.verdict === "passed").length;
  const echoed = page.results.length - translated;
  if (translated === 0) return { status: "released", pool: null, translated, echoed, target: null };
  const target = judgePool(
    passedTexts(page, "translations"),
    ctx.targetLanguage,
    rivalsOf(ctx.targetLanguage, ctx.sourceLanguage),
    ctx.identifier,
  );
  if (target.verdict === "confirmed") return { status: "released", pool: "page", translated, echoed, target };
  if (target.verdict === "other") return { status: "refused", codes: [languageCode(target, ctx)], target };
  return { status: "deferred", pool: "book", translated, echoed, target };
}

function languageCode(j: PoolJudgement, ctx: LanguageContext): LanguageCode {
  if (j.verdict !== "other") return "language_undetermined";
  return j.language === baseCode(ctx.sourceLanguage) ? "source_language" : "wrong_language";
}

export type BookVerdict =
  | { ok: true; receipt: TranslationReceiptJson; echoed: number; pages: PageVerdict[] }
  | {
      ok: false;
      code: "validation_failed" | "no_text_found" | "language_not_confirmed";
      message: string;
      /** Indexes of pages whose answers the failure condemns: ask the provider again on retry. */
      retryPages: number[];
    };

const list = (names: string[]) =>
  names.length <= 3 ? names.join(", ") : `${names.slice(0, 3).join(", ")} and ${names.length - 3} more`;

export function bookVerdict(book: BookFacts): BookVerdict {
  const verdicts = book.pages.map((p) => judgePage(p, book));
  let translated = 0;
  let echoed = 0;
  for (const [i, v] of verdicts.entries()) {
    if (v.status === "empty") continue;
    if (v.status === "refused") {
      const codes = [...new Set(v.codes)].join(", ");
      return {
        ok: false,
        code: "validation_failed",
        message: `Page ${book.pages[i]!.name} did not pass validation (${codes}); nothing was imported`,
        retryPages: [i],
      };
    }
    translated += v.translated;
    echoed += v.echoed;
  }
  if (translated === 0) {
    return {
      ok: false,
      code: "no_text_found",
      message: "No page had text that OCR could read and the provider translated",
      retryPages: [],
    };
  }
  const source = baseCode(book.sourceLanguage);
  const target = baseCode(book.targetLanguage);
  const deferred = verdicts.flatMap((v, i) => (v.status === "deferred" ? [i] : []));
  const byPage = verdicts.filter((v) => v.status === "released" && v.pool === "page").length;
  const targetPool = judgePool(
    book.pages.flatMap((p) => passedTexts(p, "translations")),
    target,
    rivalsOf(target, source),
    book.identifier,
  );
  if (deferred.length > 0 && targetPool.verdict !== "confirmed") {
    const code = languageCode(targetPool, book);
    const names = deferred.map((i) => book.pages[i]!.name);
    return {
      ok: false,
      code: "validation_failed",
      message:
        `Page ${list(names)} did not pass validation (${code}): too short to judge alone, and the book's ` +
        `translations read as ${describeJudgement(targetPool)}, not ${target}; nothing was imported`,
      retryPages: deferred,
    };
  }
  const sourcePool = judgePool(
    book.pages.flatMap((p) => passedTexts(p, "sources")),
    source,
    rivalsOf(source, target),
    book.identifier,
  );
  if (sourcePool.verdict !== "confirmed") {
    return {
      ok: false,
      code: "language_not_confirmed",
      message: `The OCR text of the book was not confirmed as ${source} (${describeJudgement(sourcePool)})`,
      retryPages: [],
    };
  }
  return {
    ok: true,
    echoed,
    pages: verdicts.map((v) => (v.status === "deferred" ? { ...v, status: "released" as const } : v)),
    receipt: {
      source_sha256: book.sourceSha256,
      // The job's own codes ("match the job"); the detected languages below are base codes.
      source_language: book.sourceLanguage,
      target_language: book.targetLanguage,
      page_count: book.pages.length,
      translated_regions: translated,
      untranslated_regions: 0,
      unconfirmed_regions: [],
      detected_source_language: sourcePool.language,
      // Every page confirmed on its own text, or the book's pool confirmed for those that waited.
      detected_target_language: target,
      model: book.model,
      evidence: {
        language_identifier: book.identifier.name,
        target: { judgement: targetPool, pages_by_page_pool: byPage, pages_by_book_pool: deferred.length },
        source: { judgement: sourcePool },
        echoed_regions: echoed,
      },
    },
  };
}
