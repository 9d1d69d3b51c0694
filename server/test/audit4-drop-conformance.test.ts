/**
 * The drop folder as a user meets it, probed from outside: an empty service whose DROP_FOLDER is a
 * folder written here, and only the public REST and GraphQL API (docs/api.md "Sources", docs/rules.md).
 * Real-world names (volume and chapter, decimals with a group, parts, folders of images) are numbered
 * by the name parser; the chapters go through the same pipeline as any download; files added or
 * removed later are picked up by a refresh and by the scheduled pass; the files in the drop folder
 * are never moved, changed or deleted. No database seeding, no internal call.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { expectJson, type RestUnits } from "./fixtures.ts";
import { drawnChapter } from "./fakes/suwayomi-server.ts";
import { drawnCbz, folderSnapshot } from "./drop-folder-fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

interface RestDownload {
  id: number;
  chapter: string | null;
  part: number | null;
  volume?: string | null;
  state: string;
  provider_name: string | null;
  error?: string | null;
  verdict: { reasons: string[] } | null;
}

const settledStates = ["published", "degraded", "failed", "cancelled"];

describe("drop folder from an empty service (REST and GraphQL)", () => {
  let app: TestApp;
  let work: string;
  let seriesId: number;
  const title = "Kestrel Bay";
  beforeAll(async () => {
    app = await createTestApp({ env: { ...FAST_ENV, WANTED_INTERVAL_SECONDS: "1" } });
    work = path.join(app.config.dropFolder, title);
    await mkdir(work, { recursive: true });
    await writeFile(path.join(work, `${title} v01 c003.cbz`), await drawnCbz(5, 3));
    await writeFile(path.join(work, `${title} - Chapter 12.5 [Night Owls].cbz`), await drawnCbz(5, 12));
    await writeFile(path.join(work, `${title} c004 (part 1).cbz`), await drawnCbz(4, 41));
    await writeFile(path.join(work, `${title} c004 (part 2).cbz`), await drawnCbz(4, 42));
    const folder = path.join(work, `${title} Ch.7`);
    await mkdir(folder);
    for (const [i, p] of (await drawnChapter(5, 7)).entries())
      await writeFile(path.join(folder, `${String(i + 1).padStart(3, "0")}.jpg`), p.bytes);
  });
  afterAll(async () => {
    await app?.dispose();
  });

  const units = async () => expectJson<RestUnits>(await app.api(`/api/manga/${seriesId}/units`), 200);
  const downloads = async () => expectJson<RestDownload[]>(await app.api(`/api/manga/${seriesId}/downloads`), 200);
  const chapterRows = (u: RestUnits) =>
    u.units
      .filter((x) => x.kind === "chapter")
      .map((x) => `${x.number}${x.owned ? "" : "?"}${x.extra ? "x" : ""}`)
      .sort();

  it("search and link through REST and GraphQL agree; the named chapters arrive; the drop folder is left as it was", async () => {
    const created = await expectJson<{ id: number }>(
      await app.api("/api/manga", { method: "POST", json: { title } }),
      201,
    );
    seriesId = created.id;
    const before = await folderSnapshot(app.config.dropFolder);

    const rest = await expectJson<{ works: { source_id: string; title: string; linked: boolean }[] }>(
      await app.api(`/api/manga/${seriesId}/sources/search`, { method: "POST", json: { provider: "drop-folder" } }),
      200,
    );
    const gql = await app.gql<{ searchSources: { works: { sourceId: string; title: string; linked: boolean }[] } }>(
      `mutation($s: Int!) { searchSources(seriesId: $s, provider: "drop-folder") { works { sourceId title linked } } }`,
      { s: seriesId },
    );
    expect(rest.works.map((w) => [w.source_id, w.title, w.linked])).toEqual([[title, title, false]]);
    expect(gql.data?.searchSources.works.map((w) => [w.sourceId, w.title, w.linked])).toEqual([[title, title, false]]);

    const linked = await expectJson<{ refresh: { status: string; offers: number } }>(
      await app.api(`/api/manga/${seriesId}/sources`, {
        method: "POST",
        json: { provider: "drop-folder", source_id: title, language: "en" },
      }),
      201,
    );
    expect(linked.refresh).toMatchObject({ status: "ok", offers: 5 });

    const done = await until(
      "drop-folder chapters on disk",
      () => units(),
      (u) =>
        u.units.filter((x) => x.kind === "chapter").length > 0 &&
        u.units.filter((x) => x.kind === "chapter" && !x.extra).every((x) => x.owned),
      60_000,
    );
    // A decimal chapter is a side chapter (an extra, never fetched by itself), as from any source.
    expect(chapterRows(done)).toEqual(["12.5?x", "3", "4", "7"]);
    const rows = await until(
      "downloads settled",
      downloads,
      (r) => r.length > 0 && r.every((d) => settledStates.includes(d.state)),
      60_000,
    );
    expect(rows.map((r) => `${r.chapter}${r.part === null ? "" : `/${r.part}`} ${r.state}`).sort()).toEqual([
      "3 published",
      "4/1 published",
      "4/2 published",
      "7 published",
    ]);
    expect(await folderSnapshot(app.config.dropFolder)).toEqual(before);
  });

  it("a file added later arrives through the scheduled pass alone; a refresh lists it too", async () => {
    await writeFile(path.join(work, `${title} - Chapter 8 [en].cbz`), await drawnCbz(5, 8));
    const u = await until(
      "chapter 8 on disk",
      () => units(),
      (x) => x.units.some((c) => c.kind === "chapter" && c.number === "8" && c.owned),
      60_000,
    );
    expect(u.units.find((c) => c.number === "8")).toMatchObject({ owned: true, monitored: true });
    await writeFile(path.join(work, `${title} v02 c009.cbz`), await drawnCbz(5, 9));
    const g = await app.gql<{
      refreshSources: {
        mappings: { provider: string; status: string; added: number; removed: number; offers: number }[];
      };
    }>(`mutation($s: Int!) { refreshSources(seriesId: $s) { mappings { provider status added removed offers } } }`, {
      s: seriesId,
    });
    expect(g.errors).toBeUndefined();
    const [m] = g.data!.refreshSources.mappings;
    expect(m).toMatchObject({ provider: "drop-folder", status: "OK", removed: 0, offers: 7 });
    const rest = await expectJson<{ mappings: { offers: number; added: number; removed: number }[] }>(
      await app.api(`/api/manga/${seriesId}/sources/refresh`, { method: "POST" }),
      200,
    );
    expect(rest.mappings[0]).toMatchObject({ offers: 7, added: 0, removed: 0 });
  });

  it("a file removed from the drop folder leaves the offers, never the library file; a changed file is not fetched again", async () => {
    await until(
      "chapter 9 on disk",
      () => units(),
      (x) => x.units.some((c) => c.kind === "chapter" && c.number === "9" && c.owned),
      60_000,
    );
    const before = await downloads();
    const changed = await drawnCbz(6, 90);
    await rm(path.join(work, `${title} v01 c003.cbz`));
    await writeFile(path.join(work, `${title} v02 c009.cbz`), changed);
    const rest = await expectJson<{ mappings: { offers: number; added: number; removed: number; updated: number }[] }>(
      await app.api(`/api/manga/${seriesId}/sources/refresh`, { method: "POST" }),
      200,
    );
    // The scheduled pass (every second here) may have refreshed first and removed the offer itself.
    expect(rest.mappings[0]?.offers).toBe(6);
    expect([0, 1]).toContain(rest.mappings[0]?.removed);
    const after = await units();
    expect(after.units.find((c) => c.kind === "chapter" && c.number === "3")).toMatchObject({ owned: true });
    await expectJson(await app.api(`/api/manga/${seriesId}/wanted/run`, { method: "POST" }), 200);
    expect((await downloads()).length).toBe(before.length);
  });
});
