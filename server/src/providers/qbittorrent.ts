/**
 * qBittorrent Web API v2 client. Login answers differ by version (≤ 5.1: `Ok.` and cookie `SID`;
 * 5.2: 204 and cookie `QBT_SID_<port>`), so the session is whatever cookie the login set. A 403
 * means the session expired: log in again once and repeat. `torrents/add` tells ≤ 5.1 callers
 * nothing about the hash, so the caller computes it and `add` checks the client reports it.
 */
import type { TorrentSource } from "./prowlarr.ts";
import { ProviderError } from "./provider.ts";

export interface QbtOptions {
  url: string;
  username: string;
  password: string;
  timeoutMs?: number;
}

export interface QbtTorrent {
  hash: string;
  name: string;
  state: string;
  progress: number;
  savePath: string;
  contentPath: string;
  category: string;
  tags: string[];
}

export interface QbtFile {
  /** Relative to the save path (a multi-file torrent's root folder included). */
  name: string;
  size: number;
  progress: number;
}

export interface QbtAddOptions {
  savePath: string | null;
  category: string;
  tag: string | null;
}

/**
 * States of a finished torrent (qBittorrent's serialize_torrent.cpp; `pausedUP` before 5.0,
 * `stoppedUP` since): every byte is on disk where `content_path` says.
 */
const COMPLETE_STATES = new Set(["uploading", "stalledUP", "pausedUP", "stoppedUP", "queuedUP", "forcedUP"]);
/**
 * States in which the files are not ready even at progress 1: being moved (to the save path after a
 * download folder, `content_path` still the old place), checked (`progress` is then the check's),
 * missing, in error, or the metadata still unknown.
 */
const NOT_READY_STATES = new Set([
  "moving",
  "checkingUP",
  "checkingDL",
  "checkingResumeData",
  "missingFiles",
  "error",
  "metaDL",
  "forcedMetaDL",
  "allocating",
  "unknown",
]);
/** States the client does not leave on its own: the operator has to act. */
const BROKEN_STATES = new Set(["missingFiles", "error"]);
/** States after the client stopped seeding on its own share limits. */
const SEEDED_STATES = new Set(["pausedUP", "stoppedUP"]);

export const isComplete = (t: QbtTorrent) =>
  COMPLETE_STATES.has(t.state) || (t.progress >= 1 && !NOT_READY_STATES.has(t.state));
export const isBroken = (t: QbtTorrent) => BROKEN_STATES.has(t.state);
export const isSeeded = (t: QbtTorrent) => SEEDED_STATES.has(t.state);

const transientStatus = (s: number) => s >= 500 || s === 429 || s === 408;

