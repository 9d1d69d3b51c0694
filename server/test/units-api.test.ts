/**
 * The units endpoint and the series and map operations over REST and GraphQL (docs/api.md,
 * "REST"; the units endpoint loads with five bulk selects plus fixed lookups and opens no archive:
 * docs/architecture.md). Both transports are thin layers over
 * the same services, so they must agree field by field, on results and on error codes.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bookFileIds,
  createSeriesWithFiles,
  markDownloaded,
  expectJson,
  expectProblem,
  scanLibrary,
  unitOf,
  type RestMap,
  type RestUnit,
  type RestUnits,
} from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";
import { writeBigSeries } from "./web-support-helpers.ts";

/* ------------------------------------------------------------------------------------------ */
/* Shapes of the two transports                                                               */
/* ------------------------------------------------------------------------------------------ */

/** GraphQL names the unit fields in camelCase and its enum values in capitals. */
type GqlUnit = Omit<RestUnit, "kind" | "estimated_book" | "page_count" | "file_ids" | "duplicate_file_ids"> & {
  kind: string;
  estimatedBook: string | null;
  pageCount: number | null;
  fileIds: number[];
  duplicateFileIds: number[];
};
type GqlUnits = Omit<RestUnits, "series_id" | "plan_wording" | "units"> & {
  seriesId: number;
  planWording: string;
  units: GqlUnit[];
};
interface RestSeries {
  id: number;
  title: string;
  folder: string;
  form: string;
  form_override: string | null;
  language: string;
  original_language: string | null;
  monitored: boolean;
  status: string;
  known_book_count: number | null;
  edition_book_count: number | null;
  webtoon: boolean;
  plan_wording: string;
  assemble_books_automatically: boolean;
  translation_fallback_enabled: boolean;
  translation_source_languages: string[];
}
interface GqlSeries {
  id: number;
  title: string;
  folder: string;
  form: string;
  formOverride: string | null;
  language: string;
  originalLanguage: string | null;
  monitored: boolean;
  status: string;
  knownBookCount: number | null;
  editionBookCount: number | null;
  webtoon: boolean;
  planWording: string;
  assembleBooksAutomatically: boolean;
  translationFallbackEnabled: boolean;
  translationSourceLanguages: string[];
}
type GqlMap = Omit<RestMap, "series_id"> & { seriesId: number };
interface GqlSide {
  coverage: string | null;
  book?: string | null;
  wanted: boolean;
  coversChapters?: boolean;
  chapters?: string[] | null;
}
interface GqlChange {
  number: string;
  before: GqlSide;
  after: GqlSide;
  becomeDuplicates: number[];
  stopDuplicates: number[];
}
interface GqlPreview {
  revision: number;
  mapBefore: string;
  mapAfter: string;
  chapters: GqlChange[];
  books: GqlChange[];
  becomeDuplicateFileIds: number[];
  stopDuplicateFileIds: number[];
}
type GqlResult<T> = Awaited<ReturnType<TestApp["gql"]>> & { data?: T | null };

/* GraphQL enum names → the REST strings, written out here so the test checks the mapping itself. */
const FORM: Record<string, string> = { BOOKS: "books", CHAPTERS: "chapters" };
const MAP_STATE: Record<string, string> = { EXACT: "exact", PARTIAL: "partial", NONE: "none" };
const COMPLETION: Record<string, string> = { ALL_BOOKS: "all books", ALL_CHAPTERS: "all chapters" };
const WORDING: Record<string, string> = { BOOKS_FIRST: "books_first", CHAPTERS_FIRST: "chapters_first" };
const KIND: Record<string, RestUnit["kind"]> = { BOOK: "book", CHAPTER: "chapter" };
const COVERAGE: Record<string, string> = {
  COVERED_BY_VOLUME: "covered_by_volume",
  COVERED_UNMAPPED: "covered_unmapped",
  COVERED_BY_CHAPTERS: "covered_by_chapters",
};
const PLAN: Record<string, string> = {
  BOOK_ON_DISK: "book on disk",
  ASSEMBLE_WHEN_CHAPTERS_COMPLETE: "assemble when its chapters are complete",
  IN_PART: "in part",
  MISSING: "missing",
};
const STATUS: Record<string, string> = { RUNNING: "running", FINISHED: "finished", PAUSED: "paused" };
const SUGGESTION_STATUS: Record<string, string> = { OPEN: "open", SET: "set", SUPPRESSED: "suppressed" };
const SUGGESTION_KIND: Record<string, string> = { CATALOGUE: "catalogue", OFFICIAL: "official" };

function enumValue<V extends string>(table: Record<string, V>, name: string): V {
  const v = table[name];
  if (v === undefined) throw new Error(`unexpected GraphQL enum value ${name}`);
  return v;
}
const nullableEnum = <V extends string>(table: Record<string, V>, name: string | null) =>
  name === null ? null : enumValue(table, name);

function unitsToRest(v: GqlUnits): RestUnits {
  return {
    series_id: v.seriesId,
    form: enumValue(FORM, v.form),
    map: enumValue(MAP_STATE, v.map),
    status: nullableEnum(COMPLETION, v.status),
    plan_wording: enumValue(WORDING, v.planWording),
    units: v.units.map((u) => ({
      kind: enumValue(KIND, u.kind),
      number: u.number,
      book: u.book,
      owned: u.owned,
      monitored: u.monitored,
      coverage: nullableEnum(COVERAGE, u.coverage),
      plan: nullableEnum(PLAN, u.plan),
      estimated_book: u.estimatedBook,
      page_count: u.pageCount,
      file_ids: u.fileIds,
      duplicate_file_ids: u.duplicateFileIds,
      problems: u.problems,
      extra: u.extra,
    })),
  };
}

