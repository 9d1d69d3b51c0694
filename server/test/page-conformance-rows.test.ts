/**
 * Series page probes from outside, continued (see page-conformance.test.ts): plan wording, unknown
 * series, an assembled book's duplicates inside and their retirement, reading order in both layouts.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cbz, expectJson, expectProblem, scanLibrary, unitOf } from "./fixtures.ts";
import { chapters, keys, pageProbes, PAGE, UNITS } from "./page-probes.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

describe("series page rows and actions (conformance)", () => {
  let app: TestApp;
  shareTestApp((a) => (app = a));
  const { seriesWith, units, putMap, patch, page, agree } = pageProbes(() => app);

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
    // Only plain digits name a series: "1e3" is not series 1000, nor "0x10" series 16.
    for (const bad of ["abc", "0", "1.5", "1e3", "0x10", "+1", "99999999999"])
      await expectProblem(await app.api(`/api/manga/${bad}/units`), 400, "bad_request");
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

  it("a mapped optional extra keeps its book without counting as a main chapter, on the page and on the library card", async () => {
    const { id } = await seriesWith(
      { status: "finished", known_book_count: 1 },
      { ...chapters(1, 2), "- c002.5 Extras": 4 },
    );
    await putMap(id, 0, [{ volume: "1", chapters: ["1", "2", "2.5", "3"] }]);
    const v = await agree(id);
    expect(unitOf(v, "chapter", "2.5")).toMatchObject({ book: "1", extra: true, owned: true });
    const p = await page(id);
    expect(p.groups[0]).toMatchObject({ coverText: "2 of 3 chapters on disk" });
    expect(p.groups[0]!.children.map((c) => c.number)).toEqual(["1", "2", "2.5", "3"]);
    const card = await app.gql<{ series: { overview: { chapters: number; chaptersOwned: number } } }>(
      `query($id: Int!) { series(id: $id) { overview { chapters chaptersOwned } } }`,
      { id },
    );
    expect(card.errors).toBeUndefined();
    expect(card.data!.series.overview.chapters).toBe(3);
    // With chapter 3 on disk the book completes from its main chapters, the extra or not.
    await putMap(id, 1, [{ volume: "1", chapters: ["1", "2", "2.5"] }]);
    expect(unitOf(await agree(id), "book", "1")).toMatchObject({
      coverage: "covered_by_chapters",
      plan: "assemble when its chapters are complete",
    });
  });

  it("books of the managed edition: a smaller edition count lists fewer books, a series with nothing on disk lists them missing", async () => {
    const { id } = await seriesWith({ status: "finished", known_book_count: 4 }, {});
    const v = await agree(id);
    expect(v).toMatchObject({ form: "books", map: "none", status: null });
    expect(v.units.map((u) => `${u.kind} ${u.number} ${u.plan}`)).toEqual([
      "book 1 missing",
      "book 2 missing",
      "book 3 missing",
      "book 4 missing",
    ]);
    const p = await page(id);
    expect(keys(p)).toEqual(["[Books]", "  book:1", "  book:2", "  book:3", "  book:4", "[Chapters]"]);
    for (const r of p.sections[0]!.rows) expect(r.primary).toEqual({ id: "SEARCH", label: "Search" });
    expect(keys(await page(id, { filter: "MISSING" }))).toEqual(keys(p));
    expect(keys(await page(id, { filter: "DOWNLOADED" }))).toEqual(["[Books]", "[Chapters]"]);

    await patch(id, { edition_book_count: 2 });
    expect((await agree(id)).units.map((u) => `${u.kind} ${u.number}`)).toEqual(["book 1", "book 2"]);
  });
});
