/**
 * A qBittorrent-compatible Web API v2 on 127.0.0.1, in either login dialect (≤ 5.1: `Ok.` + cookie
 * `SID`; 5.2: 204 + cookie `QBT_SID_<port>`), that "downloads" a torrent by writing real small CBZ
 * files under its save path after a short delay. Its bencode and hashing are its own (not the
 * service's), so a wrong info-hash in the service shows up as a mismatch. Shapes from qBittorrent's
 * WebUI API documentation (API v2, its project wiki) and, for the 5.2 login, its WebUI source.
 *
 * Paths: the fake reports client paths under `clientRoot` (e.g. /downloads) and writes them under
 * `diskRoot`, like a client in a container whose volume the service sees elsewhere.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import path from "node:path";
import { ZipFile } from "yazl";
import { drawnPages } from "../../src/library/test-pages.ts";

/* --------------------------------- torrents for tests --------------------------------- */

type B = number | string | Buffer | B[] | { [k: string]: B };

function benc(v: B): Buffer {
  if (typeof v === "number") return Buffer.from(`i${v}e`);
  if (typeof v === "string") return benc(Buffer.from(v, "utf8"));
  if (Buffer.isBuffer(v)) return Buffer.concat([Buffer.from(`${v.length}:`), v]);
  if (Array.isArray(v)) return Buffer.concat([Buffer.from("l"), ...v.map(benc), Buffer.from("e")]);
  const keys = Object.keys(v).sort();
  return Buffer.concat([Buffer.from("d"), ...keys.flatMap((k) => [benc(k), benc(v[k] as B)]), Buffer.from("e")]);
}

export interface FakeTorrentFile {
  /** Path inside the torrent's root folder. */
  path: string;
  /** A CBZ with this many drawn pages; absent: a small text file. */
  pages?: number;
}

export interface FakeTorrent {
  name: string;
  files: FakeTorrentFile[];
  bytes: Buffer;
  /**
   * The hash qBittorrent keys the torrent by (its `hash`, `added_torrent_ids`, the `hashes` filter):
   * libtorrent's best hash (InfoHash::toTorrentID → info_hash_t::get_best), i.e. the v1 SHA-1 of
   * the info bytes, or for a hybrid torrent their SHA-256 cut to 20 bytes.
   */
  infoHash: string;
  /** The v1 info-hash (SHA-1 of the info bytes), qBittorrent's `infohash_v1`. */
  v1: string;
  magnet: string;
}

/**
 * A multi-file .torrent (v1) with a tracker and some keys after `info`, so hashing the wrong span
 * fails. `hybrid`: also a v2 torrent (`meta version` 2 and a `file tree` in the info, as
 * qBittorrent's torrent creator makes by default), whose id in the client is the v2 hash.
 */
export function makeTorrent(name: string, files: FakeTorrentFile[], opts: { hybrid?: boolean } = {}): FakeTorrent {
  const info: { [k: string]: B } = {
    name,
    "piece length": 262144,
    pieces: randomBytes(20),
    files: files.map((f) => ({ length: (f.pages ?? 0) * 1000 + 100, path: f.path.split("/") })),
  };
  if (opts.hybrid) {
    info["meta version"] = 2;
    info["file tree"] = Object.fromEntries(
      files.map((f) => [f.path, { "": { length: (f.pages ?? 0) * 1000 + 100, "pieces root": randomBytes(32) } }]),
    );
  }
  const infoBytes = benc(info);
  const v1 = createHash("sha1").update(infoBytes).digest("hex");
  const v2 = createHash("sha256").update(infoBytes).digest("hex");
  const infoHash = opts.hybrid ? v2.slice(0, 40) : v1;
  const bytes = Buffer.concat([
    Buffer.from("d"),
    benc("announce"),
    benc("http://tracker.invalid/announce"),
    benc("comment"),
    benc("made by the fake"),
    benc("info"),
    infoBytes,
    benc("url-list"),
    benc([]),
    Buffer.from("e"),
  ]);
  const xt = opts.hybrid ? `xt=urn:btih:${v1}&xt=urn:btmh:1220${v2}` : `xt=urn:btih:${v1}`;
  return { name, files, bytes, infoHash, v1, magnet: `magnet:?${xt}&dn=${encodeURIComponent(name)}` };
}

