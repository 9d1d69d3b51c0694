import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  groupSeriesPage,
  LOOSE_TITLE,
  rowTitle,
  modelRows,
  REDUNDANT_NOTE,
  reverseModel,
  UNMAPPED_NOTICE,
  type GroupingOptions,
  type SeriesPageModel,
  type UnitFilter,
} from "./grouping.ts";
import {
  L,
  bigScenario,
  scenarioIndex,
  seriesFacts,
  snapshotOf,
  unit,
  unitsView,
  type ScenarioSpec,
} from "./page-fixtures.ts";
import { unnumberedLabel } from "./source-numbering.ts";
import type { SeriesFacts, Unit, UnitsView } from "./types.ts";
import { buildUnitsView } from "./units.ts";

const opts = (over: Partial<GroupingOptions> = {}): GroupingOptions => ({
  filter: "all",
  reversed: false,
  problemsOnly: false,
  ...over,
});
const viewOf = (spec: ScenarioSpec, series: Partial<SeriesFacts> = {}): UnitsView =>
  buildUnitsView(snapshotOf({ series: seriesFacts(series) }), scenarioIndex(spec));

/** Book 1 owned (chapter 2 inside it on disk), book 2 complete from chapters but unmonitored, book 3 in part. */
const mixed = (map: "exact" | "none"): ScenarioSpec => ({
  map,
  books: [
    { number: 1, chapters: [1, 2, 3], owned: true, pageCount: 190 },
    { number: 2, chapters: [4, 5, 6], monitored: false },
    { number: 3, chapters: [7, 8, 9] },
  ],
  chapters: [0, 10],
  onDisk: [2, 4, 5, 6, 8],
  extras: ["3.5"],
  unmonitored: [9],
  estimates: { "10": "3", "0": "1" },
});

/** The model as short strings: "B1[c1 c2 c3]" per group, "Books: B1 B2", "loose: c0". */
function shape(m: SeriesPageModel): string[] {
  const k = (key: string) => (key.startsWith("book:") ? "B" : "c") + key.slice(key.indexOf(":") + 1);
  return [
    ...m.groups.map((g) => `${k(g.book.key)}[${g.children.map((c) => k(c.key)).join(" ")}]`),
    ...m.sections.map((s) => `${s.title}: ${s.rows.map((r) => k(r.key)).join(" ")}`),
    ...(m.loose ? [`loose: ${m.loose.children.map((c) => k(c.key)).join(" ")}`] : []),
  ];
}

