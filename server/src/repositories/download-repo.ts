import type { Db } from "../db/client.ts";
import type { Download } from "../generated/prisma/client.ts";

/** A download row as stored. */
export type DownloadRow = Download;

/** Download rows: fetched releases on their way into the library. States move only from an expected state. */
export function downloadRepo(db: Db) {
  return {
    get: (id: number) => db.download.findUnique({ where: { id } }),
    listOfSeries: (seriesId: number) =>
      db.download.findMany({ where: { seriesId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] }),
    /** Moves the row from one state to another only if it is still in `from`; false when it was not. */
    async transition(
      id: number,
      from: string,
      data: { state: string; verdict?: string; needsReplacement?: boolean; error?: string | null },
    ): Promise<boolean> {
      return (await db.download.updateMany({ where: { id, state: from }, data })).count === 1;
    },
    /** Verdict JSON of the series' latest downloads in `states` (newest first), other than `exceptId`. */
    async verdictsOf(
      seriesId: number,
      states: readonly string[],
      exceptId: number,
      take: number,
    ): Promise<(string | null)[]> {
      const rows = await db.download.findMany({
        where: { seriesId, id: { not: exceptId }, state: { in: [...states] }, verdict: { not: null } },
        select: { verdict: true },
        orderBy: { id: "desc" },
        take,
      });
      return rows.map((r) => r.verdict);
    },
  };
}

export type DownloadRepo = ReturnType<typeof downloadRepo>;
