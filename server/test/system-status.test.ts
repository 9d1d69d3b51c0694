/**
 * The service's About (GET /api/system/status, GraphQL `systemStatus`), as the *arr apps' System →
 * Status → About: from an empty service through the public API, since when it runs, on what
 * database (the one the suite runs on, SQLite or PostgreSQL, with its version), where it keeps the
 * library and its data, and the library's totals once a series folder is scanned. REST and GraphQL
 * agree, and no connection string is ever shown.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chapterFileName, expectJson, writeCbz } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

interface Status {
  version: string;
  started_at: string;
  uptime_seconds: number;
  node_version: string;
  database: { kind: "sqlite" | "postgresql"; version: string | null };
  events: string;
  instance_role: string;
  library_root: string;
  data_dir: string;
  library: { series: number; files: number; bytes: number };
}

describe("system status (About)", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app?.dispose();
  });

  /** The status through REST, checked against GraphQL's. */
  async function status(): Promise<Status> {
    const res = await app.api("/api/system/status");
    const text = await res.clone().text();
    // Never the connection string (a PostgreSQL password is in it).
    if (app.config.databaseUrl.includes("://")) expect(text).not.toContain(app.config.databaseUrl);
    const rest = await expectJson<Status>(res, 200);
    const gql = await app.gql<{ systemStatus: Record<string, unknown> }>(
      `{ systemStatus { version startedAt uptimeSeconds nodeVersion database { kind version } events instanceRole libraryRoot dataDir library { series files bytes } } }`,
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data?.systemStatus).toEqual({
      version: rest.version,
      startedAt: rest.started_at,
      uptimeSeconds: expect.any(Number),
      nodeVersion: rest.node_version,
      database: { kind: rest.database.kind.toUpperCase(), version: rest.database.version },
      events: rest.events.toUpperCase(),
      instanceRole: rest.instance_role.toUpperCase(),
      libraryRoot: rest.library_root,
      dataDir: rest.data_dir,
      library: rest.library,
    });
    return rest;
  }

  it("says which version it is, since when it runs, on what, and where it keeps things", async () => {
    const s = await status();
    // The product's version, as the repository's package.json states it.
    const repoPackage = JSON.parse(
      await readFile(path.resolve(import.meta.dirname, "..", "..", "package.json"), "utf8"),
    ) as { version: string };
    expect(s.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(s.version).toBe(repoPackage.version);
    const started = Date.parse(s.started_at);
    expect(started).toBeLessThanOrEqual(Date.now());
    expect(Date.now() - started).toBeLessThan(10 * 60_000);
    expect(s.uptime_seconds).toBeGreaterThanOrEqual(0);
    expect(s.node_version).toBe(process.versions.node);
    const kind = app.config.databaseUrl.startsWith("postgres") ? "postgresql" : "sqlite";
    expect(s.database.kind).toBe(kind);
    // SQLite's library 3.x; PostgreSQL's server, as `SHOW server_version` says it (15.x on Debian).
    expect(s.database.version).toMatch(kind === "sqlite" ? /^3\.\d+\.\d+$/ : /^\d+(\.\d+)?\b/);
    expect(s.events).toBe("in_process");
    expect(s.instance_role).toBe("all");
    expect(s.library_root).toBe(app.config.libraryRoot);
    expect(s.data_dir).toBe(app.config.dataDir);
    expect(s.library).toEqual({ series: 0, files: 0, bytes: 0 });
  });

  it("counts the library's series, files and bytes once a scan recorded them", async () => {
    const dir = path.join(app.config.libraryRoot, "Harbor Lights");
    const files = [1, 2, 3].map((n) => path.join(dir, chapterFileName("Harbor Lights", n)));
    for (const f of files) await writeCbz(f, 3);
    await expectJson(await app.api("/api/library/scan", { method: "POST" }), 200);
    let bytes = 0;
    for (const f of files) bytes += (await stat(f)).size;
    expect((await status()).library).toEqual({ series: 1, files: 3, bytes });
  });
});
