/**
 * Nine rules as a user meets them, each from series made through the public REST API in an empty
 * service (a library folder the test writes, a scan): the Wanted pass and the map dry run share one
 * definition of "wanted"; covered_by_volume only under an exact map; the managed edition governs
 * the books whatever the order of facts; a chapter file spanning two books; scanned books are
 * suspect hand imports; "(part 1 of 3)" keeps the known third part missing; dry runs check the
 * files they would use; the map editor's extents; and the audit's black last page, ComicInfo's
 * LanguageISO, a series assembly with nothing to do and an empty list of book starts.
 */
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  cbz,
  chapterFileName,
  createSeriesWithFiles,
  expectJson,
  expectProblem,
  scanLibrary,
  unitOf,
  writeCbz,
  type RestUnit,
  type RestUnits,
} from "./fixtures.ts";
import { blankPage, chapterPages, eventually, writePagesCbz } from "./page-images.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
shareTestApp((a) => (app = a));
let seq = 0;

type Facts = Record<string, unknown>;
interface Ledger {
  entries: { kind: string; number: string; reason: string }[];
}
interface VerifiedRow {
  volume: string;
  file_id: number;
  digest: string;
  chapters: string[];
  suspect_reason: string | null;
  verified: boolean;
}

/** A series with these facts and files, scanned. */
async function series(facts: Facts, files: { books?: number[]; chapters?: number[]; bookPages?: number } = {}) {
  const title = `Rule ${++seq}`;
  const s = await createSeriesWithFiles(app, title, {
    books: files.books ?? [],
    chapters: files.chapters ?? [],
    bookPages: files.bookPages,
  });
  if (Object.keys(facts).length > 0)
    await expectJson(await app.api(`/api/manga/${s.id}`, { method: "PATCH", json: facts }), 200);
  expect((await scanLibrary(app)).errors).toEqual([]);
  return { id: s.id, title, dir: path.join(app.config.libraryRoot, s.folder) };
}
const units = async (id: number) => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
const mapRevision = async (id: number) =>
  (await expectJson<{ revision: number }>(await app.api(`/api/manga/${id}/chapter-map`), 200)).revision;
async function saveMap(id: number, entries: { volume: string; chapters: string[] }[]): Promise<number> {
  const revision = await mapRevision(id);
  return (
    await expectJson<{ revision: number }>(
      await app.api(`/api/manga/${id}/chapter-map`, { method: "PUT", json: { revision, entries } }),
      200,
    )
  ).revision;
}
const wantedPass = async (id: number) =>
  (await expectJson<{ ledger: Ledger }>(await app.api(`/api/manga/${id}/wanted/run`, { method: "POST" }), 200)).ledger;
const wantedSlots = (l: Ledger) => l.entries.map((e) => `${e.kind} ${e.number}`).sort();
const verifiedBooks = async (id: number) =>
  expectJson<VerifiedRow[]>(await app.api(`/api/manga/${id}/verified-books`), 200);
async function verify(id: number, volume: string) {
  const row = (await verifiedBooks(id)).find((b) => b.volume === volume)!;
  return expectJson<VerifiedRow>(
    await app.api(`/api/manga/${id}/volumes/${volume}/verification`, {
      method: "PUT",
      json: { digest: row.digest, chapters: row.chapters, note: "read side by side with the chapters" },
    }),
    200,
  );
}
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => String(a + i));

