/**
 * The library scan (POST /api/library/scan) against real CBZ files written with yazl into the
 * temporary library root of a real app. Pages are random bytes named like images: the scan reads
 * the zip central directory and ComicInfo.xml only, so they must index like real JPEGs (any image
 * decoding would fail on them).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  cbz,
  chapterFileName,
  expectJson,
  problemOf,
  scanLibrary,
  unitOf,
  writeCbz,
  zipBuffer,
  type RestUnit,
  type RestUnits,
  type ScanBody,
} from "./fixtures.ts";
import { archiveOpenCount } from "../src/library/archive-reader.ts";
import { createTestApp, type TestApp } from "./utils.ts";

/** Every archive gets its own whole-second mtime, so size+mtime comparisons never depend on timing. */
let clock = Date.UTC(2024, 5, 1);
const nextMtime = () => new Date((clock += 60_000));

const sha256 = (buf: Buffer) => createHash("sha256").update(buf).digest("hex");

function replaceAll(buf: Buffer, from: string, to: string): { buf: Buffer; count: number } {
  expect(to.length).toBe(from.length);
  const out = Buffer.from(buf);
  let count = 0;
  for (let i = out.indexOf(from); i >= 0; i = out.indexOf(from, i + 1)) {
    out.write(to, i, "latin1");
    count += 1;
  }
  return { buf: out, count };
}

let app: TestApp;

beforeEach(async () => {
  app = await createTestApp();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await app.dispose();
});

const abs = (rel: string) => path.join(app.config.libraryRoot, rel);

/** Writes bytes at a path relative to the library root, with a fresh fixed mtime. */
async function put(
  rel: string,
  data: Buffer | string,
  mtime = nextMtime(),
): Promise<{ data: Buffer; sha256: string; size: number; mtimeMs: number }> {
  const buf = typeof data === "string" ? Buffer.from(data) : data;
  await mkdir(path.dirname(abs(rel)), { recursive: true });
  await writeFile(abs(rel), buf);
  await utimes(abs(rel), mtime, mtime);
  return { data: buf, sha256: sha256(buf), size: buf.length, mtimeMs: mtime.getTime() };
}

const scan = () => scanLibrary(app);

const result = (over: Partial<ScanBody>): ScanBody => ({
  added: 0,
  changed: 0,
  moved: 0,
  removed: 0,
  unchanged: 0,
  series_created: 0,
  errors: [],
  ...over,
});

async function fileRows() {
  const rows = await app.ctx.db.libraryFile.findMany({ orderBy: { id: "asc" } });
  return rows.map((r) => ({ ...r, size: Number(r.size), mtimeMs: Number(r.mtimeMs) }));
}

async function numbering() {
  return (await fileRows()).map((r) => ({
    path: r.path,
    kind: r.kind,
    volume: r.volume,
    chapter: r.chapter,
    chapterEnd: r.chapterEnd,
    part: r.part,
    tagSource: r.tagSource,
  }));
}

async function seriesId(folder: string): Promise<number> {
  const row = await app.ctx.db.series.findUnique({ where: { folder } });
  if (!row) throw new Error(`no series for folder ${folder}`);
  return row.id;
}

async function chapterSlots(folder: string) {
  const rows = await app.ctx.db.chapterSlot.findMany({
    where: { seriesId: await seriesId(folder) },
    orderBy: { id: "asc" },
  });
  return rows.map((r) => ({ number: r.number, parts: r.parts, extra: r.extra }));
}

async function volumeSlots(folder: string): Promise<string[]> {
  const rows = await app.ctx.db.volumeSlot.findMany({
    where: { seriesId: await seriesId(folder) },
    orderBy: { id: "asc" },
  });
  return rows.map((r) => r.number);
}

async function units(folder: string): Promise<RestUnit[]> {
  return (await expectJson<RestUnits>(await app.api(`/api/manga/${await seriesId(folder)}/units`), 200)).units;
}

async function unit(folder: string, kind: "book" | "chapter", number: string) {
  const u = unitOf({ units: await units(folder) }, kind, number);
  return { owned: u.owned, file_ids: u.file_ids, problems: u.problems };
}

