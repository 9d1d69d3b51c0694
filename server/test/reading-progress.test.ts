/**
 * Reading progress from an empty service, through the public API only: REST and GraphQL agree,
 * bad input changes nothing, and the place follows the content — chapters read (completed, or to
 * page 3) and assembled into a book open the book at the first page of the first chapter not
 * completed, through REST, KOReader sync and OPDS alike; a retired copy hands its place to the copy
 * that stays; an external volume replacing the assembly takes the book's place.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectJson, expectProblem } from "./fixtures.ts";
import { asReader, imageCbz, readerSeries, unitFileIds } from "./readers-fixtures.ts";
import { koreaderPartialMd5 } from "./koreader-hash.ts";
import { shareTestApp, TEST_PASSWORD, type TestApp } from "./utils.ts";
import { writeFile } from "node:fs/promises";

let app: TestApp;
shareTestApp((a) => (app = a));

interface RestProgress {
  file_id: number;
  page: number;
  completed: boolean;
  page_count: number;
  updated_at: string | null;
  device: string | null;
}

const progress = async (fileId: number) =>
  expectJson<RestProgress>(await app.api(`/api/files/${fileId}/progress`), 200);
const put = (fileId: number, json: unknown) => app.api(`/api/files/${fileId}/progress`, { method: "PUT", json });
const koHeaders = {
  "x-auth-user": "admin",
  "x-auth-key": createHash("md5").update(TEST_PASSWORD).digest("hex"),
  accept: "application/vnd.koreader.v1+json",
};

async function assemble(seriesId: number, volume: string): Promise<number> {
  const preview = await expectJson<{ confirmation: string }>(
    await app.api(`/api/manga/${seriesId}/volumes/${volume}/assemble?dry_run=true`, { method: "POST", json: {} }),
    200,
  );
  const done = await expectJson<{ file_id: number }>(
    await app.api(`/api/manga/${seriesId}/volumes/${volume}/assemble?dry_run=false`, {
      method: "POST",
      json: { confirmation: preview.confirmation },
    }),
    200,
  );
  return done.file_id;
}

/** A file's library path through the public audit listing (GET /api/manga/{id}/audit). */
async function pathOf(seriesId: number, fileId: number): Promise<string> {
  const audit = await expectJson<{ files: { id: number; path: string }[] }>(
    await app.api(`/api/manga/${seriesId}/audit?page=1`),
    200,
  );
  const f = audit.files.find((x) => x.id === fileId);
  if (!f) throw new Error(`file ${fileId} is not in the audit of series ${seriesId}`);
  return path.join(app.config.libraryRoot, f.path);
}

async function mapBook(seriesId: number, volume: string, chapters: string[]) {
  await expectJson(
    await app.api(`/api/manga/${seriesId}/chapter-map`, {
      method: "PUT",
      json: { revision: 0, entries: [{ volume, chapters }] },
    }),
    200,
  );
}

