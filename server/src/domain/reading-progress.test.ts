import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { label } from "./labels.ts";
import {
  bookProgressFromChapters,
  clampPage,
  followProgress,
  type FollowInput,
  type LayoutEntry,
  type ProgressFile,
  type ProgressValue,
} from "./reading-progress.ts";

const chapterFile = (id: number, chapter: number, pageCount: number, part: number | null = null): ProgressFile => ({
  id,
  kind: "chapter",
  volume: null,
  chapter: label(chapter),
  chapterEnd: null,
  part,
  pageCount,
});
const bookFile = (id: number, volume: number, pageCount: number): ProgressFile => ({
  id,
  kind: "book",
  volume: label(volume),
  chapter: null,
  chapterEnd: null,
  part: null,
  pageCount,
});
const at = (page: number, completed = false, updatedAt = 1000): ProgressValue => ({ page, completed, updatedAt });

describe("bookProgressFromChapters", () => {
  const layout: LayoutEntry[] = [
    { chapter: label(1), part: null, pages: 20, fileId: 1 },
    { chapter: label(2), part: null, pages: 18, fileId: 2 },
    { chapter: label(3), part: null, pages: 22, fileId: 3 },
  ];

  it("opens at the first page of the first chapter not completed; completed pages count as read", () => {
    const places = [at(20, true), at(18, true), at(3)];
    expect(bookProgressFromChapters(layout, 60, (_, i) => places[i]!)).toEqual({
      page: 39,
      completed: false,
      updatedAt: 1000,
    });
  });

  it("a chapter without a place is not completed", () => {
    const places = [at(20, true), null, at(22, true)];
    expect(bookProgressFromChapters(layout, 60, (_, i) => places[i]!)?.page).toBe(21);
  });

  it("every chapter completed: the book is completed", () => {
    expect(bookProgressFromChapters(layout, 60, () => at(5, true))).toEqual({
      page: 60,
      completed: true,
      updatedAt: 1000,
    });
  });

  it("no chapter has a place: the book has none", () => {
    expect(bookProgressFromChapters(layout, 60, () => null)).toBeNull();
  });
});

describe("followProgress: examples", () => {
  it("assembly: the chapters' places become the book's", () => {
    const input: FollowInput = {
      pending: [
        { file: chapterFile(1, 1, 20), progress: at(20, true, 1) },
        { file: chapterFile(2, 2, 18), progress: at(18, true, 2) },
        { file: chapterFile(3, 3, 22), progress: at(3, false, 3) },
      ],
      active: [bookFile(9, 1, 60)],
      existing: new Map(),
      layouts: new Map([
        [
          9,
          [
            { chapter: label(1), part: null, pages: 20, fileId: 1 },
            { chapter: label(2), part: null, pages: 18, fileId: 2 },
            { chapter: label(3), part: null, pages: 22, fileId: 3 },
          ],
        ],
      ]),
    };
    expect(followProgress(input)).toEqual([{ from: [1, 2, 3], to: 9, progress: at(39, false, 3) }]);
  });

  it("replacement: a download of the same chapter takes the place (clamped to its pages)", () => {
    const input: FollowInput = {
      pending: [{ file: chapterFile(1, 7, 30), progress: at(25, false, 5) }],
      active: [chapterFile(4, 7, 20), chapterFile(5, 8, 20)],
      existing: new Map(),
      layouts: new Map(),
    };
    expect(followProgress(input)).toEqual([{ from: [1], to: 4, progress: at(20, false, 5) }]);
  });

  it("an external volume replacing an assembly takes the book's place", () => {
    const input: FollowInput = {
      pending: [{ file: bookFile(1, 2, 180), progress: at(40, false, 5) }],
      active: [bookFile(3, 2, 200), bookFile(4, 3, 200)],
      existing: new Map(),
      layouts: new Map(),
    };
    expect(followProgress(input)).toEqual([{ from: [1], to: 3, progress: at(40, false, 5) }]);
  });

  it("the target's own more recent place wins; the pending place is still consumed", () => {
    const input: FollowInput = {
      pending: [{ file: chapterFile(1, 7, 30), progress: at(25, false, 5) }],
      active: [chapterFile(4, 7, 30)],
      existing: new Map([[4, at(2, false, 9)]]),
      layouts: new Map(),
    };
    expect(followProgress(input)).toEqual([{ from: [1], to: 4, progress: null }]);
  });

  it("nothing holds the content: the place stays pending", () => {
    const input: FollowInput = {
      pending: [{ file: chapterFile(1, 7, 30), progress: at(25) }],
      active: [chapterFile(4, 8, 30), bookFile(5, 1, 100)],
      existing: new Map(),
      layouts: new Map([[5, [{ chapter: label(1), part: null, pages: 100, fileId: null }]]]),
    };
    expect(followProgress(input)).toEqual([]);
  });

  it("clampPage keeps pages inside the file", () => {
    expect(clampPage(0, 10)).toBe(1);
    expect(clampPage(11, 10)).toBe(10);
    expect(clampPage(3.7, 10)).toBe(3);
    expect(clampPage(Number.NaN, 10)).toBe(1);
    expect(clampPage(5, 0)).toBe(1);
  });
});

