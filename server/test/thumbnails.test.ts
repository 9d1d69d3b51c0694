/**
 * Audit thumbnails: the bounded worker and its fingerprint cache (server/src/library/thumbnails.ts)
 * on real CBZ files with real JPEG pages, and GET /api/files/{id}/thumbnail over real HTTP.
 */
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ARCHIVE_LIMITS } from "../src/config.ts";
import { isAppError } from "../src/errors.ts";
import { archiveOpenCount } from "../src/library/archive-reader.ts";
import { createThumbnails, fingerprintOf, type EdgePages, type FileFingerprint } from "../src/library/thumbnails.ts";
import { auditPage, fileIds } from "./audit-fixtures.ts";
import { expectJson, expectProblem, scanLibrary, zipBuffer } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

type Rgb = [number, number, number];
const RED: Rgb = [220, 20, 20];
const GREEN: Rgb = [20, 200, 20];
const BLUE: Rgb = [20, 20, 220];

const jpeg = (width: number, height: number, [r, g, b]: Rgb) =>
  sharp({ create: { width, height, channels: 3, background: { r, g, b } } })
    .jpeg()
    .toBuffer();

async function cbzOf(pages: Buffer[]): Promise<Buffer> {
  return zipBuffer(pages.map((data, i) => ({ name: `${String(i + 1).padStart(3, "0")}.jpg`, data })));
}

async function fingerprint(file: string): Promise<FileFingerprint> {
  const bytes = await readFile(file);
  const st = await stat(file);
  return { sha256: createHash("sha256").update(bytes).digest("hex"), size: st.size, mtimeMs: Math.trunc(st.mtimeMs) };
}

/** Width, height, format and the dominant channel of a thumbnail. */
async function look(
  data: Buffer,
): Promise<{ width: number; height: number; format: string; colour: "red" | "green" | "blue" }> {
  const meta = await sharp(data).metadata();
  const { channels } = await sharp(data).stats();
  const means = channels.slice(0, 3).map((c) => c.mean);
  const colour = (["red", "green", "blue"] as const)[means.indexOf(Math.max(...means))] as "red" | "green" | "blue";
  return { width: meta.width, height: meta.height, format: meta.format, colour };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "no error";
  } catch (e) {
    return isAppError(e) ? `${e.status} ${e.code}` : String(e);
  }
}