describe("groupSeriesPage with an exact map", () => {
  const view = viewOf(mixed("exact"));
  const model = groupSeriesPage(view, opts());

  it("one group per book in reading order, chapters nested, chapters without a book trailing", () => {
    expect(model).toMatchObject({ layout: "grouped", notice: null, offerMapEditor: false, sections: [] });
    expect(shape(model)).toEqual(["B1[c1 c2 c3]", "B2[c4 c5 c6]", "B3[c7 c8 c9]", "loose: c0 c10 c3.5"]);
    expect(model.loose?.title).toBe(LOOSE_TITLE);
  });

  it("an owned book is collapsed, shows its page count and the duplicates inside", () => {
    const [b1] = model.groups;
    const ch2 = view.units.find((u) => u.kind === "chapter" && u.number === "2")!;
    expect(b1).toMatchObject({ collapsed: true, coverText: null, note: null });
    expect(b1!.book).toMatchObject({
      title: "Book 1",
      owned: true,
      ownedText: "Owned",
      pageCount: 190,
      plan: "book on disk",
      planText: "Book on disk",
    });
    expect(b1!.duplicates).toEqual({ count: 1, fileIds: ch2.fileIds, note: "duplicates inside: 1 chapter file" });
    expect(b1!.book.primary).toEqual({ id: "read", label: "Read" });
    expect(b1!.book.menu.map((a) => a.id)).toEqual(["unmonitor", "interactive_search", "retire_duplicates"]);
    expect(b1!.book.menu[2]!.label).toBe("Retire 1 duplicate chapter file…");
  });

  it("an unowned book is expanded and says which chapters cover it", () => {
    const [, b2, b3] = model.groups;
    expect(b2).toMatchObject({ collapsed: false, coverText: "3 of 3 chapters on disk", duplicates: null });
    expect(b2!.book).toMatchObject({
      ownedText: "Not owned",
      pageCount: null,
      plan: "assemble when its chapters are complete",
    });
    expect(b2!.book.primary).toEqual({ id: "assemble_book", label: "Assemble book" });
    expect(b2!.book.menu.map((a) => a.id)).toEqual(["monitor", "interactive_search", "search_book_file"]);
    expect(b3).toMatchObject({ collapsed: false, coverText: "1 of 3 chapters on disk" });
    expect(b3!.book.primary).toEqual({ id: "search", label: "Search" });
    expect(b3!.book.planText).toBe("Some chapters on disk: search the book, then the missing chapters");
  });

  it("chapter rows: read when on disk, search when missing, nothing when covered", () => {
    const rows = new Map(modelRows(model).map((r) => [r.key, r]));
    expect(rows.get("chapter:2")!.primary?.id).toBe("read");
    expect(rows.get("chapter:7")!.primary?.id).toBe("search");
    expect(rows.get("chapter:1")!.primary).toBeNull();
    expect(rows.get("chapter:1")!.plan).toBeNull();
    expect(rows.get("chapter:9")!.menu.map((a) => a.id)).toEqual(["monitor", "interactive_search"]);
    // A hint is text on a loose row, never a group.
    expect(rows.get("chapter:10")!.estimateHint).toBe("estimated in book 3, not mapped");
    expect(rows.get("chapter:8")!.estimateHint).toBeNull();
  });

  it("uses the chapters-first wording when the user prefers it", () => {
    const m = groupSeriesPage({ ...view, planWording: "chapters_first" }, opts());
    expect(m.groups[2]!.book.planText).toBe(
      "Some chapters on disk: search the missing chapters, the book only if they fall short",
    );
  });

  it("groups the same way in a chapters-form series", () => {
    expect(shape(groupSeriesPage(viewOf(mixed("exact"), { formOverride: "chapters" }), opts()))).toEqual(shape(model));
  });

  it("a book with unknown boundaries says so", () => {
    const v = viewOf({
      map: "exact",
      books: [
        { number: 1, chapters: [1] },
        { number: 2, chapters: [] },
      ],
      onDisk: [1],
    });
    expect(groupSeriesPage(v, opts()).groups[1]).toMatchObject({ coverText: "chapters not known", children: [] });
  });

  it("marks an owned book redundant in an all-chapters series", () => {
    const v = viewOf({
      map: "exact",
      books: [
        { number: 1, chapters: [1] },
        { number: 2, chapters: [2], owned: true },
      ],
      onDisk: [1, 2],
    });
    expect(v.status).toBe("all chapters");
    const m = groupSeriesPage(v, opts());
    expect(m.groups.map((g) => g.note)).toEqual([null, REDUNDANT_NOTE]);
    expect(m.groups[1]!.duplicates?.count).toBe(1);
  });
});

describe("groupSeriesPage without an exact map", () => {
  it("two flat sections, the sentence, the map editor, extras trailing", () => {
    const m = groupSeriesPage(viewOf(mixed("none")), opts());
    expect(m).toMatchObject({ layout: "flat", notice: UNMAPPED_NOTICE, offerMapEditor: true, groups: [] });
    expect(shape(m)).toEqual(["Books: B1 B2 B3", "Chapters: c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 c10", "loose: c3.5"]);
    expect(
      modelRows(m)
        .filter((r) => r.kind === "book")
        .map((r) => r.primary?.id),
    ).toEqual(["read", "search", "search"]);
  });

  it("a partial map is flat too, and a chapters form lists chapters first", () => {
    const m = groupSeriesPage(viewOf({ ...mixed("exact"), map: "partial" }, { status: "running" }), opts());
    expect(m.layout).toBe("flat");
    expect(m.sections.map((s) => s.title)).toEqual(["Chapters", "Books"]);
    expect(m.notice).toBe(UNMAPPED_NOTICE);
  });

  it("never offers assembly; a covered book is offered its boundaries instead", () => {
    const v = unitsView(
      [unit("book", 1, { plan: "assemble when its chapters are complete", coverage: "covered_by_chapters" })],
      { map: "partial" },
    );
    const row = groupSeriesPage(v, opts()).sections[0]!.rows[0]!;
    expect(row.primary).toEqual({ id: "edit_map", label: "Set boundaries" });
    expect(row.problem).toBe(false);
  });
});