function seriesToRest(s: GqlSeries): RestSeries {
  return {
    id: s.id,
    title: s.title,
    folder: s.folder,
    form: enumValue(FORM, s.form),
    form_override: nullableEnum(FORM, s.formOverride),
    language: s.language,
    original_language: s.originalLanguage,
    monitored: s.monitored,
    status: enumValue(STATUS, s.status),
    known_book_count: s.knownBookCount,
    edition_book_count: s.editionBookCount,
    webtoon: s.webtoon,
    plan_wording: enumValue(WORDING, s.planWording),
    assemble_books_automatically: s.assembleBooksAutomatically,
    translation_fallback_enabled: s.translationFallbackEnabled,
    translation_source_languages: s.translationSourceLanguages,
  };
}

function mapToRest(m: GqlMap) {
  return {
    series_id: m.seriesId,
    revision: m.revision,
    state: enumValue(MAP_STATE, m.state),
    entries: m.entries,
    readings: m.readings,
    suggestions: m.suggestions.map((s) => ({
      source: s.source,
      kind: enumValue(SUGGESTION_KIND, s.kind),
      revision: s.revision,
      entries: s.entries.map((e) => ({ ...e, status: enumValue(SUGGESTION_STATUS, e.status) })),
    })),
    conflicts: m.conflicts,
  };
}

function previewToRest(p: GqlPreview) {
  const chapterSide = (s: GqlSide) => ({
    coverage: nullableEnum(COVERAGE, s.coverage),
    book: s.book,
    wanted: s.wanted,
  });
  const bookSide = (s: GqlSide) => ({
    coverage: nullableEnum(COVERAGE, s.coverage),
    covers_chapters: s.coversChapters,
    chapters: s.chapters,
    wanted: s.wanted,
  });
  const change = (side: (s: GqlSide) => object) => (c: GqlChange) => ({
    number: c.number,
    before: side(c.before),
    after: side(c.after),
    become_duplicates: c.becomeDuplicates,
    stop_duplicates: c.stopDuplicates,
  });
  return {
    dry_run: true,
    revision: p.revision,
    map_before: enumValue(MAP_STATE, p.mapBefore),
    map_after: enumValue(MAP_STATE, p.mapAfter),
    chapters: p.chapters.map(change(chapterSide)),
    books: p.books.map(change(bookSide)),
    become_duplicate_file_ids: p.becomeDuplicateFileIds,
    stop_duplicate_file_ids: p.stopDuplicateFileIds,
  };
}

const UNITS_FIELDS = `seriesId form map status planWording units { kind number book owned monitored coverage plan estimatedBook pageCount fileIds duplicateFileIds problems extra }`;
const SERIES_FIELDS = `id title folder form formOverride language originalLanguage monitored status knownBookCount editionBookCount webtoon planWording assembleBooksAutomatically translationFallbackEnabled translationSourceLanguages`;
const MAP_FIELDS = `seriesId revision state entries { volume chapters } readings { volume chapters } suggestions { source kind revision entries { volume chapters status conflicts { chapter volumes scope } adoptable } } conflicts { chapter books }`;
const SIDE = `coverage wanted`;
const PREVIEW_FIELDS = `revision mapBefore mapAfter
  chapters { number before { ${SIDE} book } after { ${SIDE} book } becomeDuplicates stopDuplicates }
  books { number before { ${SIDE} coversChapters chapters } after { ${SIDE} coversChapters chapters } becomeDuplicates stopDuplicates }
  becomeDuplicateFileIds stopDuplicateFileIds`;

const LABEL_RE = /^(0|[1-9]\d*)(\.\d*[1-9])?$/;
const SNAKE_RE = /^[a-z]+(_[a-z]+)*$/;

/* ------------------------------------------------------------------------------------------ */
/* Helpers over one app                                                                        */
/* ------------------------------------------------------------------------------------------ */

function helpers(get: () => TestApp) {
  /** The data of a GraphQL call that must succeed. */
  async function gqlData<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
    const r = (await get().gql<T>(query, variables)) as GqlResult<T>;
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    return r.data as T;
  }
  /** The one error of a GraphQL call that must fail. */
  async function gqlError(query: string, variables?: Record<string, unknown>) {
    const r = await get().gql(query, variables);
    expect(r.errors, JSON.stringify(r)).toHaveLength(1);
    return r.errors?.[0] as { message: string; extensions?: Record<string, unknown> };
  }
  const restUnits = async (id: number) => expectJson<RestUnits>(await get().api(`/api/manga/${id}/units`), 200);
  const gqlUnits = async (id: number) =>
    unitsToRest(
      (await gqlData<{ units: GqlUnits }>(`query ($id: Int!) { units(seriesId: $id) { ${UNITS_FIELDS} } }`, { id }))
        .units,
    );
  const restList = async () => expectJson<RestSeries[]>(await get().api("/api/manga"), 200);
  return { gqlData, gqlError, restUnits, gqlUnits, restList };
}

/* ------------------------------------------------------------------------------------------ */
/* The demo library                                                                            */
/* ------------------------------------------------------------------------------------------ */