describe("1. one definition of wanted (explicit assignments in a books-form series, the Wanted pass and the map dry run)", () => {
  it("a finished books-form series whose map was saved, then deleted, wants its books, never the chapter slots", async () => {
    const s = await series({ status: "finished", known_book_count: 2 });
    await saveMap(s.id, [{ volume: "1", chapters: ["1", "2", "3"] }]);
    const revision = await mapRevision(s.id);
    await expectJson(await app.api(`/api/manga/${s.id}/chapter-map`, { method: "DELETE", json: { revision } }), 200);
    const u = await units(s.id);
    expect(u.form).toBe("books");
    expect(u.units.filter((x) => x.kind === "chapter").map((x) => x.number)).toEqual(["1", "2", "3"]);

    // The Wanted pass wants the books only: no explicit assignment, no chapter.
    expect(wantedSlots(await wantedPass(s.id))).toEqual(["book 1", "book 2"]);
    // The map dry run says the same, and an explicit assignment to missing book 1 changes both.
    const dry = await expectJson<{
      chapters: { number: string; before: { wanted: boolean }; after: { wanted: boolean } }[];
    }>(
      await app.api(`/api/manga/${s.id}/chapter-map?dry_run=true`, {
        method: "PUT",
        json: { revision: revision + 1, entries: [{ volume: "1", chapters: ["1", "2", "3"] }] },
      }),
      200,
    );
    expect(dry.chapters.map((c) => [c.number, c.before.wanted, c.after.wanted])).toEqual([
      ["1", false, true],
      ["2", false, true],
      ["3", false, true],
    ]);
    await saveMap(s.id, [{ volume: "1", chapters: ["1", "2", "3"] }]);
    expect(wantedSlots(await wantedPass(s.id))).toEqual(["book 1", "book 2", "chapter 1", "chapter 2", "chapter 3"]);
  });
});

describe("2. covered_by_volume: only the exact map says an owned book holds a chapter", () => {
  it("under a partial map no book counts as covered; once the map is exact, the (verified) book covers", async () => {
    const s = await series({ status: "finished", known_book_count: 2 }, { books: [1], chapters: [1, 2, 3, 5] });
    await saveMap(s.id, [{ volume: "1", chapters: ["1", "2", "3", "4"] }]);
    await verify(s.id, "1");
    const partial = await units(s.id);
    expect(partial.map).toBe("partial");
    expect(unitOf(partial, "chapter", "4")).toMatchObject({ book: "1", owned: false, coverage: null });
    // The series page says so in words.
    const page = await app.gql<{ seriesPage: { layout: string; notice: string | null } }>(
      `{ seriesPage(seriesId: ${s.id}) { layout notice } }`,
    );
    expect(page.data?.seriesPage).toEqual({
      layout: "FLAT",
      notice: "The content of each book is unknown: chapters are kept and no book counts as covered.",
    });

    await saveMap(s.id, [
      { volume: "1", chapters: ["1", "2", "3", "4"] },
      { volume: "2", chapters: ["5"] },
    ]);
    await verify(s.id, "1");
    const exact = await units(s.id);
    expect(exact.map).toBe("exact");
    expect(unitOf(exact, "chapter", "4")).toMatchObject({ book: "1", coverage: "covered_by_volume" });
  });
});

describe("3. edition_book_count governs the books, whatever order the facts arrived in", () => {
  it("known count 6 then edition 3 lists and wants the same books as both at once", async () => {
    const later = await series({ status: "finished", known_book_count: 6 });
    await expectJson(
      await app.api(`/api/manga/${later.id}`, { method: "PATCH", json: { edition_book_count: 3 } }),
      200,
    );
    const atOnce = await series({ status: "finished", known_book_count: 6, edition_book_count: 3 });
    const books = (u: RestUnits) => u.units.filter((x) => x.kind === "book").map((x) => [x.number, x.extra]);
    expect(books(await units(later.id))).toEqual([
      ["1", false],
      ["2", false],
      ["3", false],
    ]);
    expect(books(await units(atOnce.id))).toEqual(books(await units(later.id)));
    expect(wantedSlots(await wantedPass(later.id))).toEqual(["book 1", "book 2", "book 3"]);
    expect(wantedSlots(await wantedPass(atOnce.id))).toEqual(["book 1", "book 2", "book 3"]);
  });

  it("a book beyond the edition is kept only when a file names it, and then as an extra, never wanted", async () => {
    const s = await series({ status: "finished", known_book_count: 6, edition_book_count: 3 }, { books: [5] });
    const u = await units(s.id);
    expect(u.units.filter((x) => x.kind === "book").map((x) => [x.number, x.owned, x.extra])).toEqual([
      ["1", false, false],
      ["2", false, false],
      ["3", false, false],
      ["5", true, true],
    ]);
    expect(wantedSlots(await wantedPass(s.id))).toEqual(["book 1", "book 2", "book 3"]);
  });
});