describe("first scan of new folders and files", () => {
  it("makes each new folder a series titled by its folder name and indexes random-byte pages without decoding them", async () => {
    const c1 = await put("Salt Road/Salt Road - c001.cbz", await cbz(5, { other: ["credits.txt"] }));
    const c2 = await put("Salt Road/Salt Road - c002.cbz", await cbz(12));
    await mkdir(abs("Empty Shelf"));

    expect(await scan()).toEqual(result({ added: 2, series_created: 2 }));

    const list = (await (await app.api("/api/manga")).json()) as {
      title: string;
      folder: string;
      status: string;
      form: string;
    }[];
    expect(list.map((s) => ({ title: s.title, folder: s.folder, status: s.status, form: s.form }))).toEqual([
      { title: "Empty Shelf", folder: "Empty Shelf", status: "running", form: "chapters" },
      { title: "Salt Road", folder: "Salt Road", status: "running", form: "chapters" },
    ]);

    const salt = await seriesId("Salt Road");
    const rows = await fileRows();
    expect(
      rows.map((r) => ({
        seriesId: r.seriesId,
        path: r.path,
        size: r.size,
        mtimeMs: r.mtimeMs,
        sha256: r.sha256,
        pageCount: r.pageCount,
        state: r.state,
        origin: r.origin,
      })),
    ).toEqual([
      {
        seriesId: salt,
        path: "Salt Road/Salt Road - c001.cbz",
        size: c1.size,
        mtimeMs: c1.mtimeMs,
        sha256: c1.sha256,
        pageCount: 5,
        state: "active",
        origin: "scan",
      },
      {
        seriesId: salt,
        path: "Salt Road/Salt Road - c002.cbz",
        size: c2.size,
        mtimeMs: c2.mtimeMs,
        sha256: c2.sha256,
        pageCount: 12,
        state: "active",
        origin: "scan",
      },
    ]);
    expect(await chapterSlots("Salt Road")).toEqual([
      { number: "1", parts: 1, extra: false },
      { number: "2", parts: 1, extra: false },
    ]);
    expect(await unit("Salt Road", "chapter", "2")).toEqual({ owned: true, file_ids: [rows[1]?.id], problems: [] });
  });

  it("reads kind, volume, chapter and part from the file name", async () => {
    await put("Alpha/Alpha v01.cbz", await cbz(3));
    await put("Alpha/Alpha - c004.cbz", await cbz(3));
    await put("Alpha/Alpha - c010 (part 1).cbz", await cbz(2));
    await put("Alpha/Extras/Alpha - c012.5.cbz", await cbz(2));

    expect(await scan()).toEqual(result({ added: 4, series_created: 1 }));
    expect(await numbering()).toEqual([
      {
        path: "Alpha/Alpha - c004.cbz",
        kind: "chapter",
        volume: null,
        chapter: "4",
        chapterEnd: null,
        part: null,
        tagSource: "filename",
      },
      {
        path: "Alpha/Alpha - c010 (part 1).cbz",
        kind: "chapter",
        volume: null,
        chapter: "10",
        chapterEnd: null,
        part: 1,
        tagSource: "filename",
      },
      {
        path: "Alpha/Alpha v01.cbz",
        kind: "book",
        volume: "1",
        chapter: null,
        chapterEnd: null,
        part: null,
        tagSource: "filename",
      },
      {
        path: "Alpha/Extras/Alpha - c012.5.cbz",
        kind: "chapter",
        volume: null,
        chapter: "12.5",
        chapterEnd: null,
        part: null,
        tagSource: "filename",
      },
    ]);
    expect(await volumeSlots("Alpha")).toEqual(["1"]);
    expect(await chapterSlots("Alpha")).toEqual([
      { number: "4", parts: 1, extra: false },
      { number: "10", parts: 2, extra: false },
      { number: "12.5", parts: 1, extra: false },
    ]);
  });

  it("lets ComicInfo.xml win over the file name", async () => {
    // Named chapter 5, tagged chapter 7 of volume 2: the tag decides.
    await put("Alpha/c005.cbz", await cbz(4, { comicInfo: { Series: "Alpha", Number: "7", Volume: 2 } }));
    // A volume tag without Number on a volume-named file: a book, tagged by ComicInfo.
    await put("Alpha/Alpha v03.cbz", await cbz(6, { comicInfo: { Series: "Alpha", Volume: 3 } }));

    expect(await scan()).toEqual(result({ added: 2, series_created: 1 }));
    expect(await numbering()).toEqual([
      {
        path: "Alpha/Alpha v03.cbz",
        kind: "book",
        volume: "3",
        chapter: null,
        chapterEnd: null,
        part: null,
        tagSource: "comicinfo",
      },
      {
        path: "Alpha/c005.cbz",
        kind: "chapter",
        volume: "2",
        chapter: "7",
        chapterEnd: null,
        part: null,
        tagSource: "comicinfo",
      },
    ]);
    expect((await fileRows()).map((r) => r.pageCount)).toEqual([6, 4]);
    // Slots follow the decided numbering: chapter 7, never the name's 5.
    expect(await chapterSlots("Alpha")).toEqual([{ number: "7", parts: 1, extra: false }]);
    expect(await volumeSlots("Alpha")).toEqual(["3"]);
  });

  it("creates one chapter slot per chapter of a range file", async () => {
    await put("Alpha/Alpha c001-003.cbz", await cbz(9));

    expect(await scan()).toEqual(result({ added: 1, series_created: 1 }));
    const [row] = await fileRows();
    expect({ chapter: row?.chapter, chapterEnd: row?.chapterEnd, kind: row?.kind }).toEqual({
      chapter: "1",
      chapterEnd: "3",
      kind: "chapter",
    });
    expect(await chapterSlots("Alpha")).toEqual([
      { number: "1", parts: 1, extra: false },
      { number: "2", parts: 1, extra: false },
      { number: "3", parts: 1, extra: false },
    ]);
    const chapters = (await units("Alpha")).map((u) => ({
      kind: u.kind,
      number: u.number,
      owned: u.owned,
      file_ids: u.file_ids,
    }));
    expect(chapters).toEqual(
      ["1", "2", "3"].map((number) => ({ kind: "chapter", number, owned: true, file_ids: [row?.id] })),
    );
  });

  it("creates a split chapter slot from a part marker; the chapter is on disk only when every part is", async () => {
    await put("Alpha/Alpha - c010 (part 1).cbz", await cbz(3));
    expect(await scan()).toEqual(result({ added: 1, series_created: 1 }));
    expect(await chapterSlots("Alpha")).toEqual([{ number: "10", parts: 2, extra: false }]);
    const [part1] = await fileRows();
    const partial = await unit("Alpha", "chapter", "10");
    expect(partial.owned).toBe(false);
    expect(partial.problems).toEqual(["split chapter: part 2 of 2 missing"]);

    await put("Alpha/Alpha - c010 (part 2).cbz", await cbz(4));
    expect(await scan()).toEqual(result({ added: 1, unchanged: 1 }));
    const [, part2] = await fileRows();
    expect(part2?.part).toBe(2);
    expect(await chapterSlots("Alpha")).toEqual([{ number: "10", parts: 2, extra: false }]);
    expect(await unit("Alpha", "chapter", "10")).toEqual({
      owned: true,
      file_ids: [part1?.id, part2?.id],
      problems: [],
    });
  });
});

