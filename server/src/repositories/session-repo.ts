import type { Db } from "../db/client.ts";

export interface SessionRow {
  id: number;
  username: string;
  passwordStamp: string;
  userAgent: string | null;
  address: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

const COLUMNS = {
  id: true,
  username: true,
  passwordStamp: true,
  userAgent: true,
  address: true,
  createdAt: true,
  lastSeenAt: true,
  expiresAt: true,
} as const;

/** Web login sessions (server-side): rows keyed by the sha256 of the cookie's token. */
export function sessionRepo(db: Db) {
  return {
    async create(input: Omit<SessionRow, "id" | "lastSeenAt"> & { tokenHash: string }): Promise<SessionRow> {
      return db.session.create({ data: { ...input, lastSeenAt: input.createdAt }, select: COLUMNS });
    },
    /** The live session with this token hash (expired rows read as absent). */
    async byTokenHash(tokenHash: string, now: Date): Promise<SessionRow | null> {
      const row = await db.session.findUnique({ where: { tokenHash }, select: COLUMNS });
      return row && row.expiresAt > now ? row : null;
    },
    async touch(id: number, now: Date): Promise<void> {
      await db.session.updateMany({ where: { id }, data: { lastSeenAt: now } });
    },
    async listLive(username: string, now: Date): Promise<SessionRow[]> {
      return db.session.findMany({
        where: { username, expiresAt: { gt: now } },
        orderBy: [{ lastSeenAt: "desc" }, { id: "desc" }],
        select: COLUMNS,
      });
    },
    /** Deletes the given sessions of `username`; answers the ids that existed. */
    async remove(username: string, ids: number[]): Promise<number[]> {
      const rows = await db.session.findMany({ where: { username, id: { in: ids } }, select: { id: true } });
      await db.session.deleteMany({ where: { username, id: { in: rows.map((r) => r.id) } } });
      return rows.map((r) => r.id);
    },
    /** Deletes every session of `username` except `keep`; answers the ids removed. */
    async removeAllOf(username: string, keep: number | null = null): Promise<number[]> {
      const where = { username, ...(keep === null ? {} : { id: { not: keep } }) };
      const rows = await db.session.findMany({ where, select: { id: true } });
      await db.session.deleteMany({ where: { username, id: { in: rows.map((r) => r.id) } } });
      return rows.map((r) => r.id);
    },
    /** Expired rows, and rows opened with another password, are gone for good. */
    async removeStale(now: Date, currentStamp: string): Promise<number[]> {
      const where = { OR: [{ expiresAt: { lte: now } }, { passwordStamp: { not: currentStamp } }] };
      const rows = await db.session.findMany({ where, select: { id: true } });
      await db.session.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
      return rows.map((r) => r.id);
    },
    /** Of these ids, the sessions that still exist. */
    async existing(ids: readonly number[]): Promise<Set<number>> {
      if (ids.length === 0) return new Set();
      const rows = await db.session.findMany({ where: { id: { in: [...ids] } }, select: { id: true } });
      return new Set(rows.map((r) => r.id));
    },
    /** Keeps the newest `max` sessions of `username`; answers the ids removed. */
    async trim(username: string, max: number): Promise<number[]> {
      const old = await db.session.findMany({
        where: { username },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        skip: max,
        select: { id: true },
      });
      await db.session.deleteMany({ where: { id: { in: old.map((r) => r.id) } } });
      return old.map((r) => r.id);
    },
  };
}

export type SessionRepo = ReturnType<typeof sessionRepo>;
