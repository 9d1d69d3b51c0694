/**
 * The Komga DTOs this library answers in (komga.ts serves them): field names and types as Komga's
 * clients deserialise them, Spring's page envelope, and the query of a paged list.
 */
import type { Context } from "hono";
import { AppError } from "../../errors.ts";
import {
  fileTitle,
  type ReaderFileRow,
  type ReaderSeries as Series,
  type SeriesSummary,
} from "../../services/reading/reader-apps.ts";
import type { FileProgress } from "../../services/reading/reading-service.ts";

export const KOMGA = "/komga";
export const LIBRARY_ID = "library";

/** Komga's date-time format: `yyyy-MM-dd'T'HH:mm:ss'Z'` (UTC, no fraction). */
export const komgaTime = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

function humanSize(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}

const SORT = { sorted: false, unsorted: true, empty: true };

/** A Spring Data page, the shape Komga answers lists with. */
export function springPage<T>(all: T[], q: { page: number; size: number; unpaged: boolean }) {
  const size = q.unpaged ? all.length : q.size;
  const number = q.unpaged ? 0 : q.page;
  const content = q.unpaged ? all : all.slice(number * size, number * size + size);
  const totalPages = size === 0 ? 1 : Math.ceil(all.length / size);
  return {
    content,
    pageable: {
      sort: SORT,
      pageNumber: number,
      pageSize: size,
      offset: number * size,
      paged: !q.unpaged,
      unpaged: q.unpaged,
    },
    totalElements: all.length,
    totalPages,
    last: number + 1 >= totalPages,
    number,
    sort: SORT,
    first: number === 0,
    numberOfElements: content.length,
    size,
    empty: content.length === 0,
  };
}

/**
 * `page`, `size` and `unpaged` as Spring's pageable resolver reads them behind Komga: a value that
 * is not a whole number is ignored (the default), a negative page is the first, a size below 1 is
 * the default and a size above 2000 is 2000.
 */
export function pageQuery(c: Context, defaults = { size: 20 }) {
  const int = (name: string): number | null => {
    const v = c.req.query(name)?.trim();
    return v !== undefined && /^-?\d{1,9}$/.test(v) ? Number(v) : null;
  };
  const page = int("page");
  const size = int("size");
  return {
    page: page === null || page < 0 ? 0 : Math.min(page, 1_000_000),
    size: size === null || size < 1 ? defaults.size : Math.min(size, 2000),
    unpaged: c.req.query("unpaged") === "true",
  };
}

/**
 * A Komga id in a path: Komga's ids are strings, so one this library cannot have is unknown (404
 * with `code`), never a malformed request.
 */
export function komgaId(raw: string | undefined, code: "series_not_found" | "file_not_found"): number {
  const n = raw !== undefined && /^[0-9]{1,10}$/.test(raw) ? Number(raw) : 0;
  if (n <= 0 || n > 2 ** 31 - 1) throw new AppError(code, `no such ${code === "series_not_found" ? "series" : "book"}`);
  return n;
}

export type SeriesOrder = { key: "title" | "created" | "modified"; descending: boolean };

/**
 * The order of a series list from Spring's `sort=field,direction` (the first one that names a field
 * this library has: Mihon's Komga extension sends `metadata.titleSort`, `createdDate` and
 * `lastModifiedDate`); `fallback` otherwise (relevance, random, nothing).
 */
export function seriesOrder(c: Context, fallback: SeriesOrder): SeriesOrder {
  for (const value of c.req.queries("sort") ?? []) {
    const [field = "", direction = "asc"] = value.split(",").map((x) => x.trim());
    const key = (
      {
        "metadata.titleSort": "title",
        "metadata.title": "title",
        name: "title",
        createdDate: "created",
        created: "created",
        lastModifiedDate: "modified",
        lastModified: "modified",
      } as const
    )[field];
    if (key) return { key, descending: direction.toLowerCase() === "desc" };
  }
  return fallback;
}

const seriesStatus = (s: Series) => (s.status === "finished" ? "ENDED" : s.status === "paused" ? "HIATUS" : "ONGOING");

/** Komga's scan interval closest above the service's own (Komga knows only these). */
export function komgaScanInterval(seconds: number): string {
  if (seconds <= 0) return "DISABLED";
  if (seconds <= 3600) return "HOURLY";
  if (seconds <= 6 * 3600) return "EVERY_6H";
  if (seconds <= 12 * 3600) return "EVERY_12H";
  if (seconds <= 24 * 3600) return "DAILY";
  return "WEEKLY";
}

