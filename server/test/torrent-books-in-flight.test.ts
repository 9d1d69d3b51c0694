/**
 * A book a torrent is bringing in is on its way: probed from outside (an empty service, the public
 * REST API, Prowlarr-, qBittorrent- and drop-folder sources). While the torrent downloads, a copy of
 * the same book that a source lists is not fetched (not by the Wanted pass, nor by Search, nor by an
 * operator's pick); the torrent's copy becomes the book. Once a torrent job fails its books are
 * wanted again, and the source's copy is fetched.
 */
import { existsSync, mkdirSync } from "node:fs";
import { mkdir, readdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { expectJson, expectProblem, unitOf, useIndexer, zipBuffer, type RestUnits } from "./fixtures.ts";
import { startFakeProwlarr, type FakeProwlarr } from "./fakes/prowlarr-server.ts";
import { drawnChapter } from "./fakes/suwayomi-server.ts";
import { makeTorrent, startFakeQbittorrent, type FakeQbt } from "./fakes/qbittorrent-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const KEY = "prowlarr-key-in-flight-5c1d";
const PASSWORD = "qbt-password-in-flight";
const books = (title: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ path: `${title} v${String(i + 1).padStart(2, "0")}.cbz`, pages: 2 }));
const gull = makeTorrent("Gull Point v01-03 (Digital)", books("Gull Point", 3));
const reed = makeTorrent("Reed Lantern v01-02 (Digital)", books("Reed Lantern", 2));
const tern = makeTorrent("Tern Harbor v01-02 (Digital)", books("Tern Harbor", 2));

interface Job {
  id: number;
  books: string[];
  state: string;
}
interface Download {
  id: number;
  kind: string;
  volume: string | null;
  state: string;
  provider_name: string | null;
}
interface Ledger {
  entries: { kind: string; number: string; reason: string }[];
}
interface Offers {
  offers: { mapping_id: number; external_id: string; volume: string | null }[];
}

