import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildCoverageIndex } from "./coverage.ts";
import { label } from "./labels.ts";
import { seriesOverview } from "./overview.ts";
import { unit, unitsView } from "./page-fixtures.ts";
import { seriesForm } from "./series-form.ts";
import { snapshotArb } from "./test-arbitraries.ts";
import type { UnitsView } from "./types.ts";
import { buildUnitsView } from "./units.ts";

describe("seriesOverview", () => {
  it("counts books and main chapters, owned and missing; extras never count", () => {
    const view = unitsView(
      [
        unit("book", 1, { owned: true, fileIds: [11], plan: "book on disk" }),
        unit("chapter", 1, { book: "1", coverage: "covered_by_volume" }),
        unit("chapter", 2, { book: "1", owned: true, fileIds: [21], coverage: "covered_by_volume" }),
        unit("book", 2, { coverage: "covered_by_chapters", plan: "assemble when its chapters are complete" }),
        unit("chapter", 3, { book: "2", owned: true, fileIds: [31] }),
        unit("book", 3),
        unit("chapter", 4, { book: "3" }),
        unit("chapter", 5, { book: "3", monitored: false }),
        unit("book", 4, { monitored: false }),
        unit("chapter", "5.5", { extra: true }),
        unit("chapter", 9, { extra: true, owned: true, fileIds: [99], monitored: false }),
      ],
      { status: null },
    );
    expect(seriesOverview(view)).toEqual({
      coverFileId: 11,
      completion: null,
      books: 4,
      booksOwned: 1,
      chapters: 5,
      chaptersOwned: 2,
      // Book 2 is covered by its chapters; book 4 is not monitored.
      missingBooks: 1,
      // Chapter 1 is inside the owned book; chapter 5 is not monitored; the missing extra 5.5 never counts.
      missingChapters: 1,
      hasGaps: true,
    });
  });

  it("no gaps when every monitored unit is owned or covered; completion is the view's status", () => {
    const view = unitsView(
      [
        unit("book", 1, { owned: true, fileIds: [5] }),
        unit("chapter", 1, { book: "1", coverage: "covered_by_volume" }),
        unit("book", 2, { monitored: false }),
      ],
      { status: "all books" },
    );
    expect(seriesOverview(view)).toMatchObject({
      hasGaps: false,
      missingBooks: 0,
      missingChapters: 0,
      completion: "all books",
    });
  });

  it("cover: the first owned book in reading order, else the first owned main chapter, else an owned extra", () => {
    const chaptersFirst = (units: Parameters<typeof unitsView>[0]) => unitsView(units, { form: "chapters" });
    // Books first even in a chapters-form series whose chapters come first in reading order.
    expect(
      seriesOverview(
        chaptersFirst([
          unit("chapter", 1, { owned: true, fileIds: [1] }),
          unit("book", 1),
          unit("book", 2, { owned: true, fileIds: [7, 8] }),
        ]),
      ).coverFileId,
    ).toBe(7);
    expect(
      seriesOverview(
        chaptersFirst([
          unit("chapter", "0.5", { extra: true, owned: true, fileIds: [3] }),
          unit("chapter", 2, { owned: true, fileIds: [4] }),
        ]),
      ).coverFileId,
    ).toBe(4);
    expect(
      seriesOverview(chaptersFirst([unit("chapter", "0.5", { extra: true, owned: true, fileIds: [3] })])).coverFileId,
    ).toBe(3);
    // An unowned unit's files are no cover (there are none), nor is an empty series.
    expect(seriesOverview(unitsView([unit("book", 1), unit("chapter", 1)])).coverFileId).toBeNull();
    expect(seriesOverview(unitsView([]))).toEqual({
      coverFileId: null,
      completion: null,
      books: 0,
      booksOwned: 0,
      chapters: 0,
      chaptersOwned: 0,
      missingBooks: 0,
      missingChapters: 0,
      hasGaps: false,
    });
  });
});

describe("seriesOverview properties", () => {
  const viewOf = (snap: Parameters<typeof buildUnitsView>[0]): UnitsView =>
    buildUnitsView(snap, buildCoverageIndex(snap, { form: seriesForm(snap.series) }));

  it("an estimate never changes anything: estimatedBook values do not matter", () => {
    fc.assert(
      fc.property(
        snapshotArb,
        fc.array(fc.option(fc.integer({ min: 0, max: 9 }), { nil: null }), { minLength: 1, maxLength: 50 }),
        (snap, estimates) => {
          const view = viewOf(snap);
          const reEstimated: UnitsView = {
            ...view,
            units: view.units.map((u, i) => {
              const e = estimates[i % estimates.length];
              return { ...u, estimatedBook: e === null || e === undefined ? null : label(e) };
            }),
          };
          expect(seriesOverview(reEstimated)).toEqual(seriesOverview(view));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("counts are consistent: owned and missing within the totals, gaps iff something is missing, the cover is an owned file", () => {
    fc.assert(
      fc.property(snapshotArb, (snap) => {
        const view = viewOf(snap);
        const o = seriesOverview(view);
        expect(o.booksOwned + o.missingBooks).toBeLessThanOrEqual(o.books);
        expect(o.chaptersOwned + o.missingChapters).toBeLessThanOrEqual(o.chapters);
        expect(o.hasGaps).toBe(o.missingBooks + o.missingChapters > 0);
        const ownedFiles = new Set(view.units.filter((u) => u.owned).flatMap((u) => u.fileIds));
        if (o.coverFileId === null) expect(ownedFiles.size).toBe(0);
        else expect(ownedFiles.has(o.coverFileId)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
