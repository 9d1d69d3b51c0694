/**
 * What the service's About (GET /api/system/status) reads of the database: its kind and version
 * (one statement) and the library's totals (series, active files and their bytes: two).
 */
import { dialectOf, type Db } from "../db/client.ts";

export function systemRepo(db: Db) {
  return {
    /** The database's kind and version: SQLite's library version, or the PostgreSQL server's. */
    async database(): Promise<{ kind: "sqlite" | "postgresql"; version: string | null }> {
      const kind = dialectOf(db);
      const rows =
        kind === "postgresql"
          ? await db.$queryRaw<{ v: string }[]>`SELECT current_setting('server_version') AS v`
          : await db.$queryRaw<{ v: string }[]>`SELECT sqlite_version() AS v`;
      return { kind, version: rows[0]?.v ?? null };
    },
    async libraryTotals(): Promise<{ series: number; files: number; bytes: number }> {
      const [series, files] = await Promise.all([
        db.series.count(),
        db.libraryFile.aggregate({ where: { state: "active" }, _count: { _all: true }, _sum: { size: true } }),
      ]);
      return { series, files: files._count._all, bytes: Number(files._sum.size ?? 0) };
    },
  };
}