describe("4. a chapter file spanning two books", () => {
  it("c003-004 under v1=[1,2,3], v2=[4,5] with v01 owned and verified: chapter 3 is covered by book 1, no duplicate", async () => {
    const s = await series({ status: "finished", known_book_count: 2 }, { books: [1] });
    await writeCbz(path.join(s.dir, `${s.title} - c003-004.cbz`), 6);
    expect((await scanLibrary(app)).errors).toEqual([]);
    await saveMap(s.id, [
      { volume: "1", chapters: ["1", "2", "3"] },
      { volume: "2", chapters: ["4", "5"] },
    ]);
    await verify(s.id, "1");
    const u = await units(s.id);
    expect(u.map).toBe("exact");
    expect(unitOf(u, "chapter", "3")).toMatchObject({
      owned: true,
      coverage: "covered_by_volume",
      duplicate_file_ids: [],
    });
    expect(unitOf(u, "chapter", "4")).toMatchObject({ owned: true, book: "2", coverage: null });
  });
});

describe("5. scanned books are suspect hand imports", () => {
  it("never cover on their own, stay out of duplicate detection, are not replaced for it; a proof lifts the doubt", async () => {
    const s = await series({ status: "finished", known_book_count: 2 }, { books: [1], chapters: [2] });
    await saveMap(s.id, [{ volume: "1", chapters: ["1", "2", "3"] }]);
    expect((await verifiedBooks(s.id)).find((b) => b.volume === "1")).toMatchObject({
      suspect_reason: "hand import",
      verified: false,
    });
    const before = await units(s.id);
    expect(unitOf(before, "chapter", "1").coverage).toBeNull();
    expect(unitOf(before, "chapter", "2")).toMatchObject({ owned: true, coverage: null, duplicate_file_ids: [] });
    const dup = await expectProblem(
      await app.api(`/api/manga/${s.id}/volumes/1/duplicates/preview`, { method: "POST", json: {} }),
      409,
      "book_suspect",
    );
    expect(dup.suspect_reason).toBe("hand import");
    // A hand import of the edition's size is never replaced (the book is not wanted), nor are its chapters.
    expect(wantedSlots(await wantedPass(s.id))).toEqual(["book 2"]);

    await verify(s.id, "1");
    const after = await units(s.id);
    expect(unitOf(after, "chapter", "1").coverage).toBe("covered_by_volume");
    expect(unitOf(after, "chapter", "2")).toMatchObject({ coverage: "covered_by_volume", duplicate_file_ids: [] });
    const bin = await expectJson<{ series_id: number }[]>(await app.api("/api/recycle-bin"), 200);
    expect(bin.filter((e) => e.series_id === s.id)).toEqual([]);
  });

  it("its size is judged against the edition: an oversized pack is suspect for it, and a replacement is wanted", async () => {
    const s = await series({ status: "finished", known_book_count: 2 }, { books: [1], bookPages: 700 });
    expect((await verifiedBooks(s.id)).find((b) => b.volume === "1")?.suspect_reason).toBe("oversized pack");
    expect(wantedSlots(await wantedPass(s.id))).toEqual(["book 1", "book 2"]);
  });
});

describe("6. a split chapter with a known missing part", () => {
  it("(part 1 of 3) and (part 2 of 3) on disk: chapter 55 is not owned and its book's assembly dry run is 409", async () => {
    const s = await series({ status: "finished", known_book_count: 1 });
    for (const p of [1, 2]) await writeCbz(path.join(s.dir, `${s.title} c055 (part ${p} of 3).cbz`), 5);
    expect((await scanLibrary(app)).errors).toEqual([]);
    await saveMap(s.id, [{ volume: "1", chapters: ["55"] }]);
    const c = unitOf(await units(s.id), "chapter", "55") as RestUnit;
    expect(c.owned).toBe(false);
    expect(c.problems).toEqual(["split chapter: part 3 of 3 missing"]);
    await expectProblem(
      await app.api(`/api/manga/${s.id}/volumes/1/assemble?dry_run=true`, { method: "POST", json: {} }),
      409,
      "assembly_missing_part",
    );
  });
});

