/**
 * Views kept per series revision (services/series/view-cache.ts): the units, the audit list and the series
 * page are computed once and answered from memory until a row of the series changes, whoever
 * changes it — a scan, a map edit, a publication, a retirement, a settings change.
 */
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { archiveOpenCount } from "../src/library/archive-reader.ts";
import { revisionRepo, revisionTriggerNames } from "../src/repositories/revision-repo.ts";
import { viewCache } from "../src/services/series/view-cache.ts";
import { auditPage } from "./audit-fixtures.ts";
import {
  cbz,
  chapterFileName,
  createSeriesWithFiles,
  downloadedChapter,
  expectJson,
  scanLibrary,
  stageCbz,
  unitOf,
  type RestUnits,
} from "./fixtures.ts";
import { blankPage, chapterPages, writePagesCbz } from "./page-images.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let seriesId: number;
let folder: string;
const TITLE = "Kept Views";

beforeAll(async () => {
  app = await createTestApp();
  const s = await createSeriesWithFiles(app, TITLE, { books: [], chapters: [1, 2, 3, 4] });
  seriesId = s.id;
  folder = s.folder;
  await scanLibrary(app);
});
afterAll(async () => {
  await app?.dispose();
});

/** GET units with the statements and archive opens it cost. */
async function units(): Promise<{ view: RestUnits; count: number; tables: string[]; opens: number }> {
  const opens = archiveOpenCount();
  app.ctx.queries.reset();
  const view = await expectJson<RestUnits>(await app.api(`/api/manga/${seriesId}/units`), 200);
  const tables = app.ctx.queries.statements.map((q) => /\bFROM\s+[`"]?(\w+)/i.exec(q)?.[1] ?? q);
  return { view, count: app.ctx.queries.count, tables, opens: archiveOpenCount() - opens };
}

/** Warm: the revision is the only statement, no archive is opened. */
async function expectKept(): Promise<RestUnits> {
  const warm = await units();
  expect(warm.tables, warm.tables.join("\n")).toEqual(["series_revision"]);
  expect(warm.opens).toBe(0);
  return warm.view;
}

/** After a change: the series is loaded again (more than the revision). */
async function expectRecomputed(): Promise<RestUnits> {
  const cold = await units();
  expect(cold.count).toBeGreaterThan(1);
  expect(cold.opens).toBe(0);
  return cold.view;
}

describe("views kept per series revision", () => {
  it("has revision triggers on every table that holds a series' rows, and on library-wide settings", async () => {
    const names = await revisionTriggerNames(app.ctx.db);
    const tables = await app.ctx.db.$queryRawUnsafe<{ t: string }[]>(
      `SELECT m.name AS t FROM sqlite_master m WHERE m.type = 'table' AND m.name <> 'series_revision'
       AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) p WHERE p.name = 'series_id')`,
    );
    expect(tables.length).toBeGreaterThan(10);
    for (const t of [...tables.map((r) => r.t), "series", "map_entry", "provider", "setting"])
      for (const op of ["insert", "update", "delete"]) expect(names).toContain(`series_revision_v2_${t}_${op}`);
    // Page signatures change no kept view: the audit applies them on each request.
    expect(names.filter((n) => n.includes("page_signature_set"))).toEqual([]);
  });

  it("answers units from memory until a scan, a map edit, a publication or a retirement changes the series", async () => {
    await units();
    await expectKept();

    // A scan that finds a new file.
    await writeFile(path.join(app.config.libraryRoot, folder, chapterFileName(TITLE, 5)), await cbz(4));
    await scanLibrary(app);
    expect(unitOf(await expectRecomputed(), "chapter", "5").owned).toBe(true);
    await expectKept();

    // A scan that finds nothing changed keeps the views.
    await scanLibrary(app);
    await expectKept();

    // A file removed from the disk: the scan marks it missing.
    await rm(path.join(app.config.libraryRoot, folder, chapterFileName(TITLE, 5)));
    await scanLibrary(app);
    expect(unitOf(await expectRecomputed(), "chapter", "5").owned).toBe(false);
    await expectKept();

    // A map edit.
    await expectJson(
      await app.api(`/api/manga/${seriesId}/chapter-map`, {
        method: "PUT",
        json: { revision: 0, entries: [{ volume: "1", chapters: ["1", "2"] }] },
      }),
      200,
    );
    expect(unitOf(await expectRecomputed(), "chapter", "1").book).toBe("1");
    await expectKept();

    // A downloaded chapter published into the library.
    const staged = await stageCbz(app.config, "view-cache-6.cbz", 4);
    const published = await app.services.publication.publish({
      seriesId,
      stagedPath: staged.path,
      targetRelPath: `${folder}/${chapterFileName(TITLE, 6)}`,
      file: downloadedChapter("6", 4),
    });
    expect(unitOf(await expectRecomputed(), "chapter", "6").file_ids).toEqual([published.fileId]);
    await expectKept();

    // A retirement.
    await app.services.publication.retire([published.fileId], "replaced");
    const retired = await expectRecomputed();
    expect(retired.units.some((u) => u.kind === "chapter" && u.number === "6" && u.owned)).toBe(false);
    await expectKept();

    // A series setting (PATCH).
    await expectJson(await app.api(`/api/manga/${seriesId}`, { method: "PATCH", json: { known_book_count: 3 } }), 200);
    expect((await expectRecomputed()).units.filter((u) => u.kind === "book").length).toBe(3);
    await expectKept();
  });

  it("keeps the audit list per revision: another page or order costs two statements, no archive opened", async () => {
    await auditPage(app, seriesId);
    await app.services.pageSignatures.idle();
    const opens = archiveOpenCount();
    app.ctx.queries.reset();
    const second = await auditPage(app, seriesId, "?sort=-path");
    // The revision, and the page checks of the page's files.
    expect(app.ctx.queries.count).toBe(2);
    expect(archiveOpenCount()).toBe(opens);
    expect(second.files.map((f) => f.path)).toEqual([...second.files.map((f) => f.path)].sort().reverse());

    // A retirement changes the list at once.
    const active = second.files.find((f) => f.state === "active")!;
    await app.services.publication.retire([active.id], "bad scan");
    const after = await auditPage(app, seriesId, "?sort=-path");
    expect(after.files.find((f) => f.id === active.id)?.state).not.toBe("active");
  });

  it("keeps every view while the page checks finish, and shows their flags on the next page at once", async () => {
    const s = await createSeriesWithFiles(app, "Page Checks", { books: [], chapters: [2] });
    const dir = path.join(app.config.libraryRoot, s.folder);
    const pages = await chapterPages("Page Checks", 1, 5);
    await writePagesCbz(path.join(dir, chapterFileName("Page Checks", 1)), [...pages, await blankPage("#000000")]);
    await scanLibrary(app);
    const revisions = revisionRepo(app.ctx.db);
    const measure = async <T>(fn: () => Promise<T>) => {
      const opens = archiveOpenCount();
      app.ctx.queries.reset();
      const value = await fn();
      return { value, count: app.ctx.queries.count, opens: archiveOpenCount() - opens };
    };
    const unitsOf = () => app.api(`/api/manga/${s.id}/units`).then((r) => expectJson<RestUnits>(r, 200));
    const black = (a: Awaited<ReturnType<typeof auditPage>>) =>
      a.files.filter((f) => f.flags.includes("black_last_page")).map((f) => f.number);

    // The first list asks the background worker for the page checks of both files; none is done.
    expect(black(await auditPage(app, s.id))).toEqual([]);
    await unitsOf();
    const before = (await revisions.of([s.id])).get(s.id);
    await app.services.pageSignatures.idle();
    expect(app.services.pageSignatures.stats().computed).toBeGreaterThanOrEqual(2);

    // The finished checks moved no revision: the units and the audit list are kept.
    expect((await revisions.of([s.id])).get(s.id)).toBe(before);
    const units = await measure(unitsOf);
    expect(units.count).toBe(1);
    // The page shows the flag at once: the revision and the page's checks, no archive opened.
    const page = await measure(() => auditPage(app, s.id));
    expect(black(page.value)).toEqual(["1"]);
    expect([page.count, page.opens]).toEqual([2, 0]);
    // Orders and filters that depend on every file's checks read them for the series in one select.
    for (const query of ["?problems=true", "?flags=black_last_page", "?sort=-flags"]) {
      const r = await measure(() => auditPage(app, s.id, query));
      expect(r.value.files[0]?.number, query).toBe("1");
      expect(black(r.value), query).toEqual(["1"]);
      expect([r.count, r.opens], query).toEqual([2, 0]);
    }
    expect((await auditPage(app, s.id, "?sort=flags")).files.map((f) => f.number)).toEqual(["2", "1"]);

    // A real change still recomputes: the retired file is listed as such, without the flag.
    const id = (await auditPage(app, s.id)).files.find((f) => f.number === "1")!.id;
    await app.services.publication.retire([id], "black end page");
    const after = await measure(() => auditPage(app, s.id));
    expect(after.count).toBeGreaterThan(2);
    expect(after.value.files.find((f) => f.id === id)?.flags ?? []).not.toContain("black_last_page");
    expect(black(await auditPage(app, s.id, "?problems=true"))).toEqual([]);
  });

  it("lets another series' change keep this series' views", async () => {
    await app.services.pageSignatures.idle();
    await units();
    const other = await createSeriesWithFiles(app, "Other Series", { books: [], chapters: [1] });
    await scanLibrary(app);
    await expectKept();
    expect(other.id).not.toBe(seriesId);
  });
});

describe("the memory bound of the kept views", () => {
  /** A view of about `kb` KB (one string), and how often each series' view was computed. */
  const computed = new Map<number, number>();
  const viewOf = (id: number, kb: number) => async () => {
    computed.set(id, (computed.get(id) ?? 0) + 1);
    return { text: "x".repeat(kb * 1024) };
  };
  let ids: number[];
  beforeAll(async () => {
    ids = [];
    for (const n of [1, 2, 3])
      ids.push((await createSeriesWithFiles(app, `Bound ${n}`, { books: [], chapters: [1] })).id);
  });

  it("keeps as many series as fit the bytes, drops the one used longest ago, and always keeps the one used last", async () => {
    computed.clear();
    const views = viewCache(app.ctx, { maxSeries: 100, maxBytes: 250 * 1024 });
    const [a, b, c] = ids as [number, number, number];
    await views.get(a, "v", viewOf(a, 100));
    await views.get(b, "v", viewOf(b, 100));
    expect(views.stats()).toMatchObject({ heavySeries: 2 });
    expect(views.stats().heavyBytes).toBeGreaterThan(200 * 1024);
    // a was used last of the two: c's view pushes b out.
    await views.get(a, "v", viewOf(a, 100));
    await views.get(c, "v", viewOf(c, 100));
    expect(views.stats().heavySeries).toBe(2);
    await views.get(a, "v", viewOf(a, 100));
    await views.get(c, "v", viewOf(c, 100));
    await views.get(b, "v", viewOf(b, 100));
    expect(Object.fromEntries(computed)).toEqual({ [a]: 1, [b]: 2, [c]: 1 });
    // One view over the whole budget is still kept (alone): the next request for it is answered from memory.
    await views.get(a, "big", viewOf(a, 400));
    expect(views.stats().heavySeries).toBe(1);
    await views.get(a, "big", viewOf(a, 400));
    expect(computed.get(a)).toBe(2);
    expect(views.stats().heavyBytes).toBeLessThan(600 * 1024);
  });

  it("frees the bytes of a series whose revision moved, and of every series on clear", async () => {
    const views = viewCache(app.ctx, { maxSeries: 100, maxBytes: 10 * 1024 * 1024 });
    const [a] = ids as [number, number, number];
    await views.get(a, "v", viewOf(a, 100));
    const before = views.stats().heavyBytes;
    await app.ctx.db.$executeRawUnsafe(`UPDATE series SET title = title || ' (moved)' WHERE id = ?`, a);
    await views.get(a, "v", viewOf(a, 10));
    expect(views.stats().heavyBytes).toBeLessThan(before / 2);
    views.clear();
    expect(views.stats()).toMatchObject({ heavySeries: 0, heavyBytes: 0 });
  });

  it("keeps at most maxSeries series however small their views", async () => {
    const views = viewCache(app.ctx, { maxSeries: 2, maxBytes: 10 * 1024 * 1024 });
    for (const id of ids) await views.get(id, "v", viewOf(id, 1));
    expect(views.stats().heavySeries).toBe(2);
  });
});