describe("filters, problems only and order", () => {
  const exact = viewOf(mixed("exact"));
  const none = viewOf(mixed("none"));
  const table: [string, UnitsView, Partial<GroupingOptions>, string[]][] = [
    // Missing keeps monitored holes: chapter 9 and book 2 are not monitored.
    ["exact / missing", exact, { filter: "missing" }, ["B3[c7]", "loose: c0 c10 c3.5"]],
    ["exact / downloaded", exact, { filter: "downloaded" }, ["B1[c2]", "B2[c4 c5 c6]", "B3[c8]"]],
    [
      "exact / monitored",
      exact,
      { filter: "monitored" },
      ["B1[c1 c2 c3]", "B2[c4 c5 c6]", "B3[c7 c8]", "loose: c0 c10 c3.5"],
    ],
    ["exact / problems only", exact, { problemsOnly: true }, ["B3[c7]", "loose: c0 c10 c3.5"]],
    ["exact / downloaded + problems", exact, { filter: "downloaded", problemsOnly: true }, []],
    ["exact / missing + problems", exact, { filter: "missing", problemsOnly: true }, ["B3[c7]", "loose: c0 c10 c3.5"]],
    [
      "exact / reversed",
      exact,
      { reversed: true },
      ["B3[c9 c8 c7]", "B2[c6 c5 c4]", "B1[c3 c2 c1]", "loose: c3.5 c10 c0"],
    ],
    ["exact / missing reversed", exact, { filter: "missing", reversed: true }, ["B3[c7]", "loose: c3.5 c10 c0"]],
    ["none / missing", none, { filter: "missing" }, ["Books: B3", "Chapters: "]],
    ["none / downloaded", none, { filter: "downloaded" }, ["Books: B1", "Chapters: c2 c4 c5 c6 c8"]],
    [
      "none / monitored",
      none,
      { filter: "monitored" },
      ["Books: B1 B3", "Chapters: c0 c1 c2 c3 c4 c5 c6 c7 c8 c10", "loose: c3.5"],
    ],
    ["none / problems only", none, { problemsOnly: true }, ["Books: B3", "Chapters: "]],
    [
      "none / reversed",
      none,
      { reversed: true },
      ["Books: B3 B2 B1", "Chapters: c10 c9 c8 c7 c6 c5 c4 c3 c2 c1 c0", "loose: c3.5"],
    ],
  ];
  it.each(table)("%s", (_name, view, over, expected) => {
    const m = groupSeriesPage(view, opts(over));
    expect(shape(m)).toEqual(expected);
    expect(m.options).toEqual(opts(over));
  });

  it("a group kept for its children only still shows its book row", () => {
    const m = groupSeriesPage(exact, opts({ filter: "monitored" }));
    expect(m.groups[1]!.book).toMatchObject({ key: "book:2", monitored: false });
  });
});

describe("edge series", () => {
  it("an empty series, with and without a map", () => {
    expect(shape(groupSeriesPage(unitsView([]), opts()))).toEqual([]);
    expect(shape(groupSeriesPage(unitsView([], { map: "none" }), opts()))).toEqual(["Books: ", "Chapters: "]);
  });

  it("a series owned only as books", () => {
    const m = groupSeriesPage(
      viewOf({
        map: "none",
        books: [
          { number: 1, owned: true },
          { number: 2, owned: true },
        ],
      }),
      opts(),
    );
    expect(shape(m)).toEqual(["Books: B1 B2", "Chapters: "]);
    expect(m.status).toBe("all books");
  });

  it("a running series only as chapters", () => {
    const m = groupSeriesPage(
      viewOf({ map: "none", books: [], chapters: [1, 2, 3], onDisk: [1] }, { status: "running" }),
      opts({ filter: "missing" }),
    );
    expect(shape(m)).toEqual(["Chapters: c2 c3", "Books: "]);
  });

  it("a webtoon lists chapters first", () => {
    const m = groupSeriesPage(viewOf({ map: "none", books: [], chapters: [1, 2] }, { webtoon: true }), opts());
    expect(m.form).toBe("chapters");
    expect(shape(m)).toEqual(["Chapters: c1 c2", "Books: "]);
  });

  it("a chapter whose book has no row goes to the trailing group", () => {
    const v = unitsView([unit("book", 1), unit("chapter", 1, { book: L(1) }), unit("chapter", 2, { book: L(9) })]);
    expect(shape(groupSeriesPage(v, opts()))).toEqual(["B1[c1]", "loose: c2"]);
  });

  it("groups 2,000 chapters in 150 books, whatever the filter and order", () => {
    const view = buildUnitsView(snapshotOf(), scenarioIndex(bigScenario(2000, 150)));
    expect(view.units.length).toBe(2150);
    groupSeriesPage(view, opts());
    for (let i = 0; i < 5; i++) {
      const page = groupSeriesPage(
        view,
        opts({ filter: i % 2 ? "missing" : "all", reversed: i % 2 === 0, problemsOnly: i === 3 }),
      );
      expect(page.groups.length + page.sections.length).toBeGreaterThan(0);
    }
  });
});

