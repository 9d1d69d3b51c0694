/**
 * The chapter-to-book map, coverage, series form and series-page grouping probed the way a checker
 * outside the project would: an empty service, a library folder written here, and only the public
 * REST and GraphQL API (docs/rules.md, "Map trust", "Coverage", "Series form", "Plans", "Series
 * page grouping"). The cases are the odd ones: equal decimal labels written two ways, chapter zero,
 * split chapters with a part missing, estimates that must never read as membership, explicit
 * unknown books, and the page's filters against the library card.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cbz, expectJson, expectProblem, scanLibrary, unitOf, type RestMap, type RestUnits } from "./fixtures.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

describe("map, coverage and grouping conformance", () => {
  let app: TestApp;
  let seq = 0;
  shareTestApp((a) => (app = a));

  /** A series made through POST /api/manga with these files (name → pages) in its folder, scanned. */
  async function seriesWith(fields: Record<string, unknown>, files: Record<string, number>): Promise<number> {
    const title = `Conformance ${++seq}`;
    const s = await expectJson<{ id: number; folder: string }>(
      await app.api("/api/manga", { method: "POST", json: { title, ...fields } }),
      201,
    );
    for (const [name, pages] of Object.entries(files)) {
      const file = path.join(app.config.libraryRoot, s.folder, `${title} ${name}.cbz`);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, await cbz(pages));
    }
    expect((await scanLibrary(app)).errors).toEqual([]);
    return s.id;
  }
  const chapters = (...n: (number | string)[]) =>
    Object.fromEntries(n.map((c) => [`- c${String(c).padStart(3, "0")}`, 6])) as Record<string, number>;
  const units = async (id: number) => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
  const putMap = async (id: number, revision: number, entries: { volume: string; chapters: string[] }[]) =>
    expectJson<RestMap>(
      await app.api(`/api/manga/${id}/chapter-map`, { method: "PUT", json: { revision, entries } }),
      200,
    );

  it("decimal labels are exact numbers: 7.10 is 7.1 (one chapter, two files), 10.5 stays 10.5, chapter 0 is a chapter", async () => {
    const id = await seriesWith(
      { status: "finished", known_book_count: 2 },
      { ...chapters(0, 1, 2, "007.1", "007.10", "010.5"), "- c010": 6 },
    );
    const v = await units(id);
    expect(v.units.filter((u) => u.kind === "chapter").map((u) => u.number)).toEqual([
      "0",
      "1",
      "2",
      "7.1",
      "10",
      "10.5",
    ]);
    expect(unitOf(v, "chapter", "7.1").file_ids).toHaveLength(2);

    // In one book, "7.1" and "7.10" are the same chapter listed twice.
    const twice = await expectProblem(
      await app.api(`/api/manga/${id}/chapter-map`, {
        method: "PUT",
        json: { revision: 0, entries: [{ volume: "1", chapters: ["7.1", "7.10"] }] },
      }),
      400,
      "invalid_map",
    );
    expect(twice.problems).toEqual([
      { code: "duplicate_chapter", message: "chapter 7.1 is listed twice in book 1", volume: "1", chapter: "7.1" },
    ]);

    const saved = await putMap(id, 0, [
      { volume: "1", chapters: ["0", "1", "2"] },
      { volume: "2", chapters: ["7.10", "10", "10.50"] },
    ]);
    expect(saved.entries).toEqual([
      { volume: "1", chapters: ["0", "1", "2"] },
      { volume: "2", chapters: ["7.1", "10", "10.5"] },
    ]);
    const after = await units(id);
    expect(after).toMatchObject({ map: "exact", status: "all chapters" });
    expect(after.units.map((u) => `${u.kind} ${u.number}${u.book === null ? "" : ` in ${u.book}`}`)).toEqual([
      "book 1",
      "chapter 0 in 1",
      "chapter 1 in 1",
      "chapter 2 in 1",
      "book 2",
      "chapter 7.1 in 2",
      "chapter 10 in 2",
      "chapter 10.5 in 2",
    ]);
    for (const b of ["1", "2"])
      expect(unitOf(after, "book", b)).toMatchObject({
        coverage: "covered_by_chapters",
        plan: "assemble when its chapters are complete",
      });
  });

  it("a split chapter counts as on disk only with every part: one part missing leaves its book in part", async () => {
    const id = await seriesWith(
      { status: "finished", known_book_count: 1 },
      { ...chapters(1, 2), "- c003 (part 1 of 2)": 3, "- c004 (part 1 of 2)": 3, "- c004 (part 2 of 2)": 3 },
    );
    await putMap(id, 0, [{ volume: "1", chapters: ["1", "2", "3", "4"] }]);
    const v = await units(id);
    expect(unitOf(v, "chapter", "3")).toMatchObject({
      owned: false,
      problems: ["split chapter: part 2 of 2 missing"],
    });
    expect(unitOf(v, "chapter", "4")).toMatchObject({ owned: true, problems: [] });
    expect(unitOf(v, "book", "1")).toMatchObject({
      coverage: null,
      plan: "in part",
      problems: ["missing chapters: 3"],
    });
    expect(v.status).toBeNull();

    await expectProblem(
      await app.api(`/api/manga/${id}/volumes/1/assemble?dry_run=true`, { method: "POST" }),
      409,
      "assembly_missing_part",
    );
  });

  it("estimates lay chapters out for display only: never `book`, redone for new counts and releases, fixed boundaries kept", async () => {
    const id = await seriesWith({ status: "finished", known_book_count: 2 }, chapters(1, 2, 3, 4, 5, 6));
    const layout = (v: RestUnits) =>
      v.units.filter((u) => u.kind === "chapter").map((u) => `${u.number}:${u.book ?? "-"}/${u.estimated_book ?? "-"}`);
    const v = await units(id);
    expect(v.map).toBe("none");
    expect(layout(v)).toEqual(["1:-/1", "2:-/1", "3:-/1", "4:-/2", "5:-/2", "6:-/2"]);
    for (const u of v.units) expect(u.coverage).toBeNull();

    // A new book count redoes the estimate.
    await expectJson(await app.api(`/api/manga/${id}`, { method: "PATCH", json: { known_book_count: 3 } }), 200);
    expect(layout(await units(id))).toEqual(["1:-/1", "2:-/1", "3:-/2", "4:-/2", "5:-/3", "6:-/3"]);

    // New releases redo it again.
    const folder = path.join(app.config.libraryRoot, `Conformance ${seq}`);
    for (const n of [7, 8, 9]) await writeFile(path.join(folder, `Conformance ${seq} - c00${n}.cbz`), await cbz(6));
    await scanLibrary(app);
    expect(layout(await units(id))).toEqual([
      "1:-/1",
      "2:-/1",
      "3:-/1",
      "4:-/2",
      "5:-/2",
      "6:-/2",
      "7:-/3",
      "8:-/3",
      "9:-/3",
    ]);

    // A saved book stays as saved; the other books share what lies on each side of it.
    await putMap(id, 0, [{ volume: "2", chapters: ["3", "4"] }]);
    expect(layout(await units(id))).toEqual([
      "1:-/1",
      "2:-/1",
      "3:2/-",
      "4:2/-",
      "5:-/3",
      "6:-/3",
      "7:-/3",
      "8:-/3",
      "9:-/3",
    ]);

    // A catalogue suggestion places nothing, however complete it is.
    const before = layout(await units(id));
    await expectJson(
      await app.api(`/api/manga/${id}/chapter-map/suggestions`, {
        method: "POST",
        json: {
          source: "catalogue:probe",
          entries: [
            { volume: "1", chapters: ["1", "2"] },
            { volume: "3", chapters: ["5", "6", "7", "8", "9"] },
          ],
        },
      }),
      201,
    );
    const withSuggestion = await units(id);
    expect(layout(withSuggestion)).toEqual(before);
    expect(unitOf(withSuggestion, "book", "1").coverage).toBeNull();
    expect(unitOf(withSuggestion, "book", "3").coverage).toBeNull();
  });

  it("an empty entry leaves the book's content unknown: neighbours do not cover it, and only empty entries are no map", async () => {
    const id = await seriesWith({ status: "finished", known_book_count: 3 }, chapters(1, 2, 3, 4, 5, 6, 7, 8, 9));
    const neighbours = [
      { volume: "1", chapters: ["1", "2", "3"] },
      { volume: "3", chapters: ["7", "8", "9"] },
    ];
    await putMap(id, 0, neighbours);
    // Book 2 has no entry: the chapters between its mapped neighbours are all on disk.
    expect(unitOf(await units(id), "book", "2")).toMatchObject({ coverage: "covered_by_chapters", plan: "in part" });

    await putMap(id, 1, [neighbours[0]!, { volume: "2", chapters: [] }, neighbours[1]!]);
    expect(unitOf(await units(id), "book", "2")).toMatchObject({ coverage: null, plan: "missing" });

    const onlyUnknown = await putMap(id, 2, [{ volume: "2", chapters: [] }]);
    expect(onlyUnknown).toMatchObject({ state: "none", entries: [{ volume: "2", chapters: [] }] });
    const v = await units(id);
    expect(v.map).toBe("none");
    for (const u of v.units) expect(u.book).toBeNull();
  });

  it("series completion: every book on disk is `all books` even when the chapters would complete them too", async () => {
    const id = await seriesWith(
      { status: "finished", known_book_count: 2 },
      { v01: 20, v02: 20, ...chapters(1, 2, 3, 4) },
    );
    await putMap(id, 0, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4"] },
    ]);
    expect((await units(id)).status).toBe("all books");
  });

  it("the Missing filter of the series page keeps monitored holes only, as the library card counts them", async () => {
    const id = await seriesWith({ status: "finished", known_book_count: 3 }, { v01: 20, ...chapters(1, 2, 5) });
    await putMap(id, 0, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4"] },
      { volume: "3", chapters: ["5", "6"] },
    ]);
    // The operator stops monitoring book 3 and chapter 4: they are holes by choice.
    for (const [kind, number] of [
      ["book", "3"],
      ["chapter", "4"],
    ])
      await expectJson(
        await app.api(`/api/manga/${id}/monitoring`, { method: "PUT", json: { kind, number, monitored: false } }),
        200,
      );

    const r = await app.gql<{
      seriesPage: { groups: { key: string; children: { key: string }[] }[] };
      series: { overview: { missingBooks: number; missingChapters: number } };
    }>(
      `query($id: Int!) {
        seriesPage(seriesId: $id, filter: MISSING) { groups { key children { key } } }
        series(id: $id) { overview { missingBooks missingChapters } }
      }`,
      { id },
    );
    expect(r.errors).toBeUndefined();
    const page = r.data!.seriesPage.groups.map((g) => `${g.key}[${g.children.map((c) => c.key).join(" ")}]`);
    // Book 2 and chapter 3 are monitored holes; book 3 is kept for its monitored hole, chapter 6.
    expect(page).toEqual(["book:2[chapter:3]", "book:3[chapter:6]"]);
    const missingRows = r.data!.seriesPage.groups.flatMap((g) => [g.key, ...g.children.map((c) => c.key)]);
    const { missingBooks, missingChapters } = r.data!.series.overview;
    expect(missingRows.filter((k) => k !== "book:3")).toHaveLength(missingBooks + missingChapters);
  });
});
