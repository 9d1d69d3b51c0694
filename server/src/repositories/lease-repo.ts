/**
 * Leases (table `lease`): one row per key held by one instance until `expiresAt`. Taking a lease
 * is one insert, or, when the key is taken, one guarded update that succeeds only when the lease
 * ran out (or is already the caller's); so of two instances asking at once exactly one gets it,
 * on SQLite and PostgreSQL alike. The holder renews all its leases with one update.
 */
import type { Db } from "../db/client.ts";
import type { Prisma } from "../generated/prisma/client.ts";

type Tx = Prisma.TransactionClient;

const isUniqueViolation = (e: unknown) => (e as { code?: unknown }).code === "P2002";

/** Inserts the lease inside a caller's transaction (a journal entry is born claimed). */
export async function insertLease(tx: Db | Tx, key: string, owner: string, expiresAt: Date): Promise<void> {
  await tx.lease.create({ data: { key, owner, expiresAt } });
}

/** Drops the lease inside a caller's transaction (the work it claimed ended in the same commit). */
export async function deleteLease(tx: Db | Tx, key: string): Promise<void> {
  await tx.lease.deleteMany({ where: { key } });
}

/**
 * Extends the lease inside a caller's transaction when `owner` still holds it; false when another
 * instance took it (or it is gone). On PostgreSQL the update also locks the lease row until the
 * transaction ends, so no other instance takes it over before the caller's writes are committed.
 */
export async function holdLease(tx: Db | Tx, key: string, owner: string, expiresAt: Date): Promise<boolean> {
  return (await tx.lease.updateMany({ where: { key, owner }, data: { expiresAt } })).count === 1;
}

export function leaseRepo(db: Db) {
  return {
    /** Takes `key` for `owner` until `expiresAt` when it is free, ran out at `now`, or is already `owner`'s. */
    async take(key: string, owner: string, expiresAt: Date, now: Date): Promise<boolean> {
      try {
        await db.lease.create({ data: { key, owner, expiresAt } });
        return true;
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
      }
      const stolen = await db.lease.updateMany({
        where: { key, OR: [{ owner }, { expiresAt: { lt: now } }] },
        data: { owner, expiresAt },
      });
      return stolen.count === 1;
    },
    /** Extends every lease of `owner`; answers how many it holds. */
    async renew(owner: string, expiresAt: Date): Promise<number> {
      return (await db.lease.updateMany({ where: { owner }, data: { expiresAt } })).count;
    },
    /** Gives up these leases of `owner` (another instance's leases are never touched). */
    async release(owner: string, keys: readonly string[]): Promise<void> {
      if (keys.length === 0) return;
      await db.lease.deleteMany({ where: { owner, key: { in: [...keys] } } });
    },
    /** Gives up every lease of `owner` (a clean stop: others may take its work at once). */
    async releaseAll(owner: string): Promise<void> {
      await db.lease.deleteMany({ where: { owner } });
    },
    /** Of these keys, those held by an instance other than `owner` whose lease has not run out. */
    async heldByOthers(owner: string, keys: readonly string[], now: Date): Promise<Set<string>> {
      if (keys.length === 0) return new Set();
      const rows = await db.lease.findMany({
        where: { key: { in: [...keys] }, owner: { not: owner }, expiresAt: { gte: now } },
        select: { key: true },
      });
      return new Set(rows.map((r) => r.key));
    },
    /** Of these keys, those `owner` holds. */
    async owned(owner: string, keys: readonly string[]): Promise<Set<string>> {
      if (keys.length === 0) return new Set();
      const rows = await db.lease.findMany({ where: { key: { in: [...keys] }, owner }, select: { key: true } });
      return new Set(rows.map((r) => r.key));
    },
    /** Removes leases that ran out before `before` (their holders are gone; the work they named is recovered by its key). */
    async dropExpired(before: Date): Promise<number> {
      return (await db.lease.deleteMany({ where: { expiresAt: { lt: before } } })).count;
    },
  };
}

export type LeaseRepo = ReturnType<typeof leaseRepo>;
