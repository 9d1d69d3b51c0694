import type { Db } from "../db/client.ts";
import type { Provider } from "../generated/prisma/client.ts";

/** A provider row: the drop folder, or one Suwayomi source. */
export type ProviderRow = Provider;

/** Provider rows (the sources the operator chose; the registry builds their clients). */
export function providerRepo(db: Db) {
  return {
    /** The row of this name, created with `create` when missing (never changed when present). */
    ensure: (name: string, create: { kind: string; baseUrl?: string | null }) =>
      db.provider.upsert({ where: { name }, create: { name, ...create }, update: {} }),
    /** Every row, by priority then name. */
    list: () => db.provider.findMany({ orderBy: [{ priority: "desc" }, { name: "asc" }] }),
    get: (id: number) => db.provider.findUnique({ where: { id } }),
    byName: (name: string) => db.provider.findUnique({ where: { name } }),
    /** The row with its new priority, or null when there is no such row. */
    async setPriority(id: number, priority: number): Promise<ProviderRow | null> {
      const found = await db.provider.updateMany({ where: { id }, data: { priority } });
      return found.count === 1 ? db.provider.findUnique({ where: { id } }) : null;
    },
  };
}

export type ProviderRepo = ReturnType<typeof providerRepo>;
