import { describe, expect, it } from "vitest";
import {
  bookState,
  canonicalLabel,
  digestProblem,
  chapterSummary,
  formatChapterList,
  needsAttention,
  parseChapterList,
  shortDigest,
  sourceUrlProblem,
  suspectExplanation,
  type BookProof,
} from "./verification";

const proof = (status: BookProof["status"]): BookProof => ({
  fileId: 1,
  digest: "sha256:aa",
  chapters: ["1"],
  sourceUrl: null,
  note: "counted",
  createdAt: "2025-01-01T00:00:00Z",
  status,
});

describe("book state", () => {
  it("is verified only while the proof applies", () => {
    expect(bookState({ verified: true, suspectReason: "hand import", proof: proof("APPLIES") }).key).toBe("verified");
    const stale = bookState({ verified: false, suspectReason: "hand import", proof: proof("DIGEST_CHANGED") });
    expect(stale.key).toBe("stale");
    expect(stale.label).toBe("Proof no longer applies");
    expect(stale.detail).toContain("content changed");
    expect(bookState({ verified: false, suspectReason: null, proof: proof("MAP_CHANGED") }).detail).toContain(
      "map entry changed",
    );
  });

  it("words a suspect book with its reason, and a sound one", () => {
    const s = bookState({ verified: false, suspectReason: "oversized pack", proof: null });
    expect(s.key).toBe("suspect");
    expect(s.label).toBe("Suspect: oversized pack");
    expect(s.detail).toContain("covers no chapter");
    expect(bookState({ verified: false, suspectReason: null, proof: null }).key).toBe("sound");
    expect(suspectExplanation("hand import")).toContain("by hand");
    expect(suspectExplanation("cosmic rays")).toContain("cosmic rays");
  });

  it("asks attention for suspect books and books with a proof", () => {
    expect(needsAttention({ suspectReason: null, proof: null })).toBe(false);
    expect(needsAttention({ suspectReason: "hand import", proof: null })).toBe(true);
    expect(needsAttention({ suspectReason: null, proof: proof("MAP_CHANGED") })).toBe(true);
  });
});

describe("digests", () => {
  it("shortens a digest and keeps its algorithm", () => {
    expect(shortDigest("sha256:52ba02278e49318a20e416e7")).toBe("sha256:52ba02278e49…");
    expect(shortDigest("sha256:abc")).toBe("sha256:abc");
  });
});

describe("chapter list", () => {
  it("reads comma-separated exact decimals in their canonical form", () => {
    expect(parseChapterList("1, 2,3 , 10.50, 007")).toEqual({ ok: true, chapters: ["1", "2", "3", "10.5", "7"] });
    expect(parseChapterList(" 0 ")).toEqual({ ok: true, chapters: ["0"] });
    expect(parseChapterList("1,,2,")).toEqual({ ok: true, chapters: ["1", "2"] });
  });

  it("refuses what is not an exact decimal, duplicates and an empty list", () => {
    const bad = parseChapterList("1, 2a");
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toContain("2a");
    expect(parseChapterList("1, -2").ok).toBe(false);
    expect(parseChapterList("1e3").ok).toBe(false);
    expect(parseChapterList("1 2").ok).toBe(false);
    const twice = parseChapterList("3, 3.0");
    expect(twice).toEqual({ ok: false, error: "Chapter 3 is listed twice." });
    expect(parseChapterList("  , ").ok).toBe(false);
  });

  it("keeps labels exact", () => {
    expect(canonicalLabel("10.05")).toBe("10.05");
    expect(canonicalLabel("00")).toBe("0");
    expect(canonicalLabel("1.")).toBeNull();
    expect(canonicalLabel("99999999999999999999")).toBe("99999999999999999999");
  });

  it("formats and summarises a list", () => {
    expect(formatChapterList(["25", "26", "40.5"])).toBe("25, 26, 40.5");
    expect(chapterSummary(["1", "2", "3", "4", "5", "6", "7", "8"])).toBe("1–8");
    expect(chapterSummary(["33", "34", "35", "36", "37", "38", "39", "40", "40.5"])).toBe("33–40, 40.5");
    expect(chapterSummary(["1", "3", "4", "10.5", "11"])).toBe("1, 3–4, 10.5, 11");
    expect(chapterSummary([])).toBe("");
  });

  it("checks the optional source address", () => {
    expect(sourceUrlProblem("")).toBeNull();
    expect(sourceUrlProblem("https://example.org/vol-4")).toBeNull();
    expect(sourceUrlProblem("ftp://example.org")).not.toBeNull();
    expect(sourceUrlProblem("example.org")).not.toBeNull();
  });
});

describe("digest field", () => {
  it("accepts the listed form only", () => {
    expect(digestProblem(`sha256:${"a".repeat(64)}`)).toBeNull();
    expect(digestProblem(` SHA256:${"A".repeat(64)} `)).toBeNull();
    expect(digestProblem("a".repeat(64))).not.toBeNull();
    expect(digestProblem(`sha256:${"g".repeat(64)}`)).not.toBeNull();
  });
});
