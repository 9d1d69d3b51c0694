/**
 * The slots a series has from its sources: what the reconciliation reads (offers of the active,
 * non-rejected mappings; the slots with their origin and unlisted mark; what holds a slot) and the
 * one write that applies its decision.
 */
import type { Db } from "../db/client.ts";
import { expandRange, parseLabel, type Label } from "../domain/labels.ts";
import type { ExistingSlot, SlotChanges, SlotHolds } from "../domain/source-numbering.ts";
import { chunksOf } from "./in-chunks.ts";

const lab = (v: string | null): Label | null => (v === null ? null : parseLabel(v));

export function sourceSlotRepo(db: Db) {
  return {
    /** Offers of the series' active mappings that no rejection names (a rejected mapping's offers create nothing). */
    async activeOffers(seriesId: number) {
      const [offers, rejections] = await Promise.all([
        db.offer.findMany({
          where: { seriesId, sourceMapping: { state: "active" } },
          include: {
            sourceMapping: { select: { providerId: true, sourceId: true, provider: { select: { enabled: true } } } },
          },
          orderBy: [{ sourceMappingId: "asc" }, { id: "asc" }],
        }),
        db.sourceRejection.findMany({ where: { seriesId }, select: { providerId: true, sourceId: true } }),
      ]);
      const rejected = new Set(rejections.map((r) => `${r.providerId}\u0000${r.sourceId}`));
      return offers.filter((o) => !rejected.has(`${o.sourceMapping.providerId}\u0000${o.sourceMapping.sourceId}`));
    },

    async existing(seriesId: number): Promise<ExistingSlot[]> {
      const select = { number: true, origin: true, unlistedAt: true } as const;
      const [chapters, volumes] = await Promise.all([
        db.chapterSlot.findMany({ where: { seriesId }, select: { ...select, parts: true, extra: true } }),
        db.volumeSlot.findMany({ where: { seriesId }, select }),
      ]);
      return [
        ...chapters.map((c) => ({
          kind: "chapter" as const,
          number: c.number,
          parts: c.parts,
          extra: c.extra,
          origin: c.origin,
          unlisted: c.unlistedAt !== null,
        })),
        ...volumes.map((v) => ({
          kind: "volume" as const,
          number: v.number,
          parts: 1,
          extra: false,
          origin: v.origin,
          unlisted: v.unlistedAt !== null,
        })),
      ];
    },

    /** Numbers an active file, an operator or reading map entry, or a download holds. */
    async holds(seriesId: number): Promise<SlotHolds> {
      const [files, entries, downloads] = await Promise.all([
        db.libraryFile.findMany({
          where: { seriesId, state: "active" },
          select: { kind: true, volume: true, chapter: true, chapterEnd: true },
        }),
        db.mapEntry.findMany({
          where: { source: { seriesId, kind: { in: ["operator", "reading"] } } },
          select: { volume: true, chapters: true },
        }),
        db.download.findMany({ where: { seriesId }, select: { kind: true, volume: true, chapter: true } }),
      ]);
      const chapters: Label[] = [];
      const volumes: Label[] = [];
      for (const f of files) {
        const a = lab(f.chapter);
        if (a) chapters.push(...expandRange(a, lab(f.chapterEnd) ?? a));
        const v = lab(f.volume);
        if (v && f.kind === "book") volumes.push(v);
      }
      for (const e of entries) {
        const v = lab(e.volume);
        if (v) volumes.push(v);
        try {
          for (const c of JSON.parse(e.chapters) as unknown[]) {
            const l = typeof c === "string" ? parseLabel(c) : null;
            if (l) chapters.push(l);
          }
        } catch {
          // A damaged entry holds nothing.
        }
      }
      for (const d of downloads) {
        const n = lab(d.kind === "volume" ? d.volume : d.chapter);
        if (n) (d.kind === "volume" ? volumes : chapters).push(n);
      }
      return { chapters, volumes };
    },

    /** Applies the reconciliation's decision in one transaction; new slots come from a source. */
    async apply(seriesId: number, changes: SlotChanges, monitored: boolean, at: Date): Promise<void> {
      const ops = [];
      if (changes.addChapters.length > 0)
        ops.push(
          db.chapterSlot.createMany({
            data: changes.addChapters.map((c) => ({
              seriesId,
              number: c.number,
              parts: c.parts,
              extra: c.extra,
              title: c.title ?? null,
              // Extras are optional: fetched on request, never by themselves.
              monitored: monitored && !c.extra,
              origin: "source",
            })),
          }),
        );
      if (changes.addVolumes.length > 0)
        ops.push(
          db.volumeSlot.createMany({
            data: changes.addVolumes.map((number) => ({ seriesId, number, monitored, origin: "source" })),
          }),
        );
      for (const c of changes.raiseChapters)
        ops.push(
          db.chapterSlot.update({
            where: { seriesId_number: { seriesId, number: c.number } },
            data: { parts: c.parts, extra: c.extra },
          }),
        );
      const mark = (list: SlotChanges["markUnlisted"], unlistedAt: Date | null) => {
        for (const kind of ["chapter", "volume"] as const) {
          const numbers = list.filter((s) => s.kind === kind).map((s) => s.number);
          for (const chunk of chunksOf(numbers)) {
            const where = { seriesId, number: { in: chunk } };
            ops.push(
              kind === "chapter"
                ? db.chapterSlot.updateMany({ where, data: { unlistedAt } })
                : db.volumeSlot.updateMany({ where, data: { unlistedAt } }),
            );
          }
        }
      };
      for (const chunk of chunksOf(changes.retireChapters))
        ops.push(
          db.chapterSlot.deleteMany({ where: { seriesId, number: { in: chunk }, origin: "source", extra: true } }),
        );
      mark(changes.markUnlisted, at);
      mark(changes.clearUnlisted, null);
      if (ops.length > 0) await db.$transaction(ops);
    },

    /** Slot keys ("chapter:12", "volume:3") no source lists any more. */
    async unlistedKeys(seriesId: number): Promise<Set<string>> {
      const where = { seriesId, unlistedAt: { not: null } };
      const [chapters, volumes] = await Promise.all([
        db.chapterSlot.findMany({ where, select: { number: true } }),
        db.volumeSlot.findMany({ where, select: { number: true } }),
      ]);
      return new Set([...chapters.map((c) => `chapter:${c.number}`), ...volumes.map((v) => `book:${v.number}`)]);
    },
  };
}

export type SourceSlotRepo = ReturnType<typeof sourceSlotRepo>;
