/**
 * Series form, completion plans and the series page probed from outside: an empty service, a
 * library folder written here, and only the public REST and GraphQL API (docs/rules.md, "Series
 * form", "Plans", "Series page grouping"). The units view and its GraphQL twin must agree on every
 * series made here, and the page must follow the rules' wording literally.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cbz, expectJson, expectProblem, scanLibrary, unitOf, type RestUnits } from "./fixtures.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

const ROW = `key kind number title owned ownedText monitored pageCount plan planText coverage fileIds problems problem
  estimateHint primary { id label } menu { id label }`;
const PAGE = `query($id: Int!, $filter: UnitFilter, $reversed: Boolean, $problemsOnly: Boolean) {
  seriesPage(seriesId: $id, filter: $filter, reversed: $reversed, problemsOnly: $problemsOnly) {
    seriesId form map status planWording layout notice offerMapEditor
    groups { key collapsed coverText note duplicates { count fileIds note } book { ${ROW} } children { ${ROW} } }
    sections { key title rows { ${ROW} } }
    loose { key title children { ${ROW} } }
  }
}`;
const UNITS = `query($id: Int!) { units(seriesId: $id) { seriesId form map status planWording
  units { kind number book owned monitored coverage plan estimatedBook pageCount fileIds duplicateFileIds problems extra } } }`;

interface Row {
  key: string;
  kind: string;
  number: string;
  title: string;
  owned: boolean;
  ownedText: string;
  monitored: boolean;
  pageCount: number | null;
  plan: string | null;
  planText: string | null;
  coverage: string | null;
  fileIds: number[];
  problems: string[];
  problem: boolean;
  estimateHint: string | null;
  primary: { id: string; label: string } | null;
  menu: { id: string; label: string }[];
}
interface Page {
  seriesId: number;
  form: string;
  map: string;
  status: string | null;
  planWording: string;
  layout: string;
  notice: string | null;
  offerMapEditor: boolean;
  groups: {
    key: string;
    collapsed: boolean;
    coverText: string | null;
    note: string | null;
    duplicates: { count: number; fileIds: number[]; note: string } | null;
    book: Row;
    children: Row[];
  }[];
  sections: { key: string; title: string; rows: Row[] }[];
  loose: { key: string; title: string; children: Row[] } | null;
}

/** GraphQL's enum spelling of a REST value ("all books" → ALL_BOOKS). */
const PLAN_ENUM: Record<string, string> = {
  "book on disk": "BOOK_ON_DISK",
  "assemble when its chapters are complete": "ASSEMBLE_WHEN_CHAPTERS_COMPLETE",
  "in part": "IN_PART",
  missing: "MISSING",
};
const gqlEnum = (v: string | null) => (v === null ? null : (PLAN_ENUM[v] ?? v.replace(/ /g, "_").toUpperCase()));

/** The page's rows in display order, as `key` strings (groups with their children, sections, the trailing group). */
function keys(p: Page): string[] {
  const out: string[] = [];
  for (const g of p.groups) out.push(g.book.key, ...g.children.map((c) => `  ${c.key}`));
  for (const s of p.sections) out.push(`[${s.title}]`, ...s.rows.map((r) => `  ${r.key}`));
  if (p.loose) out.push(`[${p.loose.title}]`, ...p.loose.children.map((r) => `  ${r.key}`));
  return out;
}

