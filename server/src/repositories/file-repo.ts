import type { Db } from "../db/client.ts";
import { Prisma } from "../generated/prisma/client.ts";
import { jsonInsert, jsonRows, jsonUpdate, storedNow } from "./json-rows.ts";
import { inChunks } from "./in-chunks.ts";

export interface KnownFile {
  id: number;
  seriesId: number;
  path: string;
  size: number;
  mtimeMs: number;
  sha256: string;
}

export type FileCreate = Prisma.LibraryFileUncheckedCreateInput;
export type FileUpdate = Prisma.LibraryFileUncheckedUpdateInput;

/** Ids per statement of markMissing. */
const CHUNK = 500;

/** What the scan records of a file it read (origin and language: null keeps the stored value on update). */
export interface ScannedFile {
  seriesId: number;
  path: string;
  size: number;
  mtimeMs: number;
  sha256: string;
  pageCount: number;
  kind: string;
  volume: string | null;
  chapter: string | null;
  chapterEnd: string | null;
  part: number | null;
  tagSource: string | null;
  state: string;
  origin: string | null;
  language: string | null;
}

const SCANNED_COLUMNS = [
  "series_id",
  "path",
  "size",
  "mtime_ms",
  "sha256",
  "page_count",
  "kind",
  "volume",
  "chapter",
  "chapter_end",
  "part",
  "tag_source",
  "state",
] as const;

const scannedValues = (r: ScannedFile) => [
  r.seriesId,
  r.path,
  r.size,
  r.mtimeMs,
  r.sha256,
  r.pageCount,
  r.kind,
  r.volume,
  r.chapter,
  r.chapterEnd,
  r.part,
  r.tagSource,
  r.state,
];

/** Library files as the scan sees them. Files are never deleted: vanished ones become `missing`. */
export function fileRepo(db: Db) {
  return {
    /** Every active file: one JSON select (json-rows.ts), 20,000 rows in tens of milliseconds. */
    async active(): Promise<KnownFile[]> {
      const rows = await jsonRows(
        db,
        "id, series_id, path, size, mtime_ms, sha256",
        Prisma.sql`library_file WHERE state = 'active' ORDER BY id`,
      );
      return rows.map(([id, seriesId, path, size, mtimeMs, sha256]) => ({
        id: Number(id),
        seriesId: Number(seriesId),
        path: String(path),
        size: Number(size),
        mtimeMs: Number(mtimeMs),
        sha256: String(sha256),
      }));
    },
    create: (data: FileCreate) => db.libraryFile.create({ data }),
    update: (id: number, data: FileUpdate) => db.libraryFile.update({ where: { id }, data }),

    /** Records files the scan found (bulk JSON inserts, json-rows.ts). */
    async insertScanned(rows: readonly ScannedFile[]): Promise<void> {
      const now = storedNow();
      await jsonInsert(
        db,
        "library_file",
        [...SCANNED_COLUMNS, "origin", "language", "created_at", "updated_at"],
        rows.map((r) => [...scannedValues(r), r.origin, r.language, now, now]),
      );
    },

    /**
     * Rewrites the records of files whose bytes or path changed. `origin` and `language` are kept
     * where the row gives null.
     */
    async updateScanned(rows: readonly (ScannedFile & { id: number })[]): Promise<void> {
      const now = storedNow();
      await jsonUpdate(
        db,
        "library_file",
        [...SCANNED_COLUMNS, "origin?", "language?", "updated_at"],
        rows.map((r) => [r.id, ...scannedValues(r), r.origin, r.language, now]),
      );
    },

    /** Files touched without new bytes: only size and mtime move. */
    async touch(rows: readonly { id: number; size: number; mtimeMs: number }[]): Promise<void> {
      const now = storedNow();
      await jsonUpdate(
        db,
        "library_file",
        ["size", "mtime_ms", "updated_at"],
        rows.map((r) => [r.id, r.size, r.mtimeMs, now]),
      );
    },

    async markMissing(ids: readonly number[]): Promise<void> {
      for (let i = 0; i < ids.length; i += CHUNK)
        await db.libraryFile.updateMany({
          where: { id: { in: ids.slice(i, i + CHUNK) }, state: "active" },
          data: { state: "missing" },
        });
    },
    countActive: (seriesId: number) => db.libraryFile.count({ where: { seriesId, state: "active" } }),
    /** Whether the library records any active file (library-root.ts: an empty mount point). */
    anyActive: async () =>
      (await db.libraryFile.findFirst({ where: { state: "active" }, select: { id: true } })) !== null,
    /** The file when it is active (its id only). */
    activeId: (id: number) => db.libraryFile.findFirst({ where: { id, state: "active" }, select: { id: true } }),
    /** Which of these files are active. */
    async activeAmong(ids: readonly number[]): Promise<Set<number>> {
      const rows = await inChunks(ids, (chunk) =>
        db.libraryFile.findMany({ where: { id: { in: chunk }, state: "active" }, select: { id: true } }),
      );
      return new Set(rows.map((f) => f.id));
    },
    /** Every series that has an active assembled book. */
    async seriesWithAssembledBooks(): Promise<number[]> {
      const rows = await db.libraryFile.findMany({
        where: { state: "active", origin: "assembled", kind: "book" },
        select: { seriesId: true },
        distinct: ["seriesId"],
      });
      return rows.map((r) => r.seriesId);
    },
    /** What the page and thumbnail readers need of a file: where it is, what it is, its fingerprint. */
    pagesRecord: (id: number) =>
      db.libraryFile.findUnique({
        where: { id },
        select: {
          id: true,
          seriesId: true,
          path: true,
          kind: true,
          volume: true,
          chapter: true,
          sha256: true,
          size: true,
          mtimeMs: true,
          state: true,
        },
      }),
    /**
     * The newest `limit` active files of a series (highest id first) whose pages tell the series'
     * page shape to the content check of downloads.
     */
    shapeSample: (seriesId: number, limit: number) =>
      db.libraryFile.findMany({
        where: { seriesId, state: "active" },
        select: { id: true, path: true, sha256: true },
        orderBy: { id: "desc" },
        take: limit,
      }),
    /** Page counts of a series' active books. */
    activeBookPageCounts: (seriesId: number) =>
      db.libraryFile.findMany({ where: { seriesId, kind: "book", state: "active" }, select: { pageCount: true } }),
  };
}

export type FileRepo = ReturnType<typeof fileRepo>;
