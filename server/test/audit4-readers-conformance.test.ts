/**
 * Reader apps other than OPDS, probed from an empty service as the apps call them: a library folder
 * the test writes, a scan and every request through the public API.
 *
 * Where each expected shape comes from:
 * - Spring Data's paging as Komga answers lists (gotson/komga, interfaces/api/rest/SeriesController.kt
 *   and BookController.kt take a Spring `Pageable`; Spring's PageableHandlerMethodArgumentResolver
 *   reads a negative `page` as 0, a `size` below 1 as the default 20 and caps it at 2000, and ignores a
 *   value that is not a number; PageImpl gives `last`, `first`, `empty`, `totalPages`).
 * - Komga's 404 for an unknown id (SeriesController.kt / BookController.kt: `findByIdOrNull ?: throw
 *   ResponseStatusException(NOT_FOUND)`); Komga's ids are strings, so any id it does not know is 404.
 * - Mihon's Komga extension (keiyoushi/extensions-source, src/all/komga/.../Komga.kt): the books of a
 *   series with `unpaged=true&media_status=READY&deleted=false`, series with `page`, `size`, `search`,
 *   `sort`.
 * - Komga's tracker endpoint (gotson/komga, SeriesController.kt `getReadProgressTachiyomiV2` /
 *   `markReadProgressTachiyomiV2`, dto/TachiyomiReadProgressV2Dto.kt, ReadProgressDtoDao.kt): counts,
 *   `lastReadContinuousNumberSort` = numberSort of the last book of the unbroken read run from the
 *   first book (0 when the first is unread), `maxNumberSort`; PUT marks every book numbered up to
 *   `lastBookNumberSortRead` as read and answers 204.
 * - KOReader's sync protocol (koreader/koreader, plugins/kosync.koplugin/KOSyncClient.lua and
 *   main.lua; the reference koreader/koreader-sync-server, app/controllers/1/syncs.lua): bad
 *   credentials are 401 `{ "code": 2001, "message": "Unauthorized" }`; a body without `document`
 *   carries code 2004, other invalid fields code 2003; a PUT always replaces the stored place (the
 *   server keeps no history: KOReader itself compares the timestamps and percentages); timestamps are
 *   whole seconds. Komga (interfaces/api/kosync/KoreaderSyncController.kt) answers an unknown document
 *   with 404.
 */
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { expectJson, expectProblem } from "./fixtures.ts";
import { koreaderFileNameMd5 } from "./koreader-hash.ts";
import { asReader, readerSeries, unitFileIds } from "./readers-fixtures.ts";
import { shareTestApp, TEST_PASSWORD, type TestApp } from "./utils.ts";

let app: TestApp;
shareTestApp((a) => (app = a));

const md5 = (s: string) => createHash("md5").update(s).digest("hex");
const KOSYNC = "application/vnd.koreader.v1+json";
const koAdmin = { "x-auth-user": "admin", "x-auth-key": md5(TEST_PASSWORD), accept: KOSYNC };

const komga = (p: string, init: RequestInit & { json?: unknown } = {}) => asReader(app, `/komga${p}`, init);
const getJson = async <T = Record<string, unknown>>(p: string) => expectJson<T>(await komga(p), 200);
const ko = (p: string, headers: Record<string, string>, init: RequestInit = {}) =>
  fetch(`${app.baseUrl}/koreader${p}`, {
    ...init,
    headers: { ...headers, ...(init.body ? { "content-type": "application/json" } : {}) },
  });

interface SpringPage<T = { id: string; name: string }> {
  content: T[];
  totalElements: number;
  totalPages: number;
  number: number;
  size: number;
  first: boolean;
  last: boolean;
  empty: boolean;
  numberOfElements: number;
}

let mixed: { id: number };
let chapterFile: number;

beforeAll(async () => {
  // Four series for paging; one mixed series (a book and chapters after it) for numbering and tracking.
  for (const t of ["Audit Alpha", "Audit Beta"]) await readerSeries(app, t, [{ name: `${t} c001.cbz`, pages: 2 }]);
  mixed = await readerSeries(app, "Audit Mixed", [
    { name: "Audit Mixed v01.cbz", pages: 3 },
    { name: "Audit Mixed c010.cbz", pages: 2 },
    { name: "Audit Mixed c011.cbz", pages: 4 },
    { name: "Audit Mixed c012.cbz", pages: 2 },
  ]);
  chapterFile = (await unitFileIds(app, mixed.id, "chapter", "11"))[0]!;
  await readerSeries(app, "Audit Beta Two", [
    { name: "Audit Beta Two c001.cbz", pages: 1 },
    { name: "Audit Beta Two c002.cbz", pages: 1 },
    { name: "Audit Beta Two c003.cbz", pages: 1 },
  ]);
});