describe("series form, plans and the series page (conformance)", () => {
  let app: TestApp;
  let seq = 0;
  shareTestApp((a) => (app = a));

  /** A series made through POST /api/manga with these files (name suffix → pages) in its folder, scanned. */
  async function seriesWith(
    fields: Record<string, unknown>,
    files: Record<string, number>,
  ): Promise<{ id: number; title: string; folder: string }> {
    const title = `Page Probe ${++seq}`;
    const s = await expectJson<{ id: number; folder: string }>(
      await app.api("/api/manga", { method: "POST", json: { title, ...fields } }),
      201,
    );
    await mkdir(path.join(app.config.libraryRoot, s.folder), { recursive: true });
    for (const [name, pages] of Object.entries(files))
      await writeFile(path.join(app.config.libraryRoot, s.folder, `${title} ${name}.cbz`), await cbz(pages));
    expect((await scanLibrary(app)).errors).toEqual([]);
    return { id: s.id, title, folder: s.folder };
  }
  const chapters = (...n: (number | string)[]) =>
    Object.fromEntries(n.map((c) => [`- c${String(c).padStart(3, "0")}`, 6])) as Record<string, number>;
  const units = async (id: number) => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
  const putMap = async (id: number, revision: number, entries: { volume: string; chapters: string[] }[]) =>
    expectJson(await app.api(`/api/manga/${id}/chapter-map`, { method: "PUT", json: { revision, entries } }), 200);
  const patch = async (id: number, json: Record<string, unknown>) =>
    expectJson<{ form: string; form_override: string | null; plan_wording: string }>(
      await app.api(`/api/manga/${id}`, { method: "PATCH", json }),
      200,
    );
  async function page(id: number, vars: Record<string, unknown> = {}): Promise<Page> {
    const r = await app.gql<{ seriesPage: Page }>(PAGE, { id, ...vars });
    expect(r.errors).toBeUndefined();
    return r.data!.seriesPage;
  }
  /** REST units and GraphQL units agree field by field. */
  async function agree(id: number): Promise<RestUnits> {
    const rest = await units(id);
    const g = await app.gql<{ units: Record<string, unknown> & { units: Record<string, unknown>[] } }>(UNITS, { id });
    expect(g.errors).toBeUndefined();
    expect(g.data!.units).toEqual({
      seriesId: rest.series_id,
      form: gqlEnum(rest.form),
      map: gqlEnum(rest.map),
      status: gqlEnum(rest.status),
      planWording: gqlEnum(rest.plan_wording),
      units: rest.units.map((u) => ({
        kind: gqlEnum(u.kind),
        number: u.number,
        book: u.book,
        owned: u.owned,
        monitored: u.monitored,
        coverage: gqlEnum(u.coverage),
        plan: gqlEnum(u.plan),
        estimatedBook: u.estimated_book,
        pageCount: u.page_count,
        fileIds: u.file_ids,
        duplicateFileIds: u.duplicate_file_ids,
        problems: u.problems,
        extra: u.extra,
      })),
    });
    return rest;
  }

  it("form: an override wins, clearing it returns to the rules, a wrong value changes nothing", async () => {
    const { id } = await seriesWith({ status: "finished", known_book_count: 2 }, chapters(1, 2));
    expect((await units(id)).form).toBe("books");
    expect(await patch(id, { form_override: "chapters" })).toMatchObject({
      form: "chapters",
      form_override: "chapters",
    });
    expect((await agree(id)).form).toBe("chapters");
    expect(await patch(id, { form_override: null })).toMatchObject({ form: "books", form_override: null });
    await expectProblem(
      await app.api(`/api/manga/${id}`, { method: "PATCH", json: { form_override: "both" } }),
      400,
      "invalid_field",
    );
    // Paused with a book count is books; paused without one is chapters; a webtoon stays chapters.
    expect(await patch(id, { status: "paused" })).toMatchObject({ form: "books" });
    expect(await patch(id, { known_book_count: null })).toMatchObject({ form: "chapters" });
    expect(await patch(id, { known_book_count: 2, webtoon: true })).toMatchObject({ form: "chapters" });
    expect(await patch(id, { webtoon: false, status: "running" })).toMatchObject({ form: "chapters" });
    expect((await agree(id)).form).toBe("chapters");
  });

  it("exact map: chapters nest under their book in reading order, an unowned book expanded with how many of its chapters are on disk", async () => {
    const { id } = await seriesWith(
      { status: "finished", known_book_count: 3 },
      { v01: 20, ...chapters(0, 1, 2, 3, 4, 5, 10), "- c005.5 Extras": 4, "- c007.5 Extras": 4 },
    );
    await putMap(id, 0, [
      { volume: "1", chapters: ["0", "1", "2"] },
      { volume: "2", chapters: ["3", "4"] },
      { volume: "3", chapters: ["5", "5.5", "6", "10"] },
    ]);
    const v = await agree(id);
    expect(v.map).toBe("exact");
    expect(v.form).toBe("books");
    expect(v.units.map((u) => `${u.kind} ${u.number}${u.book === null ? "" : ` in ${u.book}`}`)).toEqual([
      "book 1",
      "chapter 0 in 1",
      "chapter 1 in 1",
      "chapter 2 in 1",
      "book 2",
      "chapter 3 in 2",
      "chapter 4 in 2",
      "book 3",
      "chapter 5 in 3",
      "chapter 5.5 in 3",
      "chapter 6 in 3",
      "chapter 10 in 3",
      "chapter 7.5",
    ]);
    expect(unitOf(v, "book", "1")).toMatchObject({ owned: true, page_count: 20, plan: "book on disk" });
    expect(unitOf(v, "book", "2")).toMatchObject({
      owned: false,
      page_count: null,
      coverage: "covered_by_chapters",
      plan: "assemble when its chapters are complete",
    });
    expect(unitOf(v, "book", "3")).toMatchObject({ owned: false, coverage: null, plan: "in part" });
    for (const u of v.units.filter((x) => x.kind === "chapter")) {
      expect(u.plan).toBeNull();
      expect(u.page_count).toBeNull();
    }
    expect(unitOf(v, "chapter", "5.5").extra).toBe(true);

    const p = await page(id);
    expect(p).toMatchObject({ layout: "GROUPED", notice: null, offerMapEditor: false, status: null });
    expect(p.sections).toEqual([]);
    expect(keys(p)).toEqual([
      "book:1",
      "  chapter:0",
      "  chapter:1",
      "  chapter:2",
      "book:2",
      "  chapter:3",
      "  chapter:4",
      "book:3",
      "  chapter:5",
      "  chapter:5.5",
      "  chapter:6",
      "  chapter:10",
      "[Chapters without a book]",
      "  chapter:7.5",
    ]);
    const [g1, g2, g3] = p.groups;
    expect(g1).toMatchObject({ collapsed: true, coverText: null });
    expect(g1!.book).toMatchObject({ owned: true, ownedText: "Owned", pageCount: 20 });
    expect(g2).toMatchObject({ collapsed: false, coverText: "2 of 2 chapters on disk" });
    expect(g2!.book.primary).toEqual({ id: "ASSEMBLE_BOOK", label: "Assemble book" });
    expect(g2!.book).toMatchObject({ ownedText: "Not owned", pageCount: null });
    // The mapped extra keeps its book but is not a main chapter: 2 of 3 main chapters (5, 6, 10).
    expect(g3).toMatchObject({ collapsed: false, coverText: "2 of 3 chapters on disk" });
  });

  it("without an exact map: Books and Chapters flat, the one sentence, the map editor, no book covered and no book badge from a hint", async () => {
    const { id } = await seriesWith(
      { status: "finished", known_book_count: 3 },
      { v01: 20, ...chapters(1, 2, 3, 4, 5, 6) },
    );
    await expectJson(
      await app.api(`/api/manga/${id}/chapter-map/suggestions`, {
        method: "POST",
        json: {
          source: "catalogue:probe",
          entries: [
            { volume: "1", chapters: ["1", "2"] },
            { volume: "2", chapters: ["3", "4"] },
            { volume: "3", chapters: ["5", "6"] },
          ],
        },
      }),
      201,
    );
    const v = await agree(id);
    expect(v.map).toBe("none");
    for (const u of v.units) {
      expect(u.book).toBeNull();
      if (u.kind === "book") expect(u.coverage).not.toBe("covered_by_chapters");
      if (u.kind === "chapter") expect(u.coverage).not.toBe("covered_by_volume");
    }
    // Plans read no hint: book 2's chapters are not known to be 3 and 4.
    expect(unitOf(v, "book", "2").plan).toBe("missing");
    expect(unitOf(v, "book", "3").plan).toBe("missing");
    expect(v.status).toBeNull();

    const p = await page(id);
    expect(p).toMatchObject({
      layout: "FLAT",
      notice: "The content of each book is unknown: chapters are kept and no book counts as covered.",
      offerMapEditor: true,
    });
    expect(p.groups).toEqual([]);
    expect(keys(p)).toEqual([
      "[Books]",
      "  book:1",
      "  book:2",
      "  book:3",
      "[Chapters]",
      ...[1, 2, 3, 4, 5, 6].map((n) => `  chapter:${n}`),
    ]);
    for (const r of p.sections.flatMap((s) => s.rows)) {
      expect(r.primary?.id).not.toBe("ASSEMBLE_BOOK");
      // A hint is words at most, never the book the row belongs to.
      if (r.estimateHint !== null) expect(r.estimateHint).toMatch(/^estimated in book \d+, not mapped$/);
    }
    expect(p.sections[0]!.rows[0]).toMatchObject({ ownedText: "Owned", pageCount: 20 });

    // The same under a partial map: an owned ordinary chapter outside every book.
    await putMap(id, 0, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "3", chapters: ["5"] },
    ]);
    const partial = await agree(id);
    expect(partial.map).toBe("partial");
    for (const u of partial.units) {
      expect(u.coverage).not.toBe("covered_by_volume");
      if (u.kind === "book") expect(u.plan).not.toBe("assemble when its chapters are complete");
    }
    const pp = await page(id);
    expect(pp).toMatchObject({ layout: "FLAT", offerMapEditor: true, notice: p.notice });
    for (const r of pp.sections.flatMap((s) => s.rows)) expect(r.primary?.id).not.toBe("ASSEMBLE_BOOK");
  });

  it("chapters form without a map: the Chapters section first; an exact map nests anyway with each book closing its run", async () => {
    const { id } = await seriesWith({ status: "running" }, { v01: 20, ...chapters(1, 2, 3, 4, 5) });
    const v = await agree(id);
    expect(v.form).toBe("chapters");
    const p = await page(id);
    expect(p.sections.map((s) => s.title)).toEqual(["Chapters", "Books"]);
    await putMap(id, 0, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4"] },
    ]);
    const exact = await agree(id);
    expect(exact.map).toBe("exact");
    const g = await page(id);
    expect(keys(g)).toEqual([
      "book:1",
      "  chapter:1",
      "  chapter:2",
      "book:2",
      "  chapter:3",
      "  chapter:4",
      "[Chapters without a book]",
      "  chapter:5",
    ]);
  });

  it("series status: `all chapters` with a stray book redundant, `all books` when every book is on disk", async () => {
    const { id } = await seriesWith({ status: "finished", known_book_count: 2 }, { v01: 20, ...chapters(1, 2, 3, 4) });
    await putMap(id, 0, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4"] },
    ]);
    const v = await agree(id);
    expect(v.status).toBe("all chapters");
    const p = await page(id);
    expect(p.status).toBe("ALL_CHAPTERS");
    expect(p.groups.map((g) => [g.key, g.note])).toEqual([
      ["book:1", "Redundant: the whole series completes from chapters."],
      ["book:2", null],
    ]);
    // A book numbered past the edition (a stray book) is redundant too and does not block the status.
    const folder = path.join(app.config.libraryRoot, `Page Probe ${seq}`);
    await writeFile(path.join(folder, `Page Probe ${seq} v03.cbz`), await cbz(20));
    await scanLibrary(app);
    const withStray = await agree(id);
    expect(withStray.status).toBe("all chapters");
    expect(unitOf(withStray, "book", "3")).toMatchObject({ owned: true, extra: true });
    expect((await page(id)).groups.find((g) => g.key === "book:3")?.note).toBe(
      "Redundant: the whole series completes from chapters.",
    );

    await writeFile(path.join(folder, `Page Probe ${seq} v02.cbz`), await cbz(20));
    await scanLibrary(app);
    const all = await agree(id);
    expect(all.status).toBe("all books");
    expect(all.units.filter((u) => u.kind === "book").map((u) => u.plan)).toEqual([
      "book on disk",
      "book on disk",
      "book on disk",
    ]);
    for (const g of (await page(id)).groups) expect(g).toMatchObject({ collapsed: true, note: null });
  });

  it("filters keep relevant groups and matching children; the order selector reverses; Problems only hides what is fine", async () => {
    const { id } = await seriesWith(
      { status: "finished", known_book_count: 3 },
      { v01: 20, ...chapters(1, 3, 4, 5), "- c002.5 Extras": 4, "- c009.5 Extras": 4 },
    );
    await putMap(id, 0, [
      { volume: "1", chapters: ["1", "2", "2.5"] },
      { volume: "2", chapters: ["3", "4"] },
      { volume: "3", chapters: ["5", "6"] },
    ]);
    await expectJson(
      await app.api(`/api/manga/${id}/monitoring`, {
        method: "PUT",
        json: { kind: "chapter", number: "4", monitored: false },
      }),
      200,
    );
    const all = await page(id);
    expect(keys(all)).toEqual([
      "book:1",
      "  chapter:1",
      "  chapter:2",
      "  chapter:2.5",
      "book:2",
      "  chapter:3",
      "  chapter:4",
      "book:3",
      "  chapter:5",
      "  chapter:6",
      "[Chapters without a book]",
      "  chapter:9.5",
    ]);
    // A scanned book is a hand import: it covers nothing until verified, so its chapter 2 is still a hole.
    expect(keys(await page(id, { filter: "MISSING" }))).toEqual(["book:1", "  chapter:2", "book:3", "  chapter:6"]);
    expect(keys(await page(id, { filter: "DOWNLOADED" }))).toEqual([
      "book:1",
      "  chapter:1",
      "  chapter:2.5",
      "book:2",
      "  chapter:3",
      "  chapter:4",
      "book:3",
      "  chapter:5",
      "[Chapters without a book]",
      "  chapter:9.5",
    ]);
    const monitored = await page(id, { filter: "MONITORED" });
    for (const r of [...monitored.groups.flatMap((g) => g.children), ...(monitored.loose?.children ?? [])])
      expect(r.monitored, r.key).toBe(true);
    expect(keys(monitored)).not.toContain("  chapter:4");

    const reversed = await page(id, { reversed: true });
    expect(keys(reversed)).toEqual([
      "book:3",
      "  chapter:6",
      "  chapter:5",
      "book:2",
      "  chapter:4",
      "  chapter:3",
      "book:1",
      "  chapter:2.5",
      "  chapter:2",
      "  chapter:1",
      "[Chapters without a book]",
      "  chapter:9.5",
    ]);

    const problems = await page(id, { problemsOnly: true });
    for (const r of [...problems.groups.flatMap((g) => g.children), ...(problems.loose?.children ?? [])])
      expect(r.problem, r.key).toBe(true);
    expect(keys(problems)).toEqual(expect.arrayContaining(["book:3", "  chapter:6"]));
    expect(keys(problems)).not.toContain("  chapter:5");
    expect(keys(problems)).not.toContain("  chapter:3");
  });

  it("plans are worded books first or chapters first as the series prefers", async () => {
    const { id } = await seriesWith({ status: "finished", known_book_count: 3 }, { v01: 20, ...chapters(3, 4, 5) });
    await putMap(id, 0, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4"] },
      { volume: "3", chapters: ["5", "6"] },
    ]);
    const plans = async () => (await page(id)).groups.map((g) => [g.book.plan, g.book.planText]);
    const booksFirst = await plans();
    expect(booksFirst.map((p) => p[0])).toEqual(["BOOK_ON_DISK", "ASSEMBLE_WHEN_CHAPTERS_COMPLETE", "IN_PART"]);
    expect(await patch(id, { plan_wording: "chapters_first" })).toMatchObject({ plan_wording: "chapters_first" });
    expect((await units(id)).plan_wording).toBe("chapters_first");
    const chaptersFirst = await plans();
    expect(chaptersFirst.map((p) => p[0])).toEqual(booksFirst.map((p) => p[0]));
    // Same plans, other words for the ones where the order of book and chapters matters.
    expect(chaptersFirst[2]![1]).not.toBe(booksFirst[2]![1]);
    await expectProblem(
      await app.api(`/api/manga/${id}`, { method: "PATCH", json: { plan_wording: "volumes_first" } }),
      400,
      "invalid_field",
    );
    expect((await units(id)).plan_wording).toBe("chapters_first");
    // A book with nothing on disk is missing.
    await putMap(id, 1, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4"] },
      { volume: "3", chapters: ["5", "6"] },
      { volume: "4", chapters: ["7", "8"] },
    ]);
    expect(unitOf(await units(id), "book", "4").plan).toBe("missing");
  });

  it("units of an unknown or malformed series: 404 series_not_found, 400 for a malformed id, over both transports", async () => {
    await expectProblem(await app.api(`/api/manga/987654/units`), 404, "series_not_found");
    const malformed = await app.api(`/api/manga/abc/units`);
    expect(malformed.status).toBe(400);
    const g = await app.gql(UNITS, { id: 987654 });
    expect(g.errors?.[0]?.extensions?.code).toBe("series_not_found");
    const p = await app.gql(PAGE, { id: 987654 });
    expect(p.errors?.[0]?.extensions?.code).toBe("series_not_found");
  });

  it("an owned book made by assembly: collapsed with its page count, a `duplicates inside` note and the retire action that empties it", async () => {
    const { id, title, folder } = await seriesWith(
      { status: "finished", known_book_count: 2 },
      { "- c001": 5, "- c002": 7, "- c003": 6 },
    );
    await putMap(id, 0, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4"] },
    ]);
    const preview = await expectJson<{ confirmation: string }>(
      await app.api(`/api/manga/${id}/volumes/1/assemble?dry_run=true`, { method: "POST" }),
      200,
    );
    await expectJson(
      await app.api(`/api/manga/${id}/volumes/1/assemble?dry_run=false`, {
        method: "POST",
        json: { confirmation: preview.confirmation },
      }),
      200,
    );
    // The chapter files went to the recycle bin; a second copy of chapter 2 arrives later.
    await writeFile(path.join(app.config.libraryRoot, folder, `${title} - c002 [copy].cbz`), await cbz(7));
    await scanLibrary(app);
    const v = await agree(id);
    const book1 = unitOf(v, "book", "1");
    expect(book1).toMatchObject({ owned: true, page_count: 12, plan: "book on disk" });
    const chapter2 = unitOf(v, "chapter", "2");
    expect(chapter2).toMatchObject({ book: "1", owned: true, coverage: "covered_by_volume" });
    expect(book1.duplicate_file_ids).toEqual(chapter2.file_ids);
    expect(unitOf(v, "chapter", "1")).toMatchObject({ owned: false, coverage: "covered_by_volume" });

    const p = await page(id);
    const g1 = p.groups[0]!;
    expect(g1).toMatchObject({
      key: "book:1",
      collapsed: true,
      coverText: null,
      duplicates: { count: 1, fileIds: chapter2.file_ids, note: "duplicates inside: 1 chapter file" },
    });
    expect(g1.book).toMatchObject({ pageCount: 12, primary: { id: "READ" } });
    expect(g1.book.menu.map((a) => a.id)).toContain("RETIRE_DUPLICATES");
    // Chapter 1 is inside the owned book: covered, so neither missing nor a problem.
    expect(keys(await page(id, { filter: "MISSING" }))).toEqual(["book:2", "  chapter:4"]);
    expect(g1.children.find((c) => c.number === "1")).toMatchObject({ problem: false, primary: null });
    // Book 2 is unowned: expanded, with how many of its chapters are on disk.
    expect(p.groups[1]).toMatchObject({ collapsed: false, coverText: "1 of 2 chapters on disk" });

    const retire = await expectJson<{ files: { id: number; path: string }[]; confirmation: string }>(
      await app.api(`/api/manga/${id}/volumes/1/duplicates/preview`, { method: "POST" }),
      200,
    );
    expect(retire.files.map((f) => f.id)).toEqual(chapter2.file_ids);
    expect(retire.files[0]!.path).toContain("c002 [copy]");
    await expectJson(
      await app.api(`/api/manga/${id}/volumes/1/duplicates/retire`, {
        method: "POST",
        json: { confirmation: retire.confirmation },
      }),
      200,
    );
    const after = await page(id);
    expect(after.groups[0]).toMatchObject({ collapsed: true, duplicates: null });
    expect(after.groups[0]!.book.menu.map((a) => a.id)).not.toContain("RETIRE_DUPLICATES");
  });

  it("rows in reading order: chapter 0, decimals and numbers past 9 sorted as numbers, in both layouts", async () => {
    const { id } = await seriesWith(
      { status: "finished", known_book_count: 2 },
      { ...chapters(0, 1, "001.5", 2, 9, 10, 11), "- c010.25": 6, v10: 20, v02: 20 },
    );
    const flat = await page(id);
    expect(keys(flat)).toEqual([
      "[Books]",
      "  book:1",
      "  book:2",
      "  book:10",
      "[Chapters]",
      ...["0", "1", "1.5", "2", "9", "10", "10.25", "11"].map((n) => `  chapter:${n}`),
    ]);
    expect(keys(await page(id, { reversed: true }))).toEqual([
      "[Books]",
      "  book:10",
      "  book:2",
      "  book:1",
      "[Chapters]",
      ...["11", "10.25", "10", "9", "2", "1.5", "1", "0"].map((n) => `  chapter:${n}`),
    ]);
    await putMap(id, 0, [
      { volume: "1", chapters: ["0", "1", "1.5", "2"] },
      { volume: "2", chapters: ["9", "10", "10.25", "11"] },
    ]);
    expect(keys(await page(id))).toEqual([
      "book:1",
      ...["0", "1", "1.5", "2"].map((n) => `  chapter:${n}`),
      "book:2",
      ...["9", "10", "10.25", "11"].map((n) => `  chapter:${n}`),
      "book:10",
    ]);
  });
});
