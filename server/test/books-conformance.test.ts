/**
 * Assembled books probed the way a checker outside the project would (docs/rules.md, "Assembly",
 * "Ownership moves"): an empty service, a library folder written here, and only the public REST and
 * GraphQL API. The cases are the edges: dry runs that must change nothing, preview and confirm bound
 * to the book's boundaries and files, page order and names inside the archive, books above 600
 * pages, wrong input answered with a stable code and no change.
 */
import { rm, utimes, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { cbz, expectJson, expectProblem, scanLibrary, unitOf } from "./fixtures.ts";
import {
  app,
  assembleBook,
  binOf,
  bookUrl,
  chapterFiles,
  folderOf,
  observe,
  post,
  rawCbz,
  readBook,
  saveMap,
  seriesUrl,
  seriesWith,
  units,
  useBooksApp,
  verifiedBooks,
  type AssemblyPreview,
  type BookOutcome,
} from "./books-harness.ts";

useBooksApp();

const finished = (books: number) => ({ status: "finished", known_book_count: books });

describe("assembly dry runs", () => {
  it("the single-book and series dry runs (REST and GraphQL) change nothing a checker can see", async () => {
    const s = await seriesWith(finished(2), chapterFiles(3, 1, 2, 3, 4));
    await saveMap(s.id, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4"] },
    ]);
    const before = await observe(s);
    await expectJson(await post(bookUrl(s.id, "1", true)), 200);
    await expectJson(await post(seriesUrl(s.id, true)), 200);
    const g = await app.gql(
      `mutation($s:Int!){ a: previewBookAssembly(seriesId:$s, volume:"2"){ fileName } b: previewSeriesAssembly(seriesId:$s){ books { volume status } } }`,
      { s: s.id },
    );
    expect(g.errors).toBeUndefined();
    expect(await observe(s)).toEqual(before);
    expect(unitOf(await units(s.id), "book", "1").plan).toBe("assemble when its chapters are complete");
  });

  it("the auto-assembly flag is off for a new series", async () => {
    const s = await seriesWith(finished(1));
    const got = await expectJson<{ assemble_books_automatically: boolean }>(await app.api(`/api/manga/${s.id}`), 200);
    expect(got.assemble_books_automatically).toBe(false);
    const g = await app.gql<{ series: { assembleBooksAutomatically: boolean } }>(
      `{ series(id: ${s.id}) { assembleBooksAutomatically } }`,
    );
    expect(g.data?.series.assembleBooksAutomatically).toBe(false);
    const patch = (value: unknown) =>
      app.api(`/api/manga/${s.id}`, { method: "PATCH", json: { assemble_books_automatically: value } });
    for (const bad of ["yes", 1, null]) expect((await patch(bad)).status, String(bad)).toBe(400);
    expect(
      (await expectJson<{ assemble_books_automatically: boolean }>(await patch(true), 200))
        .assemble_books_automatically,
    ).toBe(true);
  });
});

