/**
 * Removing a series on prepared state: work under way refuses it (`series_busy`, naming what),
 * and a removal takes every row of the series along — reading progress and KOReader documents of
 * its files included — while another series' rows stay.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cbz, chapterFileName, expectJson, expectProblem, scanLibrary } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let goneId: number;
let keptId: number;

async function writeSeries(folder: string): Promise<void> {
  await mkdir(path.join(app.config.libraryRoot, folder), { recursive: true });
  for (const c of [1, 2])
    await writeFile(path.join(app.config.libraryRoot, folder, chapterFileName(folder, c)), await cbz(2));
}

beforeEach(async () => {
  app = await createTestApp();
  await writeSeries("Gone");
  await writeSeries("Kept");
  await scanLibrary(app);
  const list = await expectJson<{ id: number; folder: string }[]>(await app.api("/api/manga"), 200);
  goneId = list.find((s) => s.folder === "Gone")!.id;
  keptId = list.find((s) => s.folder === "Kept")!.id;
  await rm(path.join(app.config.libraryRoot, "Gone"), { recursive: true });
  await scanLibrary(app);
});
afterEach(async () => {
  await app.dispose();
});

describe("work under way refuses the removal", () => {
  it.each([
    ["a queued download", "downloads", { kind: "chapter", chapter: "3", language: "en", state: "queued" }],
    ["a download being published", "downloads", { kind: "chapter", chapter: "3", language: "en", state: "publishing" }],
  ])("%s", async (_what, kind, download) => {
    await app.ctx.db.download.create({ data: { seriesId: goneId, ...download } });
    const p = await expectProblem(await app.api(`/api/manga/${goneId}`, { method: "DELETE" }), 409, "series_busy");
    expect(p).toMatchObject({ busy: { [kind]: 1 } });
    expect(await app.ctx.db.series.count({ where: { id: goneId } })).toBe(1);
  });

  it("a torrent job downloading, a translation running and a publication under way", async () => {
    const db = app.ctx.db;
    await db.torrentJob.create({
      data: { seriesId: goneId, infoHash: "a".repeat(40), title: "t", books: "[]", state: "downloading" },
    });
    await db.translationJob.create({
      data: {
        jobKey: "b".repeat(32),
        seriesId: goneId,
        kind: "chapter",
        number: "3",
        sourceLanguage: "ja",
        targetLanguage: "en",
        engine: "external",
        origin: "upload",
        state: "running",
      },
    });
    await db.publicationJournal.create({
      data: {
        op: "restore",
        step: "moving",
        payload: JSON.stringify({
          v: 1,
          entryId: 1,
          fileId: null,
          seriesId: goneId,
          bin: "x",
          to: "Gone/x.cbz",
          size: 1,
          sha256: "0",
        }),
      },
    });
    const p = await expectProblem(await app.api(`/api/manga/${goneId}`, { method: "DELETE" }), 409, "series_busy");
    expect(p).toMatchObject({ busy: { downloads: 0, torrent_jobs: 1, translation_jobs: 1, publications: 1 } });
    expect(await app.services.seriesRemoval.removal(goneId)).toMatchObject({ allowed: false, refusal: "series_busy" });
    // Finished work no longer counts.
    await db.torrentJob.updateMany({ data: { state: "imported" } });
    await db.translationJob.updateMany({ data: { state: "failed" } });
    await db.publicationJournal.deleteMany({});
    await expectJson(await app.api(`/api/manga/${goneId}`, { method: "DELETE" }), 200);
  });
});

describe("a removal takes the series' rows along", () => {
  it("reading progress, KOReader documents, slots, links and the series itself; the other series keeps its rows", async () => {
    const db = app.ctx.db;
    const files = await db.libraryFile.findMany({ orderBy: { id: "asc" } });
    const mine = files.filter((f) => f.seriesId === goneId);
    const other = files.filter((f) => f.seriesId === keptId);
    expect(mine.map((f) => f.state)).toEqual(["missing", "missing"]);
    const now = new Date();
    for (const f of [...mine, ...other]) {
      await db.readProgress.create({ data: { userName: "admin", fileId: f.id, page: 1, updatedAt: now } });
      await db.readerDocument.create({
        data: { fileId: f.id, sha256: f.sha256, partialMd5: `p${f.id}`, nameMd5: `n${f.id}` },
      });
    }
    await db.sourceRejection.create({ data: { seriesId: goneId, providerId: 1, sourceId: "x", reason: "r" } });
    await db.wantedState.create({ data: { seriesId: goneId, emptyPasses: 1 } });
    await expectJson(await app.api(`/api/manga/${goneId}`, { method: "DELETE" }), 200);

    const ids = mine.map((f) => f.id);
    expect(await db.readProgress.count({ where: { fileId: { in: ids } } })).toBe(0);
    expect(await db.readerDocument.count({ where: { fileId: { in: ids } } })).toBe(0);
    expect(await db.libraryFile.count({ where: { seriesId: goneId } })).toBe(0);
    expect(await db.chapterSlot.count({ where: { seriesId: goneId } })).toBe(0);
    expect(await db.sourceRejection.count({ where: { seriesId: goneId } })).toBe(0);
    expect(await db.wantedState.count({ where: { seriesId: goneId } })).toBe(0);
    expect(await db.series.count({ where: { id: goneId } })).toBe(0);
    expect(await db.readProgress.count({ where: { fileId: { in: other.map((f) => f.id) } } })).toBe(2);
    expect(await db.libraryFile.count({ where: { seriesId: keptId, state: "active" } })).toBe(2);
    expect(await db.chapterSlot.count({ where: { seriesId: keptId } })).toBe(2);
  });

  it("a removal while a scan runs is refused with scan_in_progress", async () => {
    const scan = app.services.scan.scan();
    const p = await app.services.seriesRemoval.remove(goneId).catch((e: unknown) => e);
    await scan;
    expect(p).toMatchObject({ code: "scan_in_progress" });
    expect(await app.ctx.db.series.count({ where: { id: goneId } })).toBe(1);
  });
});
