import { describe, expect, it } from "vitest";
import {
  AUDIT_FLAGS,
  auditSearch,
  auditVariables,
  fileLabel,
  fileName,
  flagBadge,
  flagWords,
  formatBytes,
  hasFilters,
  pageCount,
  parseAuditParams,
  rangeLabel,
  shortHash,
  sourceLabel,
  toggleAll,
  withFilters,
  type AuditFlag,
} from "./audit";

const params = (q: string) => parseAuditParams(new URLSearchParams(q));

describe("flag words", () => {
  it("words every flag the API documents, with a description", () => {
    for (const flag of AUDIT_FLAGS) {
      const w = flagWords(flag);
      expect(w.label).not.toBe("");
      expect(w.description).not.toBe("");
    }
    expect(flagWords("FEW_PAGES").label).toBe("Few pages");
    expect(flagWords("NUMBERING_GAP").label).toBe("Gap before it");
    expect(flagWords("UNREADABLE").tone).toBe("bad");
  });

  it("shows a flag from a newer server as it came", () => {
    expect(flagWords("TOO_BLUE" as AuditFlag).label).toBe("Too blue");
  });

  it("adds the black-card share to its badge", () => {
    expect(flagBadge("BLACK_CARDS", 0.234)).toBe("Black cards · 23 %");
    expect(flagBadge("BLACK_CARDS", null)).toBe("Black cards");
    expect(flagBadge("FEW_PAGES", 0.5)).toBe("Few pages");
  });
});

describe("file words", () => {
  it("names books, chapters, ranges and parts", () => {
    expect(fileLabel({ kind: "BOOK", number: "3", numberEnd: null, part: null })).toBe("Book 3");
    expect(fileLabel({ kind: "CHAPTER", number: "10.5", numberEnd: null, part: null })).toBe("Chapter 10.5");
    expect(fileLabel({ kind: "CHAPTER", number: "10", numberEnd: "10", part: null })).toBe("Chapter 10");
    expect(fileLabel({ kind: "CHAPTER", number: "10", numberEnd: "12", part: null })).toBe("Chapters 10–12");
    expect(fileLabel({ kind: "CHAPTER", number: "36", numberEnd: null, part: 2 })).toBe("Chapter 36, part 2");
    expect(fileLabel({ kind: "CHAPTER", number: null, numberEnd: null, part: null })).toBe("Unnumbered file");
  });

  it("takes the file name from a path", () => {
    expect(fileName("Series/Series - c001.cbz")).toBe("Series - c001.cbz");
    expect(fileName("plain.cbz")).toBe("plain.cbz");
  });

  it("formats sizes in decimal units", () => {
    expect(formatBytes(0)).toBe("0 bytes");
    expect(formatBytes(1)).toBe("1 byte");
    expect(formatBytes(999)).toBe("999 bytes");
    expect(formatBytes(1000)).toBe("1.0 KB");
    expect(formatBytes(329_016)).toBe("329 KB");
    expect(formatBytes(999_600)).toBe("1.0 MB");
    expect(formatBytes(1_234_567)).toBe("1.2 MB");
    expect(formatBytes(3_400_000_000)).toBe("3.4 GB");
    expect(formatBytes(Number.NaN)).toBe("");
  });

  it("shortens hashes and words sources", () => {
    expect(shortHash("52ba02278e49318a20e416e7")).toBe("52ba02278e49…");
    expect(shortHash("sha256:52ba02278e49318a")).toBe("52ba02278e49…");
    expect(shortHash("abc")).toBe("abc");
    expect(sourceLabel(null)).toBe("Local (scanned)");
    expect(sourceLabel({ provider: "suwayomi", sourceId: "123" })).toBe("suwayomi · 123");
    expect(sourceLabel({ provider: "suwayomi", sourceId: null })).toBe("suwayomi (no mapping)");
  });
});

describe("filters in the address", () => {
  it("reads defaults from an empty address", () => {
    expect(params("")).toEqual({
      page: 1,
      sort: "number",
      problemsOnly: false,
      flags: [],
      kind: null,
      language: "",
      provider: "",
      sourceId: "",
    });
  });

  it("round-trips every filter", () => {
    const p = params(
      "page=3&sort=-size&problems=1&flags=few_pages,numbering_gap&kind=chapter&language=en&provider=mangadex&source=abc",
    );
    expect(p).toEqual({
      page: 3,
      sort: "-size",
      problemsOnly: true,
      flags: ["NUMBERING_GAP", "FEW_PAGES"],
      kind: "CHAPTER",
      language: "en",
      provider: "mangadex",
      sourceId: "abc",
    });
    expect(params(auditSearch(p).toString())).toEqual(p);
  });

  it("leaves defaults out of the address", () => {
    expect(auditSearch(params("")).toString()).toBe("");
    expect(auditSearch({ ...params(""), page: 2 }).toString()).toBe("page=2");
  });

  it("accepts repeated flags and ignores unknown values", () => {
    const p = params("flags=duplicate&flags=bogus&flags=FEW_PAGES&page=0&sort=nonsense&kind=omnibus");
    expect(p.flags).toEqual(["DUPLICATE", "FEW_PAGES"]);
    expect(p.page).toBe(1);
    expect(p.sort).toBe("number");
    expect(p.kind).toBeNull();
    expect(params("page=-2").page).toBe(1);
    expect(params("page=2.5").page).toBe(1);
  });

  it("builds the query variables without empty filters", () => {
    expect(auditVariables(7, params("page=2"))).toEqual({ seriesId: 7, page: 2, sort: "number", filter: {} });
    expect(auditVariables(7, params("problems=1&kind=book&language=%20ja%20"))).toEqual({
      seriesId: 7,
      page: 1,
      sort: "number",
      filter: { problemsOnly: true, kind: "BOOK", language: "ja" },
    });
  });

  it("knows when filters narrow the list, and restarts on page 1 when they change", () => {
    expect(hasFilters(params("sort=-size&page=4"))).toBe(false);
    expect(hasFilters(params("provider=x"))).toBe(true);
    const next = withFilters(params("page=4&sort=path"), { problemsOnly: true });
    expect(next.page).toBe(1);
    expect(next.sort).toBe("path");
    expect(next.problemsOnly).toBe(true);
  });
});

describe("pager and selection", () => {
  it("counts pages and words the range", () => {
    expect(pageCount(0)).toBe(1);
    expect(pageCount(24)).toBe(1);
    expect(pageCount(25)).toBe(2);
    expect(rangeLabel(1, 26)).toBe("1–24 of 26");
    expect(rangeLabel(2, 26)).toBe("25–26 of 26");
    expect(rangeLabel(5, 26)).toBe("26 files");
    expect(rangeLabel(1, 0)).toBe("0 files");
  });

  it("selects the whole page, or clears it when all were selected, keeping other pages", () => {
    const some = toggleAll(new Set([1, 99]), [1, 2, 3]);
    expect([...some].sort((a, b) => a - b)).toEqual([1, 2, 3, 99]);
    const none = toggleAll(some, [1, 2, 3]);
    expect([...none]).toEqual([99]);
    expect([...toggleAll(new Set(), [])]).toEqual([]);
  });
});
