import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bookState, L, mapOf } from "./page-fixtures.ts";
import {
  bookPlan,
  completesFromChapters,
  isRedundantBook,
  PLAN_WORDING,
  planWording,
  seriesCompletion,
} from "./plans.ts";
import { labels } from "./test-fixtures.ts";
import type { BookState, MapState, Plan, PlanWording, SeriesCompletion } from "./types.ts";

const nine = labels("1-9");

describe("bookPlan", () => {
  const cases: [string, MapState, Partial<BookState>, Plan][] = [
    ["owned book", "exact", { owned: true, chapters: nine, chaptersMapped: 9 }, "book on disk"],
    ["owned book without a map", "none", { owned: true }, "book on disk"],
    ["owned suspect book", "exact", { owned: true, problems: ["suspect"], chapters: nine }, "book on disk"],
    [
      "owned book whose chapters are complete too",
      "exact",
      { owned: true, chapters: nine, chaptersMapped: 9, chaptersOnDisk: 9 },
      "book on disk",
    ],
    [
      "exact map, all chapters on disk, covered",
      "exact",
      { chapters: nine, chaptersMapped: 9, chaptersOnDisk: 9, coverage: "covered_by_chapters" },
      "assemble when its chapters are complete",
    ],
    [
      "exact map, counts complete",
      "exact",
      { chapters: nine, chaptersMapped: 9, chaptersOnDisk: 9 },
      "assemble when its chapters are complete",
    ],
    [
      "exact map, only extras mapped, covered",
      "exact",
      { chapters: [L("4.5")], chaptersMapped: 0, coverage: "covered_by_chapters" },
      "assemble when its chapters are complete",
    ],
    ["exact map, 7 of 9 on disk", "exact", { chapters: nine, chaptersMapped: 9, chaptersOnDisk: 7 }, "in part"],
    ["exact map, none on disk", "exact", { chapters: nine, chaptersMapped: 9 }, "missing"],
    [
      "exact map, ambiguous but complete",
      "exact",
      { chapters: nine, chaptersMapped: 9, chaptersOnDisk: 9, ambiguous: true },
      "in part",
    ],
    [
      "exact map, covered between neighbours, entry unknown",
      "exact",
      { chapters: null, coverage: "covered_by_chapters" },
      "in part",
    ],
    ["exact map, explicit empty entry", "exact", { chapters: [] }, "missing"],
    [
      "partial map, entry complete on disk",
      "partial",
      { chapters: nine, chaptersMapped: 9, chaptersOnDisk: 9 },
      "in part",
    ],
    [
      "partial map, entry partly on disk",
      "partial",
      { chapters: nine, chaptersMapped: 9, chaptersOnDisk: 2 },
      "in part",
    ],
    ["partial map, nothing on disk", "partial", { chapters: nine, chaptersMapped: 9 }, "missing"],
    ["no map, nothing known", "none", {}, "missing"],
    ["no map, an estimate says its chapters are on disk", "none", { estimatedChapters: nine }, "missing"],
    ["exact map, no entry, estimate only", "exact", { estimatedChapters: nine }, "missing"],
  ];
  it.each(cases)("%s", (_name, state, over, plan) => {
    expect(bookPlan(bookState(1, over), mapOf(state))).toBe(plan);
  });

  const bookArb = fc.record({
    owned: fc.boolean(),
    chapters: fc.option(fc.constantFrom([], nine, [L("0"), L("1")])),
    chaptersMapped: fc.integer({ min: 0, max: 9 }),
    chaptersOnDisk: fc.integer({ min: 0, max: 9 }),
    ambiguous: fc.boolean(),
    coverage: fc.constantFrom(null, "covered_by_chapters" as const),
    estimatedChapters: fc.constantFrom([], nine),
  });
  const stateArb = fc.constantFrom<MapState>("exact", "partial", "none");

  it("never reads the estimate, owned ⇔ book on disk, assembly only under an exact map", () => {
    fc.assert(
      fc.property(bookArb, stateArb, (over, state) => {
        const map = mapOf(state);
        const plan = bookPlan(bookState(1, over), map);
        expect(bookPlan(bookState(1, { ...over, estimatedChapters: [L("99")] }), map)).toBe(plan);
        expect(plan === "book on disk").toBe(over.owned);
        if (plan === "assemble when its chapters are complete") {
          expect(state).toBe("exact");
          expect(over.ambiguous).toBe(false);
          expect(over.chapters?.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("seriesCompletion: all books, all chapters", () => {
  const complete = (n: number, over: Partial<BookState> = {}) =>
    bookState(n, { chapters: nine, chaptersMapped: 9, chaptersOnDisk: 9, coverage: "covered_by_chapters", ...over });
  const owned = (n: number, over: Partial<BookState> = {}) => bookState(n, { owned: true, fileIds: [n], ...over });
  const cases: [string, MapState, BookState[], SeriesCompletion][] = [
    ["no book", "exact", [], null],
    ["every book owned", "exact", [owned(1), owned(2)], "all books"],
    ["every book owned, no map", "none", [owned(1), owned(2)], "all books"],
    [
      "every book owned and complete from chapters: books first",
      "exact",
      [
        owned(1, { chapters: nine, chaptersMapped: 9, chaptersOnDisk: 9 }),
        owned(2, { chapters: nine, chaptersMapped: 9, chaptersOnDisk: 9 }),
      ],
      "all books",
    ],
    ["every book complete from chapters", "exact", [complete(1), complete(2)], "all chapters"],
    [
      "a stray owned book in a chapter-complete series",
      "exact",
      [complete(1), owned(2, { chapters: nine, chaptersMapped: 9, chaptersOnDisk: 9 })],
      "all chapters",
    ],
    [
      "an owned book whose chapters are incomplete",
      "exact",
      [complete(1), owned(2, { chapters: nine, chaptersMapped: 9, chaptersOnDisk: 3 })],
      null,
    ],
    ["one book missing", "exact", [complete(1), bookState(2)], null],
    ["complete chapters but the map is partial", "partial", [complete(1), complete(2)], null],
    ["complete chapters but one book is ambiguous", "exact", [complete(1), complete(2, { ambiguous: true })], null],
    [
      "a book without a slot does not block all books",
      "exact",
      [owned(1), owned(2), bookState(21, { slotId: null })],
      "all books",
    ],
    [
      "a book without a slot does not block all chapters",
      "exact",
      [complete(1), owned(21, { slotId: null })],
      "all chapters",
    ],
    ["no slots at all: every book counts", "none", [owned(1, { slotId: null }), bookState(2, { slotId: null })], null],
    ["no slots at all, all owned", "none", [owned(1, { slotId: null }), owned(2, { slotId: null })], "all books"],
  ];
  it.each(cases)("%s", (_name, state, books, status) => {
    expect(seriesCompletion(books, mapOf(state))).toBe(status);
  });

  it("marks owned books redundant only in an all-chapters series", () => {
    expect(isRedundantBook({ owned: true }, "all chapters")).toBe(true);
    expect(isRedundantBook({ owned: false }, "all chapters")).toBe(false);
    expect(isRedundantBook({ owned: true }, "all books")).toBe(false);
    expect(isRedundantBook({ owned: true }, null)).toBe(false);
  });

  it("completesFromChapters needs an exact boundary", () => {
    expect(completesFromChapters(complete(1), mapOf("exact"))).toBe(true);
    expect(completesFromChapters(complete(1, { chapters: null }), mapOf("exact"))).toBe(false);
    expect(completesFromChapters(complete(1), mapOf("none"))).toBe(false);
  });
});

describe("planWording", () => {
  const table: [Plan, PlanWording, string][] = [
    ["book on disk", "books_first", "Book on disk"],
    ["book on disk", "chapters_first", "Book on disk"],
    ["assemble when its chapters are complete", "books_first", "Chapters complete: assemble the book"],
    [
      "assemble when its chapters are complete",
      "chapters_first",
      "Chapters complete: the book can be assembled from them",
    ],
    ["in part", "books_first", "Some chapters on disk: search the book, then the missing chapters"],
    [
      "in part",
      "chapters_first",
      "Some chapters on disk: search the missing chapters, the book only if they fall short",
    ],
    ["missing", "books_first", "Search the book, then chapters"],
    ["missing", "chapters_first", "Search chapters, then the book"],
  ];
  it.each(table)("%s / %s", (plan, pref, text) => {
    expect(planWording(plan, pref)).toBe(text);
  });

  it("covers every plan and preference, and the preference changes the search plans", () => {
    expect(Object.keys(PLAN_WORDING).sort()).toEqual([
      "assemble when its chapters are complete",
      "book on disk",
      "in part",
      "missing",
    ]);
    for (const plan of ["in part", "missing"] as const) {
      expect(planWording(plan, "books_first")).not.toBe(planWording(plan, "chapters_first"));
    }
  });
});