describe("grouping properties", () => {
  const pool = ["0", "1", "2", "3", "4", "5", "5.5", "6", "10"].map(L);
  const unitArb = fc.record({
    kind: fc.constantFrom("book" as const, "chapter" as const),
    number: fc.constantFrom(...pool),
    book: fc.option(fc.constantFrom(...pool)),
    owned: fc.boolean(),
    monitored: fc.boolean(),
    coverage: fc.constantFrom(
      null,
      "covered_by_volume" as const,
      "covered_unmapped" as const,
      "covered_by_chapters" as const,
    ),
    plan: fc.constantFrom(
      null,
      "book on disk" as const,
      "assemble when its chapters are complete" as const,
      "in part" as const,
      "missing" as const,
    ),
    estimatedBook: fc.option(fc.constantFrom(...pool)),
    fileIds: fc.array(fc.nat(50), { maxLength: 2 }),
    duplicateFileIds: fc.array(fc.nat(50), { maxLength: 2 }),
    problems: fc.array(fc.constant("p"), { maxLength: 1 }),
    extra: fc.boolean(),
  });
  const viewArb = fc
    .record({
      units: fc.uniqueArray(unitArb, { selector: (u) => `${u.kind}:${u.number}`, maxLength: 18 }),
      form: fc.constantFrom("books" as const, "chapters" as const),
      map: fc.constantFrom("exact" as const, "partial" as const, "none" as const),
      status: fc.constantFrom(null, "all books" as const, "all chapters" as const),
      planWording: fc.constantFrom("books_first" as const, "chapters_first" as const),
    })
    .map(({ units, ...rest }) => unitsView(units as Unit[], rest));
  const optsArb = fc.record({
    filter: fc.constantFrom<UnitFilter>("all", "missing", "downloaded", "monitored"),
    reversed: fc.boolean(),
    problemsOnly: fc.boolean(),
  });
  const keys = (m: SeriesPageModel) => modelRows(m).map((r) => r.key);

  it("filters never invent or repeat rows, and keep a subset of All", () => {
    fc.assert(
      fc.property(viewArb, optsArb, (view, o) => {
        const unitKeys = new Set(view.units.map((u) => `${u.kind}:${u.number}`));
        const all = keys(groupSeriesPage(view, opts()));
        expect(all.length).toBe(view.units.length);
        const got = keys(groupSeriesPage(view, o));
        expect(new Set(got).size).toBe(got.length);
        for (const k of got) expect(unitKeys.has(k) && all.includes(k)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("reversed twice is the identity, and the order selector is reverseModel", () => {
    fc.assert(
      fc.property(viewArb, optsArb, (view, o) => {
        const forward = groupSeriesPage(view, { ...o, reversed: false });
        expect(reverseModel(reverseModel(forward))).toEqual(forward);
        expect(groupSeriesPage(view, { ...o, reversed: true })).toEqual(reverseModel(forward));
      }),
      { numRuns: 200 },
    );
  });

  it("no book grouping comes from estimatedBook", () => {
    fc.assert(
      fc.property(viewArb, optsArb, fc.option(fc.constantFrom(...pool)), (view, o, est) => {
        const m = groupSeriesPage(view, o);
        const moved = groupSeriesPage({ ...view, units: view.units.map((u) => ({ ...u, estimatedBook: est })) }, o);
        expect(shape(moved)).toEqual(shape(m));
        const bookOf = new Map(view.units.map((u) => [`${u.kind}:${u.number}`, u.book]));
        for (const g of m.groups) for (const c of g.children) expect(bookOf.get(c.key)).toBe(g.book.number);
      }),
      { numRuns: 200 },
    );
  });
});

describe("rowTitle", () => {
  it("names books and chapters by number, an unnumbered release by its source's name", () => {
    const extra = unnumberedLabel(3, "x9");
    expect(rowTitle({ kind: "book", number: L("3") })).toBe("Book 3");
    expect(rowTitle({ kind: "chapter", number: L("12.5"), title: "ignored" })).toBe("Chapter 12.5");
    expect(rowTitle({ kind: "chapter", number: extra, title: "Oneshot" })).toBe("Extra: Oneshot");
    expect(rowTitle({ kind: "chapter", number: extra, title: null })).toBe("Unnumbered extra");
  });
});