describe("a book a torrent is bringing in", () => {
  let app: TestApp;
  let prowlarr: FakeProwlarr;
  let qbt: FakeQbt;

  beforeAll(async () => {
    app = await createTestApp({ env: { ...FAST_ENV, WANTED_INTERVAL_SECONDS: "1" } });
    const diskRoot = path.join(app.dir, "client-downloads");
    mkdirSync(diskRoot, { recursive: true });
    prowlarr = await startFakeProwlarr({
      apiKey: KEY,
      releases: [
        { title: "Gull Point v01-03 (Digital)", size: 90e6, torrent: gull.bytes, infoHash: gull.infoHash },
        { title: "Reed Lantern v01-02 (Digital)", size: 60e6, torrent: reed.bytes, infoHash: reed.infoHash },
        { title: "Tern Harbor v01-02 (Digital)", size: 60e6, torrent: tern.bytes, infoHash: tern.infoHash },
      ],
    });
    qbt = await startFakeQbittorrent({
      dialect: "5.2",
      password: PASSWORD,
      clientRoot: "/downloads",
      diskRoot,
      catalogue: [gull, reed, tern],
      manualCompletion: true,
    });
    await useIndexer(app, {
      prowlarrUrl: prowlarr.url,
      apiKey: KEY,
      qbittorrentUrl: qbt.url,
      password: PASSWORD,
      diskRoot,
      retention: "keep_seeding",
    });
  });
  afterAll(async () => {
    await app?.dispose();
    await prowlarr?.close();
    await qbt?.close();
  });

  const api = {
    units: async (id: number) => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200),
    jobs: async (id: number) => expectJson<Job[]>(await app.api(`/api/torrents?series_id=${id}`), 200),
    downloads: async (id: number) => expectJson<Download[]>(await app.api(`/api/manga/${id}/downloads`), 200),
    ledger: async (id: number) => expectJson<Ledger>(await app.api(`/api/manga/${id}/wanted`), 200),
    run: async (id: number) =>
      expectJson<{ queued: number }>(await app.api(`/api/manga/${id}/wanted/run`, { method: "POST" }), 200),
  };

  /** A finished series of `count` books, its torrent grabbed by the first pass and still downloading. */
  async function seriesWithTorrent(title: string, count: number): Promise<{ id: number; job: Job }> {
    const { id } = await expectJson<{ id: number }>(
      await app.api("/api/manga", { method: "POST", json: { title, status: "finished", known_book_count: count } }),
      201,
    );
    await api.run(id);
    const [job] = await until(
      "the torrent grabbed",
      () => api.jobs(id),
      (j) => j.length === 1,
    );
    expect(job).toMatchObject({ books: Array.from({ length: count }, (_, i) => String(i + 1)) });
    expect(["added", "downloading"]).toContain(job!.state);
    return { id, job: job! };
  }

  /** Book 2 put into the drop folder and the drop folder linked to the series. */
  async function dropBook2(id: number, title: string): Promise<void> {
    const work = path.join(app.config.dropFolder, title);
    await mkdir(work, { recursive: true });
    const pages = await drawnChapter(5, 2);
    await writeFile(
      path.join(work, `${title} v02.cbz`),
      await zipBuffer(pages.map((p, i) => ({ name: `${String(i + 1).padStart(3, "0")}.jpg`, data: p.bytes }))),
    );
    await expectJson(
      await app.api(`/api/manga/${id}/sources`, {
        method: "POST",
        json: { provider: "drop-folder", source_id: title, language: "en", priority: 0 },
      }),
      201,
    );
  }

  it("is not fetched from a source while the torrent downloads; the torrent's copy becomes the book", async () => {
    const { id } = await seriesWithTorrent("Gull Point", 3);
    await dropBook2(id, "Gull Point");

    // The source lists book 2 ...
    const offers = await expectJson<Offers>(await app.api(`/api/manga/${id}/slots/book/2/offers`), 200);
    expect(offers.offers.map((o) => o.volume)).toEqual(["2"]);
    // ... yet the Wanted pass, Search and a pick by hand leave it to the torrent.
    expect((await api.run(id)).queued).toBe(0);
    expect((await api.ledger(id)).entries.find((e) => e.kind === "book" && e.number === "2")?.reason).toBe(
      "already_queued",
    );
    expect(await expectJson(await app.api(`/api/manga/${id}/slots/book/2/search`, { method: "POST" }), 200)).toEqual({
      download_ids: [],
      reason: "already_queued",
    });
    const pick = offers.offers[0]!;
    await expectProblem(
      await app.api(`/api/manga/${id}/slots/book/2/download`, {
        method: "POST",
        json: { mapping_id: pick.mapping_id, external_id: pick.external_id },
      }),
      409,
      "slot_download_active",
    );
    expect(await api.downloads(id)).toEqual([]);

    // The torrent completes: the scheduled pass's poll imports its three books.
    qbt.finish(gull.infoHash);
    const units = await until(
      "the torrent's books imported",
      () => api.units(id),
      (u) => ["1", "2", "3"].every((n) => unitOf(u, "book", n).owned),
    );
    expect(unitOf(units, "book", "2").owned).toBe(true);
    expect(await api.downloads(id)).toEqual([]);
  });

  it("is wanted again from the sources once its torrent job fails", async () => {
    const { id } = await seriesWithTorrent("Reed Lantern", 2);
    await dropBook2(id, "Reed Lantern");
    expect((await api.run(id)).queued).toBe(0);
    expect(await api.downloads(id)).toEqual([]);

    // The torrent disappears from the client: the scheduled pass's poll fails the job, and a pass
    // fetches the source's copy.
    qbt.torrents.delete(reed.infoHash);
    await until(
      "the torrent job failed",
      () => api.jobs(id),
      (j) => j[0]?.state === "failed",
    );

    const rows = await until(
      "book 2 fetched from the drop folder",
      () => api.downloads(id),
      (d) => d.some((x) => x.volume === "2" && x.state === "published"),
    );
    expect(rows.filter((x) => x.volume === "2").map((x) => [x.provider_name, x.state])).toEqual([
      ["drop-folder", "published"],
    ]);
    expect(unitOf(await api.units(id), "book", "2").owned).toBe(true);
  });

  it("waits, completed, while the library folder is away (an unmounted disk), and is imported once it is back", async () => {
    const { id, job } = await seriesWithTorrent("Tern Harbor", 2);
    const root = app.config.libraryRoot;
    const unmounted = `${root}-unmounted`;
    await rename(root, unmounted);
    try {
      qbt.finish(tern.infoHash);
      await until(
        "the finished torrent seen by the scheduled pass",
        () => api.jobs(id),
        (j) => j[0]?.state === "completed",
      );
      // Several passes later (one a second): still waiting, nothing failed, no folder made.
      await new Promise((r) => setTimeout(r, 2500));
      expect((await api.jobs(id))[0]).toMatchObject({ id: job.id, state: "completed" });
      expect(existsSync(root)).toBe(false);
      const health = await expectJson<{ checks: { code: string }[] }>(await app.api("/api/system/health"), 200);
      expect(health.checks.map((c) => c.code)).toContain("library_root_missing");
    } finally {
      await rename(unmounted, root);
    }
    const units = await until(
      "the torrent's books imported",
      () => api.units(id),
      (u) => ["1", "2"].every((n) => unitOf(u, "book", n).owned),
    );
    expect(unitOf(units, "book", "2").owned).toBe(true);
    expect((await readdir(path.join(root, "Tern Harbor"))).filter((f) => f.endsWith(".cbz"))).toHaveLength(2);
  });
});
