import type { Db } from "../db/client.ts";

/** Source mappings (a series linked to a provider's work) and rejections (never linked again). */
export function sourceRepo(db: Db) {
  const withProvider = { provider: true } as const;
  return {
    mapping: (id: number) => db.sourceMapping.findUnique({ where: { id }, include: withProvider }),
    /** The mapping row alone. */
    mappingRow: (id: number) => db.sourceMapping.findUnique({ where: { id } }),
    /** A series' mappings (only the active ones with `activeOnly`) with their provider's priority. */
    mappingsWithPriority: (seriesId: number, activeOnly: boolean) =>
      db.sourceMapping.findMany({
        where: activeOnly ? { seriesId, state: "active" } : { seriesId },
        include: { provider: { select: { priority: true } } },
      }),
    mappingsOf: (seriesId: number) =>
      db.sourceMapping.findMany({
        where: { seriesId },
        include: withProvider,
        orderBy: [{ priority: "desc" }, { id: "asc" }],
      }),
    /** Active mappings of a series that no rejection names (a refresh touches nothing else). */
    async activeMappingsOf(seriesId: number) {
      const [mappings, rejections] = await Promise.all([
        db.sourceMapping.findMany({
          where: { seriesId, state: "active" },
          include: withProvider,
          orderBy: [{ priority: "desc" }, { id: "asc" }],
        }),
        db.sourceRejection.findMany({ where: { seriesId }, select: { providerId: true, sourceId: true } }),
      ]);
      const rejected = new Set(rejections.map((r) => `${r.providerId}\u0000${r.sourceId}`));
      return mappings.filter((m) => !rejected.has(`${m.providerId}\u0000${m.sourceId}`));
    },
    rejection: (seriesId: number, providerId: number, sourceId: string) =>
      db.sourceRejection.findUnique({ where: { seriesId_providerId_sourceId: { seriesId, providerId, sourceId } } }),
    rejectionsOf: (seriesId: number) => db.sourceRejection.findMany({ where: { seriesId } }),
    findMapping: (seriesId: number, providerId: number, sourceId: string) =>
      db.sourceMapping.findUnique({
        where: { seriesId_providerId_sourceId: { seriesId, providerId, sourceId } },
        include: withProvider,
      }),
    createMapping: (data: {
      seriesId: number;
      providerId: number;
      sourceId: string;
      language: string;
      priority: number;
    }) => db.sourceMapping.create({ data: { ...data, state: "active" }, include: withProvider }),
    async setPriority(id: number, seriesId: number, priority: number): Promise<boolean> {
      return (await db.sourceMapping.updateMany({ where: { id, seriesId }, data: { priority } })).count === 1;
    },
    /** Offer counts per mapping of a series. */
    async offerCounts(seriesId: number): Promise<Map<number, number>> {
      const rows = await db.offer.groupBy({ by: ["sourceMappingId"], where: { seriesId }, _count: { _all: true } });
      return new Map(rows.map((r) => [r.sourceMappingId, r._count._all]));
    },
    /** Numbering overrides of one mapping (domain/numbering-override.ts). */
    overridesOf: (sourceMappingId: number) =>
      db.numberingOverride.findMany({ where: { sourceMappingId }, orderBy: { id: "asc" } }),
    upsertOverride: (data: {
      seriesId: number;
      sourceMappingId: number;
      externalId: string;
      observedNumber: string;
      correction: string;
      evidence: string;
    }) =>
      db.numberingOverride.upsert({
        where: { sourceMappingId_externalId: { sourceMappingId: data.sourceMappingId, externalId: data.externalId } },
        create: data,
        update: { observedNumber: data.observedNumber, correction: data.correction, evidence: data.evidence },
      }),
    async deleteOverride(sourceMappingId: number, externalId: string): Promise<boolean> {
      return (await db.numberingOverride.deleteMany({ where: { sourceMappingId, externalId } })).count > 0;
    },
    /** Every active mapping of the library, with its provider and its series' title (the health check). */
    activeMappingsOfLibrary: () =>
      db.sourceMapping.findMany({
        where: { state: "active" },
        include: { provider: true, series: { select: { title: true } } },
        orderBy: [{ seriesId: "asc" }, { priority: "desc" }, { id: "asc" }],
      }),
    /** The library's latest downloads from a source, newest first. */
    recentDownloadsOfLibrary: (take: number) =>
      db.download.findMany({
        where: { sourceMappingId: { not: null } },
        select: { sourceMappingId: true, state: true, updatedAt: true },
        orderBy: { id: "desc" },
        take,
      }),
    /** The latest downloads of each mapping of a series (state and time), newest first. */
    recentDownloads: (seriesId: number, take: number) =>
      db.download.findMany({
        where: { seriesId, sourceMappingId: { not: null } },
        select: { sourceMappingId: true, state: true, updatedAt: true },
        orderBy: { id: "desc" },
        take,
      }),
  };
}

export type SourceRepo = ReturnType<typeof sourceRepo>;
