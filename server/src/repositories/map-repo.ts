import type { Db } from "../db/client.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import type { MapEntryFacts, MapSourceFacts } from "../domain/types.ts";
import { entryFacts, mapKind } from "./mappers.ts";

export const OPERATOR_SOURCE = "operator";
export const READING_SOURCE = "reading";

function entryRows(sourceId: number, entries: MapEntryFacts[]) {
  return entries.map((e) => ({ sourceId, volume: e.volume, chapters: JSON.stringify(e.chapters) }));
}

/** Map sources and their entries. The operator source changes only at the revision it was read at. */
export function mapRepo(db: Db) {
  return {
    async sources(seriesId: number): Promise<MapSourceFacts[]> {
      const rows = await db.mapSource.findMany({
        where: { seriesId },
        include: { entries: true },
        orderBy: { id: "asc" },
      });
      return rows.map((s) => ({
        id: s.id,
        kind: mapKind(s.kind),
        name: s.name,
        revision: s.revision,
        entries: s.entries.map(entryFacts),
      }));
    },

    /** Current operator revision (0 when no operator map was ever saved). */
    async operatorRevision(seriesId: number): Promise<number> {
      const row = await db.mapSource.findUnique({ where: { seriesId_name: { seriesId, name: OPERATOR_SOURCE } } });
      return row?.revision ?? 0;
    },

    /**
     * Replaces the operator entries if the stored revision is still `expected`; returns the new
     * revision, or null when somebody else saved first (the caller answers 409).
     */
    async replaceOperator(seriesId: number, expected: number, entries: MapEntryFacts[] | null): Promise<number | null> {
      return db.$transaction((tx) => replaceOperatorIn(tx, seriesId, expected, entries));
    },

    /** Records one book's chapters from the reading interface (replacing that book's earlier reading). */
    async upsertReading(seriesId: number, entry: MapEntryFacts): Promise<void> {
      await db.$transaction(async (tx) => {
        const source = await tx.mapSource.upsert({
          where: { seriesId_name: { seriesId, name: READING_SOURCE } },
          create: { seriesId, kind: "reading", name: READING_SOURCE, revision: 1 },
          update: { revision: { increment: 1 } },
        });
        await tx.mapEntry.deleteMany({ where: { sourceId: source.id, volume: entry.volume } });
        await tx.mapEntry.createMany({ data: entryRows(source.id, [entry]) });
      });
    },

    /** Stores a catalogue/official map as a suggestion; the data received is retained verbatim. */
    async replaceSuggestion(
      seriesId: number,
      kind: "catalogue" | "official",
      name: string,
      rawData: string,
      entries: MapEntryFacts[],
    ): Promise<number> {
      return db.$transaction(async (tx) => {
        const source = await tx.mapSource.upsert({
          where: { seriesId_name: { seriesId, name } },
          create: { seriesId, kind, name, revision: 1, data: rawData },
          update: { kind, revision: { increment: 1 }, data: rawData },
        });
        await tx.mapEntry.deleteMany({ where: { sourceId: source.id } });
        if (entries.length > 0) await tx.mapEntry.createMany({ data: entryRows(source.id, entries) });
        return source.id;
      });
    },

    /** Reconciliation: stored estimates are never membership (docs/rules.md, "Map trust" 7). */
    /** removeEstimates for every series at once (the scan): two statements whatever the library's size. */
    async removeAllEstimates(): Promise<number> {
      const { count } = await db.mapSource.deleteMany({ where: { kind: "estimate" } });
      await db.libraryFile.updateMany({ where: { tagSource: "estimate" }, data: { volume: null, tagSource: null } });
      return count;
    },

    async removeEstimates(seriesId: number): Promise<number> {
      const { count } = await db.mapSource.deleteMany({ where: { seriesId, kind: "estimate" } });
      await db.libraryFile.updateMany({
        where: { seriesId, tagSource: "estimate" },
        data: { volume: null, tagSource: null },
      });
      return count;
    },
  };
}

export type MapRepo = ReturnType<typeof mapRepo>;

/**
 * Inside a transaction: replaces the operator map when its revision is still `expected`; the new
 * revision, or null when somebody else saved first. Shared by the map editor and the adoption of
 * page evidence (which records a verification in the same transaction).
 */
export async function replaceOperatorIn(
  tx: Prisma.TransactionClient,
  seriesId: number,
  expected: number,
  entries: MapEntryFacts[] | null,
): Promise<number | null> {
  const current = await tx.mapSource.findUnique({ where: { seriesId_name: { seriesId, name: OPERATOR_SOURCE } } });
  if ((current?.revision ?? 0) !== expected) return null;
  const next = expected + 1;
  let sourceId: number;
  if (current) {
    const moved = await tx.mapSource.updateMany({
      where: { id: current.id, revision: expected },
      data: { revision: next, data: JSON.stringify({ entries }) },
    });
    if (moved.count !== 1) return null;
    sourceId = current.id;
    await tx.mapEntry.deleteMany({ where: { sourceId } });
  } else {
    const created = await tx.mapSource.create({
      data: { seriesId, kind: "operator", name: OPERATOR_SOURCE, revision: next, data: JSON.stringify({ entries }) },
    });
    sourceId = created.id;
  }
  // A deleted operator map keeps its row (and revision) so stale confirmations stay stale.
  if (entries && entries.length > 0) await tx.mapEntry.createMany({ data: entryRows(sourceId, entries) });
  return next;
}
