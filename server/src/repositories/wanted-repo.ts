/** The Wanted ledger (WantedEntry) and per-series back-off (WantedState) of the Wanted pass. */
import type { Db } from "../db/client.ts";
import type { LedgerEntry } from "../domain/wanted.ts";

export function wantedRepo(db: Db) {
  return {
    state: (seriesId: number) => db.wantedState.findUnique({ where: { seriesId } }),
    entries: (seriesId: number) => db.wantedEntry.findMany({ where: { seriesId } }),
    /** Every series' ledger entries (with the series' title), those with one of `reasons` when given. */
    entriesOfLibrary: (reasons: readonly string[] | null) =>
      db.wantedEntry.findMany({
        where: reasons === null ? {} : { reason: { in: [...reasons] } },
        include: { series: { select: { title: true } } },
      }),
    /** The last pass held slots back for the next one (its download limit was reached). */
    heldBack: async (seriesId: number) =>
      (await db.wantedEntry.count({ where: { seriesId, reason: "limit_reached" } })) > 0,
    /** Replaces the series' ledger and back-off in one transaction. */
    async write(
      seriesId: number,
      ledger: readonly LedgerEntry[],
      backoff: { emptyPasses: number; nextPassAt: Date | null },
      at: Date,
    ): Promise<void> {
      const seen = new Set<string>();
      const rows = ledger.filter((e) => {
        const key = `${e.kind}:${e.number}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      await db.$transaction([
        db.wantedEntry.deleteMany({ where: { seriesId } }),
        db.wantedEntry.createMany({
          data: rows.map((e) => ({
            seriesId,
            kind: e.kind,
            number: e.number,
            reason: e.reason,
            detail: JSON.stringify(e.detail),
          })),
        }),
        db.wantedState.upsert({
          where: { seriesId },
          create: { seriesId, lastPassAt: at, emptyPasses: backoff.emptyPasses, nextPassAt: backoff.nextPassAt },
          update: { lastPassAt: at, emptyPasses: backoff.emptyPasses, nextPassAt: backoff.nextPassAt },
        }),
      ]);
    },
    async patchDetail(seriesId: number, kind: string, number: string, detail: object): Promise<void> {
      await db.wantedEntry.updateMany({ where: { seriesId, kind, number }, data: { detail: JSON.stringify(detail) } });
    },
  };
}

export type WantedRepo = ReturnType<typeof wantedRepo>;
