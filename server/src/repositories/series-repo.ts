import type { Db } from "../db/client.ts";
import type { Prisma, Series } from "../generated/prisma/client.ts";

export type SeriesRow = Series;
export type SeriesCreate = Prisma.SeriesUncheckedCreateInput;
export type SeriesPatch = Prisma.SeriesUncheckedUpdateInput;

export function seriesRepo(db: Db) {
  return {
    list: () => db.series.findMany({ orderBy: [{ title: "asc" }, { id: "asc" }] }),
    get: (id: number) => db.series.findUnique({ where: { id } }),
    byFolder: (folder: string) => db.series.findUnique({ where: { folder } }),
    create: (data: SeriesCreate) => db.series.create({ data }),
    update: (id: number, data: SeriesPatch) => db.series.update({ where: { id }, data }),
    count: () => db.series.count(),
  };
}

export type SeriesRepo = ReturnType<typeof seriesRepo>;
