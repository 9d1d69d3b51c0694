/** Releases the operator blocked (BlockedRelease): what the Wanted pass must never choose again. */
import type { Db } from "../db/client.ts";

export interface BlockInput {
  seriesId: number;
  sourceMappingId: number;
  externalId: string;
  kind: string;
  volume: string | null;
  chapter: string | null;
  part: number | null;
  language: string;
  scanlator: string | null;
  downloadId: number | null;
}

const withSource = {
  sourceMapping: { select: { provider: { select: { name: true } } } },
  series: { select: { title: true } },
} as const;

export function blocklistRepo(db: Db) {
  return {
    /** Blocks a release; blocking it again keeps the first entry (its date says since when). */
    async add(entry: BlockInput) {
      const where = {
        sourceMappingId_externalId: { sourceMappingId: entry.sourceMappingId, externalId: entry.externalId },
      };
      try {
        return await db.blockedRelease.upsert({ where, create: entry, update: {}, include: withSource });
      } catch (e) {
        // Two blocks of one release at once: the other one created it.
        if ((e as { code?: unknown }).code !== "P2002") throw e;
        return db.blockedRelease.findUniqueOrThrow({ where, include: withSource });
      }
    },
    /** Newest first, at most `take`. */
    list: (seriesId?: number, take = 500) =>
      db.blockedRelease.findMany({
        where: seriesId === undefined ? {} : { seriesId },
        orderBy: { id: "desc" },
        take,
        include: withSource,
      }),
    /** The blocked releases of a series, as the planner takes them. */
    keysOf: (seriesId: number) =>
      db.blockedRelease.findMany({ where: { seriesId }, select: { sourceMappingId: true, externalId: true } }),
    /** Lifts a block; false when there was none with this id. */
    async remove(id: number): Promise<boolean> {
      return (await db.blockedRelease.deleteMany({ where: { id } })).count === 1;
    },
  };
}

export type BlocklistRepo = ReturnType<typeof blocklistRepo>;
export type BlockedReleaseRow = Awaited<ReturnType<BlocklistRepo["list"]>>[number];
