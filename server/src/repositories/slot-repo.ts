import type { Db } from "../db/client.ts";
import type { Label } from "../domain/labels.ts";

/** Volume and chapter slots: what the series has (or will have), independent of files. */
export function slotRepo(db: Db) {
  return {
    volumeNumbers: async (seriesId: number) =>
      (await db.volumeSlot.findMany({ where: { seriesId }, select: { number: true } })).map((r) => r.number),
    chapterNumbers: async (seriesId: number) =>
      (await db.chapterSlot.findMany({ where: { seriesId }, select: { number: true } })).map((r) => r.number),

    /** Adds missing volume slots; existing ones (and their monitored flags) are left alone. */
    async ensureVolumes(seriesId: number, numbers: Label[], monitored: boolean): Promise<number> {
      const have = new Set(await this.volumeNumbers(seriesId));
      const add = [...new Set(numbers)].filter((n) => !have.has(n));
      if (add.length === 0) return 0;
      await db.volumeSlot.createMany({ data: add.map((number) => ({ seriesId, number, monitored })) });
      return add.length;
    },

    /**
     * Adds missing chapter slots. What is learnt later only ever adds to an existing slot: a larger
     * part count raises its parts, `extra: true` marks it an optional extra (never unmarked here).
     */
    async ensureChapters(
      seriesId: number,
      chapters: { number: Label; parts?: number; extra?: boolean }[],
      monitored: boolean,
    ): Promise<number> {
      const existing = await db.chapterSlot.findMany({
        where: { seriesId },
        select: { id: true, number: true, parts: true, extra: true },
      });
      const byNumber = new Map(existing.map((r) => [r.number, r]));
      const add = new Map<string, { number: Label; parts: number; extra: boolean }>();
      for (const c of chapters) {
        const parts = Math.max(1, c.parts ?? 1);
        const row = byNumber.get(c.number);
        if (row) {
          const extra = c.extra === true && !row.extra;
          if (parts > row.parts || extra) {
            await db.chapterSlot.update({
              where: { id: row.id },
              data: { parts: Math.max(parts, row.parts), ...(extra ? { extra } : {}) },
            });
            row.parts = Math.max(parts, row.parts);
            row.extra ||= extra;
          }
          continue;
        }
        const prev = add.get(c.number);
        add.set(c.number, {
          number: c.number,
          parts: Math.max(parts, prev?.parts ?? 1),
          extra: c.extra ?? prev?.extra ?? false,
        });
      }
      if (add.size === 0) return 0;
      await db.chapterSlot.createMany({ data: [...add.values()].map((c) => ({ seriesId, monitored, ...c })) });
      return add.size;
    },
  };
}

export type SlotRepo = ReturnType<typeof slotRepo>;
