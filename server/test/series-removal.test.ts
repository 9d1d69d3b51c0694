/**
 * Removing a series whose folder is gone, from an empty service through the public API only (REST,
 * GraphQL, the reader apps' paths): the test writes two series folders, scans, deletes one folder
 * on disk, and removes its series. Nothing on disk is touched by the removal; a recycled file of the
 * removed series stays listed and restorable, and the folder written again is a new series.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stateDirs } from "../src/config.ts";
import { violations } from "./crash/invariants.ts";
import { cbz, chapterFileName, expectJson, expectProblem, scanLibrary } from "./fixtures.ts";
import { asReader } from "./readers-fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

interface RestSeries {
  id: number;
  title: string;
  folder: string;
}
interface RestRemoval {
  allowed: boolean;
  folder_present: boolean;
  refusal: string | null;
  active_files: number;
  busy: Record<string, number>;
}
interface RestEntry {
  id: number;
  file_id: number | null;
  series_id: number | null;
  original_path: string;
  sha256: string;
}

const lib = (rel: string) => path.join(app.config.libraryRoot, ...rel.split("/"));

/** sha256 of every file under a folder, by relative path. */
async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string) => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) await walk(abs);
      else out[path.relative(root, abs).split(path.sep).join("/")] = sha(await readFile(abs));
    }
  };
  await walk(root).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== "ENOENT") throw e;
  });
  return out;
}
const disk = async () => ({
  library: await tree(app.config.libraryRoot),
  bin: await tree(stateDirs(app.config).recycleBin),
});

async function writeSeries(folder: string, chapters: number[]): Promise<void> {
  await mkdir(lib(folder), { recursive: true });
  for (const c of chapters) await writeFile(lib(`${folder}/${chapterFileName(folder, c)}`), await cbz(3));
}
const list = async () => expectJson<RestSeries[]>(await app.api("/api/manga"), 200);
const byFolder = async (folder: string) => {
  const s = (await list()).find((x) => x.folder === folder);
  if (!s) throw new Error(`no series for ${folder}`);
  return s;
};
const removal = async (id: number) => expectJson<RestRemoval>(await app.api(`/api/manga/${id}/removal`), 200);
const remove = (id: number) => app.api(`/api/manga/${id}`, { method: "DELETE" });

let kept: RestSeries;
let gone: RestSeries;
let recycled: RestEntry;

beforeAll(async () => {
  app = await createTestApp();
  await writeSeries("Kept", [1, 2]);
  await writeSeries("Gone", [1, 2, 3]);
  expect(await scanLibrary(app)).toMatchObject({ added: 5, series_created: 2, errors: [] });
  kept = await byFolder("Kept");
  gone = await byFolder("Gone");
  // One chapter of "Gone" goes to the recycle bin through the audit's retirement.
  const units = await expectJson<{ units: { kind: string; number: string; file_ids: number[] }[] }>(
    await app.api(`/api/manga/${gone.id}/units`),
    200,
  );
  const fileId = units.units.find((u) => u.kind === "chapter" && u.number === "3")!.file_ids[0];
  const preview = await expectJson<{ confirmation: string }>(
    await app.api(`/api/manga/${gone.id}/audit/retire/preview`, { method: "POST", json: { file_ids: [fileId] } }),
    200,
  );
  await expectJson(
    await app.api(`/api/manga/${gone.id}/audit/retire`, {
      method: "POST",
      json: { confirmation: preview.confirmation },
    }),
    200,
  );
  const bin = await expectJson<RestEntry[]>(await app.api("/api/recycle-bin"), 200);
  expect(bin).toHaveLength(1);
  recycled = bin[0]!;
  expect(recycled).toMatchObject({
    file_id: fileId,
    series_id: gone.id,
    original_path: `Gone/${chapterFileName("Gone", 3)}`,
  });
});
afterAll(async () => {
  await app.dispose();
});