describe("7. dry runs check the files they would use", () => {
  it("a chapter file deleted on disk without a rescan: the assembly dry run answers the confirm's 409", async () => {
    const s = await series({ status: "finished", known_book_count: 1 }, { chapters: [1, 2] });
    await saveMap(s.id, [{ volume: "1", chapters: ["1", "2"] }]);
    await rm(path.join(s.dir, chapterFileName(s.title, 2)));
    const p = await expectProblem(
      await app.api(`/api/manga/${s.id}/volumes/1/assemble?dry_run=true`, { method: "POST", json: {} }),
      409,
      "assembly_changed_files",
    );
    expect(p.file_ids).toHaveLength(1);
    // The series dry run names the same refusal for that book.
    const series409 = await expectProblem(
      await app.api(`/api/manga/${s.id}/assemble?dry_run=true`, { method: "POST", json: {} }),
      409,
      "assembly_nothing_to_do",
    );
    expect(series409.books).toEqual([{ volume: "1", code: "assembly_changed_files", detail: expect.any(String) }]);
  });
});

describe("8. the map editor's extents", () => {
  const preview = async (id: number, starts: { volume: string; start: string }[]) =>
    expectJson<{ entries: { volume: string; chapters: string[] }[]; last_end: string | null; last_end_reason: string }>(
      await app.api(`/api/manga/${id}/chapter-map/book-starts/preview`, {
        method: "POST",
        json: { revision: await mapRevision(id), starts },
      }),
      200,
    );

  it("moving only the start of a saved last book (207–213 → 208) keeps its saved end", async () => {
    const s = await series({ status: "finished", known_book_count: 44 });
    for (const c of range(201, 219)) await writeCbz(path.join(s.dir, chapterFileName(s.title, Number(c))), 1);
    expect((await scanLibrary(app)).errors).toEqual([]);
    await saveMap(s.id, [
      { volume: "43", chapters: range(201, 206) },
      { volume: "44", chapters: range(207, 213) },
    ]);
    const p = await preview(s.id, [
      { volume: "43", start: "201" },
      { volume: "44", start: "208" },
    ]);
    expect(p.entries.at(-1)).toEqual({ volume: "44", chapters: range(208, 213) });
    expect([p.last_end, p.last_end_reason]).toEqual(["213", "saved"]);
  });

  it("a later saved book far ahead never makes an earlier one claim chapters nobody knows of", async () => {
    const s = await series({ status: "running" });
    for (const c of range(135, 174)) await writeCbz(path.join(s.dir, chapterFileName(s.title, Number(c))), 1);
    expect((await scanLibrary(app)).errors).toEqual([]);
    await saveMap(s.id, [
      { volume: "13", chapters: range(135, 144) },
      { volume: "14", chapters: range(145, 154) },
      { volume: "29", chapters: range(295, 302) },
    ]);
    const p = await preview(s.id, [
      { volume: "13", start: "135" },
      { volume: "14", start: "145" },
      { volume: "29", start: "295" },
    ]);
    expect(p.entries).toEqual([
      { volume: "13", chapters: range(135, 144) },
      { volume: "14", chapters: range(145, 174) },
      { volume: "29", chapters: range(295, 302) },
    ]);
  });
});