describe("a series added by title", () => {
  it("keeps a title made of separators and dots out of the path: the folder is portable and the scan files into it", async () => {
    const created = await expectJson<{ id: number; folder: string }>(
      await app.api("/api/manga", { method: "POST", json: { title: "../ Escape" } }),
      201,
    );
    expect(created.folder).toBe("Escape");
    await put("Escape/Escape - c001.cbz", await cbz(4));
    expect(await scan()).toEqual(result({ added: 1 }));
    const list = await expectJson<{ id: number }[]>(await app.api("/api/manga"), 200);
    expect(list.map((s) => s.id)).toEqual([created.id]);
    expect((await unit("Escape", "chapter", "1")).owned).toBe(true);
  });
});

describe("rescans", () => {
  it("leaves every row untouched when nothing changed, without hashing again", async () => {
    await put("Alpha/Alpha - c001.cbz", await cbz(3));
    await put("Alpha/Alpha - c002.cbz", await cbz(3));
    await put("Beta/Beta v01.cbz", await cbz(3));
    expect(await scan()).toEqual(result({ added: 3, series_created: 2 }));
    const before = await fileRows();
    const seriesBefore = await app.ctx.db.series.findMany({ orderBy: { id: "asc" } });

    expect(await scan()).toEqual(result({ unchanged: 3 }));
    expect(await fileRows()).toEqual(before);
    expect(await app.ctx.db.series.findMany({ orderBy: { id: "asc" } })).toEqual(seriesBefore);

    // Same size and mtime, other bytes: a scan that trusts size+mtime neither reads nor hashes it.
    const target = "Alpha/Alpha - c001.cbz";
    const { size, mtime } = await stat(abs(target));
    const other = await cbz(3);
    expect(other.length).toBe(size);
    await put(target, other, mtime);
    expect(await scan()).toEqual(result({ unchanged: 3 }));
    expect(await fileRows()).toEqual(before);
  });

  it("opens each new archive once, none on a rescan, and only the rewritten ones after a change", async () => {
    const names = (series: string, n: number) =>
      Array.from({ length: n }, (_, i) => `${series}/${series} - c${String(i + 1).padStart(3, "0")}.cbz`);
    const counted = async () => {
      const opens = archiveOpenCount();
      app.ctx.queries.reset();
      const body = await scan();
      return { body, opens: archiveOpenCount() - opens, statements: app.ctx.queries.count };
    };
    for (const rel of names("Alpha", 12)) await put(rel, await cbz(2));
    const first = await counted();
    expect(first.body).toMatchObject({ added: 12, series_created: 1 });
    expect(first.opens).toBe(12);
    const rescan = await counted();
    expect(rescan.body).toEqual(result({ unchanged: 12 }));
    expect(rescan.opens).toBe(0);

    // Three times the files in three times the series: the same statements (bulk writes, no per-file row).
    for (const series of ["Beta", "Gamma"]) for (const rel of names(series, 12)) await put(rel, await cbz(2));
    const bigger = await counted();
    expect(bigger.body).toMatchObject({ added: 24, unchanged: 12, series_created: 2 });
    expect(bigger.opens).toBe(24);
    expect(bigger.statements).toBe(first.statements);
    const bigRescan = await counted();
    expect(bigRescan.opens).toBe(0);
    expect(bigRescan.statements).toBe(rescan.statements);

    // New bytes in two files, a new mtime only on a third: the two are opened, the third hashed only.
    await put("Alpha/Alpha - c001.cbz", await cbz(3));
    await put("Beta/Beta - c005.cbz", await cbz(3));
    const touched = nextMtime();
    await utimes(abs("Gamma/Gamma - c009.cbz"), touched, touched);
    const changed = await counted();
    expect(changed.body).toEqual(result({ changed: 2, unchanged: 34 }));
    expect(changed.opens).toBe(2);
  });

  it("records only the new mtime of a touched file (same bytes)", async () => {
    const original = await put("Alpha/Alpha - c001.cbz", await cbz(3));
    await scan();
    const [before] = await fileRows();
    // Same bytes, new mtime: hashed again (the mtime moved), found identical, counted unchanged.
    const touched = nextMtime();
    await utimes(abs("Alpha/Alpha - c001.cbz"), touched, touched);
    expect(await scan()).toEqual(result({ unchanged: 1 }));
    const [after] = await fileRows();
    expect(after).toMatchObject({
      id: before?.id,
      sha256: original.sha256,
      mtimeMs: touched.getTime(),
      pageCount: 3,
      state: "active",
    });
  });

  it("reports a modified file as changed and records its new sha256, size and pages under the same id", async () => {
    await put("Alpha/Alpha - c001.cbz", await cbz(3));
    await put("Alpha/Alpha - c002.cbz", await cbz(3));
    await scan();
    const [first, second] = await fileRows();

    const replaced = await put("Alpha/Alpha - c001.cbz", await cbz(8));
    expect(await scan()).toEqual(result({ changed: 1, unchanged: 1 }));

    const [after1, after2] = await fileRows();
    expect(after1).toMatchObject({
      id: first?.id,
      path: "Alpha/Alpha - c001.cbz",
      sha256: replaced.sha256,
      size: replaced.size,
      mtimeMs: replaced.mtimeMs,
      pageCount: 8,
      state: "active",
    });
    expect(after1?.sha256).not.toBe(first?.sha256);
    expect(after2).toEqual(second);
    expect(await app.ctx.db.libraryFile.count()).toBe(2);
  });

  it("reports a renamed file as moved: same id, new path and numbering", async () => {
    const original = await put("Alpha/Alpha - c001.cbz", await cbz(3));
    await scan();
    const [before] = await fileRows();

    await rename(abs("Alpha/Alpha - c001.cbz"), abs("Alpha/Alpha - c002.cbz"));
    expect(await scan()).toEqual(result({ moved: 1 }));

    const rows = await fileRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: before?.id,
      path: "Alpha/Alpha - c002.cbz",
      chapter: "2",
      sha256: original.sha256,
      state: "active",
    });
    expect(await unit("Alpha", "chapter", "2")).toEqual({ owned: true, file_ids: [before?.id], problems: [] });
    expect(await unit("Alpha", "chapter", "1")).toEqual({ owned: false, file_ids: [], problems: [] });
  });

  it("re-attaches a file moved into another series folder to that series", async () => {
    await put("Alpha/Alpha - c001.cbz", await cbz(3));
    await mkdir(abs("Beta"));
    expect(await scan()).toEqual(result({ added: 1, series_created: 2 }));
    const [before] = await fileRows();
    expect(before?.seriesId).toBe(await seriesId("Alpha"));

    await rename(abs("Alpha/Alpha - c001.cbz"), abs("Beta/Beta - c001.cbz"));
    expect(await scan()).toEqual(result({ moved: 1 }));

    const rows = await fileRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: before?.id,
      seriesId: await seriesId("Beta"),
      path: "Beta/Beta - c001.cbz",
      chapter: "1",
      state: "active",
    });
    expect(await unit("Beta", "chapter", "1")).toEqual({ owned: true, file_ids: [before?.id], problems: [] });
    expect(await unit("Alpha", "chapter", "1")).toEqual({ owned: false, file_ids: [], problems: [] });
  });

  it("marks a deleted file missing (the row stays) and stops counting it", async () => {
    await put("Alpha/Alpha - c001.cbz", await cbz(3));
    await put("Alpha/Alpha - c002.cbz", await cbz(3));
    await scan();
    const [first, second] = await fileRows();

    await rm(abs("Alpha/Alpha - c002.cbz"));
    expect(await scan()).toEqual(result({ removed: 1, unchanged: 1 }));

    const rows = await fileRows();
    expect(rows.map((r) => ({ id: r.id, path: r.path, state: r.state }))).toEqual([
      { id: first?.id, path: "Alpha/Alpha - c001.cbz", state: "active" },
      { id: second?.id, path: "Alpha/Alpha - c002.cbz", state: "missing" },
    ]);
    expect(await unit("Alpha", "chapter", "2")).toEqual({ owned: false, file_ids: [], problems: [] });
    expect(await unit("Alpha", "chapter", "1")).toEqual({ owned: true, file_ids: [first?.id], problems: [] });
    // The slot stays: the chapter exists, it is just not on disk any more.
    expect(await chapterSlots("Alpha")).toEqual([
      { number: "1", parts: 1, extra: false },
      { number: "2", parts: 1, extra: false },
    ]);

    // A missing row is not removed a second time.
    expect(await scan()).toEqual(result({ unchanged: 1 }));
  });
});