describe("the assembled archive", () => {
  it("named <Series> - v<NNN> [<lang>].cbz in the series language; pages in reading order with fresh sequential names", async () => {
    const page = (tag: string) => Buffer.from(`page ${tag} `.repeat(20));
    // Chapter 9: pages named 1, 2, 10 (stored out of order) plus entries that are no pages.
    const c9 = await rawCbz([
      ["10.jpg", page("9/10")],
      ["ComicInfo.xml", "<ComicInfo><Number>9</Number></ComicInfo>"],
      ["1.jpg", page("9/1")],
      ["2.jpg", page("9/2")],
      ["Thumbs.db", "x"],
    ]);
    // Chapter 10: PNG pages in a folder; chapter 10.5 one WebP page.
    const c10 = await rawCbz([
      ["ch10/002.png", page("10/2")],
      ["ch10/001.png", page("10/1")],
    ]);
    const c105 = await rawCbz([["001.webp", page("10.5/1")]]);
    const s = await seriesWith(finished(12), { "c009.cbz": c9, "c010.cbz": c10, "c010.5.cbz": c105 });
    await expectJson(await app.api(`/api/manga/${s.id}`, { method: "PATCH", json: { language: "fr" } }), 200);
    // Written in any order, the entry's chapters are read in reading order.
    await saveMap(s.id, [{ volume: "12", chapters: ["10.5", "9", "10"] }]);

    const p = await expectJson<AssemblyPreview>(await post(bookUrl(s.id, "12", true)), 200);
    expect(p.file_name).toBe(`${s.title} - v012 [fr].cbz`);
    expect(p.chapters.map((c) => c.number)).toEqual(["9", "10", "10.5"]);
    const r = await expectJson<{ path: string; page_count: number }>(
      await post(bookUrl(s.id, "12", false), { confirmation: p.confirmation }),
      200,
    );
    expect(r.path).toBe(`${s.folder}/${s.title} - v012 [fr].cbz`);
    expect(r.page_count).toBe(6);
    const book = await readBook(r.path);
    expect(book.names).toEqual(["p0001.jpg", "p0002.jpg", "p0003.jpg", "p0004.png", "p0005.png", "p0006.webp"]);
    expect(book.pages.map((b) => b.toString().split(" ")[1])).toEqual(["9/1", "9/2", "9/10", "10/1", "10/2", "10.5/1"]);
    expect(book.comicInfo).toContain("<Volume>12</Volume>");
    expect(book.comicInfo).toContain("<LanguageISO>fr</LanguageISO>");
    expect(book.comicInfo).toContain("<PageCount>6</PageCount>");
    expect(book.comicInfo).not.toContain("<Number>");
    // Provenance a reader of the archive sees: the book, its chapters, the chapter files, sources, languages.
    const notes = /<Notes>([^<]*)<\/Notes>/.exec(book.comicInfo)?.[1] ?? "";
    expect(notes).toContain("book 12 from chapters 9, 10, 10.5");
    expect(notes).toContain("Chapter files: c009.cbz, c010.cbz, c010.5.cbz.");
    expect(notes).toMatch(/Sources: local files\./);
    // Files with no language of their own are in the series language.
    expect(notes).toContain("Languages: fr.");
    // The folder holds the book; the chapter files went to the recycle bin as duplicates.
    expect(await folderOf(s)).toEqual([`${s.title} - v012 [fr].cbz`]);
    expect((await binOf(s.id)).map((e) => e.reason)).toEqual(Array(3).fill("assembled into v012"));
  });

  it("a book above 600 pages made from complete chapters is a proven assembly: it covers its chapters, also after a rescan", async () => {
    const s = await seriesWith(finished(2), chapterFiles(310, 1, 2));
    await saveMap(s.id, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3"] },
    ]);
    const r = await assembleBook(s.id, "1");
    expect(r.page_count).toBe(620);
    for (const when of ["after assembly", "after a rescan"]) {
      if (when === "after a rescan") await scanLibrary(app);
      const u = await units(s.id);
      expect(unitOf(u, "book", "1"), when).toMatchObject({ owned: true, page_count: 620, problems: [] });
      for (const n of ["1", "2"])
        expect(unitOf(u, "chapter", n).coverage, `${when}: chapter ${n}`).toBe("covered_by_volume");
      expect(
        (await verifiedBooks(s.id)).map((b) => [b.volume, b.suspect_reason]),
        when,
      ).toEqual([["1", null]]);
    }
  });
});

