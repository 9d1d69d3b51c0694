/**
 * The durable download queue: Download rows are the queue. A row moves only from the state it was
 * read in (`WHERE state = <expected>`), so a row is claimed by one worker, and a cancel and a worker
 * cannot both win.
 */
import type { Db } from "../db/client.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import { LIVE_JOB_STATES } from "../domain/download-jobs.ts";
import { inChunks } from "./in-chunks.ts";
import { withProviderName } from "./download-repo.ts";

export type QueueRowUpdate = Prisma.DownloadUpdateManyMutationInput;
/** Further conditions of a move: no publication in flight (`journalId: null`), none committed (`fileId: null`). */
export type QueueRowGuard = Pick<Prisma.DownloadWhereInput, "journalId" | "fileId">;

export function downloadQueueRepo(db: Db) {
  return {
    get: (id: number) => db.download.findUnique({ where: { id } }),
    /**
     * Moves the row from `from` only, and with `attempt` only while that attempt is the row's
     * (another instance that took the row over started a later one), and only as `guard` allows;
     * false when it was not.
     */
    async move(
      id: number,
      from: string | readonly string[],
      data: QueueRowUpdate,
      attempt?: number,
      guard: QueueRowGuard = {},
    ): Promise<boolean> {
      const state = typeof from === "string" ? from : { in: [...from] };
      const where = { id, state, ...(attempt === undefined ? {} : { attempts: attempt }), ...guard };
      return (await db.download.updateMany({ where, data })).count === 1;
    },
    /**
     * Records how many pages attempt `attempt` of a fetching row has; never lowers the count: the
     * job writes while other pages arrive, and two writes on two connections may commit in either order.
     */
    async progress(id: number, attempt: number, pagesDone: number): Promise<boolean> {
      const where = { id, state: "fetching", attempts: attempt, pagesDone: { lt: pagesDone } };
      return (await db.download.updateMany({ where, data: { pagesDone } })).count === 1;
    },
    /** Waiting rows whose back-off ended go back to queued. */
    async releaseDue(now: Date): Promise<number> {
      return (
        await db.download.updateMany({
          where: { state: "waiting", OR: [{ nextAttemptAt: null }, { nextAttemptAt: { lte: now } }] },
          data: { state: "queued" },
        })
      ).count;
    },
    /** Queued rows a worker may take (oldest first), with their mapping's provider. */
    claimable(take: number) {
      return db.download.findMany({
        where: { state: "queued", cancelRequested: false, sourceMappingId: { not: null }, externalId: { not: null } },
        orderBy: { id: "asc" },
        take,
        include: { sourceMapping: { select: { providerId: true } } },
      });
    },
    /** Rows a previous process left mid-way (fetching, judging, publishing). */
    interrupted: () =>
      db.download.findMany({ where: { state: { in: ["fetching", "judging", "publishing"] } }, orderBy: { id: "asc" } }),
    /** The earliest back-off end of a waiting row. */
    async nextWake(): Promise<Date | null> {
      const row = await db.download.findFirst({
        where: { state: "waiting", nextAttemptAt: { not: null } },
        orderBy: { nextAttemptAt: "asc" },
        select: { nextAttemptAt: true },
      });
      return row?.nextAttemptAt ?? null;
    },
    list(filter: { states?: readonly string[]; seriesId?: number }, take = 500) {
      return db.download.findMany({
        where: {
          ...(filter.states ? { state: { in: [...filter.states] } } : {}),
          ...(filter.seriesId !== undefined ? { seriesId: filter.seriesId } : {}),
        },
        orderBy: [{ id: "desc" }],
        take,
        include: withProviderName,
      });
    },
    /** The library file a publication of this release created (a restart after the commit). */
    async publishedFileOf(row: {
      seriesId: number;
      sourceMappingId: number | null;
      externalId: string | null;
      createdAt: Date;
    }): Promise<number | null> {
      if (row.sourceMappingId === null || row.externalId === null) return null;
      const rel = await db.chapterRelease.findFirst({
        where: {
          seriesId: row.seriesId,
          sourceMappingId: row.sourceMappingId,
          externalId: row.externalId,
          fileId: { not: null },
          createdAt: { gte: row.createdAt },
        },
        orderBy: { id: "desc" },
        select: { fileId: true },
      });
      return rel?.fileId ?? null;
    },
    /** The downloads of one replacement group. */
    groupMembers: (seriesId: number, replacementGroup: string) =>
      db.download.findMany({
        where: { seriesId, replacementGroup },
        select: { id: true, state: true, part: true, replacesFileIds: true },
        orderBy: { id: "asc" },
      }),
    /** Of these library files, the ones still active. */
    async activeFileIds(ids: number[]): Promise<number[]> {
      if (ids.length === 0) return [];
      const rows = await inChunks(ids, (chunk) =>
        db.libraryFile.findMany({ where: { id: { in: chunk }, state: "active" }, select: { id: true } }),
      );
      return rows.map((r) => r.id);
    },
    /** One published row per replacement group (the groups to check after a restart). */
    openReplacementGroups: () =>
      db.download.findMany({
        where: { replacementGroup: { not: null }, state: "published" },
        distinct: ["seriesId", "replacementGroup"],
        select: { seriesId: true, replacementGroup: true },
      }),
    liveOfSeries: (seriesId: number) =>
      db.download.findMany({ where: { seriesId, state: { in: [...LIVE_JOB_STATES] } } }),
  };
}

export type DownloadQueueRepo = ReturnType<typeof downloadQueueRepo>;
