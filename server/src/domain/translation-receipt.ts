/**
 * The translation receipt (`translation.json` in a result ZIP), as protocol v1 defines it
 * (docs/rules.md, "Translation jobs"; docs/api.md, "Translation worker"). Validation is pure; the import
 * refuses the result with the code returned here (the job fails, its output stays outside the library, an
 * explicit retry is needed).
 *
 * Required are exactly these fields: source_sha256, source_language, target_language,
 * page_count, translated_regions, untranslated_regions, detected_source_language,
 * detected_target_language, model. `unconfirmed_regions` is optional: a receipt without the list
 * lists none; a list with entries is refused until corrected (a value that is not a list is
 * malformed). Any other key (a processor's evidence, say) is left in the file and ignored: only the
 * known keys are copied into the returned Receipt, so an unexpected one (a credential a
 * misbehaving processor echoed) never reaches a stored row or ComicInfo.
 */
import { baseLanguage } from "./translation-jobs.ts";

export interface Receipt {
  sourceSha256: string;
  sourceLanguage: string;
  targetLanguage: string;
  pageCount: number;
  translatedRegions: number;
  untranslatedRegions: number;
  unconfirmedRegions: unknown[];
  detectedSourceLanguage: string;
  detectedTargetLanguage: string;
  model: string;
}

export interface ReceiptJob {
  sourceSha256: string;
  /** Resolved codes (never `original`). */
  sourceLanguage: string;
  targetLanguage: string;
  /** Image pages of the source archive. */
  pageCount: number;
}

export type ReceiptCheck = { ok: true; receipt: Receipt } | { ok: false; code: string; message: string };

/** ISO 639-1 (two letters) or 639-3 (three letters), lowercase, without region or script. */
const BASE_CODE_RE = /^[a-z]{2,3}$/;
const SHA256_RE = /^[0-9a-f]{64}$/;

const fail = (code: string, message: string): ReceiptCheck => ({ ok: false, code, message });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
// Values from the processor go into job error messages: keep them short and printable.
const show = (v: unknown): string =>
  JSON.stringify(v)
    ?.replace(/[^\x20-\x7e]/g, "?")
    .slice(0, 40) ?? "undefined";

export function validateReceipt(receipt: unknown, job: ReceiptJob): ReceiptCheck {
  if (!isObject(receipt)) return fail("receipt_invalid", "translation.json is not a JSON object");
  const r = receipt;
  for (const key of [
    "source_sha256",
    "source_language",
    "target_language",
    "detected_source_language",
    "detected_target_language",
    "model",
  ]) {
    if (typeof r[key] !== "string" || (r[key] as string).trim() === "")
      return fail("receipt_invalid", `translation.json lacks a non-empty string ${key}`);
  }
  for (const key of ["page_count", "translated_regions", "untranslated_regions"]) {
    if (!isCount(r[key])) return fail("receipt_invalid", `translation.json lacks a whole number ${key}`);
  }
  if (r.unconfirmed_regions !== undefined && r.unconfirmed_regions !== null && !Array.isArray(r.unconfirmed_regions))
    return fail("receipt_invalid", "unconfirmed_regions in translation.json is not a list");
  const s = (key: string) => (r[key] as string).trim();
  const n = (key: string) => r[key] as number;

  const sha = s("source_sha256").toLowerCase();
  if (!SHA256_RE.test(sha)) return fail("receipt_invalid", "source_sha256 is not a SHA-256 hex digest");
  if (sha !== job.sourceSha256.toLowerCase())
    return fail("receipt_source_mismatch", "The receipt is for another source archive (source_sha256 differs)");
  if (baseLanguage(s("source_language")) !== baseLanguage(job.sourceLanguage)) {
    return fail(
      "receipt_language_mismatch",
      `The receipt's source_language ${show(r.source_language)} is not the job's ${job.sourceLanguage}`,
    );
  }
  if (baseLanguage(s("target_language")) !== baseLanguage(job.targetLanguage)) {
    return fail(
      "receipt_language_mismatch",
      `The receipt's target_language ${show(r.target_language)} is not the job's ${job.targetLanguage}`,
    );
  }
  if (n("page_count") !== job.pageCount)
    return fail("receipt_page_count", `The receipt counts ${n("page_count")} pages, the source has ${job.pageCount}`);
  if (n("translated_regions") < 1)
    return fail("receipt_nothing_translated", "The receipt reports no translated region");
  if (n("untranslated_regions") !== 0)
    return fail(
      "receipt_untranslated_regions",
      `The receipt reports ${n("untranslated_regions")} untranslated regions`,
    );
  const unconfirmed = Array.isArray(r.unconfirmed_regions) ? r.unconfirmed_regions : [];
  if (unconfirmed.length > 0)
    return fail(
      "receipt_unconfirmed_regions",
      `The receipt lists ${unconfirmed.length} unconfirmed source regions: refused until corrected`,
    );
  for (const [key, expected] of [
    ["detected_source_language", job.sourceLanguage],
    ["detected_target_language", job.targetLanguage],
  ] as const) {
    const detected = s(key);
    if (!BASE_CODE_RE.test(detected))
      return fail("receipt_invalid", `${key} ${show(r[key])} is not a base language code`);
    if (detected !== baseLanguage(expected))
      return fail(
        "receipt_language_not_confirmed",
        `The OCR detected ${detected} where ${baseLanguage(expected)} was expected (${key})`,
      );
  }
  return {
    ok: true,
    receipt: {
      sourceSha256: sha,
      sourceLanguage: s("source_language"),
      targetLanguage: s("target_language"),
      pageCount: n("page_count"),
      translatedRegions: n("translated_regions"),
      untranslatedRegions: 0,
      unconfirmedRegions: [],
      detectedSourceLanguage: s("detected_source_language"),
      detectedTargetLanguage: s("detected_target_language"),
      model: s("model"),
    },
  };
}

export const MACHINE_TRANSLATION_TAG = "machine translation";

/** The ComicInfo fields a translated book carries (merged over the source's own fields by the writer). */
export interface ProvenanceFields {
  Translator: string;
  Tags: string;
  Notes: string;
  LanguageISO: string;
}

/**
 * Machine-translation provenance for ComicInfo: Translator names the model, Tags gains
 * "machine translation" (existing tags kept, no duplicate), Notes records the source hash, model and
 * languages (after any existing notes). Nothing here comes from settings, so no credential can leak.
 */
export function comicInfoProvenance(
  receipt: Receipt,
  job: ReceiptJob,
  existing: { Tags?: string | null; Notes?: string | null } = {},
): ProvenanceFields {
  const tags = (existing.Tags ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
  if (!tags.some((t) => t.toLowerCase() === MACHINE_TRANSLATION_TAG)) tags.push(MACHINE_TRANSLATION_TAG);
  const note =
    `Machine translation from ${baseLanguage(job.sourceLanguage)} to ${baseLanguage(job.targetLanguage)} by model ${receipt.model}; ` +
    `source sha256 ${receipt.sourceSha256}; ${receipt.translatedRegions} regions translated; ` +
    `detected ${receipt.detectedSourceLanguage} → ${receipt.detectedTargetLanguage}.`;
  const notes = existing.Notes?.trim() ? `${existing.Notes.trim()}\n${note}` : note;
  return {
    Translator: `Machine translation (${receipt.model})`,
    Tags: tags.join(", "),
    Notes: notes,
    LanguageISO: job.targetLanguage,
  };
}
