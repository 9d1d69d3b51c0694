import type { Db } from "../db/client.ts";

/** Chapter releases: what a source published and which library file holds it. */
export function releaseRepo(db: Db) {
  return {
    /** A series' releases that hold a file, with their provider and source ids, oldest first. */
    filedOfSeries: (seriesId: number) =>
      db.chapterRelease.findMany({
        where: { seriesId, fileId: { not: null } },
        select: {
          id: true,
          fileId: true,
          sourceMappingId: true,
          externalId: true,
          language: true,
          provider: { select: { name: true } },
          sourceMapping: { select: { sourceId: true } },
        },
        orderBy: { id: "asc" },
      }),
    /** The release of this external id whose file is active (its file id). */
    activeOfExternal: (seriesId: number, externalId: string) =>
      db.chapterRelease.findFirst({
        where: { seriesId, externalId, file: { state: "active" } },
        select: { fileId: true },
      }),
    /** A mapping's releases and their files, oldest first. */
    ofMapping: (sourceMappingId: number) =>
      db.chapterRelease.findMany({
        where: { sourceMappingId },
        select: { id: true, fileId: true, externalId: true },
        orderBy: { id: "asc" },
      }),
  };
}

export type ReleaseRepo = ReturnType<typeof releaseRepo>;
