/** What the release calendar reads: monitored running series and the dated chapter offers of their active mappings. */
import type { Db } from "../db/client.ts";
import { inChunks } from "./in-chunks.ts";

export function calendarRepo(db: Db) {
  return {
    runningSeries: () =>
      db.series.findMany({
        where: { monitored: true, status: "running" },
        select: { id: true, title: true, language: true },
        orderBy: [{ title: "asc" }, { id: "asc" }],
      }),
    /** Dated chapter offers of active mappings, for the given series. */
    datedOffers: (seriesIds: number[]) =>
      inChunks(seriesIds, (chunk) =>
        db.offer.findMany({
          where: {
            seriesId: { in: chunk },
            kind: "chapter",
            chapter: { not: null },
            uploadedAt: { not: null },
            sourceMapping: { state: "active" },
          },
          select: { seriesId: true, chapter: true, language: true, uploadedAt: true },
        }),
      ),
  };
}