describe("an assembled book and its boundaries", () => {
  it("a map that is not exact refuses it: chapters on disk outside every book leave it covering nothing", async () => {
    // Finished, two books; chapter 3 is on disk but in no book: the map is partial.
    const s = await seriesWith(finished(2), chapterFiles(3, 1, 2, 3));
    await saveMap(s.id, [{ volume: "1", chapters: ["1", "2"] }]);
    const u = await units(s.id);
    expect(u.map).toBe("partial");
    expect(unitOf(u, "book", "1").plan).toBe("in part");
    const before = await observe(s);
    await expectProblem(await post(bookUrl(s.id, "1", true)), 409, "assembly_map_not_exact");
    const series = await expectProblem(await post(seriesUrl(s.id, true)), 409, "assembly_nothing_to_do");
    expect(series.books).toEqual([
      { volume: "1", code: "assembly_map_not_exact", detail: expect.any(String) },
      { volume: "2", code: "assembly_map_not_exact", detail: expect.any(String) },
    ]);
    const g = await app.gql(`mutation { previewBookAssembly(seriesId: ${s.id}, volume: "1") { fileName } }`);
    expect(g.errors?.[0]?.extensions?.code).toBe("assembly_map_not_exact");
    expect(await observe(s)).toEqual(before);
  });

  it("another book's entry changing leaves its coverage; its own boundaries changing disable it, also for a proof", async () => {
    const s = await seriesWith(finished(2), chapterFiles(3, 1, 2, 3));
    await saveMap(s.id, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3"] },
    ]);
    const r = await assembleBook(s.id, "1");
    const covered = async () => ["1", "2", "3"].map((n) => unitOf(u, "chapter", n).coverage).join(",") || "";
    let u = await units(s.id);
    expect(await covered()).toBe("covered_by_volume,covered_by_volume,");
    // Book 2's entry changes, book 1's is written another way: book 1 still covers.
    await saveMap(s.id, [
      { volume: "1", chapters: ["2.0", "01"] },
      { volume: "2", chapters: ["3", "4"] },
    ]);
    u = await units(s.id);
    expect(await covered()).toBe("covered_by_volume,covered_by_volume,");
    // Book 1 takes chapter 3 too: it no longer is what was assembled, it covers nothing.
    await saveMap(s.id, [
      { volume: "1", chapters: ["1", "2", "3"] },
      { volume: "2", chapters: ["4"] },
    ]);
    u = await units(s.id);
    expect(await covered()).toBe(",,");
    expect(unitOf(u, "book", "1")).toMatchObject({ owned: true, file_ids: [r.file_id] });
    // A proof of the new boundaries does not give the coverage back: only a new assembly would.
    await expectJson(
      await app.api(`/api/manga/${s.id}/volumes/1/verification`, {
        method: "PUT",
        json: { digest: `sha256:${r.sha256}`, chapters: ["1", "2", "3"], note: "looked at it" },
      }),
      200,
    );
    u = await units(s.id);
    expect(await covered()).toBe(",,");
  });
});