describe("thumbnail worker", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "mls-thumbs-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("renders first and last page 192 px wide as WebP with one archive open, then serves both from the cache", async () => {
    const file = path.join(dir, "a.cbz");
    await writeFile(
      file,
      await cbzOf([await jpeg(800, 1200, RED), await jpeg(800, 1200, GREEN), await jpeg(800, 1200, BLUE)]),
    );
    const thumbs = createThumbnails({ dir: path.join(dir, "cache"), limits: DEFAULT_ARCHIVE_LIMITS });
    const fp = await fingerprint(file);
    const opens = archiveOpenCount();
    const first = await thumbs.get(file, fp, "first");
    expect(first).toMatchObject({ contentType: "image/webp", fingerprint: fingerprintOf(fp), cached: false });
    expect(await look(first.data)).toEqual({ width: 192, height: 288, format: "webp", colour: "red" });
    const last = await thumbs.get(file, fp, "last");
    expect(last.cached).toBe(true);
    expect(await look(last.data)).toMatchObject({ width: 192, colour: "blue" });
    expect(archiveOpenCount()).toBe(opens + 1);
    expect(thumbs.stats().renders).toBe(1);

    // A second request is a file read: same bytes, no archive, no render.
    const again = await thumbs.get(file, fp, "first");
    expect(again).toMatchObject({ cached: true, fingerprint: first.fingerprint });
    expect(again.data).toEqual(first.data);
    const key = fingerprintOf(fp);
    expect(await readFile(path.join(dir, "cache", key.slice(0, 2), `${key}-first.webp`))).toEqual(first.data);
    expect(archiveOpenCount()).toBe(opens + 1);

    // A changed file has a new fingerprint and gets new thumbnails; the old ones stay under the old one.
    await writeFile(file, await cbzOf([await jpeg(600, 900, GREEN), await jpeg(600, 900, RED)]));
    const changed = await fingerprint(file);
    const fresh = await thumbs.get(file, changed, "first");
    expect(fresh).toMatchObject({ cached: false, fingerprint: fingerprintOf(changed) });
    expect(fresh.fingerprint).not.toBe(first.fingerprint);
    expect((await look(fresh.data)).colour).toBe("green");
    expect((await look((await thumbs.get(file, changed, "last")).data)).colour).toBe("red");
    expect(thumbs.stats().renders).toBe(2);
    expect(await readFile(path.join(dir, "cache", key.slice(0, 2), `${key}-first.webp`))).toEqual(first.data);
    // Asked for under the old record, the changed file is rendered as it is now, never from the old cache.
    const stale = await thumbs.get(file, fp, "first");
    expect(stale).toMatchObject({ cached: false, fingerprint: null });
    expect((await look(stale.data)).colour).toBe("green");
  });

  it("bytes on disk that differ from the record are rendered but never cached; small pages are not enlarged", async () => {
    const file = path.join(dir, "b.cbz");
    await writeFile(file, await cbzOf([await jpeg(100, 150, GREEN)]));
    const thumbs = createThumbnails({ dir: path.join(dir, "cache-b"), limits: DEFAULT_ARCHIVE_LIMITS });
    const real = await fingerprint(file);
    const recorded = { ...real, mtimeMs: real.mtimeMs - 5000 };
    for (let i = 1; i <= 2; i++) {
      const t = await thumbs.get(file, recorded, "first");
      expect(t).toMatchObject({ cached: false, fingerprint: null });
      expect(thumbs.stats().renders).toBe(i);
    }
    const t = await thumbs.get(file, real, "last");
    expect(await look(t.data)).toMatchObject({ width: 100, height: 150, colour: "green" });
  });

  it("answers the reader's codes for a missing file, an archive without pages and a page that is no image", async () => {
    const thumbs = createThumbnails({ dir: path.join(dir, "cache-c"), limits: DEFAULT_ARCHIVE_LIMITS });
    const fp = { sha256: "0".repeat(64), size: 1, mtimeMs: 1 };
    expect(await codeOf(thumbs.get(path.join(dir, "nope.cbz"), fp, "first"))).toBe("404 archive_not_found");
    const empty = path.join(dir, "empty.cbz");
    await writeFile(empty, await zipBuffer([{ name: "notes.txt", data: Buffer.from("hi") }]));
    expect(await codeOf(thumbs.get(empty, fp, "first"))).toBe("422 archive_unreadable");
    const noise = path.join(dir, "noise.cbz");
    await writeFile(noise, await zipBuffer([{ name: "001.jpg", data: Buffer.from("not a jpeg at all") }]));
    expect(await codeOf(thumbs.get(noise, fp, "first"))).toBe("422 image_unreadable");
  });

  it("one render at a time; a bounded waiting list refuses the overflow with 503 thumbnails_busy; one file shares its render", async () => {
    const file = path.join(dir, "c.cbz");
    await writeFile(file, "placeholder: the edge reader below is the archive");
    const page = await jpeg(300, 400, BLUE);
    let active = 0;
    let maxActive = 0;
    const gates: (() => void)[] = [];
    const readEdges = async (): Promise<EdgePages> => {
      active += 1;
      maxActive = Math.max(maxActive, active);
      await new Promise<void>((resolve) => gates.push(resolve));
      active -= 1;
      return { first: page, last: page };
    };
    const thumbs = createThumbnails({
      dir: path.join(dir, "cache-d"),
      limits: DEFAULT_ARCHIVE_LIMITS,
      maxWaiting: 2,
      readEdges,
    });
    const st = await stat(file);
    const fp = (n: number) => ({
      sha256: String(n).repeat(64).slice(0, 64),
      size: st.size,
      mtimeMs: Math.trunc(st.mtimeMs),
    });
    const until = async (cond: () => boolean) => {
      for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
      expect(cond()).toBe(true);
    };

    const a = thumbs.get(file, fp(1), "first");
    await until(() => gates.length === 1);
    const aLast = thumbs.get(file, fp(1), "last");
    // Each request first looks in the cache (file I/O, completing in any order): let each one take
    // its place in the waiting list before the next arrives, so the overflow is the fourth file.
    const b = thumbs.get(file, fp(2), "first");
    await until(() => thumbs.stats().waiting === 1);
    const c = thumbs.get(file, fp(3), "first");
    await until(() => thumbs.stats().waiting === 2);
    expect(await codeOf(thumbs.get(file, fp(4), "first"))).toBe("503 thumbnails_busy");
    expect(thumbs.stats()).toMatchObject({ running: true, waiting: 2, renders: 1 });

    for (let done = 1; done <= 3; done++) {
      await until(() => gates.length === done);
      gates[done - 1]!();
    }
    const results = await Promise.all([a, aLast, b, c]);
    expect(results.map((r) => r.cached)).toEqual([false, false, false, false]);
    expect(maxActive).toBe(1);
    expect(thumbs.stats()).toMatchObject({ running: false, waiting: 0, renders: 3 });
    // Room again: the refused file renders now.
    const d = thumbs.get(file, fp(4), "first");
    await until(() => gates.length === 4);
    gates[3]!();
    expect((await d).fingerprint).toBe(fingerprintOf(fp(4)));
  });
});

