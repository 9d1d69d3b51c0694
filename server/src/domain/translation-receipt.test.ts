import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MACHINE_TRANSLATION_TAG,
  comicInfoProvenance,
  validateReceipt,
  type ReceiptJob,
} from "./translation-receipt.ts";

const SHA = "a".repeat(64);
const job: ReceiptJob = { sourceSha256: SHA, sourceLanguage: "fr", targetLanguage: "en-US", pageCount: 12 };
const good = () => ({
  source_sha256: SHA,
  source_language: "fr",
  target_language: "en",
  page_count: 12,
  translated_regions: 40,
  untranslated_regions: 0,
  unconfirmed_regions: [] as unknown[],
  detected_source_language: "fr",
  detected_target_language: "en",
  model: "gpt-test-1",
});
const codeOf = (r: ReturnType<typeof validateReceipt>) => (r.ok ? "ok" : r.code);

describe("validateReceipt", () => {
  it("accepts a receipt matching the job (regional job codes compare by base code)", () => {
    const r = validateReceipt(good(), job);
    expect(r.ok).toBe(true);
    if (r.ok)
      expect(r.receipt).toMatchObject({ sourceSha256: SHA, pageCount: 12, translatedRegions: 40, model: "gpt-test-1" });
  });

  it("keeps only the known keys: an echoed credential never reaches the returned receipt", () => {
    const r = validateReceipt({ ...good(), api_key: "sk-secret", ai: { api_key: "sk-secret" } }, job);
    expect(r.ok).toBe(true);
    expect(JSON.stringify(r)).not.toContain("sk-secret");
  });

  it.each([
    ["not an object", null, "receipt_invalid"],
    ["an array", [], "receipt_invalid"],
    ["missing model", { ...good(), model: undefined }, "receipt_invalid"],
    ["empty model", { ...good(), model: "  " }, "receipt_invalid"],
    ["page_count as text", { ...good(), page_count: "12" }, "receipt_invalid"],
    ["fractional translated_regions", { ...good(), translated_regions: 1.5 }, "receipt_invalid"],
    ["unconfirmed_regions that is not a list", { ...good(), unconfirmed_regions: "page 3" }, "receipt_invalid"],
    ["unconfirmed_regions as a count", { ...good(), unconfirmed_regions: 2 }, "receipt_invalid"],
    ["a malformed hash", { ...good(), source_sha256: "abc" }, "receipt_invalid"],
    ["another source's hash", { ...good(), source_sha256: "b".repeat(64) }, "receipt_source_mismatch"],
    ["another source language", { ...good(), source_language: "ja" }, "receipt_language_mismatch"],
    ["another target language", { ...good(), target_language: "de" }, "receipt_language_mismatch"],
    ["a page count differing from the source", { ...good(), page_count: 11 }, "receipt_page_count"],
    ["zero translated regions", { ...good(), translated_regions: 0 }, "receipt_nothing_translated"],
    ["untranslated regions", { ...good(), untranslated_regions: 2 }, "receipt_untranslated_regions"],
    [
      "unconfirmed source regions",
      { ...good(), unconfirmed_regions: [{ page: 3, region: 1 }] },
      "receipt_unconfirmed_regions",
    ],
    ["a regional detected language", { ...good(), detected_target_language: "en-US" }, "receipt_invalid"],
    ["an upper-case detected language", { ...good(), detected_source_language: "FR" }, "receipt_invalid"],
    [
      "a detected source language other than the job's",
      { ...good(), detected_source_language: "ja" },
      "receipt_language_not_confirmed",
    ],
    [
      "a detected target language other than the job's",
      { ...good(), detected_target_language: "fr" },
      "receipt_language_not_confirmed",
    ],
  ])("refuses %s", (_name, receipt, code) => {
    expect(codeOf(validateReceipt(receipt, job))).toBe(code);
  });

  const withoutKey = (key: string) => {
    const r: Record<string, unknown> = good();
    delete r[key];
    return r;
  };

  it("reads protocol v1's receipt: a receipt without the unconfirmed_regions list lists none (also null)", () => {
    expect(codeOf(validateReceipt(withoutKey("unconfirmed_regions"), job))).toBe("ok");
    expect(codeOf(validateReceipt({ ...good(), unconfirmed_regions: null }, job))).toBe("ok");
  });

  it.each([
    "source_sha256",
    "source_language",
    "target_language",
    "page_count",
    "translated_regions",
    "untranslated_regions",
    "detected_source_language",
    "detected_target_language",
    "model",
  ])("requires every field of the receipt: a receipt without %s is refused", (key) => {
    expect(codeOf(validateReceipt(withoutKey(key), job))).toBe("receipt_invalid");
  });

  it("ignores extra fields (a processor's evidence, notes, future keys) and keeps them out of the receipt", () => {
    const extra = { ...good(), evidence: { target: { verdict: "confirmed" } }, notes: "x", schema: 2 };
    const r = validateReceipt(extra, job);
    expect(r.ok).toBe(true);
    if (r.ok) expect(Object.keys(r.receipt)).not.toContain("evidence");
  });

  it("accepts an upper-case hash in the receipt (plain hex, compared case-insensitively)", () => {
    expect(codeOf(validateReceipt({ ...good(), source_sha256: SHA.toUpperCase() }, job))).toBe("ok");
  });

  it("property: any single changed count or language is refused, never accepted", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          "page_count",
          "translated_regions",
          "untranslated_regions",
          "detected_source_language",
          "detected_target_language",
          "source_language",
          "target_language",
        ),
        fc.oneof(fc.integer({ min: -5, max: 100 }), fc.constantFrom("de", "ja", "", "x-y")),
        (key, value) => {
          const g = good() as Record<string, unknown>;
          if (g[key] === value || (key === "translated_regions" && typeof value === "number" && value > 0)) return;
          const r = validateReceipt({ ...g, [key]: value }, job);
          expect(r.ok).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("error messages stay short and printable even with hostile values", () => {
    const r = validateReceipt({ ...good(), source_language: `\u0000${"z".repeat(500)}` }, job);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message.length).toBeLessThan(200);
      expect([...r.message].every((c) => c >= " " && c <= "~")).toBe(true);
    }
  });
});

describe("comicInfoProvenance", () => {
  const receipt = (() => {
    const r = validateReceipt(good(), job);
    if (!r.ok) throw new Error(r.code);
    return r.receipt;
  })();

  it("names the model, tags machine translation and notes the source hash, model and languages", () => {
    const p = comicInfoProvenance(receipt, job);
    expect(p.Translator).toBe("Machine translation (gpt-test-1)");
    expect(p.Tags).toBe(MACHINE_TRANSLATION_TAG);
    expect(p.Notes).toContain(SHA);
    expect(p.Notes).toContain("gpt-test-1");
    expect(p.Notes).toContain("from fr to en");
    expect(p.LanguageISO).toBe("en-US");
  });

  it("keeps existing tags and notes, without a duplicate tag", () => {
    const p = comicInfoProvenance(receipt, job, { Tags: "Action, Machine Translation", Notes: "Scanned." });
    expect(p.Tags).toBe("Action, Machine Translation");
    expect(p.Notes.startsWith("Scanned.\n")).toBe(true);
    expect(comicInfoProvenance(receipt, job, { Tags: "Action" }).Tags).toBe("Action, machine translation");
  });
});