export function libraryDto(scanIntervalSeconds: number) {
  return {
    id: LIBRARY_ID,
    name: "Library",
    root: "",
    importComicInfoBook: true,
    importComicInfoSeries: true,
    importComicInfoCollection: false,
    importComicInfoReadList: false,
    importComicInfoSeriesAppendVolume: false,
    importEpubBook: false,
    importEpubSeries: false,
    importMylarSeries: false,
    importLocalArtwork: false,
    importBarcodeIsbn: false,
    scanForceModifiedTime: false,
    scanInterval: komgaScanInterval(scanIntervalSeconds),
    scanOnStartup: false,
    scanCbx: true,
    scanPdf: false,
    scanEpub: false,
    scanDirectoryExclusions: [],
    repairExtensions: false,
    convertToCbz: false,
    emptyTrashAfterScan: false,
    seriesCover: "FIRST",
    hashFiles: true,
    hashPages: false,
    hashKoreader: true,
    analyzeDimensions: true,
    oneshotsDirectory: null,
    unavailable: false,
  };
}

export interface Counts {
  read: number;
  inProgress: number;
  total: number;
}

export function seriesDto(s: SeriesSummary, counts: Counts) {
  const series = s.series;
  const created = komgaTime(series.createdAt);
  const modified = komgaTime(s.lastModified);
  return {
    id: String(series.id),
    libraryId: LIBRARY_ID,
    name: series.title,
    url: series.folder,
    created,
    lastModified: modified,
    fileLastModified: modified,
    booksCount: counts.total,
    booksReadCount: counts.read,
    booksUnreadCount: counts.total - counts.read - counts.inProgress,
    booksInProgressCount: counts.inProgress,
    metadata: {
      status: seriesStatus(series),
      statusLock: false,
      title: series.title,
      titleLock: false,
      titleSort: series.title,
      titleSortLock: false,
      summary: "",
      summaryLock: false,
      readingDirection: series.webtoon ? "WEBTOON" : "RIGHT_TO_LEFT",
      readingDirectionLock: false,
      publisher: "",
      publisherLock: false,
      ageRating: null,
      ageRatingLock: false,
      language: series.language,
      languageLock: false,
      genres: [],
      genresLock: false,
      tags: [],
      tagsLock: false,
      totalBookCount: series.editionBookCount ?? series.knownBookCount ?? null,
      totalBookCountLock: false,
      sharingLabels: [],
      sharingLabelsLock: false,
      links: [],
      linksLock: false,
      alternateTitles: [],
      alternateTitlesLock: false,
      created,
      lastModified: modified,
    },
    booksMetadata: {
      authors: [],
      tags: [],
      releaseDate: null,
      summary: "",
      summaryNumber: "",
      created,
      lastModified: modified,
    },
    deleted: false,
    oneshot: false,
  };
}

function readProgressDto(p: FileProgress) {
  if (!p.updatedAt) return null;
  const at = komgaTime(p.updatedAt);
  return {
    page: p.page,
    completed: p.completed,
    readDate: at,
    created: at,
    lastModified: at,
    deviceId: p.device ?? "web",
    deviceName: p.device ?? "web",
  };
}

export function bookDto(f: ReaderFileRow, series: Pick<Series, "id" | "title">, position: number, p: FileProgress) {
  const created = komgaTime(f.createdAt);
  const modified = komgaTime(f.updatedAt);
  return {
    id: String(f.id),
    seriesId: String(series.id),
    seriesTitle: series.title,
    libraryId: LIBRARY_ID,
    name: fileTitle(f),
    url: f.path,
    number: position,
    created,
    lastModified: modified,
    fileLastModified: komgaTime(new Date(f.mtimeMs)),
    sizeBytes: f.size,
    size: humanSize(f.size),
    media: {
      status: "READY",
      mediaType: "application/zip",
      pagesCount: f.pageCount,
      comment: "",
      epubDivinaCompatible: false,
      epubIsKepub: false,
      mediaProfile: "DIVINA",
    },
    metadata: {
      title: fileTitle(f),
      titleLock: false,
      summary: "",
      summaryLock: false,
      number: String(position),
      numberLock: false,
      numberSort: position,
      numberSortLock: false,
      releaseDate: null,
      releaseDateLock: false,
      authors: [],
      authorsLock: false,
      tags: [],
      tagsLock: false,
      isbn: "",
      isbnLock: false,
      links: [],
      linksLock: false,
      created,
      lastModified: modified,
    },
    readProgress: readProgressDto(p),
    deleted: false,
    fileHash: f.sha256,
    oneshot: false,
  };
}

export function mediaTypeOf(name: string): string {
  const ext = name.toLowerCase().split(".").pop();
  if (ext === "png") return "image/png";
  if (ext === "webp") return "image/webp";
  if (ext === "gif") return "image/gif";
  if (ext === "avif") return "image/avif";
  return "image/jpeg";
}
