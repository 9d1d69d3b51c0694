import type { Db } from "../db/client.ts";
import type { Prisma } from "../generated/prisma/client.ts";

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

/** Library files as the scan sees them. Files are never deleted: vanished ones become `missing`. */
export function fileRepo(db: Db) {
  return {
    async active(): Promise<KnownFile[]> {
      const rows = await db.libraryFile.findMany({
        where: { state: "active" },
        select: { id: true, seriesId: true, path: true, size: true, mtimeMs: true, sha256: true },
      });
      return rows.map((r) => ({ ...r, size: Number(r.size), mtimeMs: Number(r.mtimeMs) }));
    },
    create: (data: FileCreate) => db.libraryFile.create({ data }),
    update: (id: number, data: FileUpdate) => db.libraryFile.update({ where: { id }, data }),
    markMissing: (ids: number[]) =>
      db.libraryFile.updateMany({ where: { id: { in: ids }, state: "active" }, data: { state: "missing" } }),
    countActive: (seriesId: number) => db.libraryFile.count({ where: { seriesId, state: "active" } }),
  };
}

export type FileRepo = ReturnType<typeof fileRepo>;
