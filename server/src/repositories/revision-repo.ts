/**
 * Series revisions: a counter per series that the database itself bumps on every insert, update
 * and delete of a row belonging to the series, whoever writes it (a service, a raw statement, a
 * second instance of the service on the same database). A view computed from a series' rows stays
 * valid exactly as long as the revision it was computed at (services/series/view-cache.ts).
 *
 * The triggers are derived from the schema at start-up, not written in a migration:
 * - every table with a `series_id` column bumps that series (the old and the new one when a row
 *   moves between series);
 * - `series` bumps its own `id`; `map_entry` bumps the series of its map source;
 * - `provider` and `setting` (library-wide rows shown in every series' views) bump row 0.
 * Page signatures (`page_signature_set`, kept per file content, written by the background page
 * checks) bump nothing: no kept view depends on them; the audit applies them on each request.
 * A table added later with a `series_id` column gets its triggers on the next start, and a table
 * a migration rebuilds (SQLite's way to change a column drops the table's triggers) gets them back.
 * The trigger set is named with a version: a start with other definitions drops and recreates it.
 *
 * On PostgreSQL each watched table gets one plpgsql trigger function with the same statements
 * (postgresRevisionTriggers), named like the SQLite triggers, and one row trigger calling it.
 */
import { dialectOf, type Db } from "../db/client.ts";
import { Prisma } from "../generated/prisma/client.ts";

const PREFIX = "series_revision_v2_";
/** Library-wide tables whose rows appear in every series' views. */
const GLOBAL_TABLES = new Set(["provider", "setting"]);
/** Tables of the database engine, of Prisma, and the counter itself: never watched. */
const IGNORED = /^(sqlite_|_prisma_|series_revision$)/;

type Op = "insert" | "update" | "delete";

/** The series id expression of a row of `table` (NEW or OLD), or null when the table is not watched. */
function seriesExpr(table: string, columns: ReadonlySet<string>, row: "NEW" | "OLD"): string | null {
  if (table === "series") return `${row}."id"`;
  if (table === "map_entry" && columns.has("source_id"))
    return `(SELECT "series_id" FROM "map_source" WHERE "id" = ${row}."source_id")`;
  if (GLOBAL_TABLES.has(table)) return "0";
  if (columns.has("series_id")) return `${row}."series_id"`;
  return null;
}

const bump = (expr: string, extra = "") =>
  `INSERT INTO "series_revision" ("series_id", "revision") SELECT ${expr}, 1 WHERE ${expr} IS NOT NULL${extra} ` +
  `ON CONFLICT ("series_id") DO UPDATE SET "revision" = "revision" + 1;`;

/** The CREATE TRIGGER statements for every watched table of the schema, by trigger name. */
export function revisionTriggers(tables: ReadonlyMap<string, ReadonlySet<string>>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [table, columns] of [...tables].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (IGNORED.test(table)) continue;
    const newer = seriesExpr(table, columns, "NEW");
    const older = seriesExpr(table, columns, "OLD");
    if (newer === null || older === null) continue;
    const bodies: Record<Op, string> = {
      insert: bump(newer),
      // A row that moves to another series changes both.
      update: `${bump(newer)} ${bump(older, ` AND ${older} IS NOT ${newer}`)}`,
      delete: bump(older),
    };
    for (const op of ["insert", "update", "delete"] as const) {
      const name = `${PREFIX}${table}_${op}`;
      out.set(
        name,
        `CREATE TRIGGER IF NOT EXISTS "${name}" AFTER ${op.toUpperCase()} ON "${table}" FOR EACH ROW BEGIN ${bodies[op]} END`,
      );
    }
  }
  return out;
}

/**
 * PostgreSQL's triggers: per watched table one plpgsql function (`<name>()`) holding the bodies
 * of revisionTriggers for each operation and one AFTER row trigger of the same name calling it.
 * The statements are those of SQLite, with PostgreSQL's `IS DISTINCT FROM` for SQLite's `IS NOT`
 * and the counter qualified in the upsert.
 */
