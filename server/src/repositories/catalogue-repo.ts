import type { Db } from "../db/client.ts";
import type { CatalogueLink } from "../generated/prisma/client.ts";
import type { MapEntryFacts } from "../domain/types.ts";
import { inChunks } from "./in-chunks.ts";

export type CatalogueLinkRow = CatalogueLink;

/** What a refresh writes for one link (everything but the ids). */
export interface CatalogueLinkWrite {
  catalogue: string;
  catalogueId: string;
  status: string | null;
  volumes: number | null;
  chapters: number | null;
  data: string;
  coverFile: string | null;
  coverType: string | null;
  coverSource: string | null;
  refreshedAt: Date;
}

/** A catalogue map suggestion to store (entries) or to drop (entries null). */
export interface SuggestionWrite {
  name: string;
  /** Source data as received, retained verbatim (JSON text). */
  data: string;
  entries: MapEntryFacts[] | null;
}

function entryRows(sourceId: number, entries: MapEntryFacts[]) {
  return entries.map((e) => ({ sourceId, volume: e.volume, chapters: JSON.stringify(e.chapters) }));
}

/**
 * Catalogue links and the catalogue map suggestions they bring. A refresh writes its links and its
 * suggestion in one transaction and touches no other map source: operator and reading entries
 * are never read or written here.
 */
export function catalogueRepo(db: Db) {
  return {
    links: (seriesId: number) => db.catalogueLink.findMany({ where: { seriesId }, orderBy: { id: "asc" } }),

    link: (seriesId: number, catalogue: string) =>
      db.catalogueLink.findUnique({ where: { seriesId_catalogue: { seriesId, catalogue } } }),

    /** The series among `seriesIds` that have a stored catalogue cover (one statement). */
    async seriesWithCovers(seriesIds: readonly number[]): Promise<Set<number>> {
      if (seriesIds.length === 0) return new Set();
      const rows = await inChunks(seriesIds, (chunk) =>
        db.catalogueLink.findMany({
          where: { seriesId: { in: chunk }, coverFile: { not: null } },
          select: { seriesId: true },
        }),
      );
      return new Set(rows.map((r) => r.seriesId));
    },

    /** Every series with at least one link, in id order (the scheduled refresh). */
    async linkedSeriesIds(): Promise<number[]> {
      const rows = await db.catalogueLink.findMany({
        select: { seriesId: true },
        distinct: ["seriesId"],
        orderBy: { seriesId: "asc" },
      });
      return rows.map((r) => r.seriesId);
    },

    /** Links and the suggestion of one refresh, all or nothing. */
    async applyRefresh(
      seriesId: number,
      links: CatalogueLinkWrite[],
      suggestion: SuggestionWrite | null,
    ): Promise<void> {
      await db.$transaction(async (tx) => {
        for (const l of links) {
          const data = { ...l, seriesId };
          await tx.catalogueLink.upsert({
            where: { seriesId_catalogue: { seriesId, catalogue: l.catalogue } },
            create: data,
            update: data,
          });
        }
        if (suggestion === null) return;
        const where = { seriesId_name: { seriesId, name: suggestion.name } };
        if (suggestion.entries === null) {
          await tx.mapSource.deleteMany({ where: { seriesId, name: suggestion.name, kind: "catalogue" } });
          return;
        }
        const source = await tx.mapSource.upsert({
          where,
          create: { seriesId, kind: "catalogue", name: suggestion.name, revision: 1, data: suggestion.data },
          update: { kind: "catalogue", revision: { increment: 1 }, data: suggestion.data },
        });
        await tx.mapEntry.deleteMany({ where: { sourceId: source.id } });
        if (suggestion.entries.length > 0)
          await tx.mapEntry.createMany({ data: entryRows(source.id, suggestion.entries) });
      });
    },

    /** Removes one link and its catalogue suggestion (never another map source). */
    async unlink(seriesId: number, catalogue: string, suggestionName: string): Promise<void> {
      await db.$transaction(async (tx) => {
        await tx.catalogueLink.deleteMany({ where: { seriesId, catalogue } });
        await tx.mapSource.deleteMany({ where: { seriesId, name: suggestionName, kind: "catalogue" } });
      });
    },

    /** Is a stored cover file still named by a link? */
    async coverInUse(file: string): Promise<boolean> {
      return (await db.catalogueLink.count({ where: { coverFile: file } })) > 0;
    },
  };
}

export type CatalogueRepo = ReturnType<typeof catalogueRepo>;

/** The stored data of a catalogue suggestion and how many books it has (the catalogue panel's summary). */
export async function catalogueSuggestionOf(
  db: Db,
  seriesId: number,
  name: string,
): Promise<{ data: string; books: number; revision: number } | null> {
  const row = await db.mapSource.findUnique({
    where: { seriesId_name: { seriesId, name } },
    select: { data: true, kind: true, revision: true, _count: { select: { entries: true } } },
  });
  if (!row || row.kind !== "catalogue") return null;
  return { data: row.data, books: row._count.entries, revision: row.revision };
}