describe("removing a series whose folder is gone", () => {
  it("is refused while the library holds files of it, and nothing changes", async () => {
    await rm(lib("Gone"), { recursive: true });
    const before = await disk();
    // Not scanned yet: the service still knows two active files of "Gone".
    const p = await expectProblem(await remove(gone.id), 409, "series_has_files");
    expect(p).toMatchObject({ active_files: 2 });
    await expectProblem(await remove(kept.id), 409, "series_has_files");
    expect(await removal(kept.id)).toEqual({
      allowed: false,
      refusal: "series_has_files",
      active_files: 2,
      busy: { downloads: 0, torrent_jobs: 0, translation_jobs: 0, publications: 0 },
      folder_present: true,
    });
    expect(await removal(gone.id)).toMatchObject({ refusal: "series_has_files", folder_present: false });
    expect((await list()).map((s) => s.folder).sort()).toEqual(["Gone", "Kept"]);
    expect(await disk()).toEqual(before);
  });

  it("before removal, a scanned series whose folder is gone stays listed with its files missing", async () => {
    expect(await scanLibrary(app)).toMatchObject({ removed: 2, series_created: 0 });
    expect((await list()).map((s) => s.folder).sort()).toEqual(["Gone", "Kept"]);
    const units = await expectJson<{ units: { kind: string; owned: boolean }[] }>(
      await app.api(`/api/manga/${gone.id}/units`),
      200,
    );
    expect(units.units.filter((u) => u.owned)).toEqual([]);
    expect(await removal(gone.id)).toMatchObject({
      allowed: true,
      refusal: null,
      active_files: 0,
      folder_present: false,
    });
    // The reader apps still list it (an empty series).
    const opds = await (await asReader(app, "/opds/v1.2/series")).text();
    expect(opds).toContain(`/opds/v1.2/series/${gone.id}`);
    expect(await komgaSeries()).toEqual(expect.arrayContaining([{ id: String(gone.id), name: "Gone", booksCount: 0 }]));
  });

  it("removes it through REST: gone from the list, the API and the reader apps; nothing on disk changes", async () => {
    const keptUnits = await (await app.api(`/api/manga/${kept.id}/units`)).text();
    const before = await disk();
    const removed = await expectJson(await remove(gone.id), 200);
    expect(removed).toEqual({ id: gone.id, title: "Gone", folder: "Gone", removed: true, recycle_entries_kept: 1 });
    expect(await disk()).toEqual(before);
    expect((await list()).map((s) => s.folder)).toEqual(["Kept"]);
    await expectProblem(await app.api(`/api/manga/${gone.id}`), 404, "series_not_found");
    await expectProblem(await app.api(`/api/manga/${gone.id}/removal`), 404, "series_not_found");
    await expectProblem(await remove(gone.id), 404, "series_not_found");
    const q = await app.gql<{ series: null }>(`query($id: Int!) { series(id: $id) { id } }`, { id: gone.id });
    expect(q.errors?.[0]?.extensions?.code).toBe("series_not_found");
    expect((await komgaSeries()).map((s) => s.name)).toEqual(["Kept"]);
    expect(await (await asReader(app, "/opds/v1.2/series")).text()).not.toContain(`/opds/v1.2/series/${gone.id}"`);
    // The other series is untouched.
    expect(await (await app.api(`/api/manga/${kept.id}/units`)).text()).toBe(keptUnits);
  });

  it("keeps the recycled file of the removed series listed and restorable; the next scan makes a new series of it", async () => {
    const bin = await expectJson<RestEntry[]>(await app.api("/api/recycle-bin"), 200);
    expect(bin).toEqual([{ ...recycled, file_id: null, series_id: null }]);
    expect(await violations(app.ctx.db, app.config)).toEqual([]);
    const restored = await expectJson<{ file_id: number | null; path: string }>(
      await app.api(`/api/recycle-bin/${recycled.id}/restore`, { method: "POST" }),
      200,
    );
    expect(restored).toEqual({ file_id: null, path: recycled.original_path });
    expect(sha(await readFile(lib(recycled.original_path)))).toBe(recycled.sha256);
    expect(await expectJson<RestEntry[]>(await app.api("/api/recycle-bin"), 200)).toEqual([]);
    expect(await scanLibrary(app)).toMatchObject({ added: 1, series_created: 1, errors: [] });
    expect(await violations(app.ctx.db, app.config)).toEqual([]);
    const again = await byFolder("Gone");
    expect(again.id).not.toBe(gone.id);
    const units = await expectJson<{ units: { kind: string; number: string; owned: boolean }[] }>(
      await app.api(`/api/manga/${again.id}/units`),
      200,
    );
    expect(units.units.filter((u) => u.owned).map((u) => `${u.kind} ${u.number}`)).toEqual(["chapter 3"]);
  });

  it("removes through GraphQL too, and tells whether a series can be removed", async () => {
    const again = await byFolder("Gone");
    const removalOf = async (id: number) =>
      (
        await app.gql<{ series: { removal: { allowed: boolean; refusal: string | null; activeFiles: number } } }>(
          `query($id: Int!) { series(id: $id) { removal { allowed refusal activeFiles busy { downloads } } } }`,
          { id },
        )
      ).data?.series.removal;
    expect(await removalOf(again.id)).toMatchObject({ allowed: false, refusal: "series_has_files", activeFiles: 1 });
    const refused = await app.gql(`mutation($id: Int!) { removeSeries(seriesId: $id) { id } }`, { id: kept.id });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: "series_has_files", active_files: 2 });

    await rm(lib("Gone"), { recursive: true });
    await scanLibrary(app);
    expect(await removalOf(again.id)).toMatchObject({ allowed: true, refusal: null, activeFiles: 0 });
    const before = await disk();
    const r = await app.gql<{ removeSeries: { id: number; folder: string; recycleEntriesKept: number } }>(
      `mutation($id: Int!) { removeSeries(seriesId: $id) { id folder recycleEntriesKept } }`,
      { id: again.id },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data?.removeSeries).toEqual({ id: again.id, folder: "Gone", recycleEntriesKept: 0 });
    expect(await disk()).toEqual(before);
    expect((await list()).map((s) => s.folder)).toEqual(["Kept"]);
    expect(Object.keys((await disk()).library).sort()).toEqual(
      [1, 2].map((c) => `Kept/${chapterFileName("Kept", c)}`).sort(),
    );
  });
});

async function komgaSeries(): Promise<{ id: string; name: string; booksCount: number }[]> {
  const page = (await (await asReader(app, "/komga/api/v1/series?unpaged=true")).json()) as {
    content: { id: string; name: string; booksCount: number }[];
  };
  return page.content.map((s) => ({ id: s.id, name: s.name, booksCount: s.booksCount }));
}