async function cbzBytes(pages: number, seed: number): Promise<Buffer> {
  const images = await drawnPages(pages, seed, { width: 120, height: 170 });
  const zip = new ZipFile();
  images.forEach((img, i) =>
    zip.addBuffer(img, `${String(i + 1).padStart(3, "0")}.jpg`, {
      compress: false,
      mtime: new Date(Date.UTC(2024, 0, 1)),
    }),
  );
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/* --------------------------------------- the server --------------------------------------- */

export interface FakeQbtTorrent {
  hash: string;
  name: string;
  state: string;
  progress: number;
  save_path: string;
  content_path: string;
  category: string;
  tags: string;
  autoTMM: boolean;
  stopped: boolean;
  /** `useDownloadPath` as sent (5.0+; absent: the client's default, which may download elsewhere first). */
  useDownloadPath: boolean | null;
}

export interface FakeQbtOptions {
  dialect: "5.1" | "5.2";
  username?: string;
  password?: string;
  clientRoot: string;
  diskRoot: string;
  /** Torrents the fake can "download": by info-hash. */
  catalogue: FakeTorrent[];
  completeAfterMs?: number;
  /** The torrents complete only when `finish(hash)` is called (a download that takes as long as the test needs). */
  manualCompletion?: boolean;
  defaultSavePath?: string;
  /** ≤ 5.1 lets the operator rename the session cookie (WebAPISessionCookieName; default `SID`). */
  cookieName?: string;
}

export interface FakeQbt {
  url: string;
  torrents: Map<string, FakeQbtTorrent>;
  /** Every request as "METHOD /path" (query strings left out). */
  requests: string[];
  deleted: { hashes: string[]; deleteFiles: boolean }[];
  /** Drops every session, as a restart of the client does: the next call gets 403. */
  expireSessions(): void;
  /** Resolves once the torrent's files are written. */
  completed(hash: string): Promise<void>;
  /** With `manualCompletion`: lets the torrent complete (its files are written, its state is a finished one). */
  finish(hash: string): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function formOf(req: IncomingMessage, body: Buffer): Promise<Map<string, (string | Buffer)[]>> {
  const out = new Map<string, (string | Buffer)[]>();
  const add = (k: string, v: string | Buffer) => out.set(k, [...(out.get(k) ?? []), v]);
  const type = req.headers["content-type"] ?? "";
  const r = new Request("http://x/", { method: "POST", headers: { "content-type": type }, body: new Uint8Array(body) });
  if (type.startsWith("multipart/form-data")) {
    for (const [k, v] of await r.formData()) add(k, typeof v === "string" ? v : Buffer.from(await v.arrayBuffer()));
  } else {
    for (const [k, v] of new URLSearchParams(body.toString("utf8"))) add(k, v);
  }
  return out;
}

export async function startFakeQbittorrent(options: FakeQbtOptions): Promise<FakeQbt> {
  const username = options.username ?? "admin";
  const password = options.password ?? "adminadmin";
  const sessions = new Set<string>();
  const torrents = new Map<string, FakeQbtTorrent>();
  const done = new Map<string, Promise<void>>();
  const requests: string[] = [];
  const deleted: FakeQbt["deleted"] = [];
  const byHash = new Map(options.catalogue.map((t) => [t.infoHash, t]));
  const byBytes = new Map(options.catalogue.map((t) => [createHash("sha256").update(t.bytes).digest("hex"), t]));
  let port = 0;
  const cookieName = () => (options.dialect === "5.2" ? `QBT_SID_${port}` : (options.cookieName ?? "SID"));
  const toDisk = (clientPath: string) =>
    path.join(options.diskRoot, path.posix.relative(options.clientRoot, clientPath));

  const gates = new Map<string, { open: () => void; opened: Promise<void> }>();
  const gate = (hash: string) => {
    let g = gates.get(hash);
    if (!g) {
      let open = () => {};
      const opened = new Promise<void>((r) => (open = r));
      g = { open, opened };
      gates.set(hash, g);
    }
    return g;
  };

  async function complete(t: FakeTorrent, entry: FakeQbtTorrent): Promise<void> {
    if (options.manualCompletion) await gate(t.infoHash).opened;
    else await new Promise((r) => setTimeout(r, options.completeAfterMs ?? 30));
    let seed = 1;
    for (const f of t.files) {
      const abs = toDisk(path.posix.join(entry.save_path, t.name, f.path));
      await mkdir(path.dirname(abs), { recursive: true });
      await writeFile(abs, f.pages ? await cbzBytes(f.pages, (seed += 7)) : Buffer.from(`readme of ${t.name}\n`));
    }
    entry.state = "uploading";
    entry.progress = 1;
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      requests.push(`${req.method} ${url.pathname}`);
      const body = await readBody(req);
      const send = (status: number, text = "", type = "text/plain; charset=UTF-8") => {
        res.writeHead(status, { "content-type": type });
        res.end(text);
      };
      const json = (v: unknown, status = 200) => send(status, JSON.stringify(v), "application/json");
      if (url.pathname === "/api/v2/auth/login" && req.method === "POST") {
        const form = await formOf(req, body);
        // Wrong credentials: ≤ 5.1 answers 200 "Fails."; 5.2 throws Unauthorized, a 401 (authcontroller.cpp).
        if (form.get("username")?.[0] !== username || form.get("password")?.[0] !== password)
          return options.dialect === "5.2" ? send(401, "Unauthorized") : send(200, "Fails.");
        const sid = randomBytes(16).toString("hex");
        sessions.add(sid);
        res.setHeader("set-cookie", `${cookieName()}=${sid}; HttpOnly; SameSite=Strict; path=/`);
        return options.dialect === "5.2" ? send(204) : send(200, "Ok.");
      }
      const sid = (req.headers.cookie ?? "")
        .split(";")
        .map((c) => c.trim().split("="))
        .find(([k]) => k === cookieName())?.[1];
      if (!sid || !sessions.has(sid)) return send(403, "Forbidden");

      // `app/version` answers the version as plain text ("v5.0.2"), as qBittorrent's Web API v2 documents.
      if (url.pathname === "/api/v2/app/version") return send(200, options.dialect === "5.2" ? "v5.2.0" : "v5.0.2");
      if (url.pathname === "/api/v2/torrents/add" && req.method === "POST") {
        const form = await formOf(req, body);
        const found: FakeTorrent[] = [];
        for (const file of form.get("torrents") ?? []) {
          const t = byBytes.get(createHash("sha256").update(file).digest("hex"));
          if (!t) return send(415, "Fails.");
          found.push(t);
        }
        for (const u of String(form.get("urls")?.[0] ?? "")
          .split("\n")
          .filter(Boolean)) {
          // Like libtorrent's magnet parser: the v2 hash (btmh, sha2-256 multihash) wins over btih.
          const v2 = /xt=urn:btmh:1220([0-9a-f]{64})/i.exec(u)?.[1];
          const id = v2 ? v2.slice(0, 40) : /xt=urn:btih:([0-9a-f]{40})/i.exec(u)?.[1];
          const t = id ? byHash.get(id.toLowerCase()) : undefined;
          if (!t) return send(415, "Fails.");
          found.push(t);
        }
        const added: string[] = [];
        for (const t of found) {
          if (torrents.has(t.infoHash)) continue;
          const savePath = String(form.get("savepath")?.[0] ?? options.defaultSavePath ?? options.clientRoot);
          const stopped = (form.get("stopped")?.[0] ?? form.get("paused")?.[0]) === "true";
          const entry: FakeQbtTorrent = {
            hash: t.infoHash,
            name: t.name,
            state: stopped ? "stoppedDL" : "downloading",
            progress: 0,
            save_path: savePath,
            content_path: path.posix.join(savePath, t.name),
            category: String(form.get("category")?.[0] ?? ""),
            tags: String(form.get("tags")?.[0] ?? ""),
            autoTMM: form.get("autoTMM")?.[0] === "true",
            stopped,
            useDownloadPath: form.has("useDownloadPath") ? form.get("useDownloadPath")?.[0] === "true" : null,
          };
          torrents.set(t.infoHash, entry);
          added.push(t.infoHash);
          const finished = complete(t, entry);
          finished.catch(() => {}); // awaited by completed() and close(); never an unhandled rejection
          done.set(t.infoHash, finished);
        }
        if (options.dialect === "5.2") {
          if (added.length === 0)
            return json(
              { success_count: 0, failure_count: found.length, pending_count: 0, added_torrent_ids: [] },
              409,
            );
          return json({
            success_count: added.length,
            failure_count: found.length - added.length,
            pending_count: 0,
            added_torrent_ids: added,
          });
        }
        return send(200, added.length === 0 ? "Fails." : "Ok.");
      }
      if (url.pathname === "/api/v2/torrents/info") {
        const wanted = url.searchParams.get("hashes")?.split("|");
        return json([...torrents.values()].filter((t) => !wanted || wanted.includes(t.hash)));
      }
      if (url.pathname === "/api/v2/torrents/files") {
        const t = byHash.get(url.searchParams.get("hash") ?? "");
        const entry = t && torrents.get(t.infoHash);
        if (!t || !entry) return send(404, "Torrent hash was not found");
        return json(
          t.files.map((f, index) => ({
            index,
            name: `${t.name}/${f.path}`,
            size: (f.pages ?? 0) * 1000 + 100,
            progress: entry.progress,
          })),
        );
      }
      if (url.pathname === "/api/v2/torrents/delete" && req.method === "POST") {
        const form = await formOf(req, body);
        const hashes = String(form.get("hashes")?.[0] ?? "").split("|");
        deleted.push({ hashes, deleteFiles: form.get("deleteFiles")?.[0] === "true" });
        for (const h of hashes) torrents.delete(h);
        return send(200);
      }
      return send(404, "Not Found");
    })().catch((e: unknown) => {
      res.writeHead(500);
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    torrents,
    requests,
    deleted,
    expireSessions: () => sessions.clear(),
    completed: (hash) => done.get(hash) ?? Promise.reject(new Error(`no torrent ${hash}`)),
    finish: (hash) => gate(hash).open(),
    async close() {
      for (const g of gates.values()) g.open();
      await Promise.allSettled(done.values());
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