describe("9. audit flags, LanguageISO, nothing to assemble, no book starts", () => {
  it("a file whose last page is black is flagged once its pages are checked (in the background)", async () => {
    const s = await series({ status: "running" });
    const pages = await chapterPages(s.title, 1, 5);
    await writePagesCbz(path.join(s.dir, chapterFileName(s.title, 1)), [...pages, await blankPage("#000000")]);
    await writePagesCbz(path.join(s.dir, chapterFileName(s.title, 2)), await chapterPages(s.title, 2, 8));
    expect((await scanLibrary(app)).errors).toEqual([]);
    type Audit = { files: { number: string; flags: string[] }[] };
    const audit = await eventually(
      async () => expectJson<Audit>(await app.api(`/api/manga/${s.id}/audit`), 200),
      (a) => a.files.some((f) => f.flags.includes("black_last_page")),
      "the black last page flag",
    );
    expect(audit.files.map((f) => [f.number, f.flags.includes("black_last_page")])).toEqual([
      ["1", true],
      ["2", false],
    ]);
    const g = await app.gql<{ audit: { files: { number: string; flags: string[] }[] } }>(
      `{ audit(seriesId: ${s.id}) { files { number flags } } }`,
    );
    expect(g.data?.audit.files.find((f) => f.number === "1")?.flags).toContain("BLACK_LAST_PAGE");
  });

  it("a scanned file's ComicInfo LanguageISO is its language, not the series'", async () => {
    const s = await series({ status: "running", language: "en" });
    await writeFile(
      path.join(s.dir, chapterFileName(s.title, 1)),
      await cbz(8, { comicInfo: { Series: s.title, Number: "1", LanguageISO: "fr" } }),
    );
    await writeFile(path.join(s.dir, chapterFileName(s.title, 2)), await cbz(8));
    expect((await scanLibrary(app)).errors).toEqual([]);
    const audit = await expectJson<{ files: { number: string; language: string }[] }>(
      await app.api(`/api/manga/${s.id}/audit`),
      200,
    );
    expect(audit.files.map((f) => [f.number, f.language])).toEqual([
      ["1", "fr"],
      ["2", "en"],
    ]);
  });

  it("a scanned file's LanguageISO is read at the series' precision: pt-BR in a pt-BR series, en-US in an en one", async () => {
    const regional = await series({ status: "running", language: "pt-BR" });
    const stated = ["pt-BR", "pt_br", "pt-PT", "pt"];
    for (const [i, LanguageISO] of stated.entries()) {
      const n = i + 1;
      await writeFile(
        path.join(regional.dir, chapterFileName(regional.title, n)),
        await cbz(8, { comicInfo: { Series: regional.title, Number: String(n), LanguageISO } }),
      );
    }
    const plain = await series({ status: "running", language: "en" });
    await writeFile(
      path.join(plain.dir, chapterFileName(plain.title, 1)),
      await cbz(8, { comicInfo: { Series: plain.title, Number: "1", LanguageISO: "en-US" } }),
    );
    expect((await scanLibrary(app)).errors).toEqual([]);
    const languages = async (id: number) =>
      (
        await expectJson<{ files: { number: string; language: string }[] }>(
          await app.api(`/api/manga/${id}/audit`),
          200,
        )
      ).files.map((f) => [f.number, f.language]);
    // Another region of the language stays apart; the series' own region, in any case, or none, is the series'.
    expect(await languages(regional.id)).toEqual([
      ["1", "pt-BR"],
      ["2", "pt-BR"],
      ["3", "pt-PT"],
      ["4", "pt-BR"],
    ]);
    expect(await languages(plain.id)).toEqual([["1", "en"]]);
    const g = await app.gql<{ audit: { files: { number: string; language: string }[] } }>(
      `{ audit(seriesId: ${regional.id}) { files { number language } } }`,
    );
    expect(g.data?.audit.files.map((f) => f.language)).toEqual(["pt-BR", "pt-BR", "pt-PT", "pt-BR"]);
  });

  it("a series assembly dry run with nothing to assemble is 409 assembly_nothing_to_do (REST and GraphQL)", async () => {
    const s = await series({ status: "finished", known_book_count: 1 }, { books: [1] });
    const p = await expectProblem(
      await app.api(`/api/manga/${s.id}/assemble?dry_run=true`, { method: "POST", json: {} }),
      409,
      "assembly_nothing_to_do",
    );
    expect(p.books).toEqual([]);
    const g = await app.gql(`mutation { previewSeriesAssembly(seriesId: ${s.id}) { confirmation } }`);
    expect(g.errors?.[0]?.extensions).toMatchObject({ code: "assembly_nothing_to_do", status: 409 });
  });

  it("an empty list of book starts is 422 book_starts_empty", async () => {
    const s = await series({ status: "finished", known_book_count: 2 }, { books: [1, 2] });
    await expectProblem(
      await app.api(`/api/manga/${s.id}/chapter-map/book-starts/preview`, {
        method: "POST",
        json: { revision: 0, starts: [] },
      }),
      422,
      "book_starts_empty",
    );
    const g = await app.gql(
      `mutation { previewBookStarts(seriesId: ${s.id}, revision: 0, starts: []) { entries { volume } } }`,
    );
    expect(g.errors?.[0]?.extensions).toMatchObject({ code: "book_starts_empty", status: 422 });
  });
});
