/**
 * The indexer/torrent channel end to end, against a real app, a Prowlarr-compatible and a
 * qBittorrent-compatible server on 127.0.0.1: wanted books → search → torrent added → the client
 * "completes" it with real CBZ files → only the requested books enter the library → retention.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCountingServer, startFakeProwlarr, type FakeProwlarr } from "./fakes/prowlarr-server.ts";
import { makeTorrent, startFakeQbittorrent, type FakeQbt, type FakeTorrent } from "./fakes/qbittorrent-server.ts";
import { expectJson, expectProblem, scanLibrary, unitOf, useIndexer, type RestUnits } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const KEY = "prowlarr-key-never-logged-7f3a";
const PASSWORD = "qbt-password-never-logged";
const MB = 1024 * 1024;
const books = (title: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({
    path: `${title} v${String(from + i).padStart(2, "0")}.cbz`,
    pages: 2,
  }));

const pack = makeTorrent("Blue Harbor v01-05 (Digital)", [...books("Blue Harbor", 1, 5), { path: "Blue Harbor.nfo" }]);
const bigPack = makeTorrent("Blue Harbor v01-10", books("Blue Harbor", 1, 10));
const tidePack = makeTorrent("Tide Gate v01-02", books("Tide Gate", 1, 2));
const stormPack = makeTorrent("Storm Bell v01-02", books("Storm Bell", 1, 2));

interface Job {
  id: number;
  info_hash: string;
  books: string[];
  state: string;
  imported_file_ids: number[];
  error: string | null;
}

describe("book channel end to end", () => {
  let app: TestApp;
  let prowlarr: FakeProwlarr;
  let qbt: FakeQbt;
  let foreign: Awaited<ReturnType<typeof startCountingServer>>;
  const logs: string[] = [];
  let diskRoot: string;

  async function series(title: string): Promise<number> {
    const s = await expectJson<{ id: number }>(
      await app.api("/api/manga", { method: "POST", json: { title, status: "finished", known_book_count: 5 } }),
      201,
    );
    return s.id;
  }
  const units = async (id: number) => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
  const jobs = async (id: number) => expectJson<Job[]>(await app.api(`/api/torrents?series_id=${id}`), 200);
  const configure = (qbittorrent: Record<string, unknown> = {}) =>
    useIndexer(app, {
      prowlarrUrl: prowlarr.url,
      apiKey: KEY,
      qbittorrentUrl: qbt.url,
      password: PASSWORD,
      diskRoot,
      retention: "remove_after_import",
      qbittorrent: { tag: "mls-test", ...qbittorrent },
    });

  beforeAll(async () => {
    app = await createTestApp();
    app.ctx.log = (m) => logs.push(m);
    diskRoot = path.join(app.dir, "client-downloads");
    mkdirSync(diskRoot, { recursive: true });
    foreign = await startCountingServer();
    prowlarr = await startFakeProwlarr({
      apiKey: KEY,
      releases: [
        // The smallest for book 2, but its link is on another origin: never followed.
        { title: "Blue Harbor v02 (Digital)", size: 30 * MB, foreignDownloadUrl: `${foreign.url}/get?apikey=${KEY}` },
        {
          title: "Blue Harbor v01-05 (Digital)",
          size: 200 * MB,
          torrent: pack.bytes,
          infoHash: pack.infoHash,
          indexerId: 1,
        },
        {
          title: "Blue Harbor v01-05 (Digital)",
          size: 200 * MB,
          torrent: pack.bytes,
          infoHash: pack.infoHash,
          indexerId: 2,
        },
        { title: "Blue Harbor v01-10", size: 400 * MB, torrent: bigPack.bytes, infoHash: bigPack.infoHash },
        { title: "Blue Harbor c012", size: 5 * MB, torrent: pack.bytes },
        { title: "Blue Harbor Side Story v02", size: 5 * MB, torrent: pack.bytes },
        { title: "Blue Harbor 2 v02", size: 5 * MB, torrent: pack.bytes },
        { title: "Tide Gate v01-02", size: 10 * MB, torrent: tidePack.bytes, infoHash: tidePack.infoHash },
        { title: "Storm Bell v01-02", size: 10 * MB, magnetUrl: stormPack.magnet },
      ],
    });
    qbt = await startFakeQbittorrent({
      dialect: "5.2",
      password: PASSWORD,
      clientRoot: "/downloads",
      diskRoot,
      catalogue: [pack, bigPack, tidePack, stormPack],
      completeAfterMs: 20,
    });
  });
  afterAll(async () => {
    await app.dispose();
    await prowlarr.close();
    await qbt.close();
    await foreign.close();
  });

  it("is off by default: nothing is searched", async () => {
    const id = await series("Quiet Series");
    expect(await app.services.bookChannel.enabled()).toBe(false);
    expect(await app.services.bookChannel.fetchBooks(id, ["1"])).toEqual([
      { book: "1", outcome: "disabled", detail: expect.any(String) as string },
    ]);
    expect(prowlarr.requests).toHaveLength(0);
  });

  it("grabs the smallest torrent covering wanted books 2 and 3, imports only those, then runs the retention action", async () => {
    await configure();
    expect(await app.services.bookChannel.enabled()).toBe(true);
    const id = await series("Blue Harbor");
    const before = await units(id);
    expect(["1", "2", "3", "4", "5"].map((n) => unitOf(before, "book", n).owned)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);

    const outcomes = await app.services.bookChannel.fetchBooks(id, ["2", "3"]);
    expect(outcomes.map((o) => [o.book, o.outcome])).toEqual([
      ["2", "grabbed"],
      ["3", "grabbed"],
    ]);
    expect(foreign.hits()).toBe(0);
    const added = qbt.torrents.get(pack.infoHash);
    expect(added).toMatchObject({
      category: "manga-library",
      tags: "mls-test",
      autoTMM: false,
      save_path: "/downloads/manga",
      stopped: false,
    });
    expect(qbt.torrents.size).toBe(1);
    const [job] = await jobs(id);
    expect(job).toMatchObject({ info_hash: pack.infoHash, books: ["2", "3"], state: "added" });

    // Asked again while it downloads: already on its way, nothing added.
    expect((await app.services.bookChannel.fetchBooks(id, ["3"]))[0]?.outcome).toBe("already_grabbed");

    await qbt.completed(pack.infoHash);
    await app.services.bookChannel.poll();

    const after = await units(id);
    expect(["1", "2", "3", "4", "5"].map((n) => unitOf(after, "book", n).owned)).toEqual([
      false,
      true,
      true,
      false,
      false,
    ]);
    const files = await app.ctx.db.libraryFile.findMany({ where: { seriesId: id }, orderBy: { volume: "asc" } });
    expect(files.map((f) => [f.volume, f.kind, f.origin, f.pageCount])).toEqual([
      ["2", "book", "download", 2],
      ["3", "book", "download", 2],
    ]);
    for (const f of files) expect(existsSync(path.join(app.config.libraryRoot, f.path))).toBe(true);
    // The scan reads the published files back as the same books: nothing new, nothing changed.
    expect(await scanLibrary(app)).toMatchObject({ added: 0, changed: 0, removed: 0, errors: [] });
    const [done] = await jobs(id);
    expect(done).toMatchObject({ state: "removed", imported_file_ids: files.map((f) => f.id), error: null });
    expect(qbt.deleted).toEqual([{ hashes: [pack.infoHash], deleteFiles: true }]);

    // Book 4 later: the pack's info-hash is already a job, so the bigger pack is taken instead.
    const later = await app.services.bookChannel.fetchBooks(id, ["4"]);
    expect(later[0]).toMatchObject({ book: "4", outcome: "grabbed" });
    expect((await jobs(id))[0]).toMatchObject({ info_hash: bigPack.infoHash, books: ["4"] });
  });

  it("keeps the client's files in place (copied, never moved) and seeds on with keep_seeding; waits for remove_when_seeded", async () => {
    await configure({ retention: "keep_seeding" });
    const id = await series("Tide Gate");
    expect((await app.services.bookChannel.fetchBooks(id, ["1"]))[0]?.outcome).toBe("grabbed");
    await qbt.completed(tidePack.infoHash);
    await app.services.bookChannel.poll();
    expect(unitOf(await units(id), "book", "1").owned).toBe(true);
    expect(existsSync(path.join(diskRoot, "manga", "Tide Gate v01-02", "Tide Gate v01.cbz"))).toBe(true);
    expect((await jobs(id))[0]?.state).toBe("imported");
    expect(qbt.torrents.has(tidePack.infoHash)).toBe(true);

    await configure({ retention: "remove_when_seeded" });
    const storm = await series("Storm Bell");
    expect((await app.services.bookChannel.fetchBooks(storm, ["2"]))[0]?.outcome).toBe("grabbed");
    await qbt.completed(stormPack.infoHash);
    await app.services.bookChannel.poll();
    expect((await jobs(storm))[0]?.state).toBe("imported");
    expect(qbt.torrents.has(stormPack.infoHash)).toBe(true);
    (qbt.torrents.get(stormPack.infoHash) as { state: string }).state = "stoppedUP";
    await app.services.bookChannel.poll();
    expect((await jobs(storm))[0]?.state).toBe("removed");
    expect(qbt.deleted.at(-1)).toEqual({ hashes: [stormPack.infoHash], deleteFiles: true });
  });

  it("refuses a content path that escapes the mount, or a symbolic link inside it: nothing imported, no retention", async () => {
    await configure({ retention: "remove_after_import" });
    const escape = makeTorrent("Grey Coast v01", books("Grey Coast", 1, 1));
    const linked = makeTorrent("Grey Coast v02", books("Grey Coast", 2, 2));
    await swapCatalogue(
      [escape, linked],
      [
        { title: "Grey Coast v01", size: MB, torrent: escape.bytes },
        { title: "Grey Coast v02", size: MB, torrent: linked.bytes },
      ],
    );
    const id = await series("Grey Coast");
    expect((await app.services.bookChannel.fetchBooks(id, ["1", "2"])).map((o) => o.outcome)).toEqual([
      "grabbed",
      "grabbed",
    ]);
    await qbt.completed(escape.infoHash);
    await qbt.completed(linked.infoHash);
    const goodPath = (qbt.torrents.get(escape.infoHash) as { content_path: string }).content_path;
    (qbt.torrents.get(escape.infoHash) as { content_path: string }).content_path = "/downloads/../etc";
    // The torrent's folder replaced by a link to a folder outside the mount.
    const outside = path.join(app.dir, "outside");
    mkdirSync(outside, { recursive: true });
    const folder = path.join(diskRoot, "manga", "Grey Coast v02");
    const { renameSync } = await import("node:fs");
    renameSync(folder, path.join(outside, "Grey Coast v02"));
    symlinkSync(path.join(outside, "Grey Coast v02"), folder);

    await app.services.bookChannel.poll();
    const byHash = new Map((await jobs(id)).map((j) => [j.info_hash, j]));
    for (const h of [escape.infoHash, linked.infoHash]) {
      expect(byHash.get(h)).toMatchObject({ state: "failed", imported_file_ids: [] });
      expect(byHash.get(h)?.error).toMatch(/^torrent_path_outside_mount/);
    }
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId: id } })).toBe(0);
    expect(qbt.deleted.flatMap((d) => d.hashes)).not.toContain(escape.infoHash);
    expect(qbt.deleted.flatMap((d) => d.hashes)).not.toContain(linked.infoHash);

    // The operator fixes the client's path and retries one job (REST); it imports. The other is
    // dismissed through GraphQL, its torrent removed from the client.
    (qbt.torrents.get(escape.infoHash) as { content_path: string }).content_path = goodPath;
    const escapeJob = byHash.get(escape.infoHash)!;
    const retried = await expectJson<Job>(
      await app.api(`/api/torrents/${escapeJob.id}/retry`, { method: "POST" }),
      200,
    );
    expect(retried).toMatchObject({ state: "added", error: null });
    await app.services.bookChannel.poll();
    const after = (await jobs(id)).find((j) => j.id === escapeJob.id)!;
    expect(after.state).toBe("removed");
    expect(after.imported_file_ids).toHaveLength(1);
    await expectProblem(
      await app.api(`/api/torrents/${escapeJob.id}/retry`, { method: "POST" }),
      409,
      "torrent_job_not_retryable",
    );
    const linkedJob = byHash.get(linked.infoHash)!;
    const dismissed = await app.gql<{ dismissTorrentJob: { state: string } }>(
      `mutation($id: Int!) { dismissTorrentJob(id: $id, removeFromClient: true) { state } }`,
      { id: linkedJob.id },
    );
    expect(dismissed.data?.dismissTorrentJob.state).toBe("dismissed");
    expect(qbt.deleted.flatMap((d) => d.hashes)).toContain(linked.infoHash);
    await expectProblem(
      await app.api(`/api/torrents/999999/dismiss`, { method: "POST" }),
      404,
      "torrent_job_not_found",
    );
  });

  it("imports only once the client has finished with the files: not while moving them; a torrent with missing files fails its job", async () => {
    const moving = makeTorrent("Ash Field v01", books("Ash Field", 1, 1));
    const missing = makeTorrent("Ash Field v02", books("Ash Field", 2, 2));
    await swapCatalogue(
      [moving, missing],
      [
        { title: "Ash Field v01", size: MB, torrent: moving.bytes },
        { title: "Ash Field v02", size: MB, torrent: missing.bytes },
      ],
    );
    const id = await series("Ash Field");
    await app.services.bookChannel.fetchBooks(id, ["1", "2"]);
    await qbt.completed(moving.infoHash);
    await qbt.completed(missing.infoHash);
    // qBittorrent reports progress 1 while it moves a finished torrent's files (state `moving`),
    // and keeps the progress of a torrent whose files vanished (state `missingFiles`).
    (qbt.torrents.get(moving.infoHash) as { state: string }).state = "moving";
    (qbt.torrents.get(missing.infoHash) as { state: string }).state = "missingFiles";
    await app.services.bookChannel.poll();
    let byHash = new Map((await jobs(id)).map((j) => [j.info_hash, j]));
    expect(byHash.get(moving.infoHash)?.state).toBe("downloading");
    expect(byHash.get(missing.infoHash)).toMatchObject({ state: "failed", imported_file_ids: [] });
    expect(byHash.get(missing.infoHash)?.error).toMatch(/missingFiles/);
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId: id } })).toBe(0);

    (qbt.torrents.get(moving.infoHash) as { state: string }).state = "stalledUP";
    await app.services.bookChannel.poll();
    byHash = new Map((await jobs(id)).map((j) => [j.info_hash, j]));
    expect(byHash.get(moving.infoHash)?.state).toBe("removed");
    expect(unitOf(await units(id), "book", "1").owned).toBe(true);
  });

  it("a finished torrent waits while the library folder is missing or an empty mount point: nothing made or failed; imported once it is back", async () => {
    const salt = makeTorrent("Salt Bay v01-02", books("Salt Bay", 1, 2));
    await swapCatalogue([salt], [{ title: "Salt Bay v01-02", size: MB, torrent: salt.bytes }]);
    const id = await series("Salt Bay");
    await app.services.bookChannel.fetchBooks(id, ["1", "2"]);
    await qbt.completed(salt.infoHash);
    const root = app.config.libraryRoot;
    const away = `${root}.away`;
    const before = await app.ctx.db.libraryFile.count();
    expect(before).toBeGreaterThan(0);

    // The disk unmounted: the folder gone, then its empty mount point (files are recorded in it).
    renameSync(root, away);
    await app.services.bookChannel.poll();
    expect((await jobs(id))[0]).toMatchObject({ state: "completed", imported_file_ids: [], error: null });
    expect(existsSync(root)).toBe(false);
    mkdirSync(root);
    await app.services.bookChannel.poll();
    expect((await jobs(id))[0]).toMatchObject({ state: "completed", imported_file_ids: [], error: null });
    expect(readdirSync(root)).toEqual([]);
    expect(await app.ctx.db.libraryFile.count()).toBe(before);
    expect(qbt.deleted.flatMap((d) => d.hashes)).not.toContain(salt.infoHash);
    expect(logs.some((l) => l.includes("waits for the library folder"))).toBe(true);

    // Mounted again: the next poll imports both books into it.
    rmdirSync(root);
    renameSync(away, root);
    await app.services.bookChannel.poll();
    const [done] = await jobs(id);
    expect(done).toMatchObject({ state: "removed", error: null });
    expect(done?.imported_file_ids).toHaveLength(2);
    const owned = await units(id);
    expect(["1", "2"].map((n) => unitOf(owned, "book", n).owned)).toEqual([true, true]);
  });

  it("never lets the key or the password reach a log line, an API answer or the database", async () => {
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join("\n")).not.toContain(KEY);
    expect(logs.join("\n")).not.toContain(PASSWORD);
    expect(logs.some((l) => l.includes("leaves Prowlarr's origin"))).toBe(true);
    const rest = await (await app.api("/api/settings/indexer")).text();
    const gql = JSON.stringify(
      await app.gql("{ indexerSettings { prowlarr { apiKey apiKeySet } qbittorrent { password passwordSet } } }"),
    );
    const torrents = await (await app.api("/api/torrents")).text();
    for (const text of [rest, gql, torrents]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(PASSWORD);
    }
    const rows = JSON.stringify(await app.ctx.db.setting.findMany());
    expect(rows).not.toContain(KEY);
    expect(rows).not.toContain(PASSWORD);
    expect(readFileSync(path.join(app.config.dataDir, "secrets.json"), "utf8")).toContain(KEY);
  });

  /** Serves other releases and torrents for the next test (the fakes read these lists live). */
  async function swapCatalogue(torrents: FakeTorrent[], releases: FakeProwlarr["releases"]): Promise<void> {
    prowlarr.releases.splice(0, prowlarr.releases.length, ...releases);
    await qbt.close();
    qbt = await startFakeQbittorrent({
      dialect: "5.1",
      password: PASSWORD,
      clientRoot: "/downloads",
      diskRoot,
      catalogue: torrents,
      completeAfterMs: 20,
    });
    await configure({ url: qbt.url });
  }
});
