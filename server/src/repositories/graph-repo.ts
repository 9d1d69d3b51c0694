/**
 * Rows for the GraphQL object types backed by Prisma (Pothos' Prisma plugin). The plugin hands each
 * root field a selection (`include`/`select`) built from the query, so a nested selection such as
 * series → books loads in the same statements; the fields load through here with that selection.
 */
import type { Db } from "../db/client.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import { seriesRows } from "./series-rows.ts";

/** The selection Pothos builds for a field returning series. */
export interface SeriesSelection {
  include?: Prisma.SeriesInclude;
  select?: Prisma.SeriesSelect;
}

export function graphRepo(db: Db) {
  return {
    /** Every series, by title. */
    seriesList: (query: SeriesSelection) =>
      db.series.findMany({ ...query, orderBy: [{ title: "asc" }, { id: "asc" }] }),
    /** One series, or null: without relations in the selection, by the raw select (series-rows.ts). */
    series: async (query: SeriesSelection, id: number) => {
      if (query.select || (query.include && Object.keys(query.include).length > 0))
        return db.series.findUnique({ ...query, where: { id } });
      return (await seriesRows(db, [id]))[0] ?? null;
    },
    /** One series that exists (it was just created or changed). */
    requireSeries: (query: SeriesSelection, id: number) => db.series.findUniqueOrThrow({ ...query, where: { id } }),
  };
}

export type GraphRepo = ReturnType<typeof graphRepo>;
