import { describe, expect, it } from "vitest";
import { evidenceSentence, progressSentence, proposalPages, type BookEvidence } from "./page-evidence";

const chapter = (number: string, bookPages: number[] | null, inOrder = bookPages !== null) => ({
  number,
  fileIds: [1],
  pages: 20,
  matched: inOrder ? 20 : 0,
  bookPages,
  inOrder,
});

const book = (over: Partial<BookEvidence> = {}): BookEvidence => ({
  volume: "4",
  fileId: 9,
  pages: 190,
  chapters: [chapter("25", [3, 24]), chapter("26", [25, 46]), chapter("32", [170, 190])],
  proposal: { volume: "4", chapters: ["25", "26", "27", "28", "29", "30", "31", "32"] },
  ...over,
});

describe("page evidence in words", () => {
  it("a proposal: its chapters as ranges and the book pages they span", () => {
    expect(proposalPages(book())).toEqual([3, 190]);
    expect(evidenceSentence(book())).toBe("chapters 25–32 found in order at pages 3–190");
    const one = book({ chapters: [chapter("7", [2, 11])], proposal: { volume: "1", chapters: ["7"] } });
    expect(evidenceSentence(one)).toBe("chapter 7 found in order at pages 2–11");
  });

  it("no proposal: the chapters found, or that none was", () => {
    expect(evidenceSentence(book({ proposal: null }))).toBe(
      "chapters 25–26, 32 found in order, but they do not explain the book's pages (no proposal)",
    );
    const none = book({ proposal: null, chapters: [chapter("1", null)] });
    expect(proposalPages(none)).toBeNull();
    expect(evidenceSentence(none)).toBe("no chapter on disk was found in its pages");
  });

  it("progress while the signatures are computed", () => {
    expect(progressSentence({ done: 3, total: 12 })).toBe("Reading the pages of the series' files: 3 of 12 done…");
    expect(progressSentence(null)).toBe("Reading the pages of the series' files…");
  });
});
