/**
 * The last cycle of each scheduled pass (table `scheduled_run`): written after each cycle an
 * instance ran and read once at its start (scheduled-loop.ts); the list of scheduled tasks reads them
 * all (services/scheduled-tasks.ts).
 */
import type { Db } from "../db/client.ts";

export function scheduledRunRepo(db: Db) {
  return {
    async last(name: string): Promise<Date | null> {
      return (await db.scheduledRun.findUnique({ where: { name }, select: { lastRun: true } }))?.lastRun ?? null;
    },
    /** Every kept time, by pass name (the list of scheduled tasks: one statement). */
    async all(): Promise<Map<string, Date>> {
      const rows = await db.scheduledRun.findMany({ select: { name: true, lastRun: true } });
      return new Map(rows.map((r) => [r.name, r.lastRun]));
    },
    async record(name: string, at: Date): Promise<void> {
      await db.scheduledRun.upsert({ where: { name }, create: { name, lastRun: at }, update: { lastRun: at } });
    },
  };
}
