import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareLabels } from "./labels.ts";
import {
  bookState,
  chapterState,
  coverageIndex,
  L,
  mapOf,
  scenarioIndex,
  seriesFacts,
  snapshotOf,
  type ScenarioSpec,
} from "./page-fixtures.ts";
import type { CoverageIndex, FileFacts, SeriesFacts, Unit } from "./types.ts";
import { labels } from "./test-fixtures.ts";
import { buildUnitsView } from "./units.ts";

const order = (units: Unit[]) => units.map((u) => `${u.kind === "book" ? "B" : "c"}${u.number}`);
const view = (spec: ScenarioSpec, series: Partial<SeriesFacts> = {}) =>
  buildUnitsView(snapshotOf({ series: seriesFacts(series) }), scenarioIndex(spec));

/** Books 1–3 over chapters 1–9: book 1 owned, book 2 complete from chapters, book 3 in part. */
const mixed = (map: "exact" | "partial" | "none"): ScenarioSpec => ({
  map,
  books: [
    { number: 1, chapters: [1, 2, 3], owned: true, pageCount: 190 },
    { number: 2, chapters: [4, 5, 6] },
    { number: 3, chapters: [7, 8, 9] },
  ],
  chapters: [0, 10],
  onDisk: [2, 4, 5, 6, 8],
  extras: ["3.5"],
  estimates: { "10": "3", "3.5": "1" },
});

