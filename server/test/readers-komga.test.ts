/**
 * The Komga-compatible API under /komga, checked field by field against what the apps deserialise.
 * kotlinx.serialization refuses a missing field that has no default, and a value of the wrong type,
 * so every field below must be present with its type.
 *
 * Where the field lists come from (read in the apps' public sources):
 * - Mihon's Komga extension (keiyoushi/extensions-source, src/all/komga/.../dto/Dto.kt and
 *   PageWrapperDto.kt): LibraryDto, SeriesDto, SeriesMetadataDto, BookMetadataAggregationDto,
 *   BookDto, MediaDto, PageDto, BookMetadataDto, AuthorDto, PageWrapperDto; its requests in
 *   Komga.kt: /api/v1/series?search=&page=&deleted=false, /api/v1/series/{id}/books?unpaged=true
 *   &media_status=READY&deleted=false, /api/v1/books/{id}/pages, /pages/{number} (1-based),
 *   /api/v1/libraries, /collections?unpaged=true, /genres, /tags, /publishers, /authors; Basic
 *   credentials sent after a 401 (OkHttp authenticator).
 * - Mihon's Komga tracker (mihonapp/mihon, app/.../track/komga/KomgaModels.kt, KomgaApi.kt):
 *   SeriesDto with booksReadCount/booksUnreadCount/booksInProgressCount, ReadProgressV2Dto
 *   (GET /api/v2/series/{id}/read-progress/tachiyomi), ReadProgressUpdateV2Dto
 *   (PUT lastBookNumberSortRead), and the page-level sync: BookDto.readProgress {page, completed},
 *   PATCH /api/v1/books/{id}/read-progress {page, completed}.
 * - Komelia (Snd-R/komga-client, snd/komga/client/book/KomgaBooks.kt, series/KomgaSeries.kt,
 *   library/KomgaLibrary.kt, common/Page.kt, book/KomgaBookPage.kt, user/KomgaUser.kt): KomgaBook,
 *   KomgaBookMetadata, Media, ReadProgress, KomgaSeries, KomgaSeriesMetadata, KomgaSeriesBookMetadata,
 *   KomgaLibrary, Page/Pageable/Sort, KomgaBookPage, KomgaUser (GET /api/v2/users/me at login);
 *   POST /api/v1/series/list and /api/v1/books/list.
 * - Komga itself (gotson/komga, interfaces/api/rest/dto/BookDto.kt, SeriesDto.kt, PageDto.kt,
 *   TachiyomiReadProgressV2Dto.kt, ReadProgressUpdateDto.kt) for the shared names.
 */
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { expectJson, expectProblem } from "./fixtures.ts";
import { API_KEY_BASIC, asReader, readerSeries, unitFileIds } from "./readers-fixtures.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
shareTestApp((a) => (app = a));

type Kind =
  "string" | "string?" | "int" | "int?" | "long" | "float" | "boolean" | "array" | "object" | "object?" | "instant";
interface Shape {
  [field: string]: Kind | Shape | [Shape];
}

