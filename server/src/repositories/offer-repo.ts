import type { Db } from "../db/client.ts";
import { chunksOf } from "./in-chunks.ts";

/** One offer as a refresh computes it (after numbering overrides). */
export interface OfferInput {
  kind: "chapter" | "volume";
  volume: string | null;
  chapter: string | null;
  part: number | null;
  language: string;
  scanlator: string | null;
  externalId: string;
  /** The release's name as the source lists it; null when it has none. */
  title: string | null;
  pageCount: number | null;
  uploadedAt: Date | null;
  /** A numbering override gave it its numbers. */
  overridden: boolean;
}

/** Offers: the releases a source mapping has. Written only by a refresh, as one replacement per mapping. */
export function offerRepo(db: Db) {
  return {
    ofSeries: (seriesId: number) =>
      db.offer.findMany({ where: { seriesId }, orderBy: [{ sourceMappingId: "asc" }, { id: "asc" }] }),
    ofMapping: (sourceMappingId: number) => db.offer.findMany({ where: { sourceMappingId }, orderBy: { id: "asc" } }),
    /**
     * Makes the mapping's offers exactly `offers` in one transaction: upserts by externalId, removes
     * what the source no longer lists. Only while the mapping is still active (a rejection meanwhile
     * deleted it: nothing is re-added). Counts what changed.
     */
    async replaceForMapping(
      seriesId: number,
      sourceMappingId: number,
      offers: readonly OfferInput[],
    ): Promise<{ added: number; updated: number; removed: number } | null> {
      return db.$transaction(async (tx) => {
        const mapping = await tx.sourceMapping.findUnique({
          where: { id: sourceMappingId },
          select: { state: true, seriesId: true },
        });
        if (!mapping || mapping.state !== "active" || mapping.seriesId !== seriesId) return null;
        const existing = await tx.offer.findMany({ where: { sourceMappingId } });
        const byId = new Map(existing.map((o) => [o.externalId, o]));
        const keep = new Set(offers.map((o) => o.externalId));
        let added = 0;
        let updated = 0;
        for (const o of offers) {
          const old = byId.get(o.externalId);
          if (!old) {
            await tx.offer.create({ data: { seriesId, sourceMappingId, ...o } });
            added++;
          } else if (
            old.kind !== o.kind ||
            old.volume !== o.volume ||
            old.chapter !== o.chapter ||
            old.part !== o.part ||
            old.language !== o.language ||
            old.scanlator !== o.scanlator ||
            old.title !== o.title ||
            old.pageCount !== o.pageCount ||
            old.overridden !== o.overridden ||
            (old.uploadedAt?.getTime() ?? null) !== (o.uploadedAt?.getTime() ?? null)
          ) {
            await tx.offer.update({ where: { id: old.id }, data: o });
            updated++;
          }
        }
        const gone = existing.filter((o) => !keep.has(o.externalId)).map((o) => o.id);
        for (const chunk of chunksOf(gone)) await tx.offer.deleteMany({ where: { id: { in: chunk } } });
        return { added, updated, removed: gone.length };
      });
    },
  };
}

export type OfferRepo = ReturnType<typeof offerRepo>;
