/**
 * The audit list over real HTTP and GraphQL on a real database (docs/rules.md, "The audit";
 * docs/api.md, "File audit"): every file of a series across sources, 24 a page, flags, sorting and filtering, the
 * same answers from both transports, and no archive opened to list them.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { archiveOpenCount } from "../src/library/archive-reader.ts";
import {
  addDownload,
  addMapping,
  auditPage,
  fileIds,
  GQL_AUDIT_FILE,
  idOf,
  releaseThrough,
  restFromGql,
  type RestAuditFile,
} from "./audit-fixtures.ts";
import {
  bookFileName,
  cbz,
  chapterFileName,
  createSeriesWithFiles,
  expectJson,
  expectProblem,
  markDownloaded,
  scanLibrary,
} from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const TITLE = "Audit One";
const c = (n: number) => chapterFileName(TITLE, n);

let app: TestApp;
let seriesId: number;
let ids: Map<string, number>;
/** The second copy of chapter 3, from another source (in a subfolder). */
let alt3: number;

beforeAll(async () => {
  app = await createTestApp();
  // Book 1; chapters 1–30 of 20 pages except 12 (a gap) and 7 (3 pages); a second chapter 3.
  const chapters = Array.from({ length: 30 }, (_, i) => i + 1).filter((n) => n !== 12 && n !== 7);
  const s = await createSeriesWithFiles(app, TITLE, { books: [1], chapters, chapterPages: 20 });
  seriesId = s.id;
  const dir = path.join(app.config.libraryRoot, s.folder);
  await writeFile(path.join(dir, c(7)), await cbz(3));
  await mkdir(path.join(dir, "alt"), { recursive: true });
  await writeFile(path.join(dir, "alt", c(3)), await cbz(20));
  const scan = await scanLibrary(app);
  expect(scan.errors).toEqual([]);
  expect(scan.added).toBe(31);
  ids = await fileIds(app, seriesId);
  // Book 1 as the service downloaded it (prepared state): a sound book, so its chapter files are
  // duplicates (the scan alone makes a book a hand import, which never retires a file).
  await markDownloaded(app, [idOf(ids, bookFileName(TITLE, 1))]);
  alt3 = (await app.ctx.db.libraryFile.findFirstOrThrow({ where: { seriesId, path: { contains: "/alt/" } } })).id;

  // Chapters 1–5 came from one mapping, the second chapter 3 from another mapping of the same provider.
  const md = await addMapping(app, seriesId, "suwayomi", "md-1");
  const cm = await addMapping(app, seriesId, "suwayomi", "cm-9");
  await releaseThrough(
    app,
    seriesId,
    md,
    [1, 2, 3, 4, 5].map((n) => idOf(ids, c(n))),
  );
  await releaseThrough(app, seriesId, cm, [alt3]);
  // Chapter 20's download was judged degraded for black cards.
  await addDownload(app, seriesId, {
    state: "degraded",
    fileId: idOf(ids, c(20)),
    needsReplacement: true,
    verdict: { version: 1, reasons: ["black_cards"], figures: { pages: 20, blackCards: 6, blackShare: 0.3 } },
  });
  // Chapter 30 vanished from disk.
  await rm(path.join(dir, c(30)));
  expect((await scanLibrary(app)).removed).toBe(1);
  // Book 1 holds chapters 1–4 (exact: 5–30 are the uncollected tail of a running series).
  await expectJson(
    await app.api(`/api/manga/${seriesId}/chapter-map`, {
      method: "PUT",
      json: { revision: 0, entries: [{ volume: "1", chapters: ["1", "2", "3", "4"] }] },
    }),
    200,
  );
});

afterAll(async () => {
  await app?.dispose();
});

async function allFiles(query = ""): Promise<RestAuditFile[]> {
  const out: RestAuditFile[] = [];
  for (let page = 1; ; page++) {
    const p = await auditPage(app, seriesId, `?page=${page}${query}`);
    out.push(...p.files);
    if (page * p.page_size >= p.total) return out;
  }
}

const label = (f: RestAuditFile) => (f.id === alt3 ? "c3alt" : `${f.kind[0]}${f.number}`);

async function gqlAudit(
  args: string,
): Promise<{ page: number; pageSize: number; total: number; files: RestAuditFile[] }> {
  const r = await app.gql<{
    audit: { page: number; pageSize: number; total: number; files: Record<string, unknown>[] };
  }>(`{ audit(seriesId: ${seriesId}${args}) { page pageSize total files { ${GQL_AUDIT_FILE} } } }`);
  expect(r.errors).toBeUndefined();
  const a = r.data!.audit;
  return { ...a, files: a.files.map(restFromGql) };
}