describe("preview and confirmation are bound to the book's boundaries and files", () => {
  it("a chapter file rewritten, touched or deleted on disk after the preview refuses the confirm and changes nothing", async () => {
    for (const change of ["rewritten", "deleted", "replaced by the same size"] as const) {
      const s = await seriesWith(finished(1), chapterFiles(3, 1, 2));
      await saveMap(s.id, [{ volume: "1", chapters: ["1", "2"] }]);
      const p = await expectJson<AssemblyPreview>(await post(bookUrl(s.id, "1", true)), 200);
      const file = s.file("c002.cbz");
      if (change === "rewritten") await writeFile(file, await cbz(5));
      if (change === "deleted") await rm(file);
      if (change === "replaced by the same size") {
        // Same length, other bytes, the old modification time put back.
        const size = p.files.find((f) => f.path.endsWith("c002.cbz"))!.size;
        const other = await cbz(3);
        expect(other.length).toBe(size);
        const { mtime } = await import("node:fs/promises").then((fs) => fs.stat(file));
        await writeFile(file, other);
        await utimes(file, mtime, mtime);
      }
      const before = await observe(s);
      await expectProblem(
        await post(bookUrl(s.id, "1", false), { confirmation: p.confirmation }),
        409,
        "assembly_changed_files",
      );
      expect(await observe(s), change).toEqual(before);
    }
  });

  it("the book's boundaries changed after the preview: 409, nothing changes; another book's entry changing does not touch it", async () => {
    const s = await seriesWith(finished(3), chapterFiles(2, 1, 2, 3, 4, 5));
    await saveMap(s.id, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4"] },
      { volume: "3", chapters: ["5"] },
    ]);
    const p1 = await expectJson<AssemblyPreview>(await post(bookUrl(s.id, "1", true)), 200);
    const p2 = await expectJson<AssemblyPreview>(await post(bookUrl(s.id, "2", true)), 200);
    // Book 2 grows by chapter 5: its preview is stale, book 1's is not.
    await saveMap(s.id, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4", "5"] },
      { volume: "3", chapters: ["6"] },
    ]);
    const before = await observe(s);
    const stale = await post(bookUrl(s.id, "2", false), { confirmation: p2.confirmation });
    expect(stale.status).toBe(409);
    expect(await observe(s)).toEqual(before);
    await expectJson(await post(bookUrl(s.id, "1", false), { confirmation: p1.confirmation }), 200);
  });

  it("the same preview confirmed twice at once, and beside the series action: one book, the other calls 409", async () => {
    const s = await seriesWith(finished(1), chapterFiles(40, 1, 2, 3));
    await saveMap(s.id, [{ volume: "1", chapters: ["1", "2", "3"] }]);
    const p = await expectJson<AssemblyPreview>(await post(bookUrl(s.id, "1", true)), 200);
    const sp = await expectJson<{ confirmation: string }>(await post(seriesUrl(s.id, true)), 200);
    const [a, b, c] = await Promise.all([
      post(bookUrl(s.id, "1", false), { confirmation: p.confirmation }),
      post(bookUrl(s.id, "1", false), { confirmation: p.confirmation }),
      post(seriesUrl(s.id, false), { confirmation: sp.confirmation }),
    ]);
    const series = c.status === 200 ? ((await c.json()) as { books: BookOutcome[] }).books : [];
    const assembled =
      [a.status, b.status].filter((x) => x === 200).length + series.filter((x) => x.status === "assembled").length;
    expect(assembled).toBe(1);
    for (const r of [a, b])
      if (r.status !== 200) expect(((await r.json()) as { code: string }).code).toBe("assembly_book_owned");
    expect(await folderOf(s)).toEqual([`${s.title} - v001 [en].cbz`]);
    expect(await binOf(s.id)).toHaveLength(3);
  });

  it("a confirmation that is not the preview's answers 400 confirmation_invalid and changes nothing", async () => {
    const s = await seriesWith(finished(1), chapterFiles(2, 1, 2));
    await saveMap(s.id, [{ volume: "1", chapters: ["1", "2"] }]);
    const p = await expectJson<AssemblyPreview>(await post(bookUrl(s.id, "1", true)), 200);
    const before = await observe(s);
    const tampered = p.confirmation.slice(0, -2) + (p.confirmation.endsWith("AA") ? "BB" : "AA");
    for (const body of [{ confirmation: tampered }, { confirmation: "" }, { confirmation: 12 }, {}])
      expect((await post(bookUrl(s.id, "1", false), body)).status, JSON.stringify(body)).toBe(400);
    expect(await observe(s)).toEqual(before);
  });
});

