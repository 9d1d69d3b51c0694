/**
 * The PostgreSQL path on a real server (a throwaway cluster, test/postgres.ts): the derived schema's
 * migrations apply at start-up and match the schema, the revision triggers are installed as plpgsql
 * and bump the counters, and the repositories' raw SQL (bulk JSON reads and writes) works there.
 * The API and service suites run again on PostgreSQL in the `server-postgres` project
 * (vitest.postgres.config.ts).
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, dialectOf, dialectOfUrl, type Db } from "../src/db/client.ts";
import { migrateDatabase } from "../src/db/migrate.ts";
import { installRevisionTriggers, revisionRepo, revisionTriggerNames } from "../src/repositories/revision-repo.ts";
import { createRepos } from "../src/services/context.ts";
import { startPostgres, type PostgresCluster } from "./postgres.ts";
import { expectRawReadsAsPrisma } from "./series-rows-check.ts";

const run = promisify(execFile);
const serverDir = path.resolve(import.meta.dirname, "..");

let cluster: PostgresCluster;
let url: string;
let db: Db;

beforeAll(async () => {
  cluster = await startPostgres();
  await cluster.sql("CREATE DATABASE library");
  url = cluster.url("library");
});

afterAll(async () => {
  await db?.$disconnect();
  await cluster?.stop();
});

describe("PostgreSQL", () => {
  it("selects the dialect from the URL", () => {
    expect(dialectOfUrl(url)).toBe("postgresql");
    expect(dialectOfUrl("postgres://u@h/d")).toBe("postgresql");
    expect(dialectOfUrl("file:/tmp/library.db")).toBe("sqlite");
  });

  it("applies the derived schema's migrations at start-up, once, and they build exactly the schema", async () => {
    await migrateDatabase(url);
    await migrateDatabase(url); // an up-to-date database is left alone
    const applied = (
      await cluster.sql("SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL", "library")
    ).split("\n");
    expect(applied).toContain("20261203000000_init");
    const { stdout } = await run(
      process.execPath,
      [
        path.join(serverDir, "node_modules", "prisma", "build", "index.js"),
        "migrate",
        "diff",
        "--from-migrations",
        path.join(serverDir, "..", "prisma", "postgres", "migrations"),
        "--to-schema-datamodel",
        path.join(serverDir, "..", "prisma", "postgres", "schema.prisma"),
        "--script",
      ],
      { cwd: serverDir, env: { ...process.env, DATABASE_URL: url, PRISMA_HIDE_UPDATE_MESSAGE: "1" } },
    );
    expect(stdout.trim()).toBe("-- This is an empty migration.");
    db = createDb(url).db;
    expect(dialectOf(db)).toBe("postgresql");
    expect(await db.$transaction(async (tx) => dialectOf(tx as unknown as Db))).toBe("postgresql");
  });

  it("installs the revision triggers as plpgsql, once, on every table holding a series' rows", async () => {
    expect(await installRevisionTriggers(db)).toBeGreaterThan(10);
    expect(await installRevisionTriggers(db)).toBe(0);
    const names = await revisionTriggerNames(db);
    for (const t of ["series", "library_file", "map_entry", "chapter_release", "provider", "setting"])
      expect(names).toContain(`series_revision_v2_${t}`);
    expect(names).not.toContain("series_revision_v2_page_signature_set");
  });

  it("runs the repositories' bulk JSON reads and writes, and a write bumps the series' revision", async () => {
    const repos = createRepos(db);
    await repos.series.createForFolders(["Alpha", "Beta"]);
    const series = await repos.series.list();
    expect(series.map((s) => s.folder)).toEqual(["Alpha", "Beta"]);
    const [alpha, beta] = series as [(typeof series)[number], (typeof series)[number]];
    const before = await revisionRepo(db).of([alpha.id, beta.id]);

    const scanned = (p: string, seriesId: number) => ({
      seriesId,
      path: p,
      size: 1234,
      mtimeMs: 1_700_000_000_123,
      sha256: `sha-${p}`,
      pageCount: 3,
      kind: "chapter",
      volume: null,
      chapter: "1.5",
      chapterEnd: null,
      part: null,
      tagSource: null,
      state: "active",
      origin: "scan",
      language: "en",
    });
    await repos.files.insertScanned([scanned("Alpha/c1.cbz", alpha.id), scanned("Alpha/c2.cbz", alpha.id)]);
    const active = await repos.files.active();
    expect(active.map((f) => [f.path, f.size, f.mtimeMs])).toEqual([
      ["Alpha/c1.cbz", 1234, 1_700_000_000_123],
      ["Alpha/c2.cbz", 1234, 1_700_000_000_123],
    ]);
    const first = active[0] as (typeof active)[number];
    await repos.files.updateScanned([{ ...scanned("Alpha/c1.cbz", alpha.id), id: first.id, size: 99, origin: null }]);
    await repos.files.touch([{ id: first.id, size: 100, mtimeMs: 5 }]);
    const stored = await db.libraryFile.findUniqueOrThrow({ where: { id: first.id } });
    expect([stored.size, stored.mtimeMs, stored.origin, stored.chapter]).toEqual([100n, 5n, "scan", "1.5"]);

    const after = await revisionRepo(db).of([alpha.id, beta.id]);
    expect(after.get(alpha.id)).not.toBe(before.get(alpha.id));
    expect(after.get(beta.id)).toBe(before.get(beta.id));
  });

  it("reads series rows and book proofs by raw select exactly as Prisma's model API does", async () => {
    await expectRawReadsAsPrisma(db);
  });
});
