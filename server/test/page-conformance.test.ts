/**
 * Series form, completion plans and the series page probed from outside: an empty service, a
 * library folder written here, and only the public REST and GraphQL API (docs/rules.md, "Series
 * form", "Plans", "Series page grouping"). The units view and its GraphQL twin must agree on every
 * series made here, and the page must follow the rules' wording literally.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cbz, expectJson, expectProblem, scanLibrary, unitOf } from "./fixtures.ts";
import { chapters, keys, pageProbes } from "./page-probes.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

describe("series form, plans and the series page (conformance)", () => {
  let app: TestApp;
  shareTestApp((a) => (app = a));
  const { seriesWith, units, putMap, patch, page, agree } = pageProbes(() => app);

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
    const {
      id,
      title,
      folder: dir,
    } = await seriesWith({ status: "finished", known_book_count: 2 }, { v01: 20, ...chapters(1, 2, 3, 4) });
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
    const folder = path.join(app.config.libraryRoot, dir);
    await writeFile(path.join(folder, `${title} v03.cbz`), await cbz(20));
    await scanLibrary(app);
    const withStray = await agree(id);
    expect(withStray.status).toBe("all chapters");
    expect(unitOf(withStray, "book", "3")).toMatchObject({ owned: true, extra: true });
    expect((await page(id)).groups.find((g) => g.key === "book:3")?.note).toBe(
      "Redundant: the whole series completes from chapters.",
    );

    await writeFile(path.join(folder, `${title} v02.cbz`), await cbz(20));
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
});
