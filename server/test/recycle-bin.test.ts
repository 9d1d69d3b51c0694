/**
 * Retirement, the recycle bin, restore and purge on a real app (real SQLite, real files), through
 * the service and through REST and GraphQL, which must agree.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stateDirs } from "../src/config.ts";
import { readLibraryState, violations } from "./crash/invariants.ts";
import {
  cbz,
  createSeriesWithFiles,
  chapterFileName,
  expectJson,
  expectProblem,
  problemOf,
  scanLibrary,
} from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
/** Active file ids of chapters 1, 2, 3 of series "Alpha", recorded by a scan. */
let files: { id: number; path: string; sha256: string }[];

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const abs = (rel: string) => path.join(app.config.libraryRoot, ...rel.split("/"));
const bin = (rel: string) => path.join(stateDirs(app.config).recycleBin, ...rel.split("/"));

interface RestEntry {
  id: number;
  file_id: number;
  series_id: number;
  original_path: string;
  bin_path: string;
  size: number;
  sha256: string;
  reason: string;
  recycled_at: string;
  restorable_until: string;
}

async function expectConsistent(): Promise<void> {
  expect(await violations(app.ctx.db, app.config)).toEqual([]);
}

beforeEach(async () => {
  app = await createTestApp({ env: { RECYCLE_RETENTION_DAYS: "10" } });
  await createSeriesWithFiles(app, "Alpha", { books: [], chapters: [1, 2, 3] });
  await scanLibrary(app);
  files = (await app.ctx.db.libraryFile.findMany({ orderBy: { path: "asc" } })).map((f) => ({
    id: f.id,
    path: f.path,
    sha256: f.sha256,
  }));
  expect(files.map((f) => f.path)).toEqual([1, 2, 3].map((c) => `Alpha/${chapterFileName("Alpha", c)}`));
});
afterEach(async () => {
  await app.dispose();
});

const f = (i: number) => files[i] as { id: number; path: string; sha256: string };

describe("retire", () => {
  it("moves the files into the bin with their original path and reason; rows become recycled; the scan leaves the bin alone", async () => {
    const before = await readFile(abs(f(0).path));
    const retired = await app.services.publication.retire([f(0).id, f(1).id], "duplicates of book 1");
    expect(retired.map((r) => [r.fileId, r.from])).toEqual([
      [f(0).id, f(0).path],
      [f(1).id, f(1).path],
    ]);
    for (const r of retired)
      expect(r.binPath).toMatch(new RegExp(`^\\d{8}T\\d{6}Z-[0-9a-f]{8}/${r.from.replace(/[.()]/g, "\\$&")}$`));
    expect(await readFile(bin(retired[0]?.binPath ?? ""))).toEqual(before);
    const rows = await app.ctx.db.libraryFile.findMany({ orderBy: { path: "asc" } });
    expect(rows.map((r) => [r.state, r.recycledAt !== null])).toEqual([
      ["recycled", true],
      ["recycled", true],
      ["active", false],
    ]);
    await expectConsistent();
    expect(await scanLibrary(app)).toMatchObject({ added: 0, removed: 0, unchanged: 1 });
    await expectConsistent();
  });

  it("is all or nothing: an unknown, an inactive or a changed file stops the whole call before anything moves", async () => {
    await expect(app.services.publication.retire([f(0).id, 9999], "x")).rejects.toMatchObject({
      code: "file_not_found",
      status: 404,
    });
    await app.services.publication.retire([f(2).id], "x");
    await expect(app.services.publication.retire([f(0).id, f(2).id], "x")).rejects.toMatchObject({
      code: "nothing_to_retire",
      status: 409,
    });
    await writeFile(abs(f(1).path), await cbz(9));
    await expect(app.services.publication.retire([f(0).id, f(1).id], "x")).rejects.toMatchObject({
      code: "snapshot_stale",
      status: 409,
    });
    await expect(app.services.publication.retire([], "x")).rejects.toMatchObject({ code: "nothing_to_retire" });
    await expect(app.services.publication.retire([f(0).id], " ")).rejects.toMatchObject({ code: "invalid_field" });
    expect((await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: f(0).id } })).state).toBe("active");
    expect(await readFile(abs(f(0).path))).toBeTruthy();
    expect((await app.services.publication.list()).map((e) => e.fileId)).toEqual([f(2).id]);
    expect(await app.ctx.db.publicationJournal.count()).toBe(0);
  });

  it("puts back the files already moved when a later one cannot move (a bin path longer than the system allows)", async () => {
    // The library path fits PATH_MAX (4096); the same path under the bin's dated folder does not.
    let deep = "Alpha";
    while (abs(`${deep}/${"d".repeat(200)}/deep.cbz`).length < 4070) deep += `/${"d".repeat(200)}`;
    deep += `/${"d".repeat(4079 - abs(`${deep}//deep.cbz`).length)}/deep.cbz`;
    await mkdir(path.dirname(abs(deep)), { recursive: true });
    await writeFile(abs(deep), await cbz(2));
    expect(abs(deep).length).toBe(4080);
    await scanLibrary(app);
    const deepRow = await app.ctx.db.libraryFile.findFirstOrThrow({ where: { path: deep } });
    await expect(app.services.publication.retire([f(0).id, deepRow.id], "x")).rejects.toMatchObject({
      code: "ENAMETOOLONG",
    });
    expect(await readFile(abs(f(0).path))).toBeTruthy();
    expect((await readLibraryState(app.config)).bin).toEqual([]);
    expect(await app.ctx.db.recycleEntry.count()).toBe(0);
    await expectConsistent();
  });
});