export function postgresRevisionTriggers(
  tables: ReadonlyMap<string, ReadonlySet<string>>,
): Map<string, PostgresTrigger> {
  const byTable = new Map<string, Partial<Record<Op, string>>>();
  for (const [name, sql] of revisionTriggers(tables)) {
    const m =
      /^CREATE TRIGGER IF NOT EXISTS "[^"]+" AFTER (INSERT|UPDATE|DELETE) ON "([^"]+)" FOR EACH ROW BEGIN (.*) END$/s.exec(
        sql,
      );
    if (!m) throw new Error(`unexpected trigger ${name}`);
    const [, op, table, body] = m as unknown as [string, string, string, string];
    const bodies = byTable.get(table) ?? {};
    bodies[op.toLowerCase() as Op] = body
      .replaceAll(" IS NOT ", " IS DISTINCT FROM ")
      .replaceAll(
        'DO UPDATE SET "revision" = "revision" + 1',
        'DO UPDATE SET "revision" = "series_revision"."revision" + 1',
      );
    byTable.set(table, bodies);
  }
  const out = new Map<string, PostgresTrigger>();
  for (const [table, bodies] of byTable) {
    const name = `${PREFIX}${table}`;
    const branches = (["insert", "update", "delete"] as const)
      .map((op) => `IF TG_OP = '${op.toUpperCase()}' THEN ${bodies[op] ?? ""} END IF;`)
      .join(" ");
    out.set(name, {
      table,
      create: [
        `CREATE OR REPLACE FUNCTION "${name}"() RETURNS trigger LANGUAGE plpgsql AS $body$ BEGIN ${branches} RETURN NULL; END $body$`,
        `CREATE TRIGGER "${name}" AFTER INSERT OR UPDATE OR DELETE ON "${table}" FOR EACH ROW EXECUTE FUNCTION "${name}"()`,
      ],
    });
  }
  return out;
}

export interface PostgresTrigger {
  table: string;
  create: string[];
}

/**
 * Makes the database's revision triggers match its schema: missing ones are created, those of
 * another version or of a table that no longer qualifies are dropped. Returns the number of
 * triggers created. Runs at start-up, after the migrations.
 */
export async function installRevisionTriggers(db: Db): Promise<number> {
  if (dialectOf(db) === "postgresql") return installPostgresRevisionTriggers(db);
  const rows = await db.$queryRaw<{ t: string; c: string }[]>(
    Prisma.sql`SELECT m.name AS t, p.name AS c FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`,
  );
  const tables = new Map<string, Set<string>>();
  for (const { t, c } of rows) {
    const set = tables.get(t) ?? new Set<string>();
    set.add(c);
    tables.set(t, set);
  }
  const wanted = revisionTriggers(tables);
  const present = await db.$queryRaw<{ name: string }[]>(
    Prisma.sql`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'series_revision_%'`,
  );
  const have = new Set(present.map((p) => p.name));
  for (const name of have) if (!wanted.has(name)) await db.$executeRawUnsafe(`DROP TRIGGER IF EXISTS "${name}"`);
  let created = 0;
  for (const [name, sql] of wanted) {
    if (have.has(name)) continue;
    await db.$executeRawUnsafe(sql);
    created += 1;
  }
  return created;
}

/**
 * PostgreSQL's side of installRevisionTriggers, in one transaction holding an advisory lock, so
 * that instances starting at the same time on one database do not race each other.
 */
async function installPostgresRevisionTriggers(db: Db): Promise<number> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw(Prisma.sql`SELECT pg_advisory_xact_lock(hashtext('series_revision_triggers'))`);
      const rows = await tx.$queryRaw<{ t: string; c: string }[]>(
        Prisma.sql`SELECT c.table_name::text AS t, c.column_name::text AS c FROM information_schema.columns c
        JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'`,
      );
      const tables = new Map<string, Set<string>>();
      for (const { t, c } of rows) {
        const set = tables.get(t) ?? new Set<string>();
        set.add(c);
        tables.set(t, set);
      }
      const wanted = postgresRevisionTriggers(tables);
      const present = await tx.$queryRaw<{ name: string; t: string }[]>(
        Prisma.sql`SELECT tg.tgname::text AS name, cl.relname::text AS t FROM pg_trigger tg
        JOIN pg_class cl ON cl.oid = tg.tgrelid JOIN pg_namespace n ON n.oid = cl.relnamespace
        WHERE NOT tg.tgisinternal AND n.nspname = current_schema() AND tg.tgname LIKE 'series_revision_%'`,
      );
      const have = new Set<string>();
      for (const p of present) {
        if (wanted.get(p.name)?.table === p.t) have.add(p.name);
        else await tx.$executeRawUnsafe(`DROP TRIGGER IF EXISTS "${p.name}" ON "${p.t}"`);
      }
      const functions = await tx.$queryRaw<{ name: string }[]>(
        Prisma.sql`SELECT p.proname::text AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = current_schema() AND p.proname LIKE 'series_revision_%'`,
      );
      for (const f of functions)
        if (!wanted.has(f.name)) await tx.$executeRawUnsafe(`DROP FUNCTION IF EXISTS "${f.name}"()`);
      let created = 0;
      for (const [name, trigger] of wanted) {
        if (have.has(name)) continue;
        for (const sql of trigger.create) await tx.$executeRawUnsafe(sql);
        created += 1;
      }
      return created;
    },
    { timeout: 120_000, maxWait: 120_000 },
  );
}

/** Names of the revision triggers the database holds (for tests). */
export async function revisionTriggerNames(db: Db): Promise<string[]> {
  const rows =
    dialectOf(db) === "postgresql"
      ? await db.$queryRaw<{ name: string }[]>(
          Prisma.sql`SELECT tgname::text AS name FROM pg_trigger WHERE NOT tgisinternal AND tgname LIKE 'series_revision_%' ORDER BY tgname`,
        )
      : await db.$queryRaw<{ name: string }[]>(
          Prisma.sql`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'series_revision_%' ORDER BY name`,
        );
  return rows.map((r) => r.name);
}

/**
 * The revision of each series as one opaque key (its own counter and the library-wide one):
 * equal keys mean no row of the series changed in between. One statement for any number of series;
 * a series never written since the counters exist has revision 0.
 */
export function revisionRepo(db: Db) {
  return {
    async of(seriesIds: readonly number[]): Promise<Map<number, string>> {
      const ids = [...new Set(seriesIds)];
      const rows =
        ids.length > 400
          ? await db.$queryRaw<{ s: number | bigint; r: number | bigint }[]>(
              Prisma.sql`SELECT series_id AS s, revision AS r FROM series_revision`,
            )
          : await db.$queryRaw<{ s: number | bigint; r: number | bigint }[]>(
              Prisma.sql`SELECT series_id AS s, revision AS r FROM series_revision WHERE series_id IN (${Prisma.join([0, ...ids])})`,
            );
      const byId = new Map(rows.map((r) => [Number(r.s), Number(r.r)]));
      const global = byId.get(0) ?? 0;
      return new Map(ids.map((id) => [id, `${byId.get(id) ?? 0}.${global}`]));
    },
  };
}

export type RevisionRepo = ReturnType<typeof revisionRepo>;
