/** The Prowlarr and qBittorrent clients against real fake servers on 127.0.0.1. */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prowlarrClient, redactUrl, type ProwlarrResult } from "../src/providers/prowlarr.ts";
import { ProviderError } from "../src/providers/provider.ts";
import { qbittorrentClient } from "../src/providers/qbittorrent.ts";
import { startCountingServer, startFakeProwlarr, type FakeProwlarr } from "./fakes/prowlarr-server.ts";
import { makeTorrent, startFakeQbittorrent } from "./fakes/qbittorrent-server.ts";

const KEY = "prowlarr-secret-key-42";
const pack = makeTorrent(
  "Blue Harbor v01-05",
  [1, 2, 3, 4, 5].map((n) => ({ path: `Blue Harbor v0${n}.cbz`, pages: 2 })),
);
const single = makeTorrent("Blue Harbor v02", [{ path: "Blue Harbor v02.cbz", pages: 2 }]);
const magnetOnly = makeTorrent("Blue Harbor v03", [{ path: "Blue Harbor v03.cbz", pages: 2 }]);
// qBittorrent's torrent creator makes hybrid (v1 + v2) torrents by default.
const hybrid = makeTorrent("Blue Harbor v06", [{ path: "Blue Harbor v06.cbz", pages: 2 }], { hybrid: true });

async function rejection(p: Promise<unknown>): Promise<ProviderError> {
  const e: unknown = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ProviderError);
  return e as ProviderError;
}