describe("GET /api/files/{id}/thumbnail", () => {
  let app: TestApp;
  let seriesId: number;
  let fileId: number;
  let chapterPath: string;

  beforeAll(async () => {
    app = await createTestApp();
    const s = await expectJson<{ id: number; folder: string }>(
      await app.api("/api/manga", { method: "POST", json: { title: "Thumbs" } }),
      201,
    );
    seriesId = s.id;
    chapterPath = path.join(app.config.libraryRoot, s.folder, "Thumbs - c001.cbz");
    await mkdir(path.dirname(chapterPath), { recursive: true });
    await writeFile(
      chapterPath,
      await cbzOf([await jpeg(800, 1200, RED), await jpeg(800, 1200, GREEN), await jpeg(800, 1200, BLUE)]),
    );
    await scanLibrary(app);
    fileId = [...(await fileIds(app, seriesId)).values()][0] as number;
  });
  afterAll(async () => {
    await app?.dispose();
  });

  const get = (query: string, headers: Record<string, string> = {}) =>
    app.api(`/api/files/${fileId}/thumbnail${query}`, { headers });

  it("answers WebP with the fingerprint as ETag, revalidated; a matching If-None-Match is 304 without reading anything", async () => {
    const opens = archiveOpenCount();
    const first = await get("?page=first");
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("image/webp");
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{40}-first"$/);
    const firstBytes = Buffer.from(await first.arrayBuffer());
    expect(await look(firstBytes)).toEqual({ width: 192, height: 288, format: "webp", colour: "red" });
    const last = await get("?page=last");
    expect(last.headers.get("etag")).toBe(etag!.replace("-first", "-last"));
    expect((await look(Buffer.from(await last.arrayBuffer()))).colour).toBe("blue");
    expect(archiveOpenCount()).toBe(opens + 1);

    const revalidated = await get("?page=first", { "if-none-match": etag! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("etag")).toBe(etag);
    const cached = await get("");
    expect(Buffer.from(await cached.arrayBuffer())).toEqual(firstBytes);
    expect(archiveOpenCount()).toBe(opens + 1);
    // The audit list hands out these URLs.
    expect((await auditPage(app, seriesId)).files[0]?.thumbnails).toEqual({
      first: `/api/files/${fileId}/thumbnail?page=first`,
      last: `/api/files/${fileId}/thumbnail?page=last`,
    });
  });

  it("a changed file (after a scan) gets a new ETag and new thumbnails", async () => {
    const before = (await get("?page=first")).headers.get("etag");
    await writeFile(chapterPath, await cbzOf([await jpeg(640, 960, GREEN)]));
    expect((await scanLibrary(app)).changed).toBe(1);
    const res = await get("?page=first", { "if-none-match": before! });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).not.toBe(before);
    expect((await look(Buffer.from(await res.arrayBuffer()))).colour).toBe("green");
  });

  it("refuses a bad side, an unknown or retired file, and a caller without credential", async () => {
    await expectProblem(await get("?page=middle"), 400, "invalid_field");
    await expectProblem(await app.api("/api/files/999999/thumbnail"), 404, "file_not_found");
    await expectProblem(await app.api("/api/files/x/thumbnail"), 400, "bad_request");
    await expectProblem(await get("", { "x-api-key": "wrong" }), 401, "unauthenticated");
    await app.ctx.db.libraryFile.update({ where: { id: fileId }, data: { state: "missing" } });
    await expectProblem(await get("?page=first"), 404, "file_not_found");
    await app.ctx.db.libraryFile.update({ where: { id: fileId }, data: { state: "active" } });
  });
});