describe("restore and the bin's REST and GraphQL", () => {
  it("lists newest first with original path, reason, size, sha256 and the end of retention; REST and GraphQL agree", async () => {
    const [first] = await app.services.publication.retire([f(0).id], "first");
    const [second] = await app.services.publication.retire([f(1).id], "second");
    const rest = await expectJson<RestEntry[]>(await app.api("/api/recycle-bin"), 200);
    expect(rest.map((e) => [e.id, e.reason, e.original_path])).toEqual([
      [second?.recycleEntryId, "second", f(1).path],
      [first?.recycleEntryId, "first", f(0).path],
    ]);
    const e0 = rest[1] as RestEntry;
    expect(e0).toMatchObject({
      file_id: f(0).id,
      sha256: f(0).sha256,
      size: (await readFile(bin(e0.bin_path))).length,
      bin_path: first?.binPath,
    });
    expect(Date.parse(e0.restorable_until) - Date.parse(e0.recycled_at)).toBe(10 * 24 * 3600 * 1000);

    const gql = await app.gql<{ recycleBin: Record<string, unknown>[] }>(
      "{ recycleBin { id fileId seriesId originalPath binPath size sha256 reason recycledAt restorableUntil } }",
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data?.recycleBin).toEqual(
      rest.map((e) => ({
        id: e.id,
        fileId: e.file_id,
        seriesId: e.series_id,
        originalPath: e.original_path,
        binPath: e.bin_path,
        size: e.size,
        sha256: e.sha256,
        reason: e.reason,
        recycledAt: e.recycled_at,
        restorableUntil: e.restorable_until,
      })),
    );
  });

  it("restores to the original path and reactivates the row (REST), then the entry is gone (GraphQL 404 too)", async () => {
    const [r] = await app.services.publication.retire([f(0).id], "x");
    const id = r?.recycleEntryId as number;
    expect(await expectJson(await app.api(`/api/recycle-bin/${id}/restore`, { method: "POST" }), 200)).toEqual({
      file_id: f(0).id,
      path: f(0).path,
    });
    expect(sha(await readFile(abs(f(0).path)))).toBe(f(0).sha256);
    expect(await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: f(0).id } })).toMatchObject({
      state: "active",
      recycledAt: null,
    });
    expect(await app.ctx.db.recycleEntry.findUniqueOrThrow({ where: { id } })).toMatchObject({
      state: "restored",
      restoredAt: expect.any(Date),
    });
    expect(await expectJson(await app.api("/api/recycle-bin"), 200)).toEqual([]);
    expect((await readLibraryState(app.config)).bin).toEqual([]);
    await expectConsistent();

    await expectProblem(
      await app.api(`/api/recycle-bin/${id}/restore`, { method: "POST" }),
      404,
      "recycle_entry_not_found",
    );
    const again = await app.gql(`mutation { restoreFile(id: ${id}) { fileId path } }`);
    expect(again.errors?.[0]?.extensions?.code).toBe("recycle_entry_not_found");
    await expectProblem(await app.api("/api/recycle-bin/abc/restore", { method: "POST" }), 400, "bad_request");
  });

  it("answers 409 restore_target_taken when the original path is occupied, and keeps the bytes in the bin", async () => {
    const [r] = await app.services.publication.retire([f(0).id], "x");
    const newcomer = await cbz(6);
    await writeFile(abs(f(0).path), newcomer);
    const id = r?.recycleEntryId as number;
    const restProblem = await problemOf(await app.api(`/api/recycle-bin/${id}/restore`, { method: "POST" }));
    expect(restProblem).toMatchObject({
      status: 409,
      contentType: "application/problem+json",
      body: { code: "restore_target_taken", path: f(0).path },
    });
    const viaGql = await app.gql<{ restoreFile: { fileId: number; path: string } }>(
      `mutation { restoreFile(id: ${id}) { fileId path } }`,
    );
    expect(viaGql.errors?.[0]?.extensions).toMatchObject({
      code: "restore_target_taken",
      status: 409,
      path: f(0).path,
    });
    expect(await readFile(abs(f(0).path))).toEqual(newcomer);
    expect(sha(await readFile(bin(r?.binPath ?? "")))).toBe(f(0).sha256);
    expect(await app.ctx.db.publicationJournal.count()).toBe(0);

    // Once the newcomer is recorded and retired too, the original comes back (GraphQL this time).
    await scanLibrary(app);
    const newRow = await app.ctx.db.libraryFile.findFirstOrThrow({ where: { path: f(0).path, state: "active" } });
    await app.services.publication.retire([newRow.id], "wrong file");
    const restored = await app.gql<{ restoreFile: { fileId: number; path: string } }>(
      `mutation { restoreFile(id: ${id}) { fileId path } }`,
    );
    expect(restored).toEqual({ data: { restoreFile: { fileId: f(0).id, path: f(0).path } } });
    await expectConsistent();
  });
});

