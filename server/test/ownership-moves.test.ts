/**
 * The ownership moves (docs/rules.md, "Ownership moves") about assembled books, each through REST
 * and through GraphQL (the same scenario driven by both transports; see ownership-moves-harness.ts).
 * The verification rows are in ownership-moves-verification.test.ts.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stateDirs } from "../src/config.ts";
import { bookFileName, cbz, chapterFileName, writeCbz } from "./fixtures.ts";
import {
  app,
  assembled,
  readySeries,
  snapshot,
  transports,
  unit,
  useApp,
  type Transport,
} from "./ownership-moves-harness.ts";

useApp();

/** A refused move: the row's code with 409, and a snapshot taken before it equal to one after. */
async function refusedUnchanged(
  t: Transport,
  seriesId: number,
  move: () => Promise<{ code?: string; status?: number }>,
  code: string,
) {
  const before = await snapshot(t, seriesId);
  expect(await move()).toEqual({ code, status: 409 });
  expect(await snapshot(t, seriesId)).toEqual(before);
}

describe.each(transports)("ownership moves through %s", (_name, t) => {
  it("book not owned → assemble (exact map, all chapters on disk, none changed, unambiguous) → owned; chapters retired as duplicates; provenance; one book for the volume", async () => {
    const s = await readySeries();
    const before = await t.units(s.id);
    expect(unit(before, "book", "1")).toMatchObject({ owned: false, fileIds: [] });
    const chapters = await app.ctx.db.libraryFile.findMany({
      where: { id: { in: s.chapterIds } },
      orderBy: { id: "asc" },
    });

    const p = await t.preview(s.id, "1");
    expect(p.code).toBeUndefined();
    const r = await t.assemble(s.id, "1", p.confirmation!);
    expect(r).toEqual({ fileId: expect.any(Number) });
    const book = await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: r.fileId! } });
    expect(book).toMatchObject({ seriesId: s.id, kind: "book", volume: "1", state: "active" });

    // The chapter files were retired as duplicates: in the recycle bin, no longer in the series folder.
    const after = await app.ctx.db.libraryFile.findMany({
      where: { id: { in: s.chapterIds } },
      orderBy: { id: "asc" },
    });
    expect(after.map((f) => f.state)).toEqual(["recycled", "recycled", "recycled", "recycled"]);
    const bin = await app.ctx.db.recycleEntry.findMany({
      where: { fileId: { in: s.chapterIds } },
      orderBy: { fileId: "asc" },
    });
    expect(bin.map((b) => [b.fileId, b.reason])).toEqual(s.chapterIds.map((id) => [id, "assembled into v001"]));
    for (const b of bin)
      expect(existsSync(path.join(stateDirs(app.config).recycleBin, ...b.binPath.split("/")))).toBe(true);
    for (const n of [1, 2, 3, 4]) expect(existsSync(path.join(s.dir, chapterFileName(s.title, n)))).toBe(false);

    // Provenance, version 1: the volume, its chapters and the hashes of the files it was made from.
    const release = await app.ctx.db.chapterRelease.findFirstOrThrow({ where: { fileId: book.id } });
    expect(release.kind).toBe("volume");
    const prov = JSON.parse(release.assembledFrom ?? "null") as {
      version: number;
      volume: string;
      chapters: string[];
      files: { id: number; sha256: string }[];
    };
    expect(prov).toMatchObject({ version: 1, volume: "1", chapters: ["1", "2", "3", "4"] });
    expect(prov.files.map((f) => [f.id, f.sha256])).toEqual(chapters.map((f) => [f.id, f.sha256]));

    // Readers: one book for the volume, owned by the assembly, covering its chapters.
    const u = await t.units(s.id);
    expect(u.filter((x) => x.kind === "book")).toEqual([
      {
        kind: "book",
        number: "1",
        owned: true,
        coverage: null,
        fileIds: [book.id],
        duplicateFileIds: [],
        problems: [],
      },
    ]);
    for (const n of ["1", "2", "3", "4"])
      expect(unit(u, "chapter", n)).toMatchObject({ coverage: "covered_by_volume", fileIds: [], duplicateFileIds: [] });
  });

  it("book not owned → assemble with missing chapters / changed files / ambiguous map / book owned → 409 with each code, nothing changed", async () => {
    // Missing chapters: chapter 3 of book 1 is not on disk.
    const missing = await readySeries([1, 2, 4]);
    await refusedUnchanged(t, missing.id, () => t.preview(missing.id, "1"), "assembly_missing_chapters");

    // Changed files: chapter 2 is rewritten after the preview that the confirmation binds.
    const changed = await readySeries();
    const p = await t.preview(changed.id, "1");
    expect(p.code).toBeUndefined();
    await writeFile(path.join(changed.dir, chapterFileName(changed.title, 2)), await cbz(5));
    await refusedUnchanged(t, changed.id, () => t.assemble(changed.id, "1", p.confirmation!), "assembly_changed_files");

    // Ambiguous map: submitted readings put chapter 2 in books 1 and 2.
    const ambiguous = await readySeries([1, 2, 3], null);
    await app.ctx.db.mapSource.create({
      data: {
        seriesId: ambiguous.id,
        kind: "reading",
        name: "reading",
        entries: {
          create: [
            { volume: "1", chapters: '["1","2"]' },
            { volume: "2", chapters: '["2","3"]' },
          ],
        },
      },
    });
    await refusedUnchanged(t, ambiguous.id, () => t.preview(ambiguous.id, "1"), "assembly_ambiguous_map");

    // Book already owned: a fresh preview and the confirmation already used are both refused.
    const owned = await assembled(t);
    await refusedUnchanged(t, owned.id, () => t.preview(owned.id, "1"), "assembly_book_owned");
    await refusedUnchanged(t, owned.id, () => t.assemble(owned.id, "1", owned.confirmation), "assembly_book_owned");
  });

  it("assembled book → replaced by external volume: the external volume is the book, the old assembly is in the recycle bin", async () => {
    const s = await assembled(t);
    expect(unit(await t.units(s.id), "book", "1").fileIds).toEqual([s.bookId]);
    // An external copy of volume 1 arrives in the library folder and the scan records it: a book
    // placed by hand is a hand import, suspect, so it waits for its proof.
    await writeCbz(path.join(s.dir, bookFileName(s.title, 1)), 20);
    await t.scan();
    const external = await app.ctx.db.libraryFile.findFirstOrThrow({
      where: { seriesId: s.id, origin: "import", kind: "book", volume: "1" },
    });
    expect((await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: s.bookId } })).state).toBe("active");
    // Its proof lifts the doubt: from then on it wins like any other external copy.
    expect(
      await t.verify(s.id, "1", {
        digest: `sha256:${external.sha256}`,
        chapters: ["1", "2", "3", "4"],
        note: "compared page by page with the assembly",
      }),
    ).toEqual({ verified: true });
    const old = await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: s.bookId } });
    expect(old.state).toBe("recycled");
    const bin = await app.ctx.db.recycleEntry.findFirstOrThrow({ where: { fileId: s.bookId } });
    expect(bin.reason).toBe("replaced by an external volume");
    const u = await t.units(s.id);
    expect(unit(u, "book", "1")).toMatchObject({ owned: true, fileIds: [external.id] });
    for (const n of ["1", "2", "3", "4"]) expect(unit(u, "chapter", n).coverage).toBe("covered_by_volume");
  });

  it("an external copy that is suspect and unverified does not replace the assembly", async () => {
    const s = await assembled(t);
    // 700 pages: an oversized pack, suspect until verified.
    await writeCbz(path.join(s.dir, bookFileName(s.title, 1)), 700);
    await t.scan();
    expect((await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: s.bookId } })).state).toBe("active");
    expect(await app.ctx.db.recycleEntry.count({ where: { fileId: s.bookId } })).toBe(0);
  });

  it("assembled book → boundaries change (operator map PUT) → its coverage is disabled", async () => {
    const s = await assembled(t);
    for (const n of ["1", "2", "3", "4"])
      expect(unit(await t.units(s.id), "chapter", n).coverage).toBe("covered_by_volume");
    // Book 1 shrinks to chapters 1–3: every chapter, those it still lists included, stops being covered by it.
    expect(
      await t.saveMap(s.id, 1, [
        { volume: "1", chapters: ["1", "2", "3"] },
        { volume: "2", chapters: ["4"] },
      ]),
    ).toBe(2);
    const u = await t.units(s.id);
    for (const n of ["1", "2", "3", "4"]) expect(unit(u, "chapter", n).coverage, `chapter ${n}`).toBeNull();
    expect(unit(u, "book", "1").problems).toEqual([expect.stringMatching(/^assembled book no longer matches the map/)]);
  });
});
