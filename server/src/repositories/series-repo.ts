import type { Db } from "../db/client.ts";
import type { Prisma, Series } from "../generated/prisma/client.ts";
import { jsonInsert, storedNow } from "./json-rows.ts";

export type SeriesRow = Series;
export type SeriesCreate = Prisma.SeriesUncheckedCreateInput;
export type SeriesPatch = Prisma.SeriesUncheckedUpdateInput;

export function seriesRepo(db: Db) {
  return {
    list: () => db.series.findMany({ orderBy: [{ title: "asc" }, { id: "asc" }] }),
    get: (id: number) => db.series.findUnique({ where: { id } }),
    byFolder: (folder: string) => db.series.findUnique({ where: { folder } }),
    create: (data: SeriesCreate) => db.series.create({ data }),
    /** New series named after their folders (the scan), every other field at its default: one statement. */
    async createForFolders(folders: readonly string[]): Promise<void> {
      const now = storedNow();
      await jsonInsert(
        db,
        "series",
        ["title", "folder", "created_at", "updated_at"],
        folders.map((f) => [f, f, now, now]),
      );
    },
    update: (id: number, data: SeriesPatch) => db.series.update({ where: { id }, data }),
    count: () => db.series.count(),
    /** One series that must exist (Prisma's not-found error otherwise). */
    require: (id: number) => db.series.findUniqueOrThrow({ where: { id } }),
    async exists(id: number): Promise<boolean> {
      return (await db.series.findUnique({ where: { id }, select: { id: true } })) !== null;
    },
    /** Ids of the series whose flags match, by id. */
    async idsWhere(where: {
      monitored?: boolean;
      assembleBooksAutomatically?: boolean;
      translationFallbackEnabled?: boolean;
    }): Promise<number[]> {
      return (await db.series.findMany({ where, select: { id: true }, orderBy: { id: "asc" } })).map((s) => s.id);
    },
  };
}

export type SeriesRepo = ReturnType<typeof seriesRepo>;