describe("progress per file: REST and GraphQL", () => {
  it("starts unread, takes a page, refuses pages outside the file, and both APIs agree", async () => {
    const s = await readerSeries(app, "Progress Basics", [{ name: "Progress Basics c001.cbz", pages: 5 }]);
    const [id] = await unitFileIds(app, s.id, "chapter", "1");
    expect(await progress(id!)).toEqual({
      file_id: id,
      page: 1,
      completed: false,
      page_count: 5,
      updated_at: null,
      device: null,
    });

    const saved = await expectJson<RestProgress>(await put(id!, { page: 3, completed: false }), 200);
    expect(saved).toMatchObject({ page: 3, completed: false, device: "web" });
    const g = await app.gql<{
      fileProgress: { page: number; completed: boolean; pageCount: number; updatedAt: string };
    }>(`query($f:Int!){ fileProgress(fileId:$f){ page completed pageCount updatedAt } }`, { f: id });
    expect(g.data?.fileProgress).toEqual({ page: 3, completed: false, pageCount: 5, updatedAt: saved.updated_at });

    // Out of the file, not a number, nothing: 400 invalid_field in REST, the same code in GraphQL, nothing changes.
    await expectProblem(await put(id!, { page: 6 }), 400, "invalid_field");
    await expectProblem(await put(id!, { page: 0 }), 400, "invalid_field");
    await expectProblem(await put(id!, { page: "2" }), 400, "invalid_field");
    await expectProblem(await put(id!, {}), 400, "invalid_field");
    const bad = await app.gql(`mutation($f:Int!){ setFileProgress(fileId:$f, page: 9){ page } }`, { f: id });
    expect(bad.errors?.[0]?.extensions?.code).toBe("invalid_field");
    expect((await progress(id!)).page).toBe(3);

    // Completed without a page: the last page.
    const g2 = await app.gql<{ setFileProgress: { page: number; completed: boolean } }>(
      `mutation($f:Int!){ setFileProgress(fileId:$f, completed: true){ page completed } }`,
      { f: id },
    );
    expect(g2.data?.setFileProgress).toEqual({ page: 5, completed: true });
    expect(await progress(id!)).toMatchObject({ page: 5, completed: true });

    // Unknown file: 404 in both.
    await expectProblem(await app.api(`/api/files/999999/progress`), 404, "file_not_found");
    const missing = await app.gql(`query{ fileProgress(fileId: 999999){ page } }`);
    expect(missing.errors?.[0]?.extensions?.code).toBe("file_not_found");

    // Forgetting it.
    expect(
      await expectJson<RestProgress>(await app.api(`/api/files/${id}/progress`, { method: "DELETE" }), 200),
    ).toMatchObject({
      page: 1,
      completed: false,
      updated_at: null,
    });
  });

  it("continue reading lists the unfinished file, then the next one after a finished file", async () => {
    const s = await readerSeries(app, "Continue Me", [
      { name: "Continue Me c001.cbz", pages: 4 },
      { name: "Continue Me c002.cbz", pages: 4 },
    ]);
    const [c1] = await unitFileIds(app, s.id, "chapter", "1");
    const [c2] = await unitFileIds(app, s.id, "chapter", "2");
    await expectJson(await put(c1!, { page: 2 }), 200);
    let list = await expectJson<{ file_id: number; page: number }[]>(
      await app.api(`/api/reading/continue?manga_id=${s.id}`),
      200,
    );
    expect(list.map((e) => [e.file_id, e.page])).toEqual([[c1, 2]]);
    await expectJson(await put(c1!, { completed: true }), 200);
    list = await expectJson(await app.api(`/api/reading/continue?manga_id=${s.id}`), 200);
    expect(list.map((e) => [e.file_id, e.page])).toEqual([[c2, 1]]);
    const g = await app.gql<{ continueReading: { fileId: number; title: string }[] }>(
      `query($s:Int){ continueReading(seriesId:$s){ fileId title } }`,
      { s: s.id },
    );
    expect(g.data?.continueReading).toEqual([{ fileId: c2, title: "Chapter 2" }]);
  });
});

