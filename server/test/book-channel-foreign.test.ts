/**
 * Foreign books through the indexer/torrent channel for the translation fallback (docs/rules.md, "Translation
 * fallback" 6), against a real app and Prowlarr-/qBittorrent-compatible servers on 127.0.0.1: a release
 * marked with a source language becomes a translation torrent, its completed books are staged as translation
 * jobs (never library files), a pack stages only the requested book, and the retention action waits until the
 * translations are imported.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putSetting } from "../src/services/acquisition/source-settings.ts";
import { startFakeProwlarr, type FakeProwlarr } from "./fakes/prowlarr-server.ts";
import { makeTorrent, startFakeQbittorrent, type FakeQbt } from "./fakes/qbittorrent-server.ts";
import { expectJson, useIndexer } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const KEY = "prowlarr-key-foreign-never-logged";
const PASSWORD = "qbt-password-foreign";
const MB = 1024 * 1024;
const book = (title: string, n: number, pages = 2) => ({
  path: `${title} v${String(n).padStart(2, "0")} [JP].cbz`,
  pages,
});

const reefJp = makeTorrent("Coral Reef v03 [JP]", [book("Coral Reef", 3)]);
const reefEn = makeTorrent("Coral Reef v03 [EN]", [{ path: "Coral Reef v03.cbz", pages: 2 }]);
const bayJp = makeTorrent("Coral Bay v03 [JP]", [book("Coral Bay", 3)]);
const poolPack = makeTorrent(
  "Tide Pool v01-05 [JP]",
  [1, 2, 3, 4, 5].map((n) => book("Tide Pool", n)),
);
const pdfBook = makeTorrent("Paper Moon v02 [JP]", [{ path: "Paper Moon v02 [JP].pdf" }]);

describe("foreign books from the indexer for translation", () => {
  let app: TestApp;
  let prowlarr: FakeProwlarr;
  let qbt: FakeQbt;

  const series = async (title: string, known = 3, folder = title) =>
    (
      await expectJson<{ id: number }>(
        await app.api("/api/manga", {
          method: "POST",
          json: { title, folder, status: "finished", known_book_count: known },
        }),
        201,
      )
    ).id;
  const deletedOf = (hash: string) => qbt.deleted.filter((d) => d.hashes.includes(hash));
  const torrentJobs = (seriesId: number) =>
    app.ctx.db.torrentJob.findMany({ where: { seriesId }, orderBy: { id: "asc" } });

  beforeAll(async () => {
    app = await createTestApp();
    const diskRoot = path.join(app.dir, "client-downloads");
    mkdirSync(diskRoot, { recursive: true });
    prowlarr = await startFakeProwlarr({
      apiKey: KEY,
      releases: [
        { title: "Coral Reef v03 [JP]", size: 20 * MB, torrent: reefJp.bytes, infoHash: reefJp.infoHash },
        { title: "Coral Reef v03 [EN]", size: 30 * MB, torrent: reefEn.bytes, infoHash: reefEn.infoHash },
        { title: "Coral Bay v03 [JP]", size: 20 * MB, torrent: bayJp.bytes, infoHash: bayJp.infoHash },
        { title: "Tide Pool v01-05 [JP]", size: 90 * MB, torrent: poolPack.bytes, infoHash: poolPack.infoHash },
        { title: "Paper Moon v02 [JP]", size: 9 * MB, torrent: pdfBook.bytes, infoHash: pdfBook.infoHash },
      ],
    });
    qbt = await startFakeQbittorrent({
      dialect: "5.2",
      password: PASSWORD,
      clientRoot: "/downloads",
      diskRoot,
      catalogue: [reefJp, reefEn, bayJp, poolPack, pdfBook],
      completeAfterMs: 20,
    });
    await useIndexer(app, {
      prowlarrUrl: prowlarr.url,
      apiKey: KEY,
      qbittorrentUrl: qbt.url,
      password: PASSWORD,
      diskRoot,
      retention: "remove_after_import",
      qbittorrent: { tag: "mls-test" },
    });
    await putSetting(app.ctx, "translation", { enabled: true, source_languages: ["ja"] });
  });
  afterAll(async () => {
    await app.dispose();
    await prowlarr.close();
    await qbt.close();
  });

  it("takes the [EN] release natively and never the [JP] one for a book the native path owns", async () => {
    const id = await series("Coral Reef");
    await expectJson(
      await app.api(`/api/manga/${id}`, { method: "PATCH", json: { translation_fallback_enabled: true } }),
      200,
    );
    await expectJson(await app.api(`/api/manga/${id}/translations/search`, { method: "POST" }), 200);
    const rows = await torrentJobs(id);
    expect(rows.map((r) => [r.title, r.purpose, r.books])).toEqual([["Coral Reef v03 [EN]", "native", '["3"]']]);
    expect(qbt.torrents.has(reefJp.infoHash)).toBe(false);
    expect(await app.ctx.db.translationJob.count({ where: { seriesId: id } })).toBe(0);
  });

  it("grabs the [JP] book in the fallback, stages it as a translation job (no library file), and keeps the torrent until the job is imported", async () => {
    const id = await series("Coral Bay");
    await expectJson(
      await app.api(`/api/manga/${id}`, { method: "PATCH", json: { translation_fallback_enabled: true } }),
      200,
    );
    const r = await expectJson<{ skipped: { number: string; reason: string }[] }>(
      await app.api(`/api/manga/${id}/translations/search`, { method: "POST" }),
      200,
    );
    expect(r.skipped.find((s) => s.number === "3")?.reason).toBe("indexer_torrent_added");
    const [job] = await torrentJobs(id);
    expect(job).toMatchObject({
      title: "Coral Bay v03 [JP]",
      purpose: "translation",
      sourceLanguage: "ja",
      books: '["3"]',
      state: "added",
    });

    await qbt.completed(bayJp.infoHash);
    await app.services.bookChannel.poll();
    const tj = await app.ctx.db.translationJob.findMany({ where: { seriesId: id } });
    expect(tj.map((t) => [t.kind, t.number, t.origin, t.sourceLanguage, t.targetLanguage])).toEqual([
      ["volume", "3", "indexer", "ja", "en"],
    ]);
    expect(tj[0]!.sourceSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId: id } })).toBe(0);
    const staged = (await torrentJobs(id))[0]!;
    expect(staged).toMatchObject({ state: "imported", imported: JSON.stringify([tj[0]!.id]) });
    expect(deletedOf(bayJp.infoHash)).toEqual([]);

    // Not imported yet: polling again leaves the torrent alone.
    await app.services.bookChannel.poll();
    expect((await torrentJobs(id))[0]!.state).toBe("imported");
    expect(deletedOf(bayJp.infoHash)).toEqual([]);

    // The translation is imported (guarded: only from the state read), then retention runs.
    const now = (await app.ctx.db.translationJob.findUniqueOrThrow({ where: { id: tj[0]!.id } })).state;
    expect(
      (
        await app.ctx.db.translationJob.updateMany({
          where: { id: tj[0]!.id, state: now },
          data: { state: "imported" },
        })
      ).count,
    ).toBe(1);
    await app.services.bookChannel.poll();
    expect((await torrentJobs(id))[0]!.state).toBe("removed");
    expect(deletedOf(bayJp.infoHash)).toEqual([{ hashes: [bayJp.infoHash], deleteFiles: true }]);
  });

  it("stages only the requested book of a [JP] pack, and waits for an explicit assignment for another edition", async () => {
    const id = await series("Tide Pool", 5);
    const [out] = await app.services.bookChannel.fetchForeignBooks(id, ["3"], ["ja"]);
    expect(out).toMatchObject({ book: "3", outcome: "grabbed" });
    await qbt.completed(poolPack.infoHash);
    await app.services.bookChannel.poll();
    const tj = await app.ctx.db.translationJob.findMany({ where: { seriesId: id } });
    expect(tj.map((t) => [t.number, t.origin])).toEqual([["3", "indexer"]]);
    expect((await torrentJobs(id))[0]).toMatchObject({ purpose: "translation", books: '["3"]', state: "imported" });

    // A series whose edition has 4 books: the 5-book pack is another edition, nothing is staged.
    const other = await series("Tide Pool", 4, "Tide Pool (small edition)");
    await app.ctx.db.series.update({ where: { id: other }, data: { editionBookCount: 4 } });
    expect((await app.services.bookChannel.fetchForeignBooks(other, ["2"], ["ja"]))[0]?.outcome).toBe("grabbed");
    await app.services.bookChannel.poll();
    expect(await app.ctx.db.translationJob.count({ where: { seriesId: other } })).toBe(0);
    const waiting = (await torrentJobs(other))[0]!;
    expect(waiting).toMatchObject({ state: "awaiting_assignment" });
    expect(JSON.parse(waiting.pending)).toEqual([
      { book: "2", reason: "other_edition", detail: expect.stringContaining("edition has 4") as string },
    ]);

    // The operator assigns the book's file by hand: staged as the translation source, no page check.
    const assigned = await expectJson<{ state: string; pending: unknown[]; imported_file_ids: number[] }>(
      await app.api(`/api/torrents/${waiting.id}/assign`, {
        method: "POST",
        json: { file: "Tide Pool v01-05 [JP]/Tide Pool v02 [JP].cbz", book: "2" },
      }),
      200,
    );
    expect(assigned).toMatchObject({ state: "imported", pending: [] });
    const staged = await app.ctx.db.translationJob.findMany({ where: { seriesId: other } });
    expect(staged.map((t) => [t.number, t.origin, t.id])).toEqual([["2", "indexer", assigned.imported_file_ids[0]]]);
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId: other } })).toBe(0);
  });

  it("refuses a book that is not an image ZIP/CBZ, with its reason", async () => {
    const id = await series("Paper Moon");
    expect((await app.services.bookChannel.fetchForeignBooks(id, ["2"], ["ja"]))[0]?.outcome).toBe("grabbed");
    await qbt.completed(pdfBook.infoHash);
    await app.services.bookChannel.poll();
    expect(await app.ctx.db.translationJob.count({ where: { seriesId: id } })).toBe(0);
    expect((await torrentJobs(id))[0]).toMatchObject({
      state: "failed",
      error: expect.stringContaining("unsupported_format") as string,
    });
  });
});