// ---- properties ----

const progressArb = fc.record({
  page: fc.integer({ min: -3, max: 80 }),
  completed: fc.boolean(),
  updatedAt: fc.integer({ min: 0, max: 50 }),
});

/** A book assembled from n chapters (some split in parts), its chapter files retired with random places. */
const assemblyArb = fc
  .array(fc.record({ pages: fc.integer({ min: 0, max: 40 }), parts: fc.integer({ min: 1, max: 2 }) }), {
    minLength: 1,
    maxLength: 12,
  })
  .chain((chapters) => {
    const files: { file: ProgressFile; pages: number }[] = [];
    let id = 1;
    for (const [i, c] of chapters.entries()) {
      for (let p = 1; p <= c.parts; p++) {
        files.push({ file: chapterFile(id++, i + 1, c.pages, c.parts > 1 ? p : null), pages: c.pages });
      }
    }
    return fc.tuple(
      fc.constant(files),
      fc.array(fc.option(progressArb, { nil: null }), { minLength: files.length, maxLength: files.length }),
      fc.option(progressArb, { nil: null }),
    );
  });

describe("followProgress: properties", () => {
  it("an assembled book opens after exactly the pages of its leading completed chapters", () => {
    fc.assert(
      fc.property(assemblyArb, ([files, places, own]) => {
        const bookId = 1000;
        const pageCount = files.reduce((s, f) => s + f.pages, 0);
        const layout: LayoutEntry[] = files.map((f) => ({
          chapter: f.file.chapter!,
          part: f.file.part,
          pages: f.pages,
          fileId: f.file.id,
        }));
        const pending = files.flatMap((f, i) => (places[i] ? [{ file: f.file, progress: places[i] }] : []));
        const input: FollowInput = {
          pending,
          active: [bookFile(bookId, 1, pageCount)],
          existing: new Map(own ? [[bookId, own]] : []),
          layouts: new Map([[bookId, layout]]),
        };
        const moves = followProgress(input);
        if (pending.length === 0) return moves.length === 0;
        expect(moves).toHaveLength(1);
        const move = moves[0]!;
        expect(move.to).toBe(bookId);
        expect(move.from).toEqual(pending.map((p) => p.file.id).sort((a, b) => a - b));
        const leading = places.findIndex((p) => !p?.completed);
        const expected: ProgressValue = {
          page:
            leading === -1
              ? Math.max(1, pageCount)
              : clampPage(1 + files.slice(0, leading).reduce((s, f) => s + f.pages, 0), pageCount),
          completed: leading === -1,
          updatedAt: Math.max(...pending.map((p) => p.progress.updatedAt)),
        };
        const winner = own && own.updatedAt > expected.updatedAt ? null : expected;
        if (own && own.updatedAt === expected.updatedAt) return true; // a tie keeps the one further on
        expect(move.progress).toEqual(winner);
        return true;
      }),
      { numRuns: 2000 },
    );
  });

  const libraryArb = fc
    .record({
      chapters: fc.array(
        fc.record({
          chapter: fc.integer({ min: 0, max: 6 }),
          pages: fc.integer({ min: 0, max: 30 }),
          active: fc.boolean(),
        }),
        { maxLength: 10 },
      ),
      books: fc.array(
        fc.record({
          volume: fc.integer({ min: 0, max: 3 }),
          pages: fc.integer({ min: 0, max: 90 }),
          active: fc.boolean(),
          layout: fc.boolean(),
        }),
        { maxLength: 4 },
      ),
      places: fc.array(fc.option(progressArb, { nil: null }), { minLength: 14, maxLength: 14 }),
    })
    .map(({ chapters, books, places }) => {
      const files = [
        ...chapters.map((c, i) => ({ f: chapterFile(i + 1, c.chapter, c.pages), active: c.active, layout: false })),
        ...books.map((b, i) => ({ f: bookFile(100 + i, b.volume, b.pages), active: b.active, layout: b.layout })),
      ];
      const active = files.filter((x) => x.active).map((x) => x.f);
      const pending = files.flatMap((x, i) => (!x.active && places[i] ? [{ file: x.f, progress: places[i] }] : []));
      const existing = new Map(files.flatMap((x, i) => (x.active && places[i] ? [[x.f.id, places[i]] as const] : [])));
      const layouts = new Map(
        files
          .filter((x) => x.active && x.layout)
          .map(
            (x) =>
              [x.f.id, [0, 1, 2].map((c) => ({ chapter: label(c), part: null, pages: 10, fileId: null }))] as const,
          ),
      );
      return { pending, active, existing, layouts } satisfies FollowInput;
    });

  it("moves only to active files, consume each pending place at most once, and keep pages inside the target", () => {
    fc.assert(
      fc.property(libraryArb, (input) => {
        const moves = followProgress(input);
        const activeById = new Map(input.active.map((f) => [f.id, f]));
        const pendingIds = new Set(input.pending.map((p) => p.file.id));
        const consumed = moves.flatMap((m) => m.from);
        expect(new Set(consumed).size).toBe(consumed.length);
        for (const m of moves) {
          const target = activeById.get(m.to);
          expect(target).toBeDefined();
          for (const id of m.from) expect(pendingIds.has(id)).toBe(true);
          if (m.progress) {
            expect(m.progress.page).toBeGreaterThanOrEqual(1);
            expect(m.progress.page).toBeLessThanOrEqual(Math.max(1, target!.pageCount));
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("moves only between files of the same content: same chapter, same volume, or a book whose layout holds the chapter", () => {
    fc.assert(
      fc.property(libraryArb, (input) => {
        const pendingById = new Map(input.pending.map((p) => [p.file.id, p.file]));
        for (const m of followProgress(input)) {
          const target = input.active.find((f) => f.id === m.to)!;
          for (const id of m.from) {
            const src = pendingById.get(id)!;
            if (target.kind === "chapter") expect(src.chapter).toBe(target.chapter);
            else if (src.kind === "book") expect(src.volume).toBe(target.volume);
            else expect(input.layouts.get(target.id)?.some((e) => e.chapter === src.chapter)).toBe(true);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("is idempotent: once the moves are applied, nothing moves again", () => {
    fc.assert(
      fc.property(libraryArb, (input) => {
        const moves = followProgress(input);
        const consumed = new Set(moves.flatMap((m) => m.from));
        const existing = new Map(input.existing);
        for (const m of moves) if (m.progress) existing.set(m.to, m.progress);
        const again = followProgress({
          ...input,
          pending: input.pending.filter((p) => !consumed.has(p.file.id)),
          existing,
        });
        expect(again).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it("completing one more leading chapter never moves the book's place backwards", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 9 }),
        (pages, k) => {
          const n = Math.min(k, pages.length - 1);
          const layout = pages.map((p, i) => ({ chapter: label(i), part: null, pages: p, fileId: null }));
          const total = pages.reduce((s, p) => s + p, 0);
          const before = bookProgressFromChapters(layout, total, (_, i) => (i < n ? at(1, true) : at(1)));
          const after = bookProgressFromChapters(layout, total, (_, i) => (i <= n ? at(1, true) : at(1)));
          expect(after!.completed || after!.page >= before!.page).toBe(true);
        },
      ),
    );
  });
});
