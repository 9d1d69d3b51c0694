import { describe, expect, it } from "vitest";
import { addMark, chaptersFromMarks, firstChapterHint, removeMark, suggestedChapter, type Mark } from "./marks";

function marksOf(...pairs: [number, string][]): Mark[] {
  let marks: Mark[] = [];
  for (const [page, chapter] of pairs) {
    const r = addMark(marks, page, chapter);
    if (!r.ok) throw new Error(r.message);
    marks = r.marks;
  }
  return marks;
}

describe("chapter marks", () => {
  it("keeps one mark per page, in page order, canonical", () => {
    const marks = marksOf([5, "2"], [1, "01"], [5, "3"]);
    expect(marks).toEqual([
      { page: 1, chapter: "1" },
      { page: 5, chapter: "3" },
    ]);
  });

  it("refuses a non-number and a chapter marked twice", () => {
    expect(addMark([], 1, "x")).toEqual({ ok: false, message: "Enter the chapter as a number, such as 7 or 7.5." });
    const r = addMark(marksOf([1, "1"]), 4, "1");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain("already marked on page 1");
  });

  it("removes a mark", () => {
    expect(removeMark(marksOf([1, "1"], [4, "2"]), 1)).toEqual([{ page: 4, chapter: "2" }]);
  });

  it("suggests the next chapter", () => {
    expect(suggestedChapter([], "7")).toBe("7");
    expect(suggestedChapter(marksOf([1, "7"], [5, "8.5"]), "1")).toBe("9");
  });

  it("submits chapters in page order and requires them to rise", () => {
    expect(chaptersFromMarks(marksOf([6, "2"], [1, "1"], [9, "2.5"]))).toEqual({
      chapters: ["1", "2", "2.5"],
      problems: [],
    });
    expect(chaptersFromMarks([]).problems).toHaveLength(1);
    const bad = chaptersFromMarks(marksOf([1, "3"], [5, "2"]));
    expect(bad.chapters).toEqual(["3", "2"]);
    expect(bad.problems[0]).toContain("must rise");
  });

  it("hints the first chapter from earlier books", () => {
    const entries = [
      { volume: "1", chapters: ["1", "2", "3", "3.5"] },
      { volume: "3", chapters: ["9"] },
    ];
    expect(firstChapterHint("2", entries)).toBe("4");
    expect(firstChapterHint("1", entries)).toBe("1");
  });
});