describe("what the scan does not record", () => {
  it("reports unreadable archives in errors and records them nowhere", async () => {
    await put("Alpha/Alpha - c001.cbz", await cbz(3));
    await put("Alpha/Alpha - c050.cbz", "this is not a zip archive at all");
    // yazl refuses ".." in names, so write a same-length name and patch both headers.
    const patched = replaceAll(
      await zipBuffer([
        { name: "001.jpg", data: randomBytes(50) },
        { name: "xx/evil.jpg", data: randomBytes(50) },
      ]),
      "xx/evil.jpg",
      "../evil.jpg",
    );
    expect(patched.count).toBe(2);
    await put("Alpha/Alpha - c051.cbz", patched.buf);

    const errors = [
      { path: "Alpha/Alpha - c050.cbz", code: "archive_unreadable", message: "no zip end-of-central-directory record" },
      { path: "Alpha/Alpha - c051.cbz", code: "archive_entry_unsafe", message: 'unsafe entry name "../evil.jpg"' },
    ];
    expect(await scan()).toEqual(result({ added: 1, series_created: 1, errors }));
    expect((await fileRows()).map((r) => r.path)).toEqual(["Alpha/Alpha - c001.cbz"]);
    expect(await chapterSlots("Alpha")).toEqual([{ number: "1", parts: 1, extra: false }]);

    // Still unreadable, still reported, still not recorded.
    expect(await scan()).toEqual(result({ unchanged: 1, errors }));
    expect(await app.ctx.db.libraryFile.count()).toBe(1);
  });

  it("ignores dot-folders and dot-files at every level, and files lying at the root", async () => {
    await put(".staging/Ghost - c001.cbz", await cbz(2));
    await put(".recycle/Alpha/Alpha - c009.cbz", await cbz(2));
    await put("Alpha/.Alpha - c002.cbz", await cbz(2));
    await put("Alpha/.cache/Alpha - c003.cbz", await cbz(2));
    await put("loose - c007.cbz", await cbz(2));
    await put("Alpha/Alpha - c001.cbz", await cbz(2));
    await put("Alpha/notes.txt", "not an archive");

    expect(await scan()).toEqual(result({ added: 1, series_created: 1 }));
    expect((await app.ctx.db.series.findMany()).map((s) => s.folder)).toEqual(["Alpha"]);
    expect((await fileRows()).map((r) => r.path)).toEqual(["Alpha/Alpha - c001.cbz"]);
    expect(await chapterSlots("Alpha")).toEqual([{ number: "1", parts: 1, extra: false }]);
  });

  it("removes stored estimates and clears file tags derived from them (estimates are never membership)", async () => {
    await put("Alpha/Alpha - c001.cbz", await cbz(2));
    await put("Alpha/Alpha - c002.cbz", await cbz(2, { comicInfo: { Series: "Alpha", Number: "2", Volume: 1 } }));
    await scan();
    const alpha = await seriesId("Alpha");
    const [estimated, tagged] = await fileRows();
    expect(tagged).toMatchObject({ volume: "1", tagSource: "comicinfo" });

    // What an older version may have left behind: an estimate source and a tag derived from it.
    const estimate = await app.ctx.db.mapSource.create({
      data: {
        seriesId: alpha,
        kind: "estimate",
        name: "estimate",
        revision: 1,
        entries: { create: [{ volume: "1", chapters: JSON.stringify(["1", "2"]) }] },
      },
    });
    await app.ctx.db.libraryFile.update({ where: { id: estimated?.id }, data: { volume: "1", tagSource: "estimate" } });
    // Operational and suggested maps must survive the reconciliation.
    await app.services.maps.replace(alpha, { revision: 0, entries: [{ volume: "1", chapters: ["1", "2"] }] }, false);
    await app.services.maps.addSuggestion(alpha, {
      source: "catalogue:test",
      entries: [{ volume: "1", chapters: ["1", "2"] }],
    });

    expect(await scan()).toEqual(result({ unchanged: 2 }));

    expect(
      (await app.ctx.db.mapSource.findMany({ where: { seriesId: alpha }, orderBy: { id: "asc" } })).map((s) => s.kind),
    ).toEqual(["operator", "catalogue"]);
    expect(await app.ctx.db.mapEntry.count({ where: { sourceId: estimate.id } })).toBe(0);
    const [afterEstimated, afterTagged] = await fileRows();
    expect(afterEstimated).toMatchObject({ id: estimated?.id, volume: null, tagSource: null });
    expect(afterTagged).toMatchObject({ id: tagged?.id, volume: "1", tagSource: "comicinfo" });
  });
});