describe("buildUnitsView: series shapes", () => {
  it("an empty series", () => {
    const v = buildUnitsView(snapshotOf({ series: seriesFacts({ id: 3, status: "running" }) }), coverageIndex());
    expect(v).toEqual({
      seriesId: 3,
      form: "chapters",
      map: "none",
      status: null,
      planWording: "books_first",
      units: [],
    });
  });

  it("a series owned only as books", () => {
    const v = view({
      map: "none",
      books: [
        { number: 2, owned: true, pageCount: 201 },
        { number: 1, owned: true },
        { number: 10, owned: true },
      ],
    });
    expect(v.form).toBe("books");
    expect(v.status).toBe("all books");
    expect(order(v.units)).toEqual(["B1", "B2", "B10"]);
    expect(v.units[1]).toEqual({
      kind: "book",
      number: "2",
      book: null,
      owned: true,
      monitored: true,
      coverage: null,
      plan: "book on disk",
      estimatedBook: null,
      pageCount: 201,
      fileIds: [1000],
      duplicateFileIds: [],
      problems: [],
      extra: false,
    });
  });

  it("a running series only as chapters", () => {
    const v = view(
      { map: "none", books: [], chapters: [3, 1, 2, "1.5"], onDisk: [1, 2] },
      { status: "running", knownBookCount: null },
    );
    expect(v.form).toBe("chapters");
    expect(v.status).toBeNull();
    expect(order(v.units)).toEqual(["c1", "c1.5", "c2", "c3"]);
    expect(v.units.map((u) => u.owned)).toEqual([true, false, true, false]);
    expect(v.units.every((u) => u.plan === null && u.book === null && u.pageCount === null)).toBe(true);
  });

  it("a mixed series with an exact map (books form): each book then its chapters", () => {
    const v = view(mixed("exact"));
    expect(v.map).toBe("exact");
    expect(order(v.units)).toEqual([
      "c0",
      "B1",
      "c1",
      "c2",
      "c3",
      "B2",
      "c4",
      "c5",
      "c6",
      "B3",
      "c7",
      "c8",
      "c9",
      "c10",
      "c3.5",
    ]);
    const byKey = new Map(v.units.map((u) => [`${u.kind}${u.number}`, u]));
    expect(byKey.get("book1")).toMatchObject({ plan: "book on disk", pageCount: 190, owned: true });
    expect(byKey.get("book2")).toMatchObject({
      plan: "assemble when its chapters are complete",
      coverage: "covered_by_chapters",
      pageCount: null,
    });
    expect(byKey.get("book3")).toMatchObject({ plan: "in part", coverage: null });
    expect(byKey.get("chapter1")).toMatchObject({ book: "1", owned: false, coverage: "covered_by_volume" });
    // On disk inside an owned book: still covered by it (this is how the page finds duplicates).
    expect(byKey.get("chapter2")).toMatchObject({ book: "1", owned: true, coverage: "covered_by_volume" });
    expect(byKey.get("chapter8")).toMatchObject({ book: "3", owned: true, coverage: null });
    // Estimates travel for display only.
    expect(byKey.get("chapter10")).toMatchObject({ book: null, estimatedBook: "3" });
    expect(byKey.get("chapter3.5")).toMatchObject({ book: null, estimatedBook: "1", extra: true });
  });

  it("a mixed series with an exact map (chapters form): its chapters then the book", () => {
    const v = view(mixed("exact"), { formOverride: "chapters" });
    expect(v.form).toBe("chapters");
    expect(order(v.units)).toEqual([
      "c0",
      "c1",
      "c2",
      "c3",
      "B1",
      "c4",
      "c5",
      "c6",
      "B2",
      "c7",
      "c8",
      "c9",
      "B3",
      "c10",
      "c3.5",
    ]);
  });

  it("a mixed series without a map: books, then chapters, extras last", () => {
    const v = view(mixed("none"));
    expect(v.map).toBe("none");
    expect(order(v.units)).toEqual([
      "B1",
      "B2",
      "B3",
      "c0",
      "c1",
      "c2",
      "c3",
      "c4",
      "c5",
      "c6",
      "c7",
      "c8",
      "c9",
      "c10",
      "c3.5",
    ]);
    expect(v.units.filter((u) => u.kind === "chapter").every((u) => u.book === null)).toBe(true);
    expect(v.units.find((u) => u.number === "2" && u.kind === "book")?.plan).toBe("missing");
    expect(v.status).toBeNull();
  });

  it("a mixed series with a partial map in chapters form: chapters, then books", () => {
    const v = view(mixed("partial"), { status: "running" });
    expect(order(v.units)).toEqual([
      "c0",
      "c1",
      "c2",
      "c3",
      "c4",
      "c5",
      "c6",
      "c7",
      "c8",
      "c9",
      "c10",
      "B1",
      "B2",
      "B3",
      "c3.5",
    ]);
    expect(v.units.find((u) => u.number === "2" && u.kind === "book")?.plan).toBe("in part");
  });

  it("a webtoon is chapters", () => {
    const v = view(
      { map: "none", books: [], chapters: labels("1-4"), onDisk: [1, 2, 3, 4] },
      { webtoon: true, knownBookCount: 2 },
    );
    expect(v.form).toBe("chapters");
    expect(order(v.units)).toEqual(["c1", "c2", "c3", "c4"]);
  });

  it("an all-chapters series", () => {
    const v = view({
      map: "exact",
      books: [
        { number: 1, chapters: [1, 2] },
        { number: 2, chapters: [3] },
      ],
      onDisk: [1, 2, 3],
    });
    expect(v.status).toBe("all chapters");
  });
});