describe("progress follows the content", () => {
  it("assembly: chapters 1–2 completed and chapter 3 read to page 3 open the book at chapter 3's first page (REST, KOReader, OPDS)", async () => {
    const s = await readerSeries(app, "Assembled Place", [
      { name: "Assembled Place c001.cbz", pages: 4 },
      { name: "Assembled Place c002.cbz", pages: 5 },
      { name: "Assembled Place c003.cbz", pages: 6 },
    ]);
    await mapBook(s.id, "1", ["1", "2", "3"]);
    const [c1] = await unitFileIds(app, s.id, "chapter", "1");
    const [c2] = await unitFileIds(app, s.id, "chapter", "2");
    const [c3] = await unitFileIds(app, s.id, "chapter", "3");
    await expectJson(await put(c1!, { completed: true }), 200);
    await expectJson(await put(c2!, { page: 5, completed: true }), 200);
    await expectJson(await put(c3!, { page: 3 }), 200);

    const book = await assemble(s.id, "1");
    // 4 + 5 pages completed: the book opens at page 10, chapter 3's first page.
    expect(await progress(book)).toMatchObject({ page: 10, completed: false, page_count: 15, device: "followed" });
    // The chapter files left the library; their places moved.
    await expectProblem(await app.api(`/api/files/${c3}/progress`), 404, "file_not_found");

    // KOReader sees the same place for the book's document hash.
    const doc = koreaderPartialMd5(await readFile(await pathOf(s.id, book)));
    const ko = await expectJson<{ progress: string; percentage: number }>(
      await fetch(`${app.baseUrl}/koreader/syncs/progress/${doc}`, { headers: koHeaders }),
      200,
    );
    expect(ko.progress).toBe("10");
    // OPDS: pse:lastRead counts from 1 (OPDS-PSE 1.1), unlike {pageNumber}.
    const feed = await (await asReader(app, `/opds/v1.2/series/${s.id}`)).text();
    expect(feed).toMatch(
      new RegExp(`/opds/v1.2/files/${book}/pages/\\{pageNumber\\}"[^>]*pse:count="15"[^>]*pse:lastRead="10"`),
    );
  });

  it("the same when the chapters were read through KOReader sync and OPDS page streaming", async () => {
    const s = await readerSeries(app, "Synced Place", [
      { name: "Synced Place c001.cbz", pages: 3 },
      { name: "Synced Place c002.cbz", pages: 4 },
      { name: "Synced Place c003.cbz", pages: 5 },
    ]);
    await mapBook(s.id, "1", ["1", "2", "3"]);
    const ids = await Promise.all(["1", "2", "3"].map(async (n) => (await unitFileIds(app, s.id, "chapter", n))[0]!));
    // Hashed before the assembly moves the chapters to the recycle bin.
    const hashes = new Map<number, string>();
    const hashOf = async (id: number) => {
      if (!hashes.has(id)) hashes.set(id, koreaderPartialMd5(await readFile(await pathOf(s.id, id))));
      return hashes.get(id)!;
    };
    // Chapter 1 read to its last page in KOReader.
    const put1 = await fetch(`${app.baseUrl}/koreader/syncs/progress`, {
      method: "PUT",
      headers: { ...koHeaders, "content-type": "application/json" },
      body: JSON.stringify({
        document: await hashOf(ids[0]!),
        progress: "3",
        percentage: 1,
        device: "Kobo",
        device_id: "K1",
      }),
    });
    expect(put1.status).toBe(200);
    // Chapter 2 streamed to its last page over OPDS-PSE (0-based page 3 of 4).
    for (let n = 0; n < 4; n++) expect((await asReader(app, `/opds/v1.2/files/${ids[1]}/pages/${n}`)).status).toBe(200);
    // Chapter 3 in KOReader at page 3.
    await fetch(`${app.baseUrl}/koreader/syncs/progress`, {
      method: "PUT",
      headers: { ...koHeaders, "content-type": "application/json" },
      body: JSON.stringify({
        document: await hashOf(ids[2]!),
        progress: "3",
        percentage: 0.4,
        device: "Kobo",
        device_id: "K1",
      }),
    });
    expect((await progress(ids[0]!)).completed).toBe(true);
    expect((await progress(ids[1]!)).completed).toBe(true);

    const book = await assemble(s.id, "1");
    const ko = await expectJson<{ progress: string }>(
      await fetch(`${app.baseUrl}/koreader/syncs/progress/${await hashOf(book)}`, { headers: koHeaders }),
      200,
    );
    expect(ko.progress).toBe("8");
    expect((await progress(book)).page).toBe(8);
  });

  it("a retired copy of a chapter hands its place to the copy that stays", async () => {
    const s = await readerSeries(app, "Two Copies", [
      { name: "Two Copies c007 [GroupA].cbz", pages: 6 },
      { name: "Two Copies c007 [GroupB].cbz", pages: 6 },
    ]);
    const [a, b] = await unitFileIds(app, s.id, "chapter", "7");
    expect(b).toBeDefined();
    await expectJson(await put(a!, { page: 4 }), 200);
    const preview = await expectJson<{ confirmation: string }>(
      await app.api(`/api/manga/${s.id}/audit/retire/preview`, { method: "POST", json: { file_ids: [a] } }),
      200,
    );
    await expectJson(
      await app.api(`/api/manga/${s.id}/audit/retire`, {
        method: "POST",
        json: { confirmation: preview.confirmation },
      }),
      200,
    );
    expect(await progress(b!)).toMatchObject({ page: 4, completed: false });
  });

  it("an external volume replacing an assembly takes the book's place", async () => {
    const s = await readerSeries(app, "External Wins", [
      { name: "External Wins c001.cbz", pages: 4 },
      { name: "External Wins c002.cbz", pages: 4 },
    ]);
    await mapBook(s.id, "1", ["1", "2"]);
    const [c1] = await unitFileIds(app, s.id, "chapter", "1");
    await expectJson(await put(c1!, { completed: true }), 200);
    const assembled = await assemble(s.id, "1");
    expect((await progress(assembled)).page).toBe(5);
    // A book placed by hand is a hand import: it replaces the assembly once a proof verifies it.
    const bytes = await imageCbz(9, 99);
    await writeFile(path.join(s.dir, "External Wins v01.cbz"), bytes);
    await expectJson(await app.api("/api/library/scan", { method: "POST" }), 200);
    await expectJson(
      await app.api(`/api/manga/${s.id}/volumes/1/verification`, {
        method: "PUT",
        json: {
          digest: `sha256:${createHash("sha256").update(bytes).digest("hex")}`,
          chapters: ["1", "2"],
          note: "compared page by page",
        },
      }),
      200,
    );
    const [external] = await unitFileIds(app, s.id, "book", "1");
    expect(external).not.toBe(assembled);
    expect(await progress(external!)).toMatchObject({ page: 5, completed: false });
  });
});
