import type { Db } from "../db/client.ts";
import type { Download, Prisma } from "../generated/prisma/client.ts";

/** A download row as stored. */
export type DownloadRow = Download;

/** Download rows: fetched releases on their way into the library. States move only from an expected state. */
export type DownloadCreate = Prisma.DownloadUncheckedCreateInput;

/** What a download's view shows besides the row: its provider's name and its mapping's blocked releases. */
export const withProviderName = {
  sourceMapping: {
    select: { provider: { select: { name: true } }, blockedReleases: { select: { externalId: true } } },
  },
} as const;

export function downloadRepo(db: Db) {
  return {
    /** A download with its provider's name (what its view shows). */
    viewRow: (id: number) => db.download.findUniqueOrThrow({ where: { id }, include: withProviderName }),
    /** A series' downloads with their providers' names, newest first. */
    viewRowsOfSeries: (seriesId: number) =>
      db.download.findMany({
        where: { seriesId },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        include: withProviderName,
      }),
    /** What the Wanted plan reads of a series' downloads. */
    planFacts: (seriesId: number) =>
      db.download.findMany({
        where: { seriesId },
        select: {
          id: true,
          state: true,
          kind: true,
          chapter: true,
          volume: true,
          part: true,
          sourceMappingId: true,
          externalId: true,
          scanlator: true,
          fileId: true,
          needsReplacement: true,
          replacesFileId: true,
          replacesFileIds: true,
          replacementGroup: true,
          updatedAt: true,
          verdict: true,
        },
      }),
    /** The states of these downloads by id (one statement; none for no ids). */
    async statesOf(ids: readonly number[]): Promise<Map<number, string>> {
      if (ids.length === 0) return new Map();
      const rows = await db.download.findMany({
        where: { id: { in: [...new Set(ids)] } },
        select: { id: true, state: true },
      });
      return new Map(rows.map((r) => [r.id, r.state]));
    },
    /** Creates the downloads in one transaction. */
    createAll: (rows: readonly DownloadCreate[]) => db.$transaction(rows.map((data) => db.download.create({ data }))),
    get: (id: number) => db.download.findUnique({ where: { id } }),
    listOfSeries: (seriesId: number) =>
      db.download.findMany({ where: { seriesId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] }),
    /**
     * Moves the row from one state to another only if it is still in `from` (and, with `attempt`,
     * still in that attempt); false when it was not.
     */
    async transition(
      id: number,
      from: string,
      data: { state: string; verdict?: string; needsReplacement?: boolean; error?: string | null },
      attempt?: number,
    ): Promise<boolean> {
      const where = { id, state: from, ...(attempt === undefined ? {} : { attempts: attempt }) };
      return (await db.download.updateMany({ where, data })).count === 1;
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