describe("Prowlarr client", () => {
  let fake: FakeProwlarr;
  let foreign: Awaited<ReturnType<typeof startCountingServer>>;
  const logs: string[] = [];
  beforeAll(async () => {
    foreign = await startCountingServer();
    fake = await startFakeProwlarr({
      apiKey: KEY,
      releases: [
        { title: "Blue Harbor v01-05", size: 5000, torrent: pack.bytes, infoHash: pack.infoHash, indexerId: 1 },
        {
          title: "Blue Harbor v01-05",
          size: 5000,
          torrent: pack.bytes,
          infoHash: pack.infoHash.toUpperCase(),
          indexerId: 2,
        },
        { title: "Blue Harbor v02", size: 900, torrent: single.bytes, infoHash: single.infoHash },
        { title: "Blue Harbor v03", size: 800, magnetUrl: magnetOnly.magnet, infoHash: magnetOnly.infoHash },
        { title: "Blue Harbor v04 (elsewhere)", size: 700, foreignDownloadUrl: `${foreign.url}/grab?apikey=${KEY}` },
        { title: "Other Series v01", size: 100, torrent: single.bytes },
        { title: "Blue Harbor v05 (NZB)", size: 600, torrent: single.bytes, protocol: "usenet" },
      ],
    });
  });
  afterAll(async () => {
    await fake.close();
    await foreign.close();
  });
  const client = () => prowlarrClient({ url: fake.url, apiKey: KEY, log: (m) => logs.push(m) });

  it("searches with the key header and the book/comic categories, de-duplicating by info-hash", async () => {
    const results = await client().search("Blue Harbor");
    const req = fake.requests.at(-1);
    expect(req?.apiKeyHeader).toBe(KEY);
    expect(req?.query.get("type")).toBe("search");
    expect(req?.query.getAll("categories")).toEqual(["7000", "7020", "7030"]);
    expect(results.map((r) => r.title)).toEqual([
      "Blue Harbor v01-05",
      "Blue Harbor v02",
      "Blue Harbor v03",
      "Blue Harbor v04 (elsewhere)",
    ]);
    expect(results[0]?.infoHash).toBe(pack.infoHash);
  });

  it("keeps only torrent results: a usenet indexer's release is no torrent", async () => {
    const results = await client().search("Blue Harbor");
    expect(results.map((r) => r.title)).not.toContain("Blue Harbor v05 (NZB)");
  });

  it("fetches a .torrent from its own origin and computes the hash; takes a magnet-only result as a magnet", async () => {
    const results = await client().search("Blue Harbor");
    const t = await client().torrentOf(results[1] as ProwlarrResult);
    expect(t).toMatchObject({ kind: "torrent", infoHash: single.infoHash });
    expect(await client().torrentOf(results[2] as ProwlarrResult)).toEqual({
      kind: "magnet",
      uri: magnetOnly.magnet,
      infoHash: magnetOnly.infoHash,
    });
  });

  it("never follows a download link to another origin, and keeps the key out of the message and the log", async () => {
    const results = await client().search("Blue Harbor");
    const e = await rejection(client().torrentOf(results[3] as ProwlarrResult));
    expect(e.message).toMatch(/leaves Prowlarr's origin/);
    expect(e.message).not.toContain(KEY);
    expect(foreign.hits()).toBe(0);
    expect(logs.join("\n")).not.toContain(KEY);
  });

  it("answers a coded failure without the key when the key is wrong or the server is gone", async () => {
    const bad = await rejection(prowlarrClient({ url: fake.url, apiKey: "wrong" }).search("x"));
    expect(bad).toMatchObject({ status: 401, transient: false });
    const gone = await rejection(prowlarrClient({ url: "http://127.0.0.1:9", apiKey: KEY }).search("x"));
    expect(gone.transient).toBe(true);
    expect(gone.message).not.toContain(KEY);
    // A download link carries the key in its query: redacted for any message.
    const link = `${fake.url}/1/download?apikey=${KEY}&link=abc`;
    expect(redactUrl(link)).not.toContain(KEY);
    expect(redactUrl(link)).not.toContain("abc");
  });
});

describe.each(["5.1", "5.2"] as const)("qBittorrent client, %s dialect", (dialect) => {
  let fake: Awaited<ReturnType<typeof startFakeQbittorrent>>;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "mls-qbt-"));
    fake = await startFakeQbittorrent({
      dialect,
      clientRoot: "/downloads",
      diskRoot: dir,
      catalogue: [pack, single, magnetOnly, hybrid],
      completeAfterMs: 10,
    });
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const client = (password = "adminadmin") => qbittorrentClient({ url: fake.url, username: "admin", password });

  it("logs in with the dialect's cookie and adds a .torrent with our category, tag and autoTMM off", async () => {
    const c = client();
    const { duplicate, torrent } = await c.add(
      { kind: "torrent", bytes: pack.bytes, infoHash: pack.infoHash },
      { savePath: "/downloads/manga", category: "manga-library", tag: "mls" },
    );
    expect(duplicate).toBe(false);
    expect(torrent).toMatchObject({
      hash: pack.infoHash,
      category: "manga-library",
      tags: ["mls"],
      savePath: "/downloads/manga",
    });
    // With our save path, straight there: no download folder to move the files out of afterwards.
    expect(fake.torrents.get(pack.infoHash)).toMatchObject({ autoTMM: false, stopped: false, useDownloadPath: false });
    await fake.completed(pack.infoHash);
    const [info] = await c.info([pack.infoHash]);
    expect(info).toMatchObject({ state: "uploading", progress: 1, contentPath: "/downloads/manga/Blue Harbor v01-05" });
    expect((await c.files(pack.infoHash)).map((f) => f.name)).toContain("Blue Harbor v01-05/Blue Harbor v03.cbz");
  });

  it("reports a duplicate, adds a magnet, logs in again after a 403, deletes", async () => {
    const c = client();
    const again = await c.add(
      { kind: "torrent", bytes: pack.bytes, infoHash: pack.infoHash },
      { savePath: null, category: "manga-library", tag: null },
    );
    expect(again.duplicate).toBe(true);
    fake.expireSessions();
    const logins = fake.requests.filter((r) => r.endsWith("/auth/login")).length;
    const m = await c.add(
      { kind: "magnet", uri: magnetOnly.magnet, infoHash: magnetOnly.infoHash },
      { savePath: null, category: "manga-library", tag: null },
    );
    expect(m.torrent.hash).toBe(magnetOnly.infoHash);
    expect(fake.requests.filter((r) => r.endsWith("/auth/login")).length).toBe(logins + 1);
    await c.delete([magnetOnly.infoHash], true);
    expect(fake.deleted.at(-1)).toEqual({ hashes: [magnetOnly.infoHash], deleteFiles: true });
    expect(await c.info([magnetOnly.infoHash])).toEqual([]);
  });

  it("adds a hybrid torrent, found under the v2 id the client keys it by, from the .torrent and from its magnet", async () => {
    const c = client();
    const prowlarr = await startFakeProwlarr({
      apiKey: KEY,
      releases: [{ title: "Blue Harbor v06", size: 900, torrent: hybrid.bytes, infoHash: hybrid.v1 }],
    });
    try {
      const [result] = await prowlarrClient({ url: prowlarr.url, apiKey: KEY }).search("Blue Harbor v06");
      const source = await prowlarrClient({ url: prowlarr.url, apiKey: KEY }).torrentOf(result as ProwlarrResult);
      expect(source.infoHash).toBe(hybrid.infoHash);
      const { torrent } = await c.add(source, { savePath: null, category: "c", tag: null });
      expect(torrent.hash).toBe(hybrid.infoHash);
    } finally {
      await prowlarr.close();
    }
    await c.delete([hybrid.infoHash], true);
    const m = await c.add(
      { kind: "magnet", uri: hybrid.magnet, infoHash: hybrid.infoHash },
      { savePath: null, category: "c", tag: null },
    );
    expect(m.torrent.hash).toBe(hybrid.infoHash);
  });

  it("refuses a torrent whose computed hash the client does not report", async () => {
    const e = await rejection(
      client().add(
        { kind: "torrent", bytes: single.bytes, infoHash: "0".repeat(40) },
        { savePath: null, category: "c", tag: null },
      ),
    );
    expect(e.message).toMatch(/0{40}/);
  });

  it("takes the session cookie under whatever name the login sets (≤ 5.1 lets the operator rename it)", async () => {
    const renamed = await startFakeQbittorrent({
      dialect,
      clientRoot: "/downloads",
      diskRoot: dir,
      catalogue: [],
      cookieName: "qbt_session",
    });
    try {
      const c = qbittorrentClient({ url: renamed.url, username: "admin", password: "adminadmin" });
      expect(await c.version()).toMatch(/^v5\./);
    } finally {
      await renamed.close();
    }
  });

  it("fails the login with wrong credentials, the password in no message", async () => {
    const e = await rejection(client("hunter2-wrong").info([pack.infoHash]));
    expect(e.message).toMatch(/login failed/);
    expect(e.message).not.toContain("hunter2");
  });
});
