/**
 * The reader's pages over real HTTP on real CBZ files: GET /api/files/{id}/pages and
 * /api/files/{id}/pages/{index}, GraphQL filePages. Pages come from the archive through the hardened
 * reader (never extracted), with the content type from their bytes, an ETag and a 304; only active
 * files are served; the session cookie works as it does for an <img>.
 */
import { utimes, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZipFile } from "yazl";
import { archiveOpenCount } from "../src/library/archive-reader.ts";
import { expectJson, expectProblem, scanLibrary } from "./fixtures.ts";
import { createTestApp, TEST_PASSWORD, type TestApp } from "./utils.ts";

const base = (w: number, h: number) =>
  sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 80, b: 40 } } });

interface Entry {
  name: string;
  data: Buffer;
  compress?: boolean;
}

async function cbzOf(entries: Entry[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const e of entries)
    zip.addBuffer(e.data, e.name, { mtime: new Date(Date.UTC(2024, 0, 1)), compress: e.compress ?? false });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

interface RestPages {
  file_id: number;
  series_id: number;
  kind: string;
  number: string | null;
  page_count: number;
  pages: { index: number; name: string; width: number | null; height: number | null }[];
}

describe("file pages", () => {
  let app: TestApp;
  let seriesId: number;
  let bookId: number;
  let pages: Entry[];
  const dir = () => path.join(app.config.libraryRoot, "Reader Test");
  const bookPath = () => path.join(dir(), "Reader Test v01.cbz");

  beforeAll(async () => {
    app = await createTestApp();
    // Natural order (page2 before page10) differs from the entries' order; one page deflated; four formats.
    pages = [
      { name: "page10.webp", data: await base(500, 700).webp().toBuffer() },
      { name: "page2.png", data: await base(640, 960).png().toBuffer() },
      { name: "page1.jpg", data: await base(600, 900).jpeg().toBuffer(), compress: true },
      { name: "page3.gif", data: await base(90, 120).gif().toBuffer() },
      { name: "page4.avif", data: await base(210, 330).avif({ effort: 0 }).toBuffer() },
      { name: "notes.txt", data: Buffer.from("not a page") },
    ];
    await mkdir(dir(), { recursive: true });
    await writeFile(bookPath(), await cbzOf(pages));
    await scanLibrary(app);
    const file = await app.ctx.db.libraryFile.findFirstOrThrow({ where: { path: "Reader Test/Reader Test v01.cbz" } });
    bookId = file.id;
    seriesId = file.seriesId;
  });
  afterAll(async () => {
    await app?.dispose();
  });

  const listing = async (id: number) => expectJson<RestPages>(await app.api(`/api/files/${id}/pages`), 200);

  it("lists the pages in reading order with their sizes from the image headers; REST and GraphQL agree", async () => {
    const rest = await listing(bookId);
    expect(rest).toEqual({
      file_id: bookId,
      series_id: seriesId,
      kind: "book",
      number: "1",
      page_count: 5,
      pages: [
        { index: 1, name: "page1.jpg", width: 600, height: 900 },
        { index: 2, name: "page2.png", width: 640, height: 960 },
        { index: 3, name: "page3.gif", width: 90, height: 120 },
        { index: 4, name: "page4.avif", width: 210, height: 330 },
        { index: 5, name: "page10.webp", width: 500, height: 700 },
      ],
    });
    const g = await app.gql<{ filePages: Record<string, unknown> }>(
      `query($id: Int!) { filePages(fileId: $id) { fileId seriesId kind number pageCount pages { index name width height url } } }`,
      { id: bookId },
    );
    expect(g.data?.filePages).toEqual({
      fileId: bookId,
      seriesId,
      kind: "BOOK",
      number: "1",
      pageCount: 5,
      pages: rest.pages.map((p) => ({ ...p, url: `/api/files/${bookId}/pages/${p.index}` })),
    });
  });

  it("serves each page's own bytes with the content type of its format, an ETag and a private max-age", async () => {
    const types = ["image/jpeg", "image/png", "image/gif", "image/avif", "image/webp"];
    const order = ["page1.jpg", "page2.png", "page3.gif", "page4.avif", "page10.webp"];
    const etags = new Set<string>();
    for (let i = 1; i <= 5; i++) {
      const res = await app.api(`/api/files/${bookId}/pages/${i}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(types[i - 1]);
      expect(res.headers.get("cache-control")).toBe("private, max-age=3600");
      const etag = res.headers.get("etag");
      expect(etag).toMatch(/^"[0-9a-f]{40}-p\d+"$/);
      etags.add(etag!);
      expect(Buffer.from(await res.arrayBuffer()).equals(pages.find((p) => p.name === order[i - 1])!.data)).toBe(true);
    }
    expect(etags.size).toBe(5);
  });

  it("answers 304 to its ETag without opening the archive; the listing is cached the same way", async () => {
    const first = await app.api(`/api/files/${bookId}/pages/2`);
    const etag = first.headers.get("etag")!;
    await first.arrayBuffer();
    await listing(bookId);
    const opens = archiveOpenCount();
    const again = await app.api(`/api/files/${bookId}/pages/2`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect((await listing(bookId)).page_count).toBe(5);
    expect(archiveOpenCount()).toBe(opens);
    // Another page's ETag is no match.
    expect((await app.api(`/api/files/${bookId}/pages/3`, { headers: { "if-none-match": etag } })).status).toBe(200);
  });

  it("a file changed on disk since the scan is served from its bytes without an ETag, and not cached", async () => {
    const later = new Date(Date.now() + 60_000);
    await utimes(bookPath(), later, later);
    try {
      const res = await app.api(`/api/files/${bookId}/pages/1`);
      expect(res.status).toBe(200);
      expect(res.headers.get("etag")).toBeNull();
      expect(res.headers.get("cache-control")).toBe("no-store");
      const opens = archiveOpenCount();
      await listing(bookId);
      expect(archiveOpenCount()).toBe(opens + 1);
    } finally {
      await scanLibrary(app);
    }
  });

  it("bad indexes, unknown, missing and recycled files, refused archives", async () => {
    await expectProblem(await app.api(`/api/files/${bookId}/pages/6`), 404, "page_not_found");
    await expectProblem(await app.api(`/api/files/${bookId}/pages/0`), 400, "bad_request");
    await expectProblem(await app.api(`/api/files/${bookId}/pages/x`), 400, "bad_request");
    await expectProblem(await app.api(`/api/files/999999/pages`), 404, "file_not_found");
    await expectProblem(await app.api(`/api/files/999999/pages/1`), 404, "file_not_found");
    expect((await app.gql(`{ filePages(fileId: 999999) { fileId } }`)).errors?.[0]?.extensions).toMatchObject({
      code: "file_not_found",
      status: 404,
    });
    // An archive cut short after its scan (a scan records a refused archive as an error, not a file).
    const whole = await cbzOf(pages);
    await writeFile(path.join(dir(), "Reader Test v02.cbz"), whole.subarray(0, whole.length >> 1));
    const broken = await app.ctx.db.libraryFile.create({
      data: {
        seriesId,
        path: "Reader Test/Reader Test v02.cbz",
        size: 10n,
        mtimeMs: 1n,
        sha256: "0".repeat(64),
        pageCount: 3,
        kind: "book",
        volume: "2",
      },
    });
    const p = await expectProblem(await app.api(`/api/files/${broken.id}/pages`), 422, "archive_truncated");
    expect(JSON.stringify(p)).not.toContain(app.config.libraryRoot);
    await expectProblem(await app.api(`/api/files/${broken.id}/pages/1`), 422, "archive_truncated");
    for (const state of ["missing", "recycled"]) {
      await app.ctx.db.libraryFile.update({ where: { id: bookId }, data: { state } });
      try {
        await expectProblem(await app.api(`/api/files/${bookId}/pages`), 404, "file_not_found");
        await expectProblem(await app.api(`/api/files/${bookId}/pages/1`), 404, "file_not_found");
      } finally {
        await app.ctx.db.libraryFile.update({ where: { id: bookId }, data: { state: "active" } });
      }
    }
  });

  it("the web session cookie is enough (an <img src>); no credential is 401", async () => {
    const login = await fetch(`${app.baseUrl}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: TEST_PASSWORD }),
    });
    expect(login.status).toBe(204);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const img = await fetch(`${app.baseUrl}/api/files/${bookId}/pages/1`, { headers: { cookie } });
    expect(img.status).toBe(200);
    expect(img.headers.get("content-type")).toBe("image/jpeg");
    await expectProblem(await fetch(`${app.baseUrl}/api/files/${bookId}/pages/1`), 401, "unauthenticated");
  });
});