describe("one scan at a time", () => {
  it("refuses a second scan while one runs (409 scan_in_progress) and scans again afterwards", async () => {
    await put("Alpha/Alpha - c001.cbz", await cbz(2));

    // Service level: two calls without awaiting.
    const first = app.services.scan.scan();
    const second = app.services.scan.scan();
    await expect(second).rejects.toMatchObject({ code: "scan_in_progress", status: 409 });
    await expect(first).resolves.toMatchObject({ added: 1, seriesCreated: 1 });

    // HTTP and GraphQL while a scan is held inside its run.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const active = app.ctx.repos.files.active;
    const spy = vi.spyOn(app.ctx.repos.files, "active").mockImplementationOnce(async () => {
      await gate;
      return active();
    });
    const held = app.services.scan.scan();
    await vi.waitFor(() => expect(spy).toHaveBeenCalledTimes(1));

    expect(await problemOf(await app.api("/api/library/scan", { method: "POST" }))).toEqual({
      status: 409,
      contentType: "application/problem+json",
      body: {
        type: "about:blank#scan_in_progress",
        title: "A library scan is already running",
        status: 409,
        detail: "A library scan is already running",
        code: "scan_in_progress",
      },
    });
    const gql = await app.gql<{ scanLibrary: unknown }>("mutation { scanLibrary { added } }");
    expect(gql.errors?.[0]?.extensions?.code).toBe("scan_in_progress");

    release();
    await expect(held).resolves.toMatchObject({ unchanged: 1 });
    expect(await scan()).toEqual(result({ unchanged: 1 }));
  });

  it("releases the lock when a scan fails", async () => {
    await put("Alpha/Alpha - c001.cbz", await cbz(2));
    vi.spyOn(app.ctx.repos.files, "active").mockRejectedValueOnce(new Error("database went away"));
    await expect(app.services.scan.scan()).rejects.toThrow("database went away");
    expect(await scan()).toEqual(result({ added: 1 }));
  });
});