describe("GET /api/manga/{id}/units on the demo library", () => {
  let app: TestApp;
  const h = helpers(() => app);
  const ids = new Map<string, number>();

  beforeAll(async () => {
    app = await createTestApp({ demo: true });
    for (const s of await h.restList()) ids.set(s.title, s.id);
  });
  afterAll(async () => {
    await app?.dispose();
  });

  const idOf = (title: string) => {
    const id = ids.get(title);
    expect(id, title).toBeDefined();
    return id as number;
  };
  const rows = (v: RestUnits) => v.units.map((u) => `${u.kind} ${u.number}`);
  it("the demo has the five series", () => {
    expect([...ids.keys()]).toEqual([
      "Harbor of Paper Cranes",
      "Lanterns of the Salt Road",
      "Moss & Meteor",
      "Skyline Greenhouse",
      "The Clockmaker's Apprentice",
    ]);
  });

  it("every demo series has the documented shape: snake_case fields, labels as strings, known values only", async () => {
    for (const id of ids.values()) {
      const v = await h.restUnits(id);
      expect(Object.keys(v).sort()).toEqual(["form", "map", "plan_wording", "series_id", "status", "units"]);
      expect(v.series_id).toBe(id);
      expect(["books", "chapters"]).toContain(v.form);
      expect(["exact", "partial", "none"]).toContain(v.map);
      expect(["all books", "all chapters", null]).toContain(v.status);
      expect(v.units.length).toBeGreaterThan(0);
      for (const u of v.units) {
        expect(Object.keys(u).sort()).toEqual([
          "book",
          "coverage",
          "duplicate_file_ids",
          "estimated_book",
          "extra",
          "file_ids",
          "kind",
          "monitored",
          "number",
          "owned",
          "page_count",
          "plan",
          "problems",
        ]);
        for (const key of Object.keys(u)) expect(key).toMatch(SNAKE_RE);
        expect(["book", "chapter"]).toContain(u.kind);
        expect(typeof u.number).toBe("string");
        expect(u.number).toMatch(LABEL_RE);
        if (u.book !== null) expect(u.book).toMatch(LABEL_RE);
        if (u.estimated_book !== null) expect(u.estimated_book).toMatch(LABEL_RE);
        expect([null, "covered_by_volume", "covered_unmapped", "covered_by_chapters"]).toContain(u.coverage);
        if (u.kind === "book") {
          expect(u.book).toBeNull();
          expect(["book on disk", "assemble when its chapters are complete", "in part", "missing"]).toContain(u.plan);
          // Page count describes a file: only an owned book has one.
          if (u.owned) expect(Number.isInteger(u.page_count)).toBe(true);
          else expect(u.page_count).toBeNull();
        } else {
          expect(u.plan).toBeNull();
          expect(u.page_count).toBeNull();
        }
        for (const f of [...u.file_ids, ...u.duplicate_file_ids]) expect(Number.isInteger(f)).toBe(true);
        for (const p of u.problems) expect(typeof p).toBe("string");
      }
    }
  });

  it("REST and GraphQL return the same units, field by field, for every demo series", async () => {
    for (const id of ids.values()) {
      const rest = await h.restUnits(id);
      const gql = await h.gqlUnits(id);
      expect(gql).toEqual(rest);
      // The same view through the series type's own field.
      const viaSeries = await h.gqlData<{ series: { units: GqlUnits } }>(
        `query ($id: Int!) { series(id: $id) { units { ${UNITS_FIELDS} } } }`,
        { id },
      );
      expect(unitsToRest(viaSeries.series.units)).toEqual(rest);
    }
  });

  it("the enum values are mapped: BOOKS, COVERED_BY_VOLUME, ASSEMBLE_WHEN_CHAPTERS_COMPLETE, ALL_BOOKS", async () => {
    const harbor = await h.gqlData<{ units: GqlUnits }>(
      `{ units(seriesId: ${idOf("Harbor of Paper Cranes")}) { form map units { kind number plan coverage } } }`,
    );
    expect(harbor.units.form).toBe("BOOKS");
    expect(harbor.units.map).toBe("EXACT");
    expect(harbor.units.units.find((u) => u.kind === "BOOK" && u.number === "5")).toEqual({
      kind: "BOOK",
      number: "5",
      plan: "ASSEMBLE_WHEN_CHAPTERS_COMPLETE",
      coverage: "COVERED_BY_CHAPTERS",
    });
    expect(harbor.units.units.find((u) => u.kind === "CHAPTER" && u.number === "1")?.coverage).toBe(
      "COVERED_BY_VOLUME",
    );
    const lanterns = await h.gqlData<{ units: GqlUnits }>(
      `{ units(seriesId: ${idOf("Lanterns of the Salt Road")}) { status planWording } }`,
    );
    expect(lanterns.units).toEqual({ status: "ALL_BOOKS", planWording: "BOOKS_FIRST" });
  });

  it("the finished book series reads `all books`: four books on disk, nothing else", async () => {
    const v = await h.restUnits(idOf("Lanterns of the Salt Road"));
    expect(v).toMatchObject({ form: "books", map: "none", status: "all books", plan_wording: "books_first" });
    expect(v.units.map((u) => [u.kind, u.number, u.owned, u.plan, u.file_ids.length])).toEqual([
      ["book", "1", true, "book on disk", 1],
      ["book", "2", true, "book on disk", 1],
      ["book", "3", true, "book on disk", 1],
      ["book", "4", true, "book on disk", 1],
    ]);
    expect(v.units.map((u) => u.page_count)).toEqual([11, 12, 10, 11]);
  });

  it("the mixed series with an exact map: book 4 in part with chapter 28 missing, book 5 assembles from complete chapters", async () => {
    const v = await h.restUnits(idOf("Harbor of Paper Cranes"));
    expect(v).toMatchObject({ form: "books", map: "exact", status: null });
    // Books form with an exact map: each book heads the run of its chapters.
    const expectedOrder = [1, 2, 3, 4, 5].flatMap((b) => [
      `book ${b}`,
      ...Array.from({ length: 8 }, (_, i) => `chapter ${8 * b - 7 + i}`),
      ...(b === 5 ? ["chapter 40.5"] : []),
    ]);
    expect(rows(v)).toEqual(expectedOrder);

    for (const b of ["1", "2", "3"]) {
      expect(unitOf(v, "book", b)).toMatchObject({
        owned: true,
        plan: "book on disk",
        coverage: null,
        problems: [],
        duplicate_file_ids: [],
      });
    }
    // Chapters of owned books are covered by them (and not on disk).
    for (let c = 1; c <= 24; c++) {
      expect(unitOf(v, "chapter", String(c))).toMatchObject({
        book: String(Math.ceil(c / 8)),
        owned: false,
        coverage: "covered_by_volume",
        file_ids: [],
      });
    }
    expect(unitOf(v, "book", "4")).toMatchObject({
      owned: false,
      plan: "in part",
      coverage: null,
      page_count: null,
      problems: ["missing chapters: 28"],
    });
    expect(unitOf(v, "chapter", "28")).toMatchObject({ book: "4", owned: false, coverage: null, file_ids: [] });
    for (const c of ["25", "26", "27", "29", "30", "31", "32"])
      expect(unitOf(v, "chapter", c)).toMatchObject({ book: "4", owned: true });
    expect(unitOf(v, "book", "5")).toEqual({
      kind: "book",
      number: "5",
      book: null,
      owned: false,
      monitored: true,
      coverage: "covered_by_chapters",
      plan: "assemble when its chapters are complete",
      estimated_book: null,
      page_count: null,
      file_ids: [],
      duplicate_file_ids: [],
      problems: [],
      extra: false,
    });
    // Chapter 36 is split in two parts, both on disk.
    expect(unitOf(v, "chapter", "36")).toMatchObject({ book: "5", owned: true });
    expect(unitOf(v, "chapter", "36").file_ids).toHaveLength(2);
    // The optional extra 40.5 keeps its book membership (docs/rules.md, "Series form").
    expect(unitOf(v, "chapter", "40.5")).toMatchObject({ book: "5", owned: true, extra: true });
  });

  it("the mixed series without a map: map none, scanned books hold the chapters but cover none, no book badge", async () => {
    const v = await h.restUnits(idOf("Moss & Meteor"));
    expect(v).toMatchObject({ form: "chapters", map: "none" });
    // Without an exact map: no interleaving, chapters first (chapters form), then the books.
    expect(rows(v)).toEqual([...Array.from({ length: 20 }, (_, i) => `chapter ${i + 1}`), "book 1", "book 2"]);
    for (const u of v.units.filter((x) => x.kind === "chapter")) {
      expect(u.book).toBeNull();
      // Books the scan found are hand imports: they never cover on their own (no covered_unmapped).
      expect(u.coverage).toBeNull();
      expect(u.owned).toBe(Number(u.number) >= 7);
      expect(u.duplicate_file_ids).toEqual([]);
    }
    const books = v.units.filter((x) => x.kind === "book");
    expect(books.map((u) => [u.number, u.owned, u.plan, u.problems])).toEqual([
      ["1", true, "book on disk", []],
      ["2", true, "book on disk", []],
    ]);
    expect(books[0]?.page_count).toBe(11);
    // Book 2 was scanned from chapters 7–12: its cover and their pages.
    expect(books[1]?.page_count).toBeGreaterThan(24);
  });

  it("the webtoon is chapters form: twelve owned episodes and no book", async () => {
    const v = await h.restUnits(idOf("Skyline Greenhouse"));
    expect(v).toMatchObject({ form: "chapters", map: "none", status: null });
    expect(v.units.map((u) => [u.kind, u.number, u.owned, u.coverage, u.book])).toEqual(
      Array.from({ length: 12 }, (_, i) => ["chapter", String(i + 1), true, null, null]),
    );
  });

  it("the running series keeps chapter zero and the decimal chapter as exact labels", async () => {
    const v = await h.restUnits(idOf("The Clockmaker's Apprentice"));
    expect(v).toMatchObject({ form: "chapters", map: "none", status: null });
    expect(v.units.map((u) => u.number)).toEqual([
      "0",
      ...Array.from({ length: 11 }, (_, i) => String(i)).slice(1),
      "10.5",
      ...Array.from({ length: 14 }, (_, i) => String(i + 11)),
    ]);
    expect(v.units.every((u) => u.kind === "chapter" && u.owned)).toBe(true);
  });
});