describe("refusals", () => {
  it("a book owned by a hand import, a map that is only a suggestion, an entry of unknown membership: 409, nothing changes", async () => {
    const owned = await seriesWith(finished(1), { ...chapterFiles(2, 1, 2), "v01.cbz": 4 });
    await saveMap(owned.id, [{ volume: "1", chapters: ["1", "2"] }]);
    const before = await observe(owned);
    await expectProblem(await post(bookUrl(owned.id, "1", true)), 409, "assembly_book_owned");
    expect(await observe(owned)).toEqual(before);

    const suggested = await seriesWith(finished(1), chapterFiles(2, 1, 2));
    await expectJson(
      await post(`/api/manga/${suggested.id}/chapter-map/suggestions`, {
        source: "catalogue:probe",
        entries: [{ volume: "1", chapters: ["1", "2"] }],
      }),
      201,
    );
    await expectProblem(await post(bookUrl(suggested.id, "1", true)), 409, "assembly_map_not_exact");

    const unknown = await seriesWith(finished(2), chapterFiles(2, 1, 2));
    await saveMap(unknown.id, [
      { volume: "1", chapters: [] },
      { volume: "2", chapters: ["3"] },
    ]);
    await expectProblem(await post(bookUrl(unknown.id, "1", true)), 409, "assembly_map_not_exact");
  });

  it("a split chapter is made of complete parts from one source: parts of two release groups are refused, never mixed", async () => {
    const s = await seriesWith(finished(1), {
      "c001.cbz": 2,
      "c002 (part 1) [Alpha Scans].cbz": 3,
      "c002 (part 2) [Beta Team].cbz": 4,
    });
    await saveMap(s.id, [{ volume: "1", chapters: ["1", "2"] }]);
    const before = await observe(s);
    const refused = await expectProblem(await post(bookUrl(s.id, "1", true)), 409, "assembly_missing_part");
    expect(refused.chapters).toEqual(["2"]);
    expect(await observe(s)).toEqual(before);

    // Alpha's second part arrives: the chapter is made of Alpha's two parts.
    await writeFile(s.file("c002 (part 2) [Alpha Scans].cbz"), await cbz(5));
    await scanLibrary(app);
    const p = await expectJson<AssemblyPreview>(await post(bookUrl(s.id, "1", true)), 200);
    const names = (ids: number[]) =>
      ids.map((id) =>
        p.files
          .find((f) => f.id === id)
          ?.path.split("/")
          .pop(),
      );
    expect(p.chapters.map((c) => [c.number, names(c.file_ids)])).toEqual([
      ["1", ["c001.cbz"]],
      ["2", ["c002 (part 1) [Alpha Scans].cbz", "c002 (part 2) [Alpha Scans].cbz"]],
    ]);
    const r = await expectJson<{ page_count: number }>(
      await post(bookUrl(s.id, "1", false), { confirmation: p.confirmation }),
      200,
    );
    expect(r.page_count).toBe(10);
  });

  it("wrong input: an unknown series is 404, a volume that is no number 400, a dry_run that is no boolean 400", async () => {
    const s = await seriesWith(finished(1), chapterFiles(2, 1, 2));
    await saveMap(s.id, [{ volume: "1", chapters: ["1", "2"] }]);
    const before = await observe(s);
    await expectProblem(await post(bookUrl(999999, "1", true)), 404, "series_not_found");
    await expectProblem(await post(seriesUrl(999999, true)), 404, "series_not_found");
    expect((await post(bookUrl(s.id, "one", true))).status).toBe(400);
    expect((await post(`/api/manga/${s.id}/volumes/1/assemble?dry_run=maybe`)).status).toBe(400);
    expect((await post(`/api/manga/${s.id}/assemble?dry_run=maybe`)).status).toBe(400);
    expect(await observe(s)).toEqual(before);
  });
});

describe("series assembly", () => {
  it("outcome per book, the token used twice assembles nothing more, a fresh preview offers the remaining books", async () => {
    const s = await seriesWith(finished(3), chapterFiles(2, 1, 2, 3, 5));
    await saveMap(s.id, [
      { volume: "1", chapters: ["1", "2"] },
      { volume: "2", chapters: ["3", "4"] },
      { volume: "3", chapters: ["5"] },
    ]);
    const p = await expectJson<{ books: BookOutcome[]; confirmation: string }>(await post(seriesUrl(s.id, true)), 200);
    expect(p.books.map((b) => [b.volume, b.status, b.code])).toEqual([
      ["1", "ready", null],
      ["2", "refused", "assembly_missing_chapters"],
      ["3", "ready", null],
    ]);
    const r = await expectJson<{ books: BookOutcome[]; remaining: string[] }>(
      await post(seriesUrl(s.id, false), { confirmation: p.confirmation }),
      200,
    );
    expect(r.books.map((b) => [b.volume, b.status])).toEqual([
      ["1", "assembled"],
      ["3", "assembled"],
    ]);
    expect(r.remaining).toEqual(["2"]);
    const after = await observe(s);
    const again = await post(seriesUrl(s.id, false), { confirmation: p.confirmation });
    if (again.status === 200) {
      const body = (await again.json()) as { books: BookOutcome[] };
      expect(body.books.every((b) => b.status === "refused")).toBe(true);
    } else expect(again.status).toBe(409);
    expect(await observe(s)).toEqual(after);

    // Chapter 4 arrives: the fresh preview offers book 2 alone.
    await writeFile(s.file("c004.cbz"), await cbz(2));
    await scanLibrary(app);
    const fresh = await expectJson<{ books: BookOutcome[] }>(await post(seriesUrl(s.id, true)), 200);
    expect(fresh.books.map((b) => [b.volume, b.status])).toEqual([["2", "ready"]]);
  });
});
