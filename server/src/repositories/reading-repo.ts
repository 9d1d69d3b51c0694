/**
 * Reading progress, KOReader document identities and the read-only lookups the reader apps' APIs
 * (OPDS 1.2 and 2, KOReader sync, the Komga-compatible API) need. Every database call of the
 * reading side is here.
 */
import type { Db } from "../db/client.ts";
import type { ReadProgress } from "../generated/prisma/client.ts";
import { chunksOf, countInChunks, inChunks } from "./in-chunks.ts";

export type ProgressRow = ReadProgress;

export interface ReaderFileRow {
  id: number;
  seriesId: number;
  path: string;
  size: number;
  mtimeMs: number;
  sha256: string;
  pageCount: number;
  kind: "book" | "chapter";
  volume: string | null;
  chapter: string | null;
  chapterEnd: string | null;
  part: number | null;
  language: string | null;
  origin: string;
  state: string;
  createdAt: Date;
  updatedAt: Date;
}

const FILE_SELECT = {
  id: true,
  seriesId: true,
  path: true,
  size: true,
  mtimeMs: true,
  sha256: true,
  pageCount: true,
  kind: true,
  volume: true,
  chapter: true,
  chapterEnd: true,
  part: true,
  language: true,
  origin: true,
  state: true,
  createdAt: true,
  updatedAt: true,
} as const;

type RawFile = Omit<ReaderFileRow, "size" | "mtimeMs" | "kind"> & { size: bigint; mtimeMs: bigint; kind: string };
const toFile = (r: RawFile): ReaderFileRow => ({
  ...r,
  size: Number(r.size),
  mtimeMs: Number(r.mtimeMs),
  kind: r.kind === "book" ? "book" : "chapter",
});

export interface ProgressWrite {
  page: number;
  completed: boolean;
  device: string;
  koreaderProgress?: string | null;
  deviceName?: string | null;
  deviceId?: string | null;
  percentage?: number | null;
  updatedAt: Date;
}