/* ------------------------------------------------------------------------------------------ */
/* Statement count, errors, map parity and series                                              */
/* ------------------------------------------------------------------------------------------ */

describe("units, maps and series over REST and GraphQL", () => {
  let app: TestApp;
  const h = helpers(() => app);

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app?.dispose();
  });

  describe("statement count of the units endpoint", () => {
    // A books-form series straight in the database (no file on disk): see writeBigSeries.
    const buildSeries = (title: string, chapters: number, books: number, owned: (book: number) => boolean) =>
      writeBigSeries(app, title, chapters, books, owned);

    it("is the same small number for 10 chapters / 1 book and 2,000 chapters / 150 books, and opens no archive", async () => {
      const small = await buildSeries("Small Series", 10, 1, () => true);
      const big = await buildSeries("Big Series", 2000, 150, (b) => b % 3 !== 0);
      // No library file exists on disk: a units call that opened an archive would fail.
      for (const f of [...small.files, ...big.files])
        expect(existsSync(path.join(app.config.libraryRoot, f.path))).toBe(false);
      expect(big.files.filter((f) => f.kind === "book")).toHaveLength(100);
      const unownedChapters = Array.from({ length: 150 }, (_, i) => i + 1)
        .filter((b) => b % 3 === 0)
        .reduce((sum, b) => sum + big.chaptersOf(b).length, 0);
      expect(big.files.filter((f) => f.kind === "chapter")).toHaveLength(unownedChapters);

      const count = async (id: number) => {
        app.ctx.queries.reset();
        const view = await h.restUnits(id);
        return { view, count: app.ctx.queries.count, statements: [...app.ctx.queries.statements] };
      };
      const s = await count(small.id);
      const b = await count(big.id);

      expect(s.view).toMatchObject({ form: "books", map: "exact", status: "all books" });
      expect(s.view.units).toHaveLength(11);
      expect(b.view).toMatchObject({ form: "books", map: "exact", status: null });
      expect(b.view.units).toHaveLength(2150);
      expect(b.view.units.filter((u) => u.kind === "book" && u.owned)).toHaveLength(100);
      expect(
        b.view.units.filter((u) => u.kind === "book" && u.plan === "assemble when its chapters are complete"),
      ).toHaveLength(50);
      expect(b.view.units.find((u) => u.kind === "chapter" && u.number === "1")).toMatchObject({
        book: "1",
        coverage: "covered_by_volume",
        owned: false,
      });

      // The series' revision, then (first request since the series changed) one fixed lookup (the
      // series row, its map sources and book proofs in one statement) and five bulk selects, whatever
      // the size of the series.
      expect(s.count, s.statements.join("\n")).toBe(7);
      expect(b.count, b.statements.join("\n")).toBe(s.count);
      // The tables each statement reads (after FROM), one entry per statement.
      const tables = (statements: string[]) =>
        statements
          .map((q) =>
            [...new Set([...q.matchAll(/\bFROM\s+(?:[`"]?\w+[`"]?\.)?[`"]?(\w+)/gi)].map((m) => m[1]))]
              .sort()
              .join(" "),
          )
          .sort();
      for (const run of [s, b]) {
        expect(tables(run.statements)).toEqual([
          "chapter_release",
          "chapter_slot",
          "library_file",
          "map_entry map_source",
          "map_source series verification",
          "series_revision",
          "volume_slot",
        ]);
      }
      // Until the series changes, a request reads its revision and nothing else, and answers the same.
      const again = await count(big.id);
      expect(again.view).toEqual(b.view);
      expect(tables(again.statements)).toEqual(["series_revision"]);
      // Any write to one of its rows is a change: the next request loads the series again.
      await app.ctx.db.chapterSlot.updateMany({
        where: { seriesId: big.id, number: "2000" },
        data: { monitored: false },
      });
      const changed = await count(big.id);
      expect(changed.count).toBe(b.count);
      expect(changed.view.units.find((u) => u.kind === "chapter" && u.number === "2000")?.monitored).toBe(false);
      expect((await count(small.id)).count).toBe(1);
    });
  });

  describe("errors: REST problems and GraphQL extensions carry the same code", () => {
    it("unknown series → series_not_found", async () => {
      const missing = 424242;
      const rest = await expectProblem(await app.api(`/api/manga/${missing}/units`), 404, "series_not_found");
      for (const query of [
        `{ units(seriesId: ${missing}) { seriesId } }`,
        `{ chapterMap(seriesId: ${missing}) { revision } }`,
        `mutation { saveChapterMap(seriesId: ${missing}, revision: 0, entries: []) { revision } }`,
        `mutation { updateSeries(id: ${missing}, input: { title: "x" }) { id } }`,
      ]) {
        const e = await h.gqlError(query);
        expect(e.extensions?.code).toBe("series_not_found");
        expect(e.extensions?.status).toBe(404);
      }
      const e = await h.gqlError(`{ units(seriesId: ${missing}) { seriesId } }`);
      expect(e.message).toBe(rest.detail);
      await expectProblem(await app.api(`/api/manga/${missing}`), 404, "series_not_found");
      await expectProblem(
        await app.api(`/api/manga/${missing}`, { method: "PATCH", json: { title: "x" } }),
        404,
        "series_not_found",
      );
      // The `series` query answers the same 404 as GET /api/manga/{id} (its field stays nullable).
      const one = await h.gqlError(`{ series(id: ${missing}) { id } }`);
      expect([one.extensions?.code, one.extensions?.status]).toEqual(["series_not_found", 404]);
    });

    it("stale map revision → map_revision_stale with the current revision", async () => {
      const s = await expectJson<RestSeries>(
        await app.api("/api/manga", { method: "POST", json: { title: "Stale Errors" } }),
        201,
      );
      const entries = [{ volume: "1", chapters: ["1", "2"] }];
      await expectJson(
        await app.api(`/api/manga/${s.id}/chapter-map`, { method: "PUT", json: { revision: 0, entries } }),
        200,
      );

      const rest = await expectProblem(
        await app.api(`/api/manga/${s.id}/chapter-map`, { method: "PUT", json: { revision: 0, entries } }),
        409,
        "map_revision_stale",
      );
      expect(rest.current_revision).toBe(1);
      for (const query of [
        `mutation { saveChapterMap(seriesId: ${s.id}, revision: 0, entries: []) { revision } }`,
        `mutation { previewChapterMap(seriesId: ${s.id}, revision: 0, entries: []) { revision } }`,
        `mutation { deleteChapterMap(seriesId: ${s.id}, revision: 0) { revision } }`,
        `mutation { previewChapterMapRemoval(seriesId: ${s.id}, revision: 5) { revision } }`,
      ]) {
        const e = await h.gqlError(query);
        expect(e.extensions).toMatchObject({ code: "map_revision_stale", status: 409, current_revision: 1 });
      }
      expect(
        (await h.gqlError(`mutation { saveChapterMap(seriesId: ${s.id}, revision: 0, entries: []) { revision } }`))
          .message,
      ).toBe(rest.detail);
      expect(
        (await h.gqlData<{ chapterMap: { revision: number } }>(`{ chapterMap(seriesId: ${s.id}) { revision } }`))
          .chapterMap.revision,
      ).toBe(1);
    });

    it("invalid label → invalid_label; invalid map → invalid_map; bad suggestion source → suggestion_source_invalid", async () => {
      const s = await expectJson<RestSeries>(
        await app.api("/api/manga", { method: "POST", json: { title: "Label Errors" } }),
        201,
      );
      const put = (entries: unknown) =>
        app.api(`/api/manga/${s.id}/chapter-map`, { method: "PUT", json: { revision: 0, entries } });
      const save = `mutation ($entries: [MapEntryInput!]!) { saveChapterMap(seriesId: ${s.id}, revision: 0, entries: $entries) { revision } }`;
      const preview = `mutation ($entries: [MapEntryInput!]!) { previewChapterMap(seriesId: ${s.id}, revision: 0, entries: $entries) { revision } }`;

      for (const entries of [
        [{ volume: "1.2.3", chapters: [] }],
        [{ volume: "1", chapters: ["-1"] }],
        [{ volume: "1", chapters: ["x"] }],
      ]) {
        const rest = await expectProblem(await put(entries), 400, "invalid_label");
        for (const q of [save, preview]) {
          const e = await h.gqlError(q, { entries });
          expect(e.extensions).toMatchObject({ code: "invalid_label", status: 400, field: rest.field });
          expect(e.message).toBe(rest.detail);
        }
      }
      const reading = await h.gqlError(
        `mutation { submitReading(seriesId: ${s.id}, volume: "1", chapters: ["1.2.3"]) { revision } }`,
      );
      expect(reading.extensions?.code).toBe("invalid_label");

      const twice = [
        { volume: "1", chapters: ["1", "2"] },
        { volume: "2", chapters: ["2"] },
      ];
      const rest = await expectProblem(await put(twice), 400, "invalid_map");
      const e = await h.gqlError(save, { entries: twice });
      expect(e.extensions).toMatchObject({ code: "invalid_map", status: 400, problems: rest.problems });

      const source = await h.gqlError(
        `mutation { importMapSuggestion(seriesId: ${s.id}, source: "mangaupdates", entries: []) { revision } }`,
      );
      expect(source.extensions).toMatchObject({ code: "suggestion_source_invalid", status: 422 });

      expect(await expectJson(await app.api(`/api/manga/${s.id}/chapter-map`), 200)).toMatchObject({
        revision: 0,
        entries: [],
        suggestions: [],
      });
    });
  });

  describe("GraphQL map operations give the REST results", () => {
    /** Two identical series (book 1 owned, chapters 1, 2, 5, 6 on disk), one driven over each transport. */
    async function twins(): Promise<[number, number]> {
      const ids: number[] = [];
      for (const title of ["Twin Rest", "Twin Graph"]) {
        ids.push(
          (
            await createSeriesWithFiles(app, title, {
              books: [1],
              chapters: [1, 2, 5, 6],
              bookPages: 10,
              chapterPages: 3,
            })
          ).id,
        );
      }
      expect(await scanLibrary(app)).toMatchObject({ errors: [], added: 10 });
      // Book 1 as the service would have downloaded it: sound, so its chapter files become duplicates.
      for (const id of ids) await markDownloaded(app, await bookFileIds(app, id));
      return [ids[0] as number, ids[1] as number];
    }

    it("previewChapterMap, saveChapterMap, submitReading, importMapSuggestion, deleteChapterMap and chapterMap", async () => {
      const [a, b] = await twins();
      const restCall = async (p: string, method: string, body: unknown, status = 200) =>
        expectJson<Record<string, unknown>>(
          await app.api(`/api/manga/${a}/chapter-map${p}`, { method, json: body }),
          status,
        );
      const gqlMap = async (field: string, args: string, variables?: Record<string, unknown>) => {
        const declaration = variables ? "($entries: [MapEntryInput!]!)" : "";
        const data = await h.gqlData<Record<string, GqlMap>>(
          `mutation ${declaration} { ${field}(seriesId: ${b}${args}) { ${MAP_FIELDS} } }`,
          variables,
        );
        return mapToRest(data[field] as GqlMap);
      };
      /** REST result of series a against GraphQL result of series b: equal but for the series id. */
      const same = (restResult: Record<string, unknown>, gqlResult: Record<string, unknown>) => {
        expect(restResult.series_id).toBe(a);
        expect(gqlResult.series_id).toBe(b);
        expect({ ...gqlResult, series_id: a }).toEqual(restResult);
      };
      const entries = [
        { volume: "1", chapters: ["1", "2", "3", "4"] },
        { volume: "2", chapters: ["5", "6", "7", "8"] },
      ];

      // Previews of one series over both transports are identical, file ids included.
      for (const id of [a, b]) {
        const restPreview = await expectJson(
          await app.api(`/api/manga/${id}/chapter-map?dry_run=true`, { method: "PUT", json: { revision: 0, entries } }),
          200,
        );
        const gqlPreview = await h.gqlData<{ previewChapterMap: GqlPreview }>(
          `mutation ($entries: [MapEntryInput!]!) { previewChapterMap(seriesId: ${id}, revision: 0, entries: $entries) { ${PREVIEW_FIELDS} } }`,
          { entries },
        );
        expect(previewToRest(gqlPreview.previewChapterMap)).toEqual(restPreview);
        expect((restPreview as { become_duplicate_file_ids: number[] }).become_duplicate_file_ids).toHaveLength(2);
      }

      same(
        await restCall("", "PUT", { revision: 0, entries }),
        await gqlMap("saveChapterMap", ", revision: 0, entries: $entries", { entries }),
      );
      same(
        await restCall("/readings", "POST", { volume: "3", chapters: ["9", "10"] }, 201),
        await gqlMap("submitReading", `, volume: "3", chapters: ["9", "10"]`),
      );
      const suggestion = [
        { volume: "3", chapters: ["9", "10", "11"] },
        { volume: "4", chapters: ["11", "12"] },
      ];
      same(
        await restCall("/suggestions", "POST", { source: "catalogue:x", entries: suggestion }, 201),
        await gqlMap("importMapSuggestion", `, source: "catalogue:x", entries: $entries`, { entries: suggestion }),
      );
      const second = [
        { volume: "1", chapters: ["1", "2"] },
        { volume: "4", chapters: [] },
      ];
      const saved = await restCall("", "PUT", { revision: 1, entries: second });
      same(saved, await gqlMap("saveChapterMap", ", revision: 1, entries: $entries", { entries: second }));
      expect(saved).toMatchObject({ revision: 2, entries: second });

      // Removal previews agree on one series; the removals agree across the twins.
      const restRemoval = await expectJson(
        await app.api(`/api/manga/${a}/chapter-map?dry_run=true`, { method: "DELETE", json: { revision: 2 } }),
        200,
      );
      const gqlRemoval = await h.gqlData<{ previewChapterMapRemoval: GqlPreview }>(
        `mutation { previewChapterMapRemoval(seriesId: ${a}, revision: 2) { ${PREVIEW_FIELDS} } }`,
      );
      expect(previewToRest(gqlRemoval.previewChapterMapRemoval)).toEqual(restRemoval);
      const removed = await restCall("", "DELETE", { revision: 2 });
      same(removed, await gqlMap("deleteChapterMap", ", revision: 2"));
      expect(removed).toMatchObject({ revision: 3, entries: [], readings: [{ volume: "3", chapters: ["9", "10"] }] });

      // The chapterMap query reads what GET reads, for both series.
      for (const id of [a, b]) {
        const restMap = await expectJson(await app.api(`/api/manga/${id}/chapter-map`), 200);
        const gql = await h.gqlData<{ chapterMap: GqlMap }>(
          `query ($id: Int!) { chapterMap(seriesId: $id) { ${MAP_FIELDS} } }`,
          { id },
        );
        expect(mapToRest(gql.chapterMap)).toEqual(restMap);
      }
      // And the twins ended in the same units (their file ids aside).
      const strip = (v: RestUnits) => ({
        ...v,
        series_id: 0,
        units: v.units.map((u) => ({
          ...u,
          file_ids: u.file_ids.length,
          duplicate_file_ids: u.duplicate_file_ids.length,
        })),
      });
      expect(strip(await h.restUnits(b))).toEqual(strip(await h.restUnits(a)));
    });
  });

  describe("series over REST and GraphQL", () => {
    const CREATE = `mutation ($input: SeriesInput!) { createSeries(input: $input) { ${SERIES_FIELDS} } }`;
    const UPDATE = `mutation ($id: Int!, $input: SeriesInput!) { updateSeries(id: $id, input: $input) { ${SERIES_FIELDS} } }`;
    const create = async (body: Record<string, unknown>) =>
      expectJson<RestSeries>(await app.api("/api/manga", { method: "POST", json: body }), 201);
    const patch = async (id: number, body: Record<string, unknown>) =>
      expectJson<RestSeries>(await app.api(`/api/manga/${id}`, { method: "PATCH", json: body }), 200);

    it("create and read: REST answers the full record, GraphQL the same record in camelCase", async () => {
      const made = await create({
        title: "  Alpha Omega  ",
        status: "finished",
        known_book_count: 3,
        language: "fr",
        original_language: "ja",
      });
      expect(made).toEqual({
        id: made.id,
        title: "Alpha Omega",
        folder: "Alpha Omega",
        form: "books",
        form_override: null,
        language: "fr",
        original_language: "ja",
        monitored: true,
        status: "finished",
        known_book_count: 3,
        edition_book_count: null,
        webtoon: false,
        plan_wording: "books_first",
        assemble_books_automatically: false,
        translation_fallback_enabled: false,
        translation_source_languages: [],
      });
      expect(existsSync(path.join(app.config.libraryRoot, "Alpha Omega"))).toBe(true);
      expect(await expectJson(await app.api(`/api/manga/${made.id}`), 200)).toEqual(made);

      const created = await h.gqlData<{ createSeries: GqlSeries }>(CREATE, {
        input: {
          title: "Beta: Gamma?",
          status: "PAUSED",
          knownBookCount: 2,
          planWording: "CHAPTERS_FIRST",
          translationSourceLanguages: ["original", "ja"],
        },
      });
      const beta = seriesToRest(created.createSeries);
      expect(beta).toMatchObject({
        title: "Beta: Gamma?",
        folder: "Beta Gamma",
        form: "books",
        status: "paused",
        plan_wording: "chapters_first",
        translation_source_languages: ["original", "ja"],
      });
      expect(await expectJson(await app.api(`/api/manga/${beta.id}`), 200)).toEqual(beta);

      const one = await h.gqlData<{ series: GqlSeries }>(`query ($id: Int!) { series(id: $id) { ${SERIES_FIELDS} } }`, {
        id: made.id,
      });
      expect(seriesToRest(one.series)).toEqual(made);

      // The lists agree, in the same order (title, then id), and hold at least the documented fields.
      const restList = await h.restList();
      const gqlList = await h.gqlData<{ seriesList: GqlSeries[] }>(`{ seriesList { ${SERIES_FIELDS} } }`);
      expect(gqlList.seriesList.map(seriesToRest)).toEqual(restList);
      expect(restList.map((s) => s.title)).toEqual(
        [...restList.map((s) => s.title)].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)),
      );
      for (const s of restList)
        for (const key of ["id", "title", "form", "language", "monitored", "status"]) expect(s).toHaveProperty(key);
    });

    it("invalid fields answer invalid_field over both transports and create nothing", async () => {
      const before = await h.restList();
      const cases: { body: Record<string, unknown>; field: string }[] = [
        { body: {}, field: "title" },
        { body: { title: "   " }, field: "title" },
        { body: { title: 7 }, field: "title" },
        { body: { title: "Bad Status", status: "done" }, field: "status" },
        { body: { title: "Bad Count", known_book_count: -1 }, field: "known_book_count" },
        { body: { title: "Bad Count", known_book_count: 2.5 }, field: "known_book_count" },
        { body: { title: "Bad Count", edition_book_count: "3" }, field: "edition_book_count" },
        { body: { title: "Bad Language", language: "English" }, field: "language" },
        {
          body: { title: "Bad Languages", translation_source_languages: ["ja", "Japanese"] },
          field: "translation_source_languages",
        },
        { body: { title: "Bad Flag", monitored: "yes" }, field: "monitored" },
        { body: { title: "Bad Form", form_override: "volumes" }, field: "form_override" },
      ];
      for (const c of cases) {
        const p = await expectProblem(
          await app.api("/api/manga", { method: "POST", json: c.body }),
          400,
          "invalid_field",
        );
        expect(p.field, JSON.stringify(c.body)).toBe(c.field);
      }
      for (const [input, field] of [
        [{ title: "" }, "title"],
        [{ title: "Bad Language", language: "english" }, "language"],
        [{ title: "Bad Count", knownBookCount: -2 }, "known_book_count"],
        [{ title: "Bad Languages", translationSourceLanguages: ["x"] }, "translation_source_languages"],
      ] as const) {
        const e = await h.gqlError(CREATE, { input });
        expect(e.extensions).toMatchObject({ code: "invalid_field", status: 400, field });
      }
      expect(await h.restList()).toEqual(before);

      // Updates validate the same way and change nothing.
      const s = await create({ title: "Valid Series" });
      await expectProblem(
        await app.api(`/api/manga/${s.id}`, { method: "PATCH", json: { title: "" } }),
        400,
        "invalid_field",
      );
      await expectProblem(
        await app.api(`/api/manga/${s.id}`, { method: "PATCH", json: { status: "ended" } }),
        400,
        "invalid_field",
      );
      const e = await h.gqlError(UPDATE, { id: s.id, input: { editionBookCount: 100_000 } });
      expect(e.extensions).toMatchObject({ code: "invalid_field", field: "edition_book_count" });
      expect(await expectJson(await app.api(`/api/manga/${s.id}`), 200)).toEqual(s);
      await expectProblem(await app.api("/api/manga/abc"), 400, "bad_request");
    });

    it("a folder already in use answers 409 series_folder_taken over both transports", async () => {
      const first = await create({ title: "Taken Folder" });
      const p = await expectProblem(
        await app.api("/api/manga", { method: "POST", json: { title: "Taken Folder" } }),
        409,
        "series_folder_taken",
      );
      expect(p.status).toBe(409);
      // A different title whose safe folder name is the same folder.
      await expectProblem(
        await app.api("/api/manga", { method: "POST", json: { title: "Taken Folder?" } }),
        409,
        "series_folder_taken",
      );
      await expectProblem(
        await app.api("/api/manga", { method: "POST", json: { title: "Another", folder: "Taken Folder" } }),
        409,
        "series_folder_taken",
      );
      const e = await h.gqlError(CREATE, { input: { title: "Something Else", folder: "Taken Folder" } });
      expect(e.extensions).toMatchObject({ code: "series_folder_taken", status: 409 });
      expect((await h.restList()).filter((s) => s.folder === "Taken Folder")).toEqual([first]);
    });

    it("PATCH known_book_count creates the volume slots: the units show the books", async () => {
      const s = await create({ title: "Slots Series" });
      expect(s.form).toBe("chapters");
      expect((await h.restUnits(s.id)).units).toEqual([]);

      const updated = await patch(s.id, { status: "finished", known_book_count: 3 });
      expect(updated).toMatchObject({ status: "finished", known_book_count: 3, form: "books" });
      const v = await h.restUnits(s.id);
      expect(v).toMatchObject({ form: "books", map: "none", status: null });
      expect(v.units).toEqual(
        ["1", "2", "3"].map((number) => ({
          kind: "book",
          number,
          book: null,
          owned: false,
          monitored: true,
          coverage: null,
          plan: "missing",
          estimated_book: null,
          page_count: null,
          file_ids: [],
          duplicate_file_ids: [],
          problems: [],
          extra: false,
        })),
      );

      // An edition count over GraphQL adds the edition's books; existing slots stay.
      const g = await h.gqlData<{ updateSeries: GqlSeries }>(UPDATE, {
        id: s.id,
        input: { editionBookCount: 5, monitored: false },
      });
      expect(seriesToRest(g.updateSeries)).toMatchObject({
        edition_book_count: 5,
        known_book_count: 3,
        monitored: false,
        form: "books",
      });
      const books = await h.gqlData<{ series: { books: { number: string; monitored: boolean }[] } }>(
        `{ series(id: ${s.id}) { books { number monitored } } }`,
      );
      expect(
        books.series.books.map((b) => [b.number, b.monitored]).sort((x, y) => Number(x[0]) - Number(y[0])),
      ).toEqual([
        ["1", true],
        ["2", true],
        ["3", true],
        // Added while the series is not monitored.
        ["4", false],
        ["5", false],
      ]);
      expect((await h.gqlUnits(s.id)).units.map((u) => `${u.kind} ${u.number}`)).toEqual([
        "book 1",
        "book 2",
        "book 3",
        "book 4",
        "book 5",
      ]);
      expect(await h.gqlUnits(s.id)).toEqual(await h.restUnits(s.id));
    });

    it("the form is decided by the rules: finished or paused with a book count → books; running, webtoon, no count → chapters", async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ status: "finished", known_book_count: 4 }, "books"],
        [{ status: "paused", known_book_count: 4 }, "books"],
        [{ status: "finished", known_book_count: null, edition_book_count: 2 }, "books"],
        [{ status: "running", known_book_count: 4 }, "chapters"],
        [{ status: "finished", known_book_count: 4, webtoon: true }, "chapters"],
        [{ status: "finished", known_book_count: null }, "chapters"],
        [{ status: "finished", known_book_count: 0 }, "chapters"],
        // The operator's override wins over every rule.
        [{ status: "running", form_override: "books" }, "books"],
        [{ status: "finished", known_book_count: 4, form_override: "chapters" }, "chapters"],
      ];
      let n = 0;
      for (const [fields, form] of cases) {
        const title = `Form Case ${++n}`;
        const created = await create({ title, ...fields });
        expect(created.form, JSON.stringify(fields)).toBe(form);
        expect((await h.restUnits(created.id)).form).toBe(form);
        // The same decision over GraphQL, and after a PATCH back to the defaults.
        const g = await h.gqlData<{ series: GqlSeries }>(`{ series(id: ${created.id}) { ${SERIES_FIELDS} } }`);
        expect(seriesToRest(g.series)).toEqual(created);
      }
      const s = await create({ title: "Form Moves" });
      expect(s.form).toBe("chapters");
      expect((await patch(s.id, { status: "finished", known_book_count: 2 })).form).toBe("books");
      const webtoon = await h.gqlData<{ updateSeries: GqlSeries }>(UPDATE, { id: s.id, input: { webtoon: true } });
      expect(webtoon.updateSeries.form).toBe("CHAPTERS");
      const running = await h.gqlData<{ updateSeries: GqlSeries }>(UPDATE, {
        id: s.id,
        input: { webtoon: false, status: "RUNNING" },
      });
      expect(running.updateSeries.form).toBe("CHAPTERS");
      const finished = await h.gqlData<{ updateSeries: GqlSeries }>(UPDATE, {
        id: s.id,
        input: { status: "FINISHED" },
      });
      expect(finished.updateSeries.form).toBe("BOOKS");
    });
  });
});