describe("purgeExpired", () => {
  it("removes only the bin copies older than the retention; their entries become purged", async () => {
    const [old] = await app.services.publication.retire([f(0).id], "old");
    const [fresh] = await app.services.publication.retire([f(1).id], "fresh");
    await app.ctx.db.recycleEntry.update({
      where: { id: old?.recycleEntryId },
      data: { recycledAt: new Date(Date.now() - 11 * 24 * 3600 * 1000) },
    });
    expect(await app.services.publication.purgeExpired()).toBe(1);
    expect(await app.ctx.db.recycleEntry.findMany({ orderBy: { id: "asc" }, select: { state: true } })).toEqual([
      { state: "purged" },
      { state: "recycled" },
    ]);
    expect((await readLibraryState(app.config)).bin.map((b) => b.rel)).toEqual([fresh?.binPath]);
    expect((await app.services.publication.list()).map((e) => e.id)).toEqual([fresh?.recycleEntryId]);
    await expect(app.services.publication.restore(old?.recycleEntryId as number)).rejects.toMatchObject({
      code: "recycle_entry_not_found",
    });
    await expectConsistent();

    // Nothing else is expired until the retention of the fresh one ends.
    expect(await app.services.publication.purgeExpired(new Date(Date.now() + 9 * 24 * 3600 * 1000))).toBe(0);
    expect(await app.services.publication.purgeExpired(new Date(Date.now() + 11 * 24 * 3600 * 1000))).toBe(1);
    expect((await readLibraryState(app.config)).bin).toEqual([]);
    expect(await readFile(abs(f(2).path))).toBeTruthy();
    await expectConsistent();
  });
});
