/**
 * Start-up migrations: a database that is up to date is left alone without starting the Prisma CLI
 * (a second process that costs seconds of every start); anything else goes through the CLI.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";

const cli = vi.hoisted(() => ({ runs: 0 }));
vi.mock("node:child_process", async (original) => {
  const real = await original<typeof import("node:child_process")>();
  return {
    ...real,
    execFile: (...args: Parameters<typeof real.execFile>) => {
      cli.runs += 1;
      return real.execFile(...args);
    },
  };
});

const { migrateDatabase } = await import("./migrate.ts");
const { createDb } = await import("./client.ts");

const dir = mkdtempSync(path.join(os.tmpdir(), "mls-migrate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("migrateDatabase", () => {
  it("runs the CLI for a new database, and not again once every migration is applied", async () => {
    const url = `file:${path.join(dir, "new", "library.db")}`;
    await migrateDatabase(url);
    expect(cli.runs).toBe(1);
    const { db } = createDb(url);
    try {
      expect(await db.series.count()).toBe(0);
    } finally {
      await db.$disconnect();
    }
    await migrateDatabase(url);
    expect(cli.runs).toBe(1);
  });

  it("leaves a failed migration to the CLI, which refuses to go on", async () => {
    const url = `file:${path.join(dir, "failed", "library.db")}`;
    await migrateDatabase(url);
    const { db } = createDb(url);
    try {
      await db.$executeRawUnsafe(
        `UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = (SELECT MAX(migration_name) FROM _prisma_migrations)`,
      );
    } finally {
      await db.$disconnect();
    }
    const before = cli.runs;
    await expect(migrateDatabase(url)).rejects.toThrow(/database migration failed/);
    expect(cli.runs).toBe(before + 1);
  });
});