describe("Komga-compatible paging as Spring answers it", () => {
  it("a page past the end is empty with the real totals; last and not first", async () => {
    const p = await getJson<SpringPage>("/api/v1/series?page=50&size=2");
    expect(p).toMatchObject({ content: [], number: 50, size: 2, totalElements: 4, totalPages: 2 });
    expect(p).toMatchObject({ first: false, last: true, empty: true, numberOfElements: 0 });
  });

  it("size 0 is the default 20, a huge size is capped at 2000, a negative page is the first", async () => {
    expect(await getJson<SpringPage>("/api/v1/series?size=0")).toMatchObject({ size: 20, totalPages: 1 });
    expect((await getJson<SpringPage>("/api/v1/series?size=0")).content).toHaveLength(4);
    expect(await getJson<SpringPage>("/api/v1/series?size=999999")).toMatchObject({ size: 2000, totalPages: 1 });
    expect(await getJson<SpringPage>("/api/v1/series?page=-1&size=2")).toMatchObject({ number: 0, first: true });
    // Not a number: Spring ignores it and takes the default.
    expect(await getJson<SpringPage>("/api/v1/series?page=x&size=y")).toMatchObject({ number: 0, size: 20 });
  });

  it("the extension's book list of a mixed series: unpaged, READY, in reading order numbered 1…n", async () => {
    const p = await getJson<SpringPage<{ name: string; number: number; metadata: { numberSort: number } }>>(
      `/api/v1/series/${mixed.id}/books?unpaged=true&media_status=READY&deleted=false&sort=metadata.numberSort,asc`,
    );
    // The series page's order (a chapters-form series without a map: its chapters, then its books).
    const units = await expectJson<{ units: { kind: string; number: string }[] }>(
      await app.api(`/api/manga/${mixed.id}/units`),
      200,
    );
    const names = units.units.map((u) => `${u.kind === "book" ? "Volume" : "Chapter"} ${u.number}`);
    expect(names).toEqual(["Chapter 10", "Chapter 11", "Chapter 12", "Volume 1"]);
    expect(p.content.map((b) => b.name)).toEqual(names);
    expect(p.content.map((b) => b.metadata.numberSort)).toEqual([1, 2, 3, 4]);
    expect(p).toMatchObject({ totalElements: 4, totalPages: 1, size: 4, last: true, first: true });
    const desc = await getJson<SpringPage<{ name: string }>>(
      `/api/v1/series/${mixed.id}/books?unpaged=true&sort=metadata.numberSort,desc`,
    );
    expect(desc.content.map((b) => b.name)).toEqual([...names].reverse());
  });

  it("an unknown series or book is 404, whatever the id looks like", async () => {
    for (const p of [
      "/api/v1/series/999999",
      "/api/v1/series/0ABCDEF",
      "/api/v1/series/999999/books",
      "/api/v1/books/999999",
      "/api/v1/books/0ABCDEF",
      "/api/v1/books/0ABCDEF/pages",
      "/api/v2/series/0ABCDEF/read-progress/tachiyomi",
    ]) {
      const res = await komga(p);
      expect(res.status, p).toBe(404);
      await res.body?.cancel();
    }
  });
});

describe("Mihon's Komga tracker (read-progress/tachiyomi)", () => {
  const url = () => `/api/v2/series/${mixed.id}/read-progress/tachiyomi`;

  it("counts a book in progress apart; the continuous run stops at the first unread book", async () => {
    // Chapter 11 (second in reading order) half read: nothing read before it, so the run is 0.
    expect(
      (await komga(`/api/v1/books/${chapterFile}/read-progress`, { method: "PATCH", json: { page: 2 } })).status,
    ).toBe(204);
    expect(await getJson(url())).toEqual({
      booksCount: 4,
      booksReadCount: 0,
      booksUnreadCount: 3,
      booksInProgressCount: 1,
      lastReadContinuousNumberSort: 0,
      maxNumberSort: 4,
    });
    // 0 marks nothing; up to 1: chapter 10 read, the run is 1.
    expect((await komga(url(), { method: "PUT", json: { lastBookNumberSortRead: 0 } })).status).toBe(204);
    expect((await getJson(url())).booksReadCount).toBe(0);
    expect((await komga(url(), { method: "PUT", json: { lastBookNumberSortRead: 1 } })).status).toBe(204);
    expect(await getJson(url())).toMatchObject({ booksReadCount: 1, lastReadContinuousNumberSort: 1 });
    // Up to 3 (a decimal as Kotlin's Float may send it): chapters 11 and 12 complete too.
    expect((await komga(url(), { method: "PUT", json: { lastBookNumberSortRead: 3.0 } })).status).toBe(204);
    expect(await getJson(url())).toEqual({
      booksCount: 4,
      booksReadCount: 3,
      booksUnreadCount: 1,
      booksInProgressCount: 0,
      lastReadContinuousNumberSort: 3,
      maxNumberSort: 4,
    });
    expect(await expectJson(await app.api(`/api/files/${chapterFile}/progress`), 200)).toMatchObject({
      completed: true,
      page: 4,
    });
  });

  it("a PUT without the number is 400 and changes nothing", async () => {
    const before = await getJson(url());
    await expectProblem(await komga(url(), { method: "PUT", json: {} }), 400, "invalid_field");
    expect(await getJson(url())).toEqual(before);
  });
});