export function readingRepo(db: Db) {
  return {
    // ---- progress ----
    progress: (user: string, fileId: number) =>
      db.readProgress.findUnique({ where: { userName_fileId: { userName: user, fileId } } }),
    progressFor: (user: string, fileIds: number[]) =>
      fileIds.length === 0
        ? Promise.resolve([] as ProgressRow[])
        : inChunks(fileIds, (chunk) => db.readProgress.findMany({ where: { userName: user, fileId: { in: chunk } } })),
    /** Every user's progress on these files. */
    progressOnFiles: (fileIds: number[]) =>
      fileIds.length === 0
        ? Promise.resolve([] as ProgressRow[])
        : db.readProgress.findMany({ where: { fileId: { in: fileIds } } }),
    saveProgress: (user: string, fileId: number, w: ProgressWrite) =>
      db.readProgress.upsert({
        where: { userName_fileId: { userName: user, fileId } },
        create: { userName: user, fileId, ...w },
        update: w,
      }),
    clearProgress: (user: string, fileIds: number[]) =>
      countInChunks(fileIds, (chunk) =>
        db.readProgress.deleteMany({ where: { userName: user, fileId: { in: chunk } } }),
      ),
    /** Progress rows (any user) whose file is in the series and no longer active: what may follow the content. */
    async pendingInSeries(seriesId: number): Promise<ProgressRow[]> {
      const inactive = await db.libraryFile.findMany({
        where: { seriesId, state: { not: "active" } },
        select: { id: true },
      });
      if (inactive.length === 0) return [];
      return db.readProgress.findMany({ where: { fileId: { in: inactive.map((f) => f.id) } } });
    },
    /** Series that hold progress on files no longer active (what a scan may have to follow). */
    async seriesWithPending(): Promise<number[]> {
      const rows = await db.readProgress.findMany({ select: { fileId: true }, distinct: ["fileId"] });
      if (rows.length === 0) return [];
      const files = await inChunks(
        rows.map((r) => r.fileId),
        (chunk) =>
          db.libraryFile.findMany({
            where: { id: { in: chunk }, state: { not: "active" } },
            select: { seriesId: true },
            distinct: ["seriesId"],
          }),
      );
      return [...new Set(files.map((f) => f.seriesId))];
    },
    /** Applies the moves of one follow in one transaction: the targets' new places, the consumed rows removed. */
    async applyMoves(
      user: string,
      moves: { from: number[]; to: number; progress: { page: number; completed: boolean; updatedAt: Date } | null }[],
    ): Promise<void> {
      if (moves.length === 0) return;
      await db.$transaction([
        ...moves.flatMap((m) =>
          m.progress
            ? [
                db.readProgress.upsert({
                  where: { userName_fileId: { userName: user, fileId: m.to } },
                  create: { userName: user, fileId: m.to, ...m.progress, device: "followed" },
                  update: {
                    ...m.progress,
                    device: "followed",
                    koreaderProgress: null,
                    deviceName: null,
                    deviceId: null,
                    percentage: null,
                  },
                }),
              ]
            : [],
        ),
        ...chunksOf(moves.flatMap((m) => m.from)).map((chunk) =>
          db.readProgress.deleteMany({ where: { userName: user, fileId: { in: chunk } } }),
        ),
      ]);
    },
    /** The user's most recent places on active files, newest first. */
    async recentProgress(user: string, options: { completed?: boolean; seriesId?: number; take: number }) {
      const rows = await db.readProgress.findMany({
        where: { userName: user, ...(options.completed === undefined ? {} : { completed: options.completed }) },
        orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
      });
      if (rows.length === 0) return [];
      const files = await inChunks(
        rows.map((r) => r.fileId),
        (chunk) =>
          db.libraryFile.findMany({
            where: {
              id: { in: chunk },
              state: "active",
              ...(options.seriesId === undefined ? {} : { seriesId: options.seriesId }),
            },
            select: FILE_SELECT,
          }),
      );
      const byId = new Map(files.map((f) => [f.id, toFile(f)]));
      return rows
        .filter((r) => byId.has(r.fileId))
        .slice(0, options.take)
        .map((r) => ({ progress: r, file: byId.get(r.fileId)! }));
    },

    // ---- files and series ----
    async activeFile(fileId: number): Promise<ReaderFileRow | null> {
      const f = await db.libraryFile.findFirst({ where: { id: fileId, state: "active" }, select: FILE_SELECT });
      return f ? toFile(f) : null;
    },
    async file(fileId: number): Promise<ReaderFileRow | null> {
      const f = await db.libraryFile.findUnique({ where: { id: fileId }, select: FILE_SELECT });
      return f ? toFile(f) : null;
    },
    async filesOfSeries(seriesId: number, state: "active" | "any" = "active"): Promise<ReaderFileRow[]> {
      const rows = await db.libraryFile.findMany({
        where: { seriesId, ...(state === "active" ? { state: "active" } : {}) },
        select: FILE_SELECT,
      });
      return rows.map(toFile);
    },
    async filesByIds(ids: number[]): Promise<ReaderFileRow[]> {
      if (ids.length === 0) return [];
      return (await db.libraryFile.findMany({ where: { id: { in: ids } }, select: FILE_SELECT })).map(toFile);
    },
    /** Active files, newest first (what "recently added" lists). */
    async recentFiles(take: number, skip = 0): Promise<ReaderFileRow[]> {
      const rows = await db.libraryFile.findMany({
        where: { state: "active" },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take,
        skip,
        select: FILE_SELECT,
      });
      return rows.map(toFile);
    },
    countActiveFiles: () => db.libraryFile.count({ where: { state: "active" } }),
    /** Light facts of every active file (series covers and counts without opening anything). */
    activeFileFacts: () =>
      db.libraryFile.findMany({
        where: { state: "active" },
        select: {
          id: true,
          seriesId: true,
          kind: true,
          volume: true,
          chapter: true,
          part: true,
          updatedAt: true,
          createdAt: true,
        },
      }),
    series: (id: number) => db.series.findUnique({ where: { id } }),
    allSeries: () => db.series.findMany({ orderBy: [{ title: "asc" }, { id: "asc" }] }),
    /** The provenance of the assembled books among `fileIds` (their volume release's `assembledFrom`). */
    async assembledProvenance(fileIds: number[]): Promise<Map<number, string>> {
      if (fileIds.length === 0) return new Map();
      const rows = await inChunks(fileIds, (chunk) =>
        db.chapterRelease.findMany({
          where: { fileId: { in: chunk }, assembledFrom: { not: null } },
          select: { fileId: true, assembledFrom: true },
        }),
      );
      return new Map(rows.map((r) => [r.fileId!, r.assembledFrom!]));
    },

    // ---- KOReader document identities ----
    documentsOf: (fileIds: number[]) =>
      fileIds.length === 0 ? Promise.resolve([]) : db.readerDocument.findMany({ where: { fileId: { in: fileIds } } }),
    saveDocument: (d: { fileId: number; sha256: string; partialMd5: string; nameMd5: string }) =>
      db.readerDocument.upsert({ where: { fileId: d.fileId }, create: d, update: d }),
    documentsByHash: (hash: string) =>
      db.readerDocument.findMany({ where: { OR: [{ partialMd5: hash }, { nameMd5: hash }] } }),
    activeFilesWithoutDocument: async (): Promise<ReaderFileRow[]> => {
      const known = await db.readerDocument.findMany({ select: { fileId: true, sha256: true } });
      const bySha = new Map(known.map((k) => [k.fileId, k.sha256]));
      const rows = await db.libraryFile.findMany({ where: { state: "active" }, select: FILE_SELECT });
      return rows.map(toFile).filter((f) => bySha.get(f.id) !== f.sha256);
    },
  };
}

export type ReadingRepo = ReturnType<typeof readingRepo>;
