import { describe, expect, it } from "vitest";
import type { LabelOrder, OrderLabels } from "$lib/map-editor/label-order";
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

  it("suggests the chapter the service names next", () => {
    expect(suggestedChapter([], "7", null)).toBe("7");
    expect(suggestedChapter([], "7", "3")).toBe("7");
    // The service's `nextWhole` for ["7", "8.5"] is "9".
    expect(suggestedChapter(marksOf([1, "7"], [5, "8.5"]), "1", "9")).toBe("9");
    expect(suggestedChapter(marksOf([1, "7"]), "1", null)).toBe("1");
  });

  it("submits chapters in page order and requires them to rise in the service's order", () => {
    expect(chaptersFromMarks(marksOf([6, "2"], [1, "1"], [9, "2.5"]), ["1", "2", "2.5"])).toEqual({
      chapters: ["1", "2", "2.5"],
      problems: [],
      pending: false,
    });
    expect(chaptersFromMarks([], []).problems).toHaveLength(1);
    const bad = chaptersFromMarks(marksOf([1, "10"], [5, "9.5"]), ["9.5", "10"]);
    expect(bad.chapters).toEqual(["10", "9.5"]);
    expect(bad.problems[0]).toContain("must rise");
  });

  it("waits for the service's order before anything can be submitted", () => {
    const marks = marksOf([1, "1"], [5, "2"]);
    expect(chaptersFromMarks(marks, null)).toEqual({ chapters: ["1", "2"], problems: [], pending: true });
    // An answer for the marks before "2" was added.
    expect(chaptersFromMarks(marks, ["1"]).pending).toBe(true);
  });

  it("hints the first chapter from the books the service puts earlier", async () => {
    const entries = [
      { volume: "1", chapters: ["1", "2", "3", "3.5"] },
      { volume: "10", chapters: ["30"] },
    ];
    // The service's answers for exactly these questions.
    const answers: Record<string, LabelOrder> = {
      "2,1,10": { labels: ["1", "2", "10"], rejected: [], nextWhole: "11" },
      "1,1,10": { labels: ["1", "10"], rejected: [], nextWhole: "11" },
      "1,2,3,3.5": { labels: ["1", "2", "3", "3.5"], rejected: [], nextWhole: "4" },
      "x,1,10": { labels: ["1", "10"], rejected: ["x"], nextWhole: "11" },
    };
    const asked: string[] = [];
    const order: OrderLabels = (labels) => {
      asked.push(labels.join(","));
      const answer = answers[labels.join(",")];
      return answer ? Promise.resolve(answer) : Promise.reject(new Error(`unexpected ${labels.join(",")}`));
    };
    expect(await firstChapterHint("2", entries, order)).toBe("4");
    expect(await firstChapterHint("1", entries, order)).toBe("1");
    expect(await firstChapterHint("x", entries, order)).toBe("1");
    expect(asked).toEqual(["2,1,10", "1,2,3,3.5", "1,1,10", "x,1,10"]);
  });
});
