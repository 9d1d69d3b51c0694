import { execFile } from "node:child_process";
import { mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { createDb, dialectOfUrl } from "./client.ts";

const run = promisify(execFile);
const serverDir = path.resolve(import.meta.dirname, "..", "..");

/** SQLite's migrations, or those of the derived PostgreSQL schema (prisma.config.ts picks the same). */
const migrationsDir = (databaseUrl: string) =>
  dialectOfUrl(databaseUrl) === "postgresql"
    ? path.join(serverDir, "..", "prisma", "postgres", "migrations")
    : path.join(serverDir, "..", "prisma", "migrations");

/**
 * The committed migrations the database has not applied yet; null when the database cannot tell
 * (no migrations table yet, or a migration that failed: the CLI then reports it).
 */
async function pendingMigrations(databaseUrl: string): Promise<string[] | null> {
  const committed = (await readdir(migrationsDir(databaseUrl), { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  const { db } = createDb(databaseUrl);
  try {
    const rows = await db.$queryRawUnsafe<{ name: string; finished: unknown; rolledBack: unknown }[]>(
      `SELECT migration_name AS name, finished_at AS finished, rolled_back_at AS "rolledBack" FROM _prisma_migrations`,
    );
    if (rows.some((r) => r.finished === null && r.rolledBack === null)) return null;
    const applied = new Set(rows.filter((r) => r.finished !== null && r.rolledBack === null).map((r) => r.name));
    return committed.filter((m) => !applied.has(m));
  } catch {
    return null;
  } finally {
    await db.$disconnect();
  }
}

/**
 * Applies the committed migrations with `prisma migrate deploy` (the JS schema engine cannot run
 * `migrate dev` here). Idempotent: an up-to-date database is left as it is, without starting the
 * CLI at all (a second process that costs seconds of every start on a busy machine).
 */
export async function migrateDatabase(databaseUrl: string): Promise<void> {
  if (databaseUrl.startsWith("file:")) {
    await mkdir(path.dirname(databaseUrl.slice("file:".length)), { recursive: true });
  }
  // Instances starting together on one PostgreSQL database: the CLI of one holds Prisma's advisory
  // lock while it migrates, and the others' CLI gives up waiting for it after 10 s. They try again
  // until the migrations are applied (then there is nothing left to do).
  for (let attempt = 1; (await pendingMigrations(databaseUrl))?.length !== 0; attempt++) {
    try {
      await deployMigrations(databaseUrl);
      break;
    } catch (e) {
      if (attempt >= 30 || !/advisory lock/i.test((e as Error).message)) throw e;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  if (databaseUrl.startsWith("file:")) await useWriteAheadLog(databaseUrl);
}

/**
 * SQLite keeps a write-ahead log (the mode is stored in the file, so every later connection uses
 * it). A commit then appends to the log and syncs it once (synchronous stays FULL: a committed
 * transaction survives a power cut), instead of writing, syncing and deleting a rollback journal
 * and syncing the database: about a third of the time per commit here, and the libsql driver
 * commits on the event loop. Readers no longer wait for a writer either.
 */
async function useWriteAheadLog(databaseUrl: string): Promise<void> {
  const { db } = createDb(databaseUrl);
  try {
    await db.$queryRawUnsafe("PRAGMA journal_mode=WAL");
  } finally {
    await db.$disconnect();
  }
}

async function deployMigrations(databaseUrl: string): Promise<void> {
  const prismaBin = path.join(serverDir, "node_modules", "prisma", "build", "index.js");
  try {
    await run(process.execPath, [prismaBin, "migrate", "deploy"], {
      cwd: serverDir,
      env: { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
    });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`database migration failed: ${err.stderr || err.stdout || err.message}`, { cause: e });
  }
}
