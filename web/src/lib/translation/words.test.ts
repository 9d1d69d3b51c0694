import { describe, expect, it } from "vitest";
import type { TranslationJob } from "./queries";
import { addLanguage, jobErrorAdvice, moveItem, shortSha, skipWords, targetWords, uploadUrl, withLive } from "./words";

const job = (patch: Partial<TranslationJob>): TranslationJob => ({
  id: `${"a".repeat(32)}-0`,
  seriesId: 1,
  attempt: 0,
  status: "FAILED",
  state: "failed",
  target: { kind: "volume", number: "4" },
  sourceLanguage: "ja",
  targetLanguage: "en",
  sourceSha256: "0123456789abcdef0123",
  progress: null,
  error: null,
  engine: "external",
  origin: "upload",
  cancelPending: false,
  retryable: false,
  cancellable: false,
  pausedReason: null,
  createdAt: "2024-01-01T00:00:00.000Z",
  updatedAt: "2024-01-01T00:00:00.000Z",
  ...patch,
});

describe("translation words", () => {
  it("names targets and shortens hashes", () => {
    expect(targetWords({ kind: "volume", number: "4" })).toBe("Book 4");
    expect(targetWords({ kind: "chapter", number: "10.5" })).toBe("Chapter 10.5");
    expect(shortSha("0123456789abcdef0123")).toBe("0123456789ab");
    expect(shortSha(null)).toBe("none");
  });

  it("applies a live event newer than the job", () => {
    const j = job({ status: "RUNNING", state: "submitted" });
    const ev = {
      jobId: j.id,
      seriesId: 1,
      state: "running",
      pagesDone: 3,
      pagesTotal: 9,
      errorCode: null,
      at: "2024-01-01T00:00:05.000Z",
    };
    expect(withLive(j, ev)).toMatchObject({ state: "running", progress: { pagesDone: 3, pagesTotal: 9 } });
    expect(withLive(j, { ...ev, at: "2023-12-31T00:00:00.000Z" })).toBe(j);
    expect(withLive(j, undefined)).toBe(j);
  });

  it("edits the ordered language list", () => {
    expect(addLanguage(["ja"], " Original ")).toEqual({ list: ["ja", "original"] });
    expect(addLanguage(["ja"], "ja")).toEqual({ problem: "ja is already in the list." });
    expect(addLanguage([], " ")).toHaveProperty("problem");
    expect(addLanguage([], "ja fr")).toHaveProperty("problem");
    expect(moveItem(["a", "b", "c"], 2, -1)).toEqual(["a", "c", "b"]);
    expect(moveItem(["a", "b"], 0, -1)).toEqual(["a", "b"]);
  });

  it("says skips and errors in words", () => {
    expect(skipWords({ kind: "series", number: "3", reason: "fallback_off" })).toBe(
      "Nothing was searched: translation fallback is switched off in the settings.",
    );
    expect(skipWords({ kind: "chapter", number: "7", reason: "no_foreign_source" })).toContain(
      "Chapter 7: no verified source",
    );
    expect(jobErrorAdvice("receipt_page_count")).toContain("import checks");
    expect(jobErrorAdvice("ocr_model_missing")).toContain("Debian package");
    expect(jobErrorAdvice("validation_failed")).toContain("not sent again");
    expect(jobErrorAdvice("source_language_unsupported")).toContain("external processor");
    expect(jobErrorAdvice("translation_pack_refused")).toContain("Split the pack");
  });

  it("builds the upload address with exactly one target", () => {
    expect(uploadUrl(7, { kind: "volume", number: " 4 ", sourceLanguage: "ja" })).toBe(
      "/api/manga/7/translations/upload?source_language=ja&volume=4",
    );
    expect(uploadUrl(7, { kind: "chapter", number: "10.5", sourceLanguage: "fr" })).toBe(
      "/api/manga/7/translations/upload?source_language=fr&chapter=10.5",
    );
  });
});
