import type { Db } from "../db/client.ts";
import type { Label } from "../domain/labels.ts";
import { Prisma } from "../generated/prisma/client.ts";
import { bool, jsonInsert, jsonRows, jsonUpdate } from "./json-rows.ts";

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

    /**
     * ensureVolumes and ensureChapters for many series at once (the scan): two selects of the
     * existing slots, then bulk JSON writes (json-rows.ts): the new slots of each table and the
     * slots that learnt more parts or became an extra.
     */
    async ensureMany(
      hints: readonly {
        seriesId: number;
        monitored: boolean;
        volumes: Label[];
        chapters: { number: Label; parts?: number; extra?: boolean }[];
      }[],
    ): Promise<{ volumes: number; chapters: number }> {
      const ids = [...new Set(hints.map((h) => h.seriesId))];
      if (ids.length === 0) return { volumes: 0, chapters: 0 };
      const inList = Prisma.join(ids);
      const haveVolumes = new Set(
        (await jsonRows(db, "series_id, number", Prisma.sql`volume_slot WHERE series_id IN (${inList})`)).map(
          ([s, n]) => `${String(s)}/${String(n)}`,
        ),
      );
      const haveChapters = new Map<string, { id: number; parts: number; extra: boolean }>();
      for (const [id, s, n, parts, extra] of await jsonRows(
        db,
        "id, series_id, number, parts, extra",
        Prisma.sql`chapter_slot WHERE series_id IN (${inList})`,
      ))
        haveChapters.set(`${String(s)}/${String(n)}`, { id: Number(id), parts: Number(parts), extra: bool(extra) });

      const newVolumes = new Map<string, { seriesId: number; number: string; monitored: boolean }>();
      const newChapters = new Map<
        string,
        { seriesId: number; number: string; monitored: boolean; parts: number; extra: boolean }
      >();
      const raised = new Map<number, { parts: number; extra: boolean }>();
      for (const h of hints) {
        for (const number of h.volumes) {
          const key = `${h.seriesId}/${number}`;
          if (!haveVolumes.has(key)) newVolumes.set(key, { seriesId: h.seriesId, number, monitored: h.monitored });
        }
        for (const c of h.chapters) {
          const key = `${h.seriesId}/${c.number}`;
          const parts = Math.max(1, c.parts ?? 1);
          const row = haveChapters.get(key);
          if (row) {
            const extra = c.extra === true && !row.extra;
            if (parts > row.parts || extra) {
              row.parts = Math.max(parts, row.parts);
              row.extra ||= extra;
              raised.set(row.id, { parts: row.parts, extra: row.extra });
            }
            continue;
          }
          const prev = newChapters.get(key);
          newChapters.set(key, {
            seriesId: h.seriesId,
            number: c.number,
            monitored: h.monitored,
            parts: Math.max(parts, prev?.parts ?? 1),
            extra: c.extra ?? prev?.extra ?? false,
          });
        }
      }
      const volumeRows = [...newVolumes.values()];
      const chapterRows = [...newChapters.values()];
      await jsonInsert(
        db,
        "volume_slot",
        ["series_id", "number", "monitored"],
        volumeRows.map((v) => [v.seriesId, v.number, v.monitored]),
      );
      await jsonInsert(
        db,
        "chapter_slot",
        ["series_id", "number", "monitored", "parts", "extra"],
        chapterRows.map((c) => [c.seriesId, c.number, c.monitored, c.parts, c.extra]),
      );
      await jsonUpdate(
        db,
        "chapter_slot",
        ["parts", "extra"],
        [...raised].map(([id, r]) => [id, r.parts, r.extra]),
      );
      return { volumes: volumeRows.length, chapters: chapterRows.length };
    },
    /** Sets a book's or chapter's monitored flag, creating its slot when it has none. */
    async setMonitored(kind: "book" | "chapter", seriesId: number, number: string, monitored: boolean): Promise<void> {
      const where = { seriesId_number: { seriesId, number } };
      if (kind === "book")
        await db.volumeSlot.upsert({ where, create: { seriesId, number, monitored }, update: { monitored } });
      else await db.chapterSlot.upsert({ where, create: { seriesId, number, monitored }, update: { monitored } });
    },
    volume: (seriesId: number, number: string) =>
      db.volumeSlot.findUnique({ where: { seriesId_number: { seriesId, number } } }),
    chapter: (seriesId: number, number: string) =>
      db.chapterSlot.findUnique({ where: { seriesId_number: { seriesId, number } } }),
  };
}

export type SlotRepo = ReturnType<typeof slotRepo>;
