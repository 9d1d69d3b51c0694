import { dialectOf, type Db } from "../db/client.ts";
import { Prisma } from "../generated/prisma/client.ts";

/**
 * One bulk select whose rows come back as a single JSON value (an array of row arrays). The
 * database builds the JSON in one pass; the driver then hands over one string instead of building
 * an object per cell, which is where large series spent most of their time (docs/benchmarks.md).
 * `json_group_array(json_array(…))` is SQLite's spelling; PostgreSQL's is
 * `json_agg(json_build_array(…))` (the aggregate runs serially over the subquery's rows, so an
 * ORDER BY in `from` holds there too). Timestamps come as text: read them with storedDate.
 */
export async function jsonRows(db: Db, columns: string, from: Prisma.Sql): Promise<unknown[][]> {
  const cols = Prisma.raw(columns);
  const rows = await db.$queryRaw<{ j: unknown }[]>(
    dialectOf(db) === "postgresql"
      ? Prisma.sql`SELECT json_agg(json_build_array(${cols}))::text AS j FROM (SELECT ${cols} FROM ${from}) AS json_rows`
      : Prisma.sql`SELECT json_group_array(json_array(${cols})) AS j FROM (SELECT ${cols} FROM ${from})`,
  );
  const text = rows[0]?.j;
  return typeof text === "string" && text ? (JSON.parse(text) as unknown[][]) : [];
}

/** Booleans arrive as 0/1 from SQLite's JSON and as true/false from PostgreSQL's. */
export const bool = (v: unknown): boolean => v === true || v === 1;
export const str = (v: unknown): string => String(v);
export const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
export const intOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
/**
 * A timestamp from a JSON select: SQLite's text is as Prisma wrote it (ISO 8601 with "+00:00"),
 * PostgreSQL's has no zone (Prisma stores UTC in `timestamp` columns).
 */
export const storedDate = (v: unknown): Date => {
  const s = String(v);
  return new Date(/(Z|[+-]\d\d:?\d\d)$/.test(s) ? s : `${s.replace(" ", "T")}Z`);
};

/** Rows per statement of jsonInsert / jsonUpdate (a few hundred KB of JSON text each). */
const WRITE_CHUNK = 2000;

/** A timestamp as Prisma writes DateTime columns in SQLite, for rows written without Prisma. */
export const storedNow = (): string => new Date().toISOString().replace("Z", "+00:00");

/**
 * Inserts many rows with one statement per WRITE_CHUNK rows, each bound as a single JSON text
 * (`INSERT … SELECT … FROM json_each(?)`): SQLite unpacks the rows in C. Prisma's createMany binds
 * every cell as its own parameter and took ~5× as long for the scan's 20,000 rows. Columns left out
 * take their database defaults; `created_at`/`updated_at` are the caller's to give (storedNow).
 * Values must be JSON-safe (numbers for BigInt columns: sizes and mtimes are far below 2^53).
 * On PostgreSQL the rows go as JSON objects through `json_populate_recordset`, which converts
 * each value to its column's type.
 */
export async function jsonInsert(
  db: Db,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<void> {
  const cols = columns.map((c) => `"${c}"`).join(", ");
  if (dialectOf(db) === "postgresql") {
    for (let i = 0; i < rows.length; i += WRITE_CHUNK) {
      await db.$executeRawUnsafe(
        `INSERT INTO "${table}" (${cols}) SELECT ${cols} FROM json_populate_recordset(NULL::"${table}", $1::json)`,
        asObjects(columns, rows.slice(i, i + WRITE_CHUNK)),
      );
    }
    return;
  }
  const values = columns.map((_, i) => `j.value->>${i}`).join(", ");
  for (let i = 0; i < rows.length; i += WRITE_CHUNK) {
    await db.$executeRawUnsafe(
      `INSERT INTO "${table}" (${cols}) SELECT ${values} FROM json_each(?) AS j`,
      JSON.stringify(rows.slice(i, i + WRITE_CHUNK)),
    );
  }
}

/**
 * Updates many rows by id the same way: `rows` are `[id, …values]` in the order of `columns`, one
 * statement per WRITE_CHUNK rows (`UPDATE … FROM json_each(?)`). A column written `name?` keeps
 * its stored value where the row gives null.
 */
export async function jsonUpdate(
  db: Db,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<void> {
  if (dialectOf(db) === "postgresql") {
    const names = columns.map((c) => (c.endsWith("?") ? c.slice(0, -1) : c));
    const pgSets = columns
      .map((c, i) =>
        c.endsWith("?") ? `"${names[i]}" = COALESCE(j."${names[i]}", t."${names[i]}")` : `"${c}" = j."${c}"`,
      )
      .join(", ");
    for (let i = 0; i < rows.length; i += WRITE_CHUNK) {
      await db.$executeRawUnsafe(
        `UPDATE "${table}" AS t SET ${pgSets} FROM json_populate_recordset(NULL::"${table}", $1::json) AS j WHERE t."id" = j."id"`,
        asObjects(["id", ...names], rows.slice(i, i + WRITE_CHUNK)),
      );
    }
    return;
  }
  const sets = columns
    .map((c, i) =>
      c.endsWith("?")
        ? `"${c.slice(0, -1)}" = COALESCE(j.value->>${i + 1}, "${c.slice(0, -1)}")`
        : `"${c}" = j.value->>${i + 1}`,
    )
    .join(", ");
  for (let i = 0; i < rows.length; i += WRITE_CHUNK) {
    await db.$executeRawUnsafe(
      `UPDATE "${table}" SET ${sets} FROM json_each(?) AS j WHERE "${table}"."id" = j.value->>0`,
      JSON.stringify(rows.slice(i, i + WRITE_CHUNK)),
    );
  }
}

/** Rows as one JSON array of objects keyed by column (what json_populate_recordset reads). */
function asObjects(columns: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return JSON.stringify(rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]]))));
}