describe("audit list", () => {
  it("lists every file, 24 a page, in reading order (books first), missing files included", async () => {
    const p1 = await auditPage(app, seriesId);
    expect(p1).toMatchObject({ series_id: seriesId, page: 1, page_size: 24, total: 31 });
    expect(p1.files).toHaveLength(24);
    const p2 = await auditPage(app, seriesId, "?page=2");
    expect(p2.files).toHaveLength(7);
    expect((await auditPage(app, seriesId, "?page=3")).files).toEqual([]);
    const all = [...p1.files, ...p2.files];
    expect(all.map(label).slice(0, 7)).toEqual(["b1", "c1", "c2", "c3", "c3alt", "c4", "c5"]);
    expect(all.map(label).at(-1)).toBe("c30");
    expect(new Set(all.map((f) => f.id)).size).toBe(31);
  });

  it("an entry carries path, size, hash, pages, numbering, language, source and thumbnail URLs", async () => {
    const all = await allFiles();
    const c3 = all.find((f) => f.id === idOf(ids, c(3)))!;
    const row = await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: c3.id } });
    expect(c3).toEqual({
      id: c3.id,
      path: `${TITLE}/${c(3)}`,
      size: Number(row.size),
      sha256: row.sha256,
      page_count: 20,
      kind: "chapter",
      number: "3",
      number_end: null,
      part: null,
      language: "en",
      state: "active",
      origin: "download",
      source: { provider: "suwayomi", source_id: "md-1" },
      flags: ["duplicate", "several_sources"],
      black_share: null,
      thumbnails: {
        first: `/api/files/${c3.id}/thumbnail?page=first`,
        last: `/api/files/${c3.id}/thumbnail?page=last`,
      },
    });
    expect(all.find((f) => f.kind === "book")).toMatchObject({
      number: "1",
      page_count: 12,
      source: null,
      origin: "download",
      flags: [],
    });
  });

  it("flags each anomaly where it applies", async () => {
    const flagged = Object.fromEntries(
      (await allFiles()).filter((f) => f.flags.length > 0).map((f) => [label(f), f.flags]),
    );
    expect(flagged).toEqual({
      c1: ["duplicate"],
      c2: ["duplicate"],
      c3: ["duplicate", "several_sources"],
      c3alt: ["duplicate", "several_sources"],
      c4: ["duplicate"],
      c7: ["few_pages", "unusual_size"],
      c13: ["numbering_gap"],
      c20: ["degraded", "black_cards"],
      c30: ["unreadable"],
    });
    const all = await allFiles();
    expect(all.find((f) => f.number === "20")?.black_share).toBe(0.3);
    expect(all.find((f) => f.number === "30")).toMatchObject({ state: "missing", thumbnails: null });
  });

  it("filters: any of the flags (repeated or comma-separated), problems only, kind, provider and source id", async () => {
    const q = async (query: string) => (await allFiles(query)).map(label);
    expect(await q("&flags=duplicate")).toEqual(["c1", "c2", "c3", "c3alt", "c4"]);
    expect(await q("&flags=few_pages,numbering_gap")).toEqual(["c7", "c13"]);
    expect(await q("&flags=few_pages&flags=unreadable")).toEqual(["c7", "c30"]);
    expect(await q("&problems=true")).toHaveLength(9);
    expect(await q("&kind=book")).toEqual(["b1"]);
    expect(await q("&provider=suwayomi&source_id=cm-9")).toEqual(["c3alt"]);
    expect(await q("&provider=suwayomi")).toEqual(["c1", "c2", "c3", "c3alt", "c4", "c5"]);
    expect(await q("&language=fr")).toEqual([]);
    expect((await auditPage(app, seriesId, "?problems=true")).total).toBe(9);
  });

  it("sorts by size, pages, path, flags or id, either way; ties stay in id order", async () => {
    const bySize = await allFiles("&sort=-size");
    expect(bySize.map((f) => f.size)).toEqual([...bySize.map((f) => f.size)].sort((a, b) => b - a));
    const byPages = await allFiles("&sort=pages");
    expect(byPages.map(label).slice(0, 2)).toEqual(["c7", "b1"]);
    const twenty = byPages.filter((f) => f.page_count === 20).map((f) => f.id);
    expect(twenty).toEqual([...twenty].sort((a, b) => a - b));
    const byPath = await allFiles("&sort=path");
    expect(byPath.map((f) => f.path)).toEqual([...byPath.map((f) => f.path)].sort());
    expect((await allFiles("&sort=-flags")).slice(0, 4).map((f) => f.flags.length)).toEqual([2, 2, 2, 2]);
    const byId = await allFiles("&sort=-id");
    expect(byId.map((f) => f.id)).toEqual([...byId.map((f) => f.id)].sort((a, b) => b - a));
    expect((await auditPage(app, seriesId, "?sort=-number")).files[0]).toMatchObject({ number: "30" });
  });

  it("GraphQL gives the same pages as REST, filters and sort included", async () => {
    for (const [rest, gql] of [
      ["", ""],
      ["?page=2", ", page: 2"],
      ["?sort=-size&page=1", ', sort: "-size"'],
      ["?flags=duplicate,unreadable&kind=chapter", ", filter: { flags: [DUPLICATE, UNREADABLE], kind: CHAPTER }"],
      [
        "?problems=true&provider=suwayomi&source_id=md-1",
        ', filter: { problemsOnly: true, provider: "suwayomi", sourceId: "md-1" }',
      ],
    ] as const) {
      const r = await auditPage(app, seriesId, rest);
      const g = await gqlAudit(gql);
      expect(g, rest).toEqual({ page: r.page, pageSize: r.page_size, total: r.total, files: r.files });
    }
  });

  it("opens no archive, by REST or GraphQL (the thumbnail route does)", async () => {
    // The page checks the list asks for run in the background (they read archives); once they are
    // done, listing opens none.
    await auditPage(app, seriesId);
    await app.services.pageSignatures.idle();
    const before = archiveOpenCount();
    await allFiles("&sort=-flags");
    await auditPage(app, seriesId, "?problems=true");
    await gqlAudit(", filter: { problemsOnly: true }");
    expect(archiveOpenCount()).toBe(before);
    // The counter sees this app's archive opens: a thumbnail opens one (its random pages are no images).
    const res = await app.api(`/api/files/${idOf(ids, c(1))}/thumbnail?page=first`);
    await expectProblem(res, 422, "image_unreadable");
    expect(archiveOpenCount()).toBe(before + 1);
  });

  it("costs the same number of SQL statements for 2 files as for 31", async () => {
    const small = await createSeriesWithFiles(app, "Audit Small", { books: [], chapters: [1, 2], chapterPages: 20 });
    await scanLibrary(app);
    const count = async (id: number) => {
      app.ctx.queries.reset();
      await auditPage(app, id, "?problems=true&sort=-size");
      return app.ctx.queries.count;
    };
    // Each series changed since its list was made (the scan wrote its rows): the whole list is computed.
    const few = await count(small.id);
    expect(few).toBeGreaterThan(3);
    await app.ctx.db.series.update({ where: { id: seriesId }, data: { webtoon: false } });
    expect(await count(seriesId)).toBe(few);
    // Kept until the series changes: another page, order or filter reads the revision and the
    // current page checks (of the series for a filter on flags, else of the page's files).
    expect(await count(seriesId)).toBe(2);
    app.ctx.queries.reset();
    await auditPage(app, seriesId, "?page=2&sort=path");
    expect(app.ctx.queries.statements.join("\n")).toMatch(/series_revision/);
    expect(app.ctx.queries.count).toBe(2);
  });

  it("refuses a bad page, sort, flag, kind or boolean with 400 invalid_field, the same in GraphQL", async () => {
    for (const query of [
      "?page=0",
      "?page=x",
      "?sort=colour",
      "?sort=--size",
      "?flags=shiny",
      "?kind=omnibus",
      "?problems=maybe",
    ]) {
      const p = await expectProblem(await app.api(`/api/manga/${seriesId}/audit${query}`), 400, "invalid_field");
      expect(p.field, query).toBeDefined();
    }
    const g = await app.gql(`{ audit(seriesId: ${seriesId}, sort: "colour") { total } }`);
    expect(g.errors?.[0]?.extensions?.code).toBe("invalid_field");
    const z = await app.gql(`{ audit(seriesId: ${seriesId}, page: 0) { total } }`);
    expect(z.errors?.[0]?.extensions?.code).toBe("invalid_field");
  });

  it("an unknown series is 404 series_not_found; no credential is 401", async () => {
    await expectProblem(await app.api("/api/manga/999999/audit"), 404, "series_not_found");
    const g = await app.gql(`{ audit(seriesId: 999999) { total } }`);
    expect(g.errors?.[0]?.extensions?.code).toBe("series_not_found");
    await expectProblem(
      await app.api(`/api/manga/${seriesId}/audit`, { headers: { "x-api-key": "wrong" } }),
      401,
      "unauthenticated",
    );
  });
});