/** Checks every field of the shape is present with its type (nested shapes recursively; [Shape] = array of it). */
function expectShape(value: unknown, shape: Shape, where: string): void {
  expect(typeof value, where).toBe("object");
  const v = value as Record<string, unknown>;
  for (const [field, kind] of Object.entries(shape)) {
    const at = `${where}.${field}`;
    expect(field in v, `${at} is missing`).toBe(true);
    const x = v[field];
    if (Array.isArray(kind)) {
      expect(Array.isArray(x), `${at} is an array`).toBe(true);
      for (const [i, item] of (x as unknown[]).entries()) expectShape(item, kind[0], `${at}[${i}]`);
    } else if (typeof kind === "object") expectShape(x, kind, at);
    else if (kind === "string") expect(typeof x, at).toBe("string");
    else if (kind === "string?") expect(x === null || typeof x === "string", at).toBe(true);
    else if (kind === "int" || kind === "long") expect(Number.isInteger(x), `${at} is an integer`).toBe(true);
    else if (kind === "int?") expect(x === null || Number.isInteger(x), at).toBe(true);
    else if (kind === "float") expect(typeof x, at).toBe("number");
    else if (kind === "boolean") expect(typeof x, at).toBe("boolean");
    else if (kind === "array") expect(Array.isArray(x), at).toBe(true);
    else if (kind === "object") expect(typeof x === "object" && x !== null, at).toBe(true);
    else if (kind === "object?") expect(x === null || typeof x === "object", at).toBe(true);
    else if (kind === "instant") expect(x, at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  }
}

// ---- the fields the apps rely on (union of Mihon's extension and tracker, Komelia, Komga) ----

const LIBRARY: Shape = {
  id: "string",
  name: "string",
  root: "string",
  importComicInfoBook: "boolean",
  importComicInfoSeries: "boolean",
  importComicInfoCollection: "boolean",
  importComicInfoReadList: "boolean",
  importComicInfoSeriesAppendVolume: "boolean",
  importEpubBook: "boolean",
  importEpubSeries: "boolean",
  importMylarSeries: "boolean",
  importLocalArtwork: "boolean",
  importBarcodeIsbn: "boolean",
  scanForceModifiedTime: "boolean",
  scanInterval: "string",
  scanOnStartup: "boolean",
  scanCbx: "boolean",
  scanPdf: "boolean",
  scanEpub: "boolean",
  scanDirectoryExclusions: "array",
  repairExtensions: "boolean",
  convertToCbz: "boolean",
  emptyTrashAfterScan: "boolean",
  seriesCover: "string",
  hashFiles: "boolean",
  hashPages: "boolean",
  hashKoreader: "boolean",
  analyzeDimensions: "boolean",
  oneshotsDirectory: "string?",
  unavailable: "boolean",
};
const AUTHOR: Shape = { name: "string", role: "string" };
const SERIES: Shape = {
  id: "string",
  libraryId: "string",
  name: "string",
  url: "string",
  created: "instant",
  lastModified: "instant",
  fileLastModified: "instant",
  booksCount: "int",
  booksReadCount: "int",
  booksUnreadCount: "int",
  booksInProgressCount: "int",
  deleted: "boolean",
  oneshot: "boolean",
  metadata: {
    status: "string",
    statusLock: "boolean",
    created: "instant",
    lastModified: "instant",
    title: "string",
    titleLock: "boolean",
    titleSort: "string",
    titleSortLock: "boolean",
    summary: "string",
    summaryLock: "boolean",
    readingDirection: "string",
    readingDirectionLock: "boolean",
    publisher: "string",
    publisherLock: "boolean",
    ageRating: "int?",
    ageRatingLock: "boolean",
    language: "string",
    languageLock: "boolean",
    genres: "array",
    genresLock: "boolean",
    tags: "array",
    tagsLock: "boolean",
    totalBookCount: "int?",
    totalBookCountLock: "boolean",
    sharingLabels: "array",
    sharingLabelsLock: "boolean",
    links: "array",
    linksLock: "boolean",
    alternateTitles: "array",
    alternateTitlesLock: "boolean",
  },
  booksMetadata: {
    authors: [AUTHOR],
    tags: "array",
    releaseDate: "string?",
    summary: "string",
    summaryNumber: "string",
    created: "instant",
    lastModified: "instant",
  },
};
const BOOK: Shape = {
  id: "string",
  seriesId: "string",
  seriesTitle: "string",
  libraryId: "string",
  name: "string",
  url: "string",
  number: "int",
  created: "instant",
  lastModified: "instant",
  fileLastModified: "instant",
  sizeBytes: "long",
  size: "string",
  deleted: "boolean",
  fileHash: "string",
  oneshot: "boolean",
  readProgress: "object?",
  media: {
    status: "string",
    mediaType: "string",
    pagesCount: "int",
    comment: "string",
    mediaProfile: "string",
    epubDivinaCompatible: "boolean",
    epubIsKepub: "boolean",
  },
  metadata: {
    title: "string",
    titleLock: "boolean",
    summary: "string",
    summaryLock: "boolean",
    number: "string",
    numberLock: "boolean",
    numberSort: "float",
    numberSortLock: "boolean",
    releaseDate: "string?",
    releaseDateLock: "boolean",
    authors: [AUTHOR],
    authorsLock: "boolean",
    tags: "array",
    tagsLock: "boolean",
    isbn: "string",
    isbnLock: "boolean",
    links: "array",
    linksLock: "boolean",
    created: "instant",
    lastModified: "instant",
  },
};
const READ_PROGRESS: Shape = {
  page: "int",
  completed: "boolean",
  readDate: "instant",
  created: "instant",
  lastModified: "instant",
  deviceId: "string",
  deviceName: "string",
};
const SORT: Shape = { sorted: "boolean", unsorted: "boolean", empty: "boolean" };
const PAGE_WRAPPER: Shape = {
  content: "array",
  empty: "boolean",
  first: "boolean",
  last: "boolean",
  number: "long",
  numberOfElements: "long",
  size: "long",
  totalElements: "long",
  totalPages: "long",
  sort: SORT,
  pageable: { sort: SORT, pageNumber: "int", pageSize: "int", offset: "int", paged: "boolean", unpaged: "boolean" },
};
const PAGE: Shape = {
  number: "int",
  fileName: "string",
  mediaType: "string",
  width: "int?",
  height: "int?",
  sizeBytes: "int?",
  size: "string",
};
const TACHIYOMI_V2: Shape = {
  booksCount: "int",
  booksReadCount: "int",
  booksUnreadCount: "int",
  booksInProgressCount: "int",
  lastReadContinuousNumberSort: "float",
  maxNumberSort: "float",
};
const USER: Shape = {
  id: "string",
  email: "string",
  roles: "array",
  sharedAllLibraries: "boolean",
  sharedLibrariesIds: "array",
  labelsAllow: "array",
  labelsExclude: "array",
  ageRestriction: "object?",
};

const komga = (pathname: string, init: RequestInit & { json?: unknown } = {}) =>
  asReader(app, `/komga${pathname}`, init);
const getJson = async <T = Record<string, unknown>>(pathname: string) => expectJson<T>(await komga(pathname), 200);

let seriesId: number;
let fileIds: number[];

beforeAll(async () => {
  const s = await readerSeries(app, "Komga Story", [
    { name: "Komga Story c001.cbz", pages: 3 },
    { name: "Komga Story c002.cbz", pages: 4 },
    { name: "Komga Story c002.5.cbz", pages: 2 },
  ]);
  await readerSeries(app, "Another One", [{ name: "Another One c001.cbz", pages: 2 }]);
  seriesId = s.id;
  fileIds = [
    (await unitFileIds(app, s.id, "chapter", "1"))[0]!,
    (await unitFileIds(app, s.id, "chapter", "2"))[0]!,
    (await unitFileIds(app, s.id, "chapter", "2.5"))[0]!,
  ];
});

describe("Komga-compatible API", () => {
  it("challenges with Basic, then takes admin with the password or the API key as password", async () => {
    const res = await fetch(`${app.baseUrl}/komga/api/v1/libraries`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect((await komga("/api/v1/libraries", { headers: { authorization: API_KEY_BASIC } })).status).toBe(200);
    expectShape(await getJson("/api/v2/users/me"), USER, "KomgaUser");
  });

  it("libraries: one library with every LibraryDto field", async () => {
    const libs = await getJson<unknown[]>("/api/v1/libraries");
    expect(libs).toHaveLength(1);
    expectShape(libs[0], LIBRARY, "LibraryDto");
    // The scheduled scan as Komga names it: every 6 hours by default.
    expect((libs[0] as { scanInterval: string }).scanInterval).toBe("EVERY_6H");
  });

  it("series: a Spring page with search and paging; SeriesDto field by field", async () => {
    const page = await getJson<{
      content: { name: string }[];
      totalElements: number;
      totalPages: number;
      number: number;
      size: number;
      last: boolean;
    }>("/api/v1/series?search=&page=0&size=1&deleted=false");
    expectShape(page, PAGE_WRAPPER, "PageWrapperDto");
    expect(page).toMatchObject({ totalElements: 2, totalPages: 2, number: 0, size: 1, last: false });
    const second = await getJson<typeof page>("/api/v1/series?page=1&size=1");
    expect(second.last).toBe(true);
    const found = await getJson<typeof page>("/api/v1/series?search=story&page=0");
    expect(found.content.map((s) => s.name)).toEqual(["Komga Story"]);
    for (const s of found.content) expectShape(s, SERIES, "SeriesDto");
    const listed = await expectJson<typeof page>(
      await komga("/api/v1/series/list", { method: "POST", json: { fullTextSearch: "another" } }),
      200,
    );
    expect(listed.content.map((s) => s.name)).toEqual(["Another One"]);
    expectShape(await getJson(`/api/v1/series/${seriesId}`), SERIES, "SeriesDto");
  });

  it("books: every file in reading order, numbered 1, 2, 3 so the apps sort them right; BookDto field by field", async () => {
    const page = await getJson<{
      content: { id: string; name: string; number: number; metadata: { number: string; numberSort: number } }[];
    }>(`/api/v1/series/${seriesId}/books?unpaged=true&media_status=READY&deleted=false`);
    expectShape(page, PAGE_WRAPPER, "PageWrapperDto");
    for (const b of page.content) expectShape(b, BOOK, "BookDto");
    expect(page.content.map((b) => b.id)).toEqual(fileIds.map(String));
    expect(page.content.map((b) => b.name)).toEqual(["Chapter 1", "Chapter 2", "Chapter 2.5"]);
    expect(page.content.map((b) => [b.number, b.metadata.number, b.metadata.numberSort])).toEqual([
      [1, "1", 1],
      [2, "2", 2],
      [3, "3", 3],
    ]);
    expectShape(await getJson(`/api/v1/books/${fileIds[1]}`), BOOK, "BookDto");
    expect((await getJson<{ id: string }>(`/api/v1/books/${fileIds[1]}/next`)).id).toBe(String(fileIds[2]));
    expect((await getJson<{ id: string }>(`/api/v1/books/${fileIds[1]}/previous`)).id).toBe(String(fileIds[0]));
    await expectProblem(await komga(`/api/v1/books/${fileIds[2]}/next`), 404, "file_not_found");
  });

  it("pages are 1-based as in Komga (zero_based=true accepted) and decode as images; thumbnails too", async () => {
    const pages = await getJson<unknown[]>(`/api/v1/books/${fileIds[1]}/pages`);
    expect(pages).toHaveLength(4);
    for (const p of pages) expectShape(p, PAGE, "PageDto");
    expect(pages.map((p) => (p as { number: number }).number)).toEqual([1, 2, 3, 4]);
    const first = Buffer.from(await (await komga(`/api/v1/books/${fileIds[1]}/pages/1`)).arrayBuffer());
    expect((await sharp(first).metadata()).format).toBe("jpeg");
    const zero = Buffer.from(await (await komga(`/api/v1/books/${fileIds[1]}/pages/0?zero_based=true`)).arrayBuffer());
    expect(zero.equals(first)).toBe(true);
    // Komga's answer for a page outside the book: 400 "Page number does not exist".
    await expectProblem(await komga(`/api/v1/books/${fileIds[1]}/pages/5`), 400, "page_number_invalid");
    await expectProblem(await komga(`/api/v1/books/${fileIds[1]}/pages/0`), 400, "page_number_invalid");
    await expectProblem(await komga(`/api/v1/books/${fileIds[1]}/pages/4?zero_based=true`), 400, "page_number_invalid");
    for (const url of [`/api/v1/books/${fileIds[0]}/thumbnail`, `/api/v1/series/${seriesId}/thumbnail`]) {
      const res = await komga(url);
      expect(res.status).toBe(200);
      expect((await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width).toBeGreaterThan(0);
    }
    // Reading pages here does not move the place (Komga's apps report it themselves).
    expect((await getJson<{ readProgress: unknown }>(`/api/v1/books/${fileIds[1]}`)).readProgress).toBeNull();
  });

  it("PATCH read-progress shares the store; bad input is 400 and changes nothing; DELETE forgets", async () => {
    const url = `/api/v1/books/${fileIds[1]}/read-progress`;
    expect((await komga(url, { method: "PATCH", json: { page: 2, completed: false } })).status).toBe(204);
    const book = await getJson<{ readProgress: { page: number; completed: boolean } }>(`/api/v1/books/${fileIds[1]}`);
    expectShape(book.readProgress, READ_PROGRESS, "ReadProgressDto");
    expect(book.readProgress).toMatchObject({ page: 2, completed: false });
    expect(await expectJson(await app.api(`/api/files/${fileIds[1]}/progress`), 200)).toMatchObject({
      page: 2,
      device: "komga",
    });
    await expectProblem(await komga(url, { method: "PATCH", json: {} }), 400, "invalid_field");
    await expectProblem(await komga(url, { method: "PATCH", json: { page: 99 } }), 400, "invalid_field");
    expect((await komga(url, { method: "PATCH", json: { completed: true } })).status).toBe(204);
    expect(
      (await getJson<{ readProgress: { page: number; completed: boolean } }>(`/api/v1/books/${fileIds[1]}`))
        .readProgress,
    ).toMatchObject({
      page: 4,
      completed: true,
    });
    expect((await komga(url, { method: "DELETE" })).status).toBe(204);
    expect((await getJson<{ readProgress: unknown }>(`/api/v1/books/${fileIds[1]}`)).readProgress).toBeNull();
  });

  it("PATCH of the last page completes the book, as Komga does when completed is left out", async () => {
    const url = `/api/v1/books/${fileIds[0]}/read-progress`;
    const progress = async () =>
      (await getJson<{ readProgress: { page: number; completed: boolean } }>(`/api/v1/books/${fileIds[0]}`))
        .readProgress;
    try {
      expect((await komga(url, { method: "PATCH", json: { page: 3 } })).status).toBe(204);
      expect(await progress()).toMatchObject({ page: 3, completed: true });
      expect((await getJson<{ booksReadCount: number }>(`/api/v1/series/${seriesId}`)).booksReadCount).toBe(1);
      expect((await komga(url, { method: "PATCH", json: { page: 2 } })).status).toBe(204);
      expect(await progress()).toMatchObject({ page: 2, completed: false });
    } finally {
      await komga(url, { method: "DELETE" });
    }
  });

  it("Mihon's tracker: read-progress/tachiyomi (v2) reads and marks books up to a number", async () => {
    const url = `/api/v2/series/${seriesId}/read-progress/tachiyomi`;
    const before = await getJson(url);
    expectShape(before, TACHIYOMI_V2, "ReadProgressV2Dto");
    expect(before).toEqual({
      booksCount: 3,
      booksReadCount: 0,
      booksUnreadCount: 3,
      booksInProgressCount: 0,
      lastReadContinuousNumberSort: 0,
      maxNumberSort: 3,
    });
    expect((await komga(url, { method: "PUT", json: { lastBookNumberSortRead: 2 } })).status).toBe(204);
    expect(await getJson(url)).toEqual({
      booksCount: 3,
      booksReadCount: 2,
      booksUnreadCount: 1,
      booksInProgressCount: 0,
      lastReadContinuousNumberSort: 2,
      maxNumberSort: 3,
    });
    const series = await getJson<{ booksReadCount: number; booksUnreadCount: number }>(`/api/v1/series/${seriesId}`);
    expect(series).toMatchObject({ booksReadCount: 2, booksUnreadCount: 1 });
    await expectProblem(
      await komga(url, { method: "PUT", json: { lastBookNumberSortRead: "x" } }),
      400,
      "invalid_field",
    );
  });

  it("series lists follow Mihon's sort (title, created, last modified) and read-status filters", async () => {
    const names = async (query: string) =>
      (
        await getJson<{ content: { name: string }[] }>(`/api/v1/series?search=&page=0&deleted=false&${query}`)
      ).content.map((s) => s.name);
    // "Komga Story" was added first, "Another One" after it.
    expect(await names("sort=metadata.titleSort,asc")).toEqual(["Another One", "Komga Story"]);
    expect(await names("sort=metadata.titleSort,desc")).toEqual(["Komga Story", "Another One"]);
    expect(await names("sort=createdDate,asc")).toEqual(["Komga Story", "Another One"]);
    expect(await names("sort=createdDate,desc")).toEqual(["Another One", "Komga Story"]);
    const byModified = await getJson<{ content: { lastModified: string }[] }>(
      "/api/v1/series?sort=lastModifiedDate,desc",
    );
    const times = byModified.content.map((s) => s.lastModified);
    expect(times).toEqual([...times].sort().reverse());
    // Mihon's Unread / In progress / Read filters: two of the story's three books are read (tracker test).
    const other = (await getJson<{ content: { id: string; name: string }[] }>("/api/v1/series?search=another"))
      .content[0]!;
    expect(await names("read_status=IN_PROGRESS")).toEqual(["Komga Story"]);
    expect(await names("read_status=UNREAD")).toEqual(["Another One"]);
    expect(await names("read_status=READ")).toEqual([]);
    expect((await komga(`/api/v1/series/${other.id}/read-progress`, { method: "POST" })).status).toBe(204);
    try {
      expect(await names("read_status=READ")).toEqual(["Another One"]);
      expect(await names("read_status=READ&read_status=IN_PROGRESS&sort=metadata.titleSort,asc")).toEqual([
        "Another One",
        "Komga Story",
      ]);
    } finally {
      await komga(`/api/v1/series/${other.id}/read-progress`, { method: "DELETE" });
    }
  });

  it("the lists apps load at start-up answer empty; library content cannot be changed", async () => {
    expectShape(await getJson("/api/v1/collections?unpaged=true"), PAGE_WRAPPER, "PageWrapperDto");
    for (const p of ["/api/v1/genres", "/api/v1/tags", "/api/v1/publishers", "/api/v1/authors"])
      expect(await getJson(p)).toEqual([]);
    await expectProblem(await komga(`/api/v1/books/${fileIds[0]}/file`, { method: "DELETE" }), 404, "not_found");
    await expectProblem(
      await komga(`/api/v1/series/${seriesId}/metadata`, { method: "PATCH", json: { title: "x" } }),
      404,
      "not_found",
    );
    await expectProblem(await komga(`/api/v1/series/999999`), 404, "series_not_found");
  });
});
