/**
 * The chapter-map endpoints over real HTTP on a real database: GET/PUT/DELETE …/chapter-map,
 * POST …/chapter-map/readings and …/chapter-map/suggestions (docs/rules.md, "Map trust",
 * "Coverage"; docs/api.md, "REST"). Every series is created through
 * POST /api/manga, filled with small CBZ files written here and recorded by POST /api/library/scan.
 */
import { describe, expect, it } from "vitest";
import {
  bookFileIds,
  createSeriesWithFiles,
  markDownloaded,
  expectJson,
  expectProblem,
  scanLibrary,
  unitOf,
  type MapEntry,
  type RestMap,
  type RestUnits,
} from "./fixtures.ts";
import { shareTestApp, TEST_API_KEY, type TestApp } from "./utils.ts";

describe("chapter-map endpoints", () => {
  let app: TestApp;
  let seq = 0;

  shareTestApp((a) => (app = a));

  /**
   * A running series (chapters form) made through POST /api/manga, with the given books and
   * chapter files written into its folder and recorded by a library scan.
   */
  async function seriesWithFiles(books: number[], chapters: number[]): Promise<{ id: number; title: string }> {
    const title = `Map Series ${++seq}`;
    const s = await createSeriesWithFiles(app, title, { books, chapters });
    expect(s.folder).toBe(title);
    const scan = await scanLibrary(app);
    expect(scan.errors).toEqual([]);
    expect(scan.added).toBe(books.length + chapters.length);
    return { id: s.id, title };
  }

  const getMap = async (id: number) => expectJson<RestMap>(await app.api(`/api/manga/${id}/chapter-map`), 200);
  const getUnits = async (id: number) => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
  const put = (id: number, body: unknown, dryRun = false) =>
    app.api(`/api/manga/${id}/chapter-map${dryRun ? "?dry_run=true" : ""}`, { method: "PUT", json: body });
  const del = (id: number, body: unknown, dryRun = false) =>
    app.api(`/api/manga/${id}/chapter-map${dryRun ? "?dry_run=true" : ""}`, { method: "DELETE", json: body });
  const postReading = (id: number, body: unknown) =>
    app.api(`/api/manga/${id}/chapter-map/readings`, { method: "POST", json: body });
  const postSuggestion = (id: number, body: unknown) =>
    app.api(`/api/manga/${id}/chapter-map/suggestions`, { method: "POST", json: body });

  /** The id of the one file of a unit (read from the units view before any map exists). */
  function fileOf(view: RestUnits, kind: "book" | "chapter", number: string): number {
    const u = unitOf(view, kind, number);
    expect(u.file_ids).toHaveLength(1);
    return u.file_ids[0] as number;
  }
  const emptyMap = (id: number): RestMap => ({
    series_id: id,
    revision: 0,
    state: "none",
    entries: [],
    readings: [],
    suggestions: [],
    conflicts: [],
  });

  /**
   * Book 1 owned, chapters 1, 2, 5 and 6 as chapter files. The book is made a downloaded one (a
   * sound book covers and retires: what these map tests are about); the scan alone makes it a hand
   * import, see the first test.
   */
  const mixed = async () => {
    const s = await seriesWithFiles([1], [1, 2, 5, 6]);
    await markDownloaded(app, await bookFileIds(app, s.id));
    return s;
  };
  const twoBooks: MapEntry[] = [
    { volume: "1", chapters: ["1", "2", "3", "4"] },
    { volume: "2", chapters: ["5", "6", "7", "8"] },
  ];

  it("GET on a fresh series: revision 0, no entries, no readings, no suggestions", async () => {
    const { id } = await seriesWithFiles([], []);
    expect(await getMap(id)).toEqual(emptyMap(id));
  });

  it("the scan recorded the written files as the books and chapters they are named", async () => {
    const { id } = await seriesWithFiles([1], [1, 2, 5, 6]);
    const view = await getUnits(id);
    expect(view.form).toBe("chapters");
    expect(view.map).toBe("none");
    // A book the scan finds is a hand import: it never covers on its own, not even covered_unmapped.
    expect(view.units.map((u) => [u.kind, u.number, u.owned, u.coverage, u.book])).toEqual([
      ["chapter", "1", true, null, null],
      ["chapter", "2", true, null, null],
      ["chapter", "5", true, null, null],
      ["chapter", "6", true, null, null],
      ["book", "1", true, null, null],
    ]);
    expect(unitOf(view, "book", "1").page_count).toBe(12);
    const books = await expectJson<{ volume: string; suspect_reason: string | null }[]>(
      await app.api(`/api/manga/${id}/verified-books`),
      200,
    );
    expect(books).toMatchObject([{ volume: "1", suspect_reason: "hand import" }]);
  });

  it("a downloaded book without a map makes the chapters covered_unmapped", async () => {
    const { id } = await mixed();
    const view = await getUnits(id);
    expect(view.units.map((u) => [u.kind, u.number, u.coverage])).toEqual([
      ["chapter", "1", "covered_unmapped"],
      ["chapter", "2", "covered_unmapped"],
      ["chapter", "5", "covered_unmapped"],
      ["chapter", "6", "covered_unmapped"],
      ["book", "1", null],
    ]);
  });

  it("PUT ?dry_run=true returns the coverage change and the duplicates that would appear, and changes nothing", async () => {
    const { id } = await mixed();
    const before = await getUnits(id);
    const c1 = fileOf(before, "chapter", "1");
    const c2 = fileOf(before, "chapter", "2");

    const preview = await expectJson<Record<string, unknown>>(
      await put(id, { revision: 0, entries: twoBooks }, true),
      200,
    );
    const side = (coverage: string | null, book: string | null, wanted = false) => ({ coverage, book, wanted });
    const change = (number: string, before: object, after: object, become: number[] = []) => ({
      number,
      before,
      after,
      become_duplicates: become,
      stop_duplicates: [],
    });
    expect(preview).toEqual({
      dry_run: true,
      revision: 0,
      map_before: "none",
      map_after: "exact",
      chapters: [
        change("1", side("covered_unmapped", null), side("covered_by_volume", "1"), [c1]),
        change("2", side("covered_unmapped", null), side("covered_by_volume", "1"), [c2]),
        // Chapters 3 and 4 have no slot yet: the map names them, the owned book 1 holds them.
        change("3", side(null, null), side("covered_by_volume", "1")),
        change("4", side(null, null), side("covered_by_volume", "1")),
        // Book 2 is not owned: its chapters get their book but no coverage.
        change("5", side("covered_unmapped", null), side(null, "2")),
        change("6", side("covered_unmapped", null), side(null, "2")),
        change("7", side(null, null), side(null, "2")),
        change("8", side(null, null), side(null, "2")),
      ],
      books: [
        {
          number: "1",
          before: { coverage: null, covers_chapters: false, chapters: null, wanted: false },
          after: { coverage: null, covers_chapters: true, chapters: ["1", "2", "3", "4"], wanted: false },
          become_duplicates: [c1, c2],
          stop_duplicates: [],
        },
        {
          number: "2",
          before: { coverage: null, covers_chapters: false, chapters: null, wanted: false },
          after: { coverage: null, covers_chapters: false, chapters: ["5", "6", "7", "8"], wanted: false },
          become_duplicates: [],
          stop_duplicates: [],
        },
      ],
      become_duplicate_file_ids: [c1, c2].sort((a, b) => a - b),
      stop_duplicate_file_ids: [],
    });

    // Nothing was saved: same revision, no entries, the same units.
    expect(await getMap(id)).toEqual(emptyMap(id));
    expect(await getUnits(id)).toEqual(before);
  });

  it("PUT at the current revision saves canonical entries, bumps the revision and makes them operational", async () => {
    const { id } = await mixed();
    const before = await getUnits(id);
    const c1 = fileOf(before, "chapter", "1");
    const c2 = fileOf(before, "chapter", "2");
    const book1 = fileOf(before, "book", "1");

    // Unordered, non-canonical labels: stored canonical and sorted.
    const saved = await expectJson<RestMap>(
      await put(id, {
        revision: 0,
        entries: [
          { volume: "02", chapters: ["8", "7", "06", "5.0"] },
          { volume: "1", chapters: ["4", "3", "2", "001"] },
        ],
      }),
      200,
    );
    expect(saved).toEqual({ ...emptyMap(id), revision: 1, state: "exact", entries: twoBooks });
    expect(await getMap(id)).toEqual(saved);

    const after = await getUnits(id);
    expect(after.map).toBe("exact");
    // Chapters form with an exact map: each book closes the run of its chapters.
    expect(after.units.map((u) => [u.kind, u.number, u.book, u.owned, u.coverage])).toEqual([
      ["chapter", "1", "1", true, "covered_by_volume"],
      ["chapter", "2", "1", true, "covered_by_volume"],
      ["chapter", "3", "1", false, "covered_by_volume"],
      ["chapter", "4", "1", false, "covered_by_volume"],
      ["book", "1", null, true, null],
      ["chapter", "5", "2", true, null],
      ["chapter", "6", "2", true, null],
      ["chapter", "7", "2", false, null],
      ["chapter", "8", "2", false, null],
      ["book", "2", null, false, null],
    ]);
    expect(unitOf(after, "chapter", "1").duplicate_file_ids).toEqual([c1]);
    expect(unitOf(after, "chapter", "2").duplicate_file_ids).toEqual([c2]);
    expect(unitOf(after, "book", "1")).toMatchObject({
      plan: "book on disk",
      file_ids: [book1],
      duplicate_file_ids: [c1, c2].sort((a, b) => a - b),
    });
    expect(unitOf(after, "book", "2")).toMatchObject({
      plan: "in part",
      monitored: true,
      problems: ["missing chapters: 7, 8"],
    });

    // The next save is bound to revision 1 and moves the map to revision 2.
    const again = await expectJson<RestMap>(
      await put(id, { revision: 1, entries: [{ volume: "1", chapters: ["1", "2", "3", "4", "4.5"] }] }),
      200,
    );
    expect(again.revision).toBe(2);
    expect(again.entries).toEqual([{ volume: "1", chapters: ["1", "2", "3", "4", "4.5"] }]);
    expect((await getMap(id)).revision).toBe(2);
  });

  it("PUT and DELETE with a stale revision answer 409 map_revision_stale with current_revision, and change nothing", async () => {
    const { id } = await mixed();
    const stale = (current: number, sent: number) => ({
      type: "about:blank#map_revision_stale",
      title: "The map changed since it was read",
      status: 409,
      detail: `the map is at revision ${current}, not ${sent}: reload it and review again`,
      code: "map_revision_stale",
      current_revision: current,
    });

    // Never saved: revision 0 is current, anything else is stale.
    expect(await expectProblem(await put(id, { revision: 3, entries: twoBooks }), 409, "map_revision_stale")).toEqual(
      stale(0, 3),
    );
    expect(await expectProblem(await del(id, { revision: 1 }), 409, "map_revision_stale")).toEqual(stale(0, 1));
    expect(await getMap(id)).toEqual(emptyMap(id));

    const saved = await expectJson<RestMap>(await put(id, { revision: 0, entries: twoBooks }), 200);
    const units = await getUnits(id);
    // Somebody else saved: a confirmation read at revision 0 is refused, dry run or not.
    const other = [{ volume: "1", chapters: ["1"] }];
    expect(await expectProblem(await put(id, { revision: 0, entries: other }), 409, "map_revision_stale")).toEqual(
      stale(1, 0),
    );
    expect(
      await expectProblem(await put(id, { revision: 0, entries: other }, true), 409, "map_revision_stale"),
    ).toEqual(stale(1, 0));
    expect(await expectProblem(await del(id, { revision: 0 }), 409, "map_revision_stale")).toEqual(stale(1, 0));
    expect(await expectProblem(await del(id, { revision: 0 }, true), 409, "map_revision_stale")).toEqual(stale(1, 0));
    expect(await expectProblem(await put(id, { revision: 2, entries: other }), 409, "map_revision_stale")).toEqual(
      stale(1, 2),
    );

    expect(await getMap(id)).toEqual(saved);
    expect(await getUnits(id)).toEqual(units);
  });

  it("a revision that is not a non-negative integer is a malformed request", async () => {
    const { id } = await mixed();
    for (const revision of ["0", 0.5, -1, null]) {
      const body = await expectProblem(await put(id, { revision, entries: twoBooks }), 400, "bad_request");
      expect(body.field).toBe("revision");
    }
    await expectProblem(await put(id, { entries: twoBooks }), 400, "bad_request");
    await expectProblem(await del(id, {}), 400, "bad_request");
    expect((await expectProblem(await put(id, { revision: 0, entries: "1" }), 400, "bad_request")).field).toBe(
      "entries",
    );
    await expectProblem(await put(id, { revision: 0, entries: [{ volume: "1" }] }), 400, "bad_request");
    await expectProblem(await put(id, [0]), 400, "bad_request");
    await expectProblem(
      await app.api(`/api/manga/${id}/chapter-map?dry_run=maybe`, {
        method: "PUT",
        json: { revision: 0, entries: twoBooks },
      }),
      400,
      "bad_request",
    );
    await expectProblem(
      await app.api(`/api/manga/${id}/chapter-map`, {
        method: "PUT",
        body: "{not json",
        headers: { "content-type": "application/json" },
      }),
      400,
      "bad_request",
    );
    expect(await getMap(id)).toEqual(emptyMap(id));
  });

  it("labels that are not exact decimal strings answer 400 invalid_label (floats as JSON numbers, 1.2.3, -1)", async () => {
    const { id } = await mixed();
    const units = await getUnits(id);
    const cases: { entries: unknown; field: string }[] = [
      { entries: [{ volume: 1, chapters: ["1"] }], field: "entries[0].volume" },
      { entries: [{ volume: "1", chapters: ["1", 1.5] }], field: "entries[0].chapters[1]" },
      { entries: [{ volume: "1", chapters: [2] }], field: "entries[0].chapters[0]" },
      {
        entries: [
          { volume: "1", chapters: ["1"] },
          { volume: "2", chapters: ["1.2.3"] },
        ],
        field: "entries[1].chapters[0]",
      },
      { entries: [{ volume: "-1", chapters: [] }], field: "entries[0].volume" },
      { entries: [{ volume: "1", chapters: ["-1"] }], field: "entries[0].chapters[0]" },
      { entries: [{ volume: "1", chapters: ["1e3"] }], field: "entries[0].chapters[0]" },
      { entries: [{ volume: "one", chapters: [] }], field: "entries[0].volume" },
    ];
    for (const c of cases) {
      for (const dryRun of [true, false]) {
        const body = await expectProblem(
          await put(id, { revision: 0, entries: c.entries }, dryRun),
          400,
          "invalid_label",
        );
        expect(body.title).toBe("Not an exact decimal number");
        expect(body.field).toBe(c.field);
      }
    }
    // Readings and suggestions take the same labels.
    expect(
      (await expectProblem(await postReading(id, { volume: 1, chapters: ["1"] }), 400, "invalid_label")).field,
    ).toBe("volume");
    expect(
      (await expectProblem(await postReading(id, { volume: "1", chapters: [1] }), 400, "invalid_label")).field,
    ).toBe("reading[0].chapters[0]");
    expect(
      (await expectProblem(await postReading(id, { volume: "1", chapters: ["1.2.3"] }), 400, "invalid_label")).field,
    ).toBe("reading[0].chapters[0]");
    const sug = await expectProblem(
      await postSuggestion(id, { source: "catalogue:x", entries: [{ volume: "1", chapters: [10.5] }] }),
      400,
      "invalid_label",
    );
    expect(sug.field).toBe("entries[0].chapters[0]");

    expect(await getMap(id)).toEqual(emptyMap(id));
    expect(await getUnits(id)).toEqual(units);
  });

  it("a chapter in two volumes, a volume twice or a chapter twice answer 400 invalid_map with the problems", async () => {
    const { id } = await mixed();
    const inTwo = await expectProblem(
      await put(id, {
        revision: 0,
        entries: [
          { volume: "1", chapters: ["1", "2"] },
          { volume: "2", chapters: ["2", "3"] },
        ],
      }),
      400,
      "invalid_map",
    );
    expect(inTwo.title).toBe("The map entries are not valid");
    expect(inTwo.detail).toBe("chapter 2 is in book 1 and in book 2");
    expect(inTwo.problems).toEqual([
      {
        code: "chapter_in_two_volumes",
        message: "chapter 2 is in book 1 and in book 2",
        chapter: "2",
        volumes: ["1", "2"],
      },
    ]);

    // "3" and "03" are one volume; the dry run validates too.
    const twice = await expectProblem(
      await put(
        id,
        {
          revision: 0,
          entries: [
            { volume: "3", chapters: ["1"] },
            { volume: "03", chapters: ["2"] },
          ],
        },
        true,
      ),
      400,
      "invalid_map",
    );
    expect(twice.problems).toEqual([{ code: "duplicate_volume", message: "book 3 is listed twice", volume: "3" }]);

    // "10.5" and "10.50" are one chapter.
    const repeated = await expectProblem(
      await put(id, { revision: 0, entries: [{ volume: "1", chapters: ["10.5", "10.50"] }] }),
      400,
      "invalid_map",
    );
    expect(repeated.problems).toEqual([
      { code: "duplicate_chapter", message: "chapter 10.5 is listed twice in book 1", volume: "1", chapter: "10.5" },
    ]);

    // A reading lists at least one chapter.
    await expectProblem(await postReading(id, { volume: "1", chapters: [] }), 400, "invalid_map");

    expect(await getMap(id)).toEqual(emptyMap(id));
  });

  it("DELETE removes only the operator source: readings and suggestions stay, the revision keeps counting", async () => {
    const { id } = await mixed();
    const before = await getUnits(id);
    const c1 = fileOf(before, "chapter", "1");
    const c2 = fileOf(before, "chapter", "2");

    await expectJson<RestMap>(
      await put(id, { revision: 0, entries: [{ volume: "1", chapters: ["1", "2", "3", "4"] }] }),
      200,
    );
    await expectJson<RestMap>(await postReading(id, { volume: "2", chapters: ["5", "6"] }), 201);
    const withAll = await expectJson<RestMap>(
      await postSuggestion(id, { source: "catalogue:x", entries: [{ volume: "3", chapters: ["7", "8"] }] }),
      201,
    );
    expect(withAll).toMatchObject({
      revision: 1,
      state: "exact",
      entries: [{ volume: "1", chapters: ["1", "2", "3", "4"] }],
    });
    const unitsWithMap = await getUnits(id);

    // The dry run shows what the removal would undo, and removes nothing.
    const preview = await expectJson<Record<string, unknown>>(await del(id, { revision: 1 }, true), 200);
    expect(preview).toMatchObject({
      dry_run: true,
      revision: 1,
      map_before: "exact",
      // Chapters 1 and 2 are owned and in no book any more (the reading only holds 5 and 6).
      map_after: "partial",
      become_duplicate_file_ids: [],
      stop_duplicate_file_ids: [c1, c2].sort((a, b) => a - b),
    });
    expect((preview.chapters as { number: string }[]).map((c) => c.number)).toEqual(["1", "2", "3", "4"]);
    expect((preview.chapters as unknown[])[2]).toEqual({
      number: "3",
      before: { coverage: "covered_by_volume", book: "1", wanted: false },
      // The slot made by the save stays: without the map its chapter is wanted again.
      after: { coverage: null, book: null, wanted: true },
      become_duplicates: [],
      stop_duplicates: [],
    });
    expect(await getMap(id)).toEqual(withAll);
    expect(await getUnits(id)).toEqual(unitsWithMap);

    const removed = await expectJson<RestMap>(await del(id, { revision: 1 }), 200);
    expect(removed).toEqual({
      series_id: id,
      revision: 2,
      state: "partial",
      entries: [],
      readings: [{ volume: "2", chapters: ["5", "6"] }],
      suggestions: withAll.suggestions,
      conflicts: [],
    });
    expect(await getMap(id)).toEqual(removed);
    const after = await getUnits(id);
    expect(unitOf(after, "chapter", "1")).toMatchObject({ book: null, coverage: null, duplicate_file_ids: [] });
    expect(unitOf(after, "chapter", "5")).toMatchObject({ book: "2" });

    // The deleted map keeps its revision: the old confirmation stays stale, the current one works.
    await expectProblem(await put(id, { revision: 1, entries: twoBooks }), 409, "map_revision_stale");
    expect((await expectJson<RestMap>(await put(id, { revision: 2, entries: twoBooks }), 200)).revision).toBe(3);
  });

  it("POST readings stores one book's chapters and makes them operational; a contradiction of the map is 422", async () => {
    const { id } = await mixed();
    const before = await getUnits(id);
    const c1 = fileOf(before, "chapter", "1");

    const read = await expectJson<RestMap>(await postReading(id, { volume: "01", chapters: ["3", "2", "1"] }), 201);
    // A reading is no operator map: the operator revision stays 0.
    expect(read).toEqual({ ...emptyMap(id), state: "exact", readings: [{ volume: "1", chapters: ["1", "2", "3"] }] });
    expect(await getMap(id)).toEqual(read);

    const units = await getUnits(id);
    expect(units.map).toBe("exact");
    expect(unitOf(units, "chapter", "1")).toMatchObject({
      book: "1",
      owned: true,
      coverage: "covered_by_volume",
      duplicate_file_ids: [c1],
    });
    expect(unitOf(units, "chapter", "2")).toMatchObject({ book: "1", owned: true, coverage: "covered_by_volume" });
    // The reading named chapter 3: it gets a slot, and the owned book covers it.
    expect(unitOf(units, "chapter", "3")).toMatchObject({
      book: "1",
      owned: false,
      monitored: true,
      coverage: "covered_by_volume",
    });
    expect(unitOf(units, "chapter", "5")).toMatchObject({ book: null, coverage: null });

    // A reading that contradicts the operator map is refused, and stores nothing.
    await expectJson<RestMap>(await put(id, { revision: 0, entries: [{ volume: "2", chapters: ["5", "6"] }] }), 200);
    const stored = await getMap(id);
    const clash = await expectProblem(
      await postReading(id, { volume: "3", chapters: ["6", "7"] }),
      422,
      "reading_conflicts_with_map",
    );
    expect(clash.chapters).toEqual(["6 (vol 2)"]);
    expect(clash.detail).toBe("these chapters already belong to another book in the registered map: 6 (vol 2)");
    // So is one contradicting an earlier reading.
    const clash2 = await expectProblem(
      await postReading(id, { volume: "4", chapters: ["3", "9"] }),
      422,
      "reading_conflicts_with_map",
    );
    expect(clash2.chapters).toEqual(["3 (vol 1)"]);
    expect(await getMap(id)).toEqual(stored);

    // A new reading of the same book replaces that book's reading.
    const reread = await expectJson<RestMap>(
      await postReading(id, { volume: "1", chapters: ["1", "2", "3", "4"] }),
      201,
    );
    expect(reread.readings).toEqual([{ volume: "1", chapters: ["1", "2", "3", "4"] }]);
    expect(reread.entries).toEqual([{ volume: "2", chapters: ["5", "6"] }]);
    expect(reread.revision).toBe(1);
  });

  describe("suggestions", () => {
    const catalogue = {
      source: "catalogue:x",
      entries: [
        { volume: "1", chapters: ["1", "2", "3"] },
        // The catalogue contradicts itself: chapter 3 in books 1 and 2.
        { volume: "2", chapters: ["3", "4"] },
      ],
    };
    const selfConflict = { chapter: "3", volumes: ["1", "2"], scope: "source" };

    it("a catalogue map is kept as a suggestion only: no book, coverage or duplicate comes from it", async () => {
      const { id } = await mixed();
      const before = await getUnits(id);

      const stored = await expectJson<RestMap>(await postSuggestion(id, catalogue), 201);
      expect(stored).toEqual({
        ...emptyMap(id),
        suggestions: [
          {
            source: "catalogue:x",
            kind: "catalogue",
            revision: 1,
            entries: [
              {
                volume: "1",
                chapters: ["1", "2", "3"],
                status: "open",
                conflicts: [selfConflict],
                adoptable: ["1", "2"],
              },
              { volume: "2", chapters: ["3", "4"], status: "open", conflicts: [selfConflict], adoptable: ["4"] },
            ],
          },
        ],
      });
      expect(await getMap(id)).toEqual(stored);

      // The units are exactly what they were: no book badge, coverage stays "unmapped", no duplicate.
      const after = await getUnits(id);
      expect(after).toEqual(before);
      expect(after.map).toBe("none");
      expect(after.units.every((u) => u.book === null && u.duplicate_file_ids.length === 0)).toBe(true);
      expect(unitOf(after, "chapter", "1").coverage).toBe("covered_unmapped");
      expect(after.units.some((u) => u.number === "3" || u.number === "4")).toBe(false);

      // A dense, ordered official map is a suggestion too.
      const official = await expectJson<RestMap>(
        await postSuggestion(id, {
          source: "official:publisher",
          entries: [
            { volume: "1", chapters: ["1", "2"] },
            { volume: "2", chapters: ["5", "6"] },
          ],
        }),
        201,
      );
      expect(official.suggestions.map((s) => [s.source, s.kind])).toEqual([
        ["catalogue:x", "catalogue"],
        ["official:publisher", "official"],
      ]);
      expect(official.state).toBe("none");
      expect(await getUnits(id)).toEqual(before);
    });

    it("an operator entry suppresses (empty) or sets (boundaries) the book; a refresh never changes operator boundaries", async () => {
      const { id } = await mixed();
      await expectJson<RestMap>(await postSuggestion(id, catalogue), 201);

      // An explicit empty entry: book 2's membership is unknown on purpose, its claims are suppressed.
      const suppressed = await expectJson<RestMap>(
        await put(id, { revision: 0, entries: [{ volume: "2", chapters: [] }] }),
        200,
      );
      expect(suppressed.state).toBe("none");
      expect(suppressed.entries).toEqual([{ volume: "2", chapters: [] }]);
      expect(suppressed.suggestions[0]?.entries).toEqual([
        { volume: "1", chapters: ["1", "2", "3"], status: "open", conflicts: [selfConflict], adoptable: ["1", "2"] },
        { volume: "2", chapters: ["3", "4"], status: "suppressed", conflicts: [selfConflict], adoptable: [] },
      ]);
      const unitsSuppressed = await getUnits(id);
      expect(unitsSuppressed.units.every((u) => u.book === null)).toBe(true);

      // Manual boundaries for book 1.
      const operator = [
        { volume: "1", chapters: ["1", "2"] },
        { volume: "2", chapters: [] },
      ];
      const set = await expectJson<RestMap>(await put(id, { revision: 1, entries: operator }), 200);
      expect(set.suggestions[0]?.entries.map((e) => [e.volume, e.status, e.adoptable])).toEqual([
        ["1", "set", []],
        ["2", "suppressed", []],
      ]);
      const unitsSet = await getUnits(id);

      // A catalogue refresh: new data replaces the suggestion, the operator's boundaries stay.
      const refreshed = await expectJson<RestMap>(
        await postSuggestion(id, {
          source: "catalogue:x",
          entries: [
            { volume: "1", chapters: ["1", "2", "3", "4", "5"] },
            { volume: "2", chapters: ["6"] },
          ],
        }),
        201,
      );
      expect(refreshed.revision).toBe(2);
      expect(refreshed.entries).toEqual(operator);
      expect(refreshed.suggestions).toEqual([
        {
          source: "catalogue:x",
          kind: "catalogue",
          revision: 2,
          entries: [
            { volume: "1", chapters: ["1", "2", "3", "4", "5"], status: "set", conflicts: [], adoptable: [] },
            { volume: "2", chapters: ["6"], status: "suppressed", conflicts: [], adoptable: [] },
          ],
        },
      ]);
      expect(await getUnits(id)).toEqual(unitsSet);
      expect(unitOf(unitsSet, "chapter", "5").book).toBe(null);
    });

    it("conflicts between catalogues and against the operator map are listed on the suggestion", async () => {
      const { id } = await mixed();
      await expectJson<RestMap>(await put(id, { revision: 0, entries: [{ volume: "1", chapters: ["1", "2"] }] }), 200);
      await expectJson<RestMap>(
        await postSuggestion(id, { source: "catalogue:x", entries: [{ volume: "2", chapters: ["5", "6"] }] }),
        201,
      );
      const both = await expectJson<RestMap>(
        await postSuggestion(id, { source: "catalogue:y", entries: [{ volume: "3", chapters: ["2", "6", "7"] }] }),
        201,
      );
      expect(both.suggestions).toEqual([
        {
          source: "catalogue:x",
          kind: "catalogue",
          revision: 1,
          entries: [
            {
              volume: "2",
              chapters: ["5", "6"],
              status: "open",
              conflicts: [{ chapter: "6", volumes: ["2", "3"], scope: "catalogues" }],
              adoptable: ["5", "6"],
            },
          ],
        },
        {
          source: "catalogue:y",
          kind: "catalogue",
          revision: 1,
          entries: [
            {
              volume: "3",
              chapters: ["2", "6", "7"],
              status: "open",
              conflicts: [
                { chapter: "2", volumes: ["1", "3"], scope: "operator" },
                { chapter: "6", volumes: ["2", "3"], scope: "catalogues" },
              ],
              adoptable: ["6", "7"],
            },
          ],
        },
      ]);
      // Suggestions never conflict with the operational map: only operator/reading claims do.
      expect(both.conflicts).toEqual([]);
      expect(both.entries).toEqual([{ volume: "1", chapters: ["1", "2"] }]);
    });

    it("a source that is not catalogue:<name> or official:<name> answers 422 suggestion_source_invalid", async () => {
      const { id } = await mixed();
      for (const source of [
        "mangaupdates",
        "operator",
        "reading",
        "reading:x",
        "estimate:x",
        "catalogue:",
        "catalogue:a/b",
        undefined,
      ]) {
        const body = await expectProblem(
          await postSuggestion(id, { source, entries: [{ volume: "1", chapters: ["1"] }] }),
          422,
          "suggestion_source_invalid",
        );
        expect(body.field).toBe("source");
      }
      // A source that is not even a string is a malformed field.
      expect(
        (await expectProblem(await postSuggestion(id, { source: 7, entries: [] }), 400, "invalid_field")).field,
      ).toBe("source");
      expect(await getMap(id)).toEqual(emptyMap(id));
    });
  });

  it("every map endpoint answers 404 series_not_found for an unknown series", async () => {
    const missing = 987654;
    const expected = {
      type: "about:blank#series_not_found",
      title: "No such series",
      status: 404,
      detail: `series ${missing} does not exist`,
      code: "series_not_found",
    };
    const calls = [
      app.api(`/api/manga/${missing}/chapter-map`),
      put(missing, { revision: 0, entries: twoBooks }),
      put(missing, { revision: 0, entries: twoBooks }, true),
      del(missing, { revision: 0 }),
      postReading(missing, { volume: "1", chapters: ["1"] }),
      postSuggestion(missing, { source: "catalogue:x", entries: [] }),
      app.api(`/api/manga/${missing}/units`),
    ];
    for (const res of await Promise.all(calls))
      expect(await expectProblem(res, 404, "series_not_found")).toEqual(expected);
  });

  it("without the API key every map endpoint answers 401 unauthenticated and changes nothing", async () => {
    const { id } = await mixed();
    const raw = (pathname: string, method: string, body?: unknown, key?: string) =>
      fetch(`${app.baseUrl}${pathname}`, {
        method,
        headers: { "content-type": "application/json", ...(key ? { "x-api-key": key } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const base = `/api/manga/${id}/chapter-map`;
    for (const key of [undefined, `${TEST_API_KEY}x`]) {
      const responses = [
        await raw(base, "GET", undefined, key),
        await raw(base, "PUT", { revision: 0, entries: twoBooks }, key),
        await raw(`${base}?dry_run=true`, "PUT", { revision: 0, entries: twoBooks }, key),
        await raw(base, "DELETE", { revision: 0 }, key),
        await raw(`${base}/readings`, "POST", { volume: "1", chapters: ["1"] }, key),
        await raw(`${base}/suggestions`, "POST", { source: "catalogue:x", entries: twoBooks }, key),
      ];
      for (const res of responses) {
        const body = await expectProblem(res, 401, "unauthenticated");
        expect(body.title).toBe("Authentication required");
      }
    }
    expect(await getMap(id)).toEqual(emptyMap(id));
  });
});
