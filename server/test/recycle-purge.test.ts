/**
 * Purging one recycle-bin entry on request (DELETE /api/recycle-bin/{id}, GraphQL
 * purgeRecycleEntry) on a real app with real files: the bin copy is gone, the entry is `purged` and
 * no longer listed or restorable, nothing else moves, a library event is published.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stateDirs } from "../src/config.ts";
import type { LibraryEvent } from "../src/events.ts";
import { violations } from "./crash/invariants.ts";
import { createSeriesWithFiles, expectJson, expectProblem, scanLibrary } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let seriesId: number;
let entries: { id: number; binPath: string; fileId: number }[];

const bin = (rel: string) => path.join(stateDirs(app.config).recycleBin, ...rel.split("/"));
const listed = async () =>
  (await expectJson<{ id: number }[]>(await app.api("/api/recycle-bin"), 200)).map((e) => e.id);

beforeEach(async () => {
  app = await createTestApp();
  seriesId = (await createSeriesWithFiles(app, "Purge", { books: [], chapters: [1, 2, 3] })).id;
  await scanLibrary(app);
  const files = await app.ctx.db.libraryFile.findMany({ orderBy: { path: "asc" } });
  const retired = await app.services.publication.retire(
    files.map((f) => f.id),
    "duplicates of book 1",
  );
  entries = retired.map((r) => ({ id: r.recycleEntryId, binPath: r.binPath, fileId: r.fileId }));
  for (const e of entries) expect(existsSync(bin(e.binPath))).toBe(true);
});
afterEach(async () => {
  await app.dispose();
});

const e = (i: number) => entries[i]!;

async function expectPurged(i: number): Promise<void> {
  expect(existsSync(bin(e(i).binPath))).toBe(false);
  expect(await app.ctx.db.recycleEntry.findUniqueOrThrow({ where: { id: e(i).id } })).toMatchObject({
    state: "purged",
  });
  // The library record stays as it was (recycled): the history of the file is kept, only the bytes go.
  expect(await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: e(i).fileId } })).toMatchObject({
    state: "recycled",
  });
}

describe("purge one recycle-bin entry", () => {
  it("REST: 204, the bin copy is removed, the entry is no longer listed nor restorable; the others stay", async () => {
    const other = await readFile(bin(e(1).binPath));
    const res = await app.api(`/api/recycle-bin/${e(0).id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    await expectPurged(0);
    expect((await listed()).sort()).toEqual([e(1).id, e(2).id].sort());
    expect(await readFile(bin(e(1).binPath))).toEqual(other);
    await expectProblem(
      await app.api(`/api/recycle-bin/${e(0).id}/restore`, { method: "POST" }),
      404,
      "recycle_entry_not_found",
    );
    await expectProblem(
      await app.api(`/api/recycle-bin/${e(0).id}`, { method: "DELETE" }),
      404,
      "recycle_entry_not_found",
    );
    expect(await violations(app.ctx.db, app.config)).toEqual([]);
    // Nothing of the library moved: a scan finds nothing new.
    expect(await scanLibrary(app)).toMatchObject({ added: 0, removed: 0 });
  });

  it("GraphQL: true and the same effects; the same error codes as REST", async () => {
    const r = await app.gql<{ purgeRecycleEntry: boolean }>(`mutation($id: Int!) { purgeRecycleEntry(id: $id) }`, {
      id: e(1).id,
    });
    expect(r).toEqual({ data: { purgeRecycleEntry: true } });
    await expectPurged(1);
    const again = await app.gql(`mutation($id: Int!) { purgeRecycleEntry(id: $id) }`, { id: e(1).id });
    expect(again.errors?.[0]?.extensions).toMatchObject({ code: "recycle_entry_not_found", status: 404 });
    const unknown = await app.gql(`mutation { purgeRecycleEntry(id: 987654) }`);
    expect(unknown.errors?.[0]?.extensions).toMatchObject({ code: "recycle_entry_not_found", status: 404 });
    await expectProblem(await app.api(`/api/recycle-bin/987654`, { method: "DELETE" }), 404, "recycle_entry_not_found");
    await expectProblem(await app.api(`/api/recycle-bin/0`, { method: "DELETE" }), 400, "bad_request");
  });

  it("a restored entry cannot be purged: its file is back in the library, untouched", async () => {
    const restored = await expectJson<{ file_id: number; path: string }>(
      await app.api(`/api/recycle-bin/${e(2).id}/restore`, { method: "POST" }),
      200,
    );
    await expectProblem(
      await app.api(`/api/recycle-bin/${e(2).id}`, { method: "DELETE" }),
      404,
      "recycle_entry_not_found",
    );
    expect(existsSync(path.join(app.config.libraryRoot, ...restored.path.split("/")))).toBe(true);
    expect(await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: restored.file_id } })).toMatchObject({
      state: "active",
    });
  });

  it("publishes a library event for the entry's series", async () => {
    const events: LibraryEvent[] = [];
    const sub = app.ctx.events.subscribe();
    const reading = (async () => {
      for await (const ev of sub) {
        events.push(ev);
        break;
      }
    })();
    expect((await app.api(`/api/recycle-bin/${e(0).id}`, { method: "DELETE" })).status).toBe(204);
    await reading;
    expect(events).toMatchObject([{ kind: "series_changed", seriesId }]);
  });
});