describe("the scheduled scan (LIBRARY_SCAN_INTERVAL_SECONDS)", () => {
  let scheduled: TestApp;
  afterEach(async () => {
    await scheduled?.dispose();
  });

  it("records a series folder copied into the library without any request", async () => {
    scheduled = await createTestApp({ env: { LIBRARY_SCAN_INTERVAL_SECONDS: "1" } });
    expect(await (await scheduled.api("/api/manga")).json()).toEqual([]);
    await writeCbz(path.join(scheduled.config.libraryRoot, "Copied Later", chapterFileName("Copied Later", 1)), 2);
    await expect
      .poll(
        async () => ((await (await scheduled.api("/api/manga")).json()) as { title: string }[]).map((s) => s.title),
        {
          timeout: 15_000,
          interval: 200,
        },
      )
      .toEqual(["Copied Later"]);
  });

  it("skips a library root emptied under it (an unmounted disk): nothing is marked missing until an operator scans", async () => {
    scheduled = await createTestApp({ env: { LIBRARY_SCAN_INTERVAL_SECONDS: "1" } });
    const root = scheduled.config.libraryRoot;
    await writeCbz(path.join(root, "On A Share", chapterFileName("On A Share", 1)), 2);
    const present = async () => {
      const list = (await (await scheduled.api("/api/manga")).json()) as { id: number }[];
      if (list.length === 0) return null;
      const units = await expectJson<RestUnits>(await scheduled.api(`/api/manga/${list[0]!.id}/units`), 200);
      return units.units.flatMap((u) => u.file_ids).length;
    };
    await expect.poll(present, { timeout: 15_000, interval: 200 }).toBe(1);
    // The share goes away: its folder is no longer under the root.
    const away = `${root}-away`;
    await rename(path.join(root, "On A Share"), away);
    const since = Date.now();
    await expect
      .poll(() => Date.parse(scheduled.services.scanSchedule.status().lastRun ?? "0") > since + 1500, {
        timeout: 15_000,
        interval: 200,
      })
      .toBe(true);
    expect(await present()).toBe(1);
    // An operator's scan records what is really there.
    expect(await scanLibrary(scheduled)).toMatchObject({ removed: 1 });
    expect(await present()).toBe(0);
    await rm(away, { recursive: true, force: true });
  });

  it("runs every 6 hours by default; 0 leaves no next run, the scan then runs only on request", async () => {
    scheduled = await createTestApp();
    const next = scheduled.services.scanSchedule.status().nextRun;
    expect(Date.parse(next!) - Date.now()).toBeGreaterThan(6 * 3600_000 - 60_000);
    await scheduled.dispose();
    scheduled = await createTestApp({ env: { LIBRARY_SCAN_INTERVAL_SECONDS: "0" } });
    expect(scheduled.services.scanSchedule.status().nextRun).toBeNull();
  });
});
