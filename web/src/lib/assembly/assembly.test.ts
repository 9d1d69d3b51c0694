import { describe, expect, it } from "vitest";
import { needsFreshPreview, outcomeWords, progressCounts, progressLabel, refusalsOf } from "./assembly";
import { PAGE_COUNT_BATCH, pageCountsQueries, pageCountsQuery, sumPageCounts } from "./documents";

describe("progress", () => {
  it("words each step with its counts", () => {
    expect(progressLabel({ volume: "5", step: "hashing", done: 3, total: 9 })).toBe(
      "Book 5: checking the chapter files (3 of 9)",
    );
    expect(progressLabel({ volume: "5", step: "writing", done: 2, total: 9 })).toBe(
      "Book 5: writing the chapters into the book (2 of 9)",
    );
    expect(progressLabel({ volume: "5", step: "publishing", done: 0, total: 0 })).toMatch(/publishing/);
    expect(progressLabel({ volume: "5", step: "rendering", done: 1, total: 2 })).toBe("Book 5: rendering (1 of 2)");
  });

  it("fills the bar only when the step counts", () => {
    expect(progressCounts({ step: "writing", done: 2, total: 8 })).toEqual({ done: 2, total: 8 });
    expect(progressCounts({ step: "publishing", done: 0, total: 0 })).toEqual({ done: null, total: null });
    expect(progressCounts({ step: "done", done: 0, total: 0 })).toEqual({ done: 1, total: 1 });
  });
});

describe("outcomes", () => {
  it("says where an assembled book went", () => {
    const result = {
      volume: "5",
      fileId: 9,
      path: "T/T - v005 [en].cbz",
      sha256: "x",
      pageCount: 60,
      retired: [{ fileId: 1, recycleEntryId: 1, from: "a", binPath: "b" }],
    };
    expect(outcomeWords({ volume: "5", status: "assembled", code: null, detail: null, result })).toBe(
      "Assembled: T/T - v005 [en].cbz, 60 pages; 1 chapter file to the recycle bin",
    );
  });

  it("says why a book was refused and what to do", () => {
    const words = outcomeWords({
      volume: "4",
      status: "refused",
      code: "assembly_missing_chapters",
      detail: "chapter 28 is not on disk",
      result: null,
    });
    expect(words).toMatch(/^Not assembled: chapter 28 is not on disk\. /);
    expect(words).toMatch(/Fetch them first/);
  });

  it("tells the codes that need a fresh preview", () => {
    expect(needsFreshPreview("snapshot_stale")).toBe(true);
    expect(needsFreshPreview("assembly_changed_files")).toBe(true);
    expect(needsFreshPreview("download_active")).toBe(false);
  });
});

describe("page counts", () => {
  it("asks for every file under an alias and sums the answers", () => {
    const q = pageCountsQuery([12, 13]);
    expect(q).toContain("f0: filePages(fileId: 12) { pageCount }");
    expect(q).toContain("f1: filePages(fileId: 13) { pageCount }");
    expect(sumPageCounts({ f0: { pageCount: 5 }, f1: { pageCount: 7 } }, 2)).toBe(12);
    expect(sumPageCounts({ f0: { pageCount: 5 } }, 2)).toBeNull();
    expect(sumPageCounts(undefined, 2)).toBeNull();
  });

  it("splits many files into queries of at most PAGE_COUNT_BATCH aliases, numbered across them", () => {
    const ids = Array.from({ length: 45 }, (_, i) => 100 + i);
    const docs = pageCountsQueries(ids);
    expect(docs).toHaveLength(3);
    const text = docs.map((d) => d.loc?.source.body ?? "");
    expect(text.map((t) => (t.match(/filePages/g) ?? []).length)).toEqual([PAGE_COUNT_BATCH, PAGE_COUNT_BATCH, 5]);
    expect(text[1]).toContain("f20: filePages(fileId: 120)");
    expect(text[2]).toContain("f44: filePages(fileId: 144)");
  });
});

describe("refusalsOf", () => {
  it("lists the refusals of a preview with nothing to assemble, and ignores other errors", () => {
    const error = {
      graphQLErrors: [
        {
          extensions: {
            code: "assembly_nothing_to_do",
            books: [{ volume: "4", code: "assembly_missing_chapters", detail: "chapter 28 is not on disk" }],
          },
        },
      ],
    };
    expect(refusalsOf(error)).toEqual([
      {
        volume: "4",
        status: "refused",
        code: "assembly_missing_chapters",
        detail: "chapter 28 is not on disk",
        result: null,
      },
    ]);
    expect(refusalsOf({ graphQLErrors: [{ extensions: { code: "series_not_found" } }] })).toBeNull();
    expect(refusalsOf(new Error("x"))).toBeNull();
  });
});