describe("the older tracker call (read-progress/tachiyomi v1)", () => {
  it("counts by book index (lastReadContinuousIndex) and marks the first lastBookRead books", async () => {
    const id = (await seriesId("Audit Beta Two"))!;
    const url = `/api/v1/series/${id}/read-progress/tachiyomi`;
    expect(await getJson(url)).toEqual({
      booksCount: 3,
      booksReadCount: 0,
      booksUnreadCount: 3,
      booksInProgressCount: 0,
      lastReadContinuousIndex: 0,
    });
    expect((await komga(url, { method: "PUT", json: { lastBookRead: 2 } })).status).toBe(204);
    expect(await getJson(url)).toMatchObject({ booksReadCount: 2, booksUnreadCount: 1, lastReadContinuousIndex: 2 });
    expect(await getJson(`/api/v2/series/${id}/read-progress/tachiyomi`)).toMatchObject({
      lastReadContinuousNumberSort: 2,
    });
    await expectProblem(await komga(url, { method: "PUT", json: { lastBookRead: "2" } }), 400, "invalid_field");
  });
});

describe("KOReader sync as the plugin reads it", () => {
  it("bad credentials: 401 with the sync server's code 2001 and message", async () => {
    for (const h of [{ ...koAdmin, "x-auth-key": md5("wrong") }, { accept: KOSYNC }]) {
      const res = await ko("/users/auth", h);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ code: 2001, message: "Unauthorized" });
    }
  });

  it("missing fields: code 2004 without document, 2003 without progress; nothing stored", async () => {
    const doc = koreaderFileNameMd5("Audit Alpha c001.cbz");
    const noDoc = await ko("/syncs/progress", koAdmin, { method: "PUT", body: JSON.stringify({ progress: "2" }) });
    expect(noDoc.status).toBe(400);
    expect(await noDoc.json()).toMatchObject({ code: 2004, message: expect.any(String) });
    const noProgress = await ko("/syncs/progress", koAdmin, { method: "PUT", body: JSON.stringify({ document: doc }) });
    expect(noProgress.status).toBe(400);
    expect(await noProgress.json()).toMatchObject({ code: 2003, message: expect.any(String) });
    const got = await ko(`/syncs/progress/${doc}`, koAdmin);
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual({});
  });

  it("an unknown document is 404 with a message, GET and PUT alike", async () => {
    const doc = md5("no such file");
    const get = await ko(`/syncs/progress/${doc}`, koAdmin);
    expect(get.status).toBe(404);
    expect(await get.json()).toMatchObject({ message: expect.any(String) });
    const put = await ko("/syncs/progress", koAdmin, {
      method: "PUT",
      body: JSON.stringify({ document: doc, progress: "1", percentage: 0, device: "K", device_id: "D" }),
    });
    expect(put.status).toBe(404);
  });

  it("each push replaces the place, an older page too; timestamps are whole seconds", async () => {
    const doc = koreaderFileNameMd5("Audit Beta c001.cbz");
    const push = async (progress: string, percentage: number) => {
      const res = await ko("/syncs/progress", koAdmin, {
        method: "PUT",
        body: JSON.stringify({ document: doc, progress, percentage, device: "Kobo", device_id: "K1" }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { document: string; timestamp: number };
      expect(body.document).toBe(doc);
      expect(Number.isInteger(body.timestamp)).toBe(true);
      expect(Math.abs(body.timestamp - Date.now() / 1000)).toBeLessThan(60);
    };
    await push("2", 0.5);
    await push("1", 0);
    const got = (await (await ko(`/syncs/progress/${doc}`, koAdmin)).json()) as Record<string, unknown>;
    expect(got).toMatchObject({ document: doc, progress: "1", percentage: 0, device: "Kobo", device_id: "K1" });
    const id = (await unitFileIds(app, (await seriesId("Audit Beta"))!, "chapter", "1"))[0]!;
    expect(await expectJson(await app.api(`/api/files/${id}/progress`), 200)).toMatchObject({
      page: 1,
      completed: false,
    });
  });
});

async function seriesId(title: string): Promise<number | undefined> {
  const p = await getJson<SpringPage>(`/api/v1/series?search=${encodeURIComponent(title)}`);
  const hit = p.content.find((s) => s.name === title);
  return hit ? Number(hit.id) : undefined;
}