export function qbittorrentClient(options: QbtOptions) {
  const base = new URL(options.url.endsWith("/") ? options.url : `${options.url}/`);
  const timeoutMs = options.timeoutMs ?? 30_000;
  let cookie: string | null = null;
  const fail = (message: string, transient: boolean, status: number | null = null) =>
    new ProviderError(`qBittorrent: ${message}`, transient, status);

  async function send(
    pathname: string,
    init: { method?: string; body?: FormData | URLSearchParams; query?: Record<string, string> } = {},
  ): Promise<Response> {
    const url = new URL(`api/v2/${pathname}`, base);
    for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { referer: base.origin, origin: base.origin };
    if (cookie) headers.cookie = cookie;
    try {
      return await fetch(url, {
        method: init.method ?? "GET",
        headers,
        body: init.body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      throw fail(`${pathname}: ${(e as Error).name === "TimeoutError" ? "timed out" : (e as Error).message}`, true);
    }
  }

  async function login(): Promise<void> {
    cookie = null;
    const res = await send("auth/login", {
      method: "POST",
      body: new URLSearchParams({ username: options.username, password: options.password }),
    });
    const text = await res.text();
    // 5.2 answers 204; older versions 200 with "Ok." (and "Fails." with 200 on wrong credentials).
    if (!(res.status === 204 || (res.status === 200 && text.trim() === "Ok."))) {
      throw fail(
        res.status === 403
          ? "login refused (too many failed attempts: the client banned this address)"
          : "login failed: wrong user name or password",
        transientStatus(res.status),
        res.status,
      );
    }
    // `SID` by default up to 5.1, but renamable there (WebAPISessionCookieName); `QBT_SID_<port>` in
    // 5.2. A successful login sets no other cookie, so an unknown name is the renamed session.
    const cookies = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0]?.trim() ?? "")
      .filter((c) => /^[^=\s]+=\S/.test(c));
    const session = cookies.find((c) => /^(SID|QBT_SID_\d+)=/.test(c)) ?? cookies[0];
    if (!session) throw fail("login answered no session cookie", false, res.status);
    cookie = session;
  }

  /** A call with the session; a 403 (no or expired session) logs in once and repeats it. */
  async function call(pathname: string, init: Parameters<typeof send>[1] = {}): Promise<Response> {
    if (!cookie) await login();
    let res = await send(pathname, init);
    if (res.status === 403) {
      await res.body?.cancel();
      await login();
      res = await send(pathname, init);
    }
    return res;
  }

  async function ok(pathname: string, res: Response): Promise<void> {
    if (res.ok) return;
    await res.body?.cancel();
    throw fail(`${pathname} answered ${res.status}`, transientStatus(res.status), res.status);
  }

  async function info(hashes: readonly string[]): Promise<QbtTorrent[]> {
    if (hashes.length === 0) return [];
    const res = await call("torrents/info", { query: { hashes: hashes.join("|") } });
    await ok("torrents/info", res);
    const body = (await res.json()) as unknown;
    if (!Array.isArray(body)) throw fail("torrents/info answered no array", false);
    return (body as Record<string, unknown>[]).map((t) => ({
      hash: String(t.hash ?? "").toLowerCase(),
      name: String(t.name ?? ""),
      state: String(t.state ?? ""),
      progress: typeof t.progress === "number" ? t.progress : 0,
      savePath: String(t.save_path ?? ""),
      contentPath: String(t.content_path ?? ""),
      category: String(t.category ?? ""),
      tags: String(t.tags ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    }));
  }

  return {
    login,
    info,

    /** The client's version (`app/version`, e.g. "v5.0.2"), after a login: the settings' check. */
    async version(): Promise<string> {
      const res = await call("app/version");
      await ok("app/version", res);
      return (await res.text()).trim().slice(0, 40);
    },

    /**
     * Adds a torrent stopped=false with automatic management off (the save path is ours), under our
     * category and tag. `duplicate`: the client already had it. Either way the client must then
     * report exactly the hash computed locally.
     */
    async add(source: TorrentSource, opts: QbtAddOptions): Promise<{ duplicate: boolean; torrent: QbtTorrent }> {
      const form = new FormData();
      if (source.kind === "torrent")
        form.append(
          "torrents",
          new Blob([new Uint8Array(source.bytes)], { type: "application/x-bittorrent" }),
          `${source.infoHash}.torrent`,
        );
      else form.append("urls", source.uri);
      if (opts.savePath) {
        form.append("savepath", opts.savePath);
        // Straight into our save path (5.0+): a download folder would be moved out of on completion.
        form.append("useDownloadPath", "false");
      }
      form.append("category", opts.category);
      if (opts.tag) form.append("tags", opts.tag);
      form.append("autoTMM", "false");
      form.append("paused", "false");
      form.append("stopped", "false");
      const res = await call("torrents/add", { method: "POST", body: form });
      const text = await res.text();
      let duplicate = false;
      if (res.status === 409) duplicate = true;
      else if (!res.ok) throw fail(`torrents/add answered ${res.status}`, transientStatus(res.status), res.status);
      else if (text.trim() === "Fails.")
        duplicate = true; // ≤ 5.1: also what a duplicate gets
      else if (text.trim().startsWith("{")) {
        const body = JSON.parse(text) as { added_torrent_ids?: unknown };
        const ids = Array.isArray(body.added_torrent_ids)
          ? body.added_torrent_ids.map((x) => String(x).toLowerCase())
          : [];
        if (ids.length > 0 && !ids.includes(source.infoHash))
          throw fail(`the client added ${ids.join(", ")}, not the computed info-hash ${source.infoHash}`, false);
        if (ids.length === 0) duplicate = true;
      }
      const found = (await info([source.infoHash])).find((t) => t.hash === source.infoHash);
      if (!found) {
        // A magnet's metadata may take a moment, but the hash is known at once: absence is a mismatch.
        throw fail(
          duplicate
            ? `torrents/add refused the torrent and the client does not hold ${source.infoHash}`
            : `the client does not report the computed info-hash ${source.infoHash}`,
          false,
        );
      }
      return { duplicate, torrent: found };
    },

    async files(hash: string): Promise<QbtFile[]> {
      const res = await call("torrents/files", { query: { hash } });
      await ok("torrents/files", res);
      const body = (await res.json()) as unknown;
      if (!Array.isArray(body)) throw fail("torrents/files answered no array", false);
      return (body as Record<string, unknown>[]).map((f) => ({
        name: String(f.name ?? ""),
        size: typeof f.size === "number" ? f.size : 0,
        progress: typeof f.progress === "number" ? f.progress : 0,
      }));
    },

    async delete(hashes: readonly string[], deleteFiles: boolean): Promise<void> {
      const res = await call("torrents/delete", {
        method: "POST",
        body: new URLSearchParams({ hashes: hashes.join("|"), deleteFiles: String(deleteFiles) }),
      });
      await ok("torrents/delete", res);
      await res.body?.cancel();
    },
  };
}

export type QbtClient = ReturnType<typeof qbittorrentClient>;