describe("buildUnitsView: placement and rows", () => {
  it("places a loose chapter by the last book whose range starts below it: inside the range or after the run", () => {
    const index = scenarioIndex({
      map: "exact",
      books: [
        { number: 1, chapters: [1, 2] },
        { number: 2, chapters: [4, 6] },
      ],
      chapters: ["5", "0.5", 7, 3],
    });
    expect(order(buildUnitsView(snapshotOf(), index).units)).toEqual([
      "c0.5",
      "B1",
      "c1",
      "c2",
      "c3",
      "B2",
      "c4",
      "c5",
      "c6",
      "c7",
    ]);
    const chaptersForm = buildUnitsView(snapshotOf({ series: seriesFacts({ formOverride: "chapters" }) }), index);
    expect(order(chaptersForm.units)).toEqual(["c0.5", "c1", "c2", "B1", "c3", "c4", "c5", "c6", "B2", "c7"]);
  });

  it("keeps book label order when the map's ranges are not monotonic", () => {
    const index = scenarioIndex({
      map: "exact",
      books: [
        { number: 1, chapters: [5, 6] },
        { number: 2, chapters: [1, 2] },
      ],
      chapters: [3, 7],
    });
    expect(order(buildUnitsView(snapshotOf(), index).units)).toEqual(["B1", "c5", "c6", "B2", "c1", "c2", "c3", "c7"]);
  });

  it("books with unknown boundaries keep their place in label order", () => {
    const index = scenarioIndex({
      map: "exact",
      books: [
        { number: 1, chapters: [1] },
        { number: 2, chapters: [] },
        { number: 3, chapters: [2] },
      ],
    });
    expect(order(buildUnitsView(snapshotOf(), index).units)).toEqual(["B1", "c1", "B2", "B3", "c2"]);
  });

  it("page count only for owned books", () => {
    const index = coverageIndex({
      books: [bookState(1, { pageCount: 120 }), bookState(2, { owned: true, pageCount: 90, fileIds: [5] })],
    });
    expect(buildUnitsView(snapshotOf(), index).units.map((u) => u.pageCount)).toEqual([null, 90]);
  });

  it("states conflicting claims and missing parts as problems", () => {
    const map = mapOf("exact");
    map.conflicts.set(L(5), [L(1), L(2)]);
    const index = coverageIndex({
      map,
      chapters: [
        chapterState(5, { ambiguous: true }),
        chapterState(6, { ambiguous: true }),
        chapterState(7, { parts: 3, partsOnDisk: [1], fileIds: [9] }),
        chapterState(8, { parts: 2, partsOnDisk: [1, 2], onDisk: true, fileIds: [10, 11] }),
      ],
    });
    expect(buildUnitsView(snapshotOf(), index).units.map((u) => u.problems)).toEqual([
      ["claimed by books 1, 2: not assigned"],
      ["claimed by several books: not assigned"],
      ["split chapter: parts 2, 3 of 3 missing"],
      [],
    ]);
  });

  it("covered_by_volume says what covers a chapter, on disk or not; its duplicates are listed apart", () => {
    const index = coverageIndex({
      map: mapOf("exact", { "1": ["1", "2", "3"] }),
      chapters: [
        chapterState(1, {
          book: L(1),
          onDisk: true,
          fileIds: [1],
          coverage: "covered_by_volume",
          duplicateFileIds: [1],
        }),
        // Inside a hand-imported book: covered, but its file is no duplicate.
        chapterState(2, { book: L(1), onDisk: true, fileIds: [2], coverage: "covered_by_volume" }),
        chapterState(3, { book: L(1), coverage: "covered_by_volume" }),
        chapterState(4, { onDisk: true, fileIds: [4], coverage: "covered_unmapped" }),
      ],
    });
    const units = buildUnitsView(snapshotOf(), index).units;
    expect(units.map((u) => u.coverage)).toEqual([
      "covered_by_volume",
      "covered_by_volume",
      "covered_by_volume",
      "covered_unmapped",
    ]);
    expect(units.map((u) => u.duplicateFileIds)).toEqual([[1], [], [], []]);
  });

  it("passes book problems through", () => {
    const index = coverageIndex({ books: [bookState(1, { owned: true, problems: ["suspect: hand import"] })] });
    expect(buildUnitsView(snapshotOf(), index).units[0]!.problems).toEqual(["suspect: hand import"]);
  });

  it("shows stray chapter files as trailing extras, one row per chapter label", () => {
    const file = (id: number, chapter: string | null): FileFacts => ({
      id,
      path: `/x/${id}.cbz`,
      kind: "chapter",
      volume: null,
      chapter: chapter === null ? null : L(chapter),
      chapterEnd: null,
      part: null,
      pageCount: 20,
      sha256: "0",
      origin: "download",
      language: "en",
      tagSource: null,
    });
    const index: CoverageIndex = {
      ...scenarioIndex({ map: "none", books: [], chapters: [1, 2], onDisk: [1] }),
      strayFileIds: [50, 51, 52, 1, 54],
    };
    const book = { ...file(54, "97"), kind: "book" as const };
    const snapshot = snapshotOf({
      files: [file(50, "99"), file(51, "99"), file(52, null), file(1, "1"), file(53, "98"), book],
    });
    const v = buildUnitsView(snapshot, index);
    expect(order(v.units)).toEqual(["c1", "c2", "c99"]);
    expect(v.units[2]).toMatchObject({ extra: true, owned: true, book: null, fileIds: [50, 51], monitored: false });
  });

  it("copies the plan wording preference and series id", () => {
    const v = buildUnitsView(
      snapshotOf({ series: seriesFacts({ id: 42, planWording: "chapters_first" }) }),
      coverageIndex(),
    );
    expect(v).toMatchObject({ seriesId: 42, planWording: "chapters_first" });
  });
});

