import type { Db } from "../db/client.ts";
import { Prisma } from "../generated/prisma/client.ts";

/**
 * One bulk select whose rows come back as a single JSON value (an array of row arrays). The
 * database builds the JSON in one pass; the driver then hands over one string instead of building
 * an object per cell, which is where large series spent most of their time (docs/benchmarks.md).
 * `json_group_array(json_array(…))` is SQLite's spelling; PostgreSQL's is
 * `json_agg(json_build_array(…))`, the one place to change when that path lands.
 */
export async function jsonRows(db: Db, columns: string, from: Prisma.Sql): Promise<unknown[][]> {
  const cols = Prisma.raw(columns);
  const rows = await db.$queryRaw<{ j: string | null }[]>(
    Prisma.sql`SELECT json_group_array(json_array(${cols})) AS j FROM (SELECT ${cols} FROM ${from})`,
  );
  const text = rows[0]?.j;
  return text ? (JSON.parse(text) as unknown[][]) : [];
}

/** Booleans arrive as 0/1 from SQLite's JSON and as true/false from PostgreSQL's. */
export const bool = (v: unknown): boolean => v === true || v === 1;
export const str = (v: unknown): string => String(v);
export const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
export const intOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