describe("buildUnitsView properties", () => {
  const specArb = fc
    .record({
      map: fc.constantFrom("exact" as const, "partial" as const, "none" as const),
      nBooks: fc.integer({ min: 0, max: 6 }),
      per: fc.integer({ min: 0, max: 4 }),
      extra: fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 6 }),
      owned: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      disk: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
      est: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 40, maxLength: 40 }),
      form: fc.constantFrom("books" as const, "chapters" as const),
    })
    .map(({ map, nBooks, per, extra, owned, disk, est, form }) => {
      const books = Array.from({ length: nBooks }, (_, i) => ({
        number: i + 1,
        chapters: per === 0 ? [] : labels(`${i * per + 1}-${(i + 1) * per}`).map(String),
        owned: owned[i]!,
      }));
      const chapters = [...new Set(extra)];
      const onDisk = labels("0-39").filter((_, i) => disk[i]);
      const estimates = Object.fromEntries(labels("0-39").map((l, i) => [l, String(est[i])]));
      return { spec: { map, books, chapters, onDisk, estimates } as ScenarioSpec, form };
    });

  it("lists every state once, books in label order, book only from the index, estimates inert", () => {
    fc.assert(
      fc.property(specArb, ({ spec, form }) => {
        const index = scenarioIndex(spec);
        const v = buildUnitsView(snapshotOf({ series: seriesFacts({ formOverride: form }) }), index);
        expect(v.units.length).toBe(index.books.length + index.chapters.length);
        const books = v.units.filter((u) => u.kind === "book").map((u) => u.number);
        expect(books).toEqual([...books].sort(compareLabels));
        expect(new Set(books).size).toBe(index.books.length);
        const stateOf = new Map(index.chapters.map((c) => [c.number, c]));
        for (const u of v.units.filter((x) => x.kind === "chapter")) expect(u.book).toBe(stateOf.get(u.number)!.book);
        // Same index without estimates: identical units apart from estimatedBook.
        const plain = { ...index, chapters: index.chapters.map((c) => ({ ...c, estimatedBook: null })) };
        const w = buildUnitsView(snapshotOf({ series: seriesFacts({ formOverride: form }) }), plain);
        expect(w.units.map((u) => ({ ...u, estimatedBook: null }))).toEqual(
          v.units.map((u) => ({ ...u, estimatedBook: null })),
        );
        // With an exact map a chapter sits in its book's run.
        if (v.map === "exact") {
          let current: string | null = null;
          const runs = form === "books" ? v.units : [...v.units].reverse();
          for (const u of runs) {
            if (u.kind === "book") current = u.number;
            else if (u.book !== null) expect(u.book).toBe(current);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
