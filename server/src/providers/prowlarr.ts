/**
 * Prowlarr (indexer manager) client: one search over the book/comic categories, results
 * de-duplicated by info-hash, and the download of a result's .torrent — only from Prowlarr's own
 * origin, since its download links carry the API key and a foreign link could be anything.
 *
 * Prowlarr rewrites links to `{server}/{indexerId}/download?apikey=…&link=…`: every URL that
 * reaches a message goes through `redactUrl`, and the key itself is replaced wherever it appears.
 */
import { ProviderError } from "./provider.ts";
import { magnetClientId, magnetInfoHash, parseTorrent } from "./bencode.ts";

/** Newznab categories: 7000 Books, 7020 EBook, 7030 Comics. */
export const BOOK_CATEGORIES = [7000, 7020, 7030] as const;

export interface ProwlarrResult {
  guid: string;
  title: string;
  size: number;
  indexer: string | null;
  indexerId: number | null;
  /** Lower-case hex when the indexer gave one; the channel computes its own before trusting anything. */
  infoHash: string | null;
  downloadUrl: string | null;
  magnetUrl: string | null;
  seeders: number | null;
  leechers: number | null;
  publishDate: string | null;
}

/**
 * `infoHash`: the hash the torrent client keys the torrent by, computed here (bencode.ts
 * `clientId`): the v1 info-hash, or for a v2/hybrid torrent its v2 hash cut to 40 hex.
 */
export type TorrentSource =
  { kind: "torrent"; bytes: Buffer; infoHash: string } | { kind: "magnet"; uri: string; infoHash: string };

export interface ProwlarrOptions {
  url: string;
  apiKey: string;
  log?: (message: string) => void;
  timeoutMs?: number;
  /** Largest .torrent accepted (a torrent file of a few books is a few hundred KiB). */
  maxTorrentBytes?: number;
}

/** A URL fit for a log or an error: no credentials, no query values (the key and `link` travel there). */
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    u.username = "";
    u.password = "";
    for (const k of [...u.searchParams.keys()]) u.searchParams.set(k, "…");
    return u.toString();
  } catch {
    return "<unparseable url>";
  }
}

const transientStatus = (s: number) => s >= 500 || s === 429 || s === 408;

export function prowlarrClient(options: ProwlarrOptions) {
  const base = new URL(options.url.endsWith("/") ? options.url : `${options.url}/`);
  const origin = base.origin;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxTorrentBytes = options.maxTorrentBytes ?? 10 * 1024 * 1024;
  const scrub = (text: string) => (options.apiKey ? text.split(options.apiKey).join("••••") : text);
  const fail = (message: string, transient: boolean, status: number | null = null) =>
    new ProviderError(scrub(message), transient, status);

  async function get(url: URL, signal?: AbortSignal): Promise<Response> {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      return await fetch(url, {
        headers: { "x-api-key": options.apiKey, accept: "application/json, application/x-bittorrent, */*" },
        redirect: "manual",
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (e) {
      throw fail(
        `Prowlarr ${redactUrl(url.toString())}: ${(e as Error).name === "TimeoutError" ? "timed out" : (e as Error).message}`,
        true,
      );
    }
  }

  function sameOrigin(raw: string): URL | null {
    try {
      const u = new URL(raw, base);
      return u.origin === origin && (u.protocol === "http:" || u.protocol === "https:") ? u : null;
    } catch {
      return null;
    }
  }

  return {
    origin,

    /** How many of the indexers Prowlarr knows (`GET /api/v1/indexer`) are enabled: the settings' check. */
    async enabledIndexers(signal?: AbortSignal): Promise<number> {
      const res = await get(new URL("api/v1/indexer", base), signal);
      if (!res.ok) {
        await res.body?.cancel();
        throw fail(
          res.status === 401 ? "Prowlarr refused the API key" : `Prowlarr answered ${res.status}`,
          transientStatus(res.status),
          res.status,
        );
      }
      const body = (await res.json().catch(() => null)) as unknown;
      if (!Array.isArray(body)) throw fail("Prowlarr's indexer list answered no array", false, res.status);
      return body.filter((i) => (i as { enable?: unknown } | null)?.enable === true).length;
    },

    async search(query: string, signal?: AbortSignal): Promise<ProwlarrResult[]> {
      const url = new URL("api/v1/search", base);
      url.searchParams.set("query", query);
      url.searchParams.set("type", "search");
      for (const c of BOOK_CATEGORIES) url.searchParams.append("categories", String(c));
      const res = await get(url, signal);
      if (!res.ok) {
        await res.body?.cancel();
        throw fail(`Prowlarr search answered ${res.status}`, transientStatus(res.status), res.status);
      }
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        throw fail("Prowlarr search answered no JSON", false, res.status);
      }
      if (!Array.isArray(body)) throw fail("Prowlarr search answered no array", false, res.status);
      const seen = new Set<string>();
      const out: ProwlarrResult[] = [];
      for (const raw of body as Record<string, unknown>[]) {
        const r = normalise(raw);
        if (!r) continue;
        // Without an info-hash an entry cannot be compared; the guid stands in.
        const key = r.infoHash ?? (r.magnetUrl ? magnetInfoHash(r.magnetUrl) : null) ?? `guid:${r.guid}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(r);
      }
      options.log?.(
        `prowlarr: ${out.length} results for ${JSON.stringify(query)} (${body.length} before de-duplication)`,
      );
      return out;
    },

    /**
     * What to hand the torrent client for a result: the .torrent bytes fetched from Prowlarr's
     * origin (a redirect to a magnet link is taken, one to another origin is refused), or the magnet.
     * Prowlarr rewrites `magnetUrl` into a download link of its own as well, which answers a
     * redirect to the magnet: a `magnetUrl` that is no `magnet:` is fetched like a download link.
     */
    async torrentOf(result: ProwlarrResult, signal?: AbortSignal): Promise<TorrentSource> {
      if (result.downloadUrl) return fetchLink(result.downloadUrl, result.title, signal);
      if (result.magnetUrl?.toLowerCase().startsWith("magnet:")) return magnetSource(result.magnetUrl, result.title);
      if (result.magnetUrl) return fetchLink(result.magnetUrl, result.title, signal);
      throw fail(`"${result.title}" has neither a download link nor a magnet`, false);
    },

    /** Removes the key from a text that may hold it (an error of a lower layer). */
    scrub,
  };

  async function fetchLink(link: string, title: string, signal?: AbortSignal): Promise<TorrentSource> {
    let url = sameOrigin(link);
    if (!url)
      throw fail(`the download link of "${title}" leaves Prowlarr's origin (${redactUrl(link)}): not followed`, false);
    for (let hop = 0; hop < 5; hop++) {
      const res = await get(url, signal);
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        const location = res.headers.get("location") ?? "";
        if (location.toLowerCase().startsWith("magnet:")) return magnetSource(location, title);
        const next = sameOrigin(location);
        if (!next)
          throw fail(
            `the download of "${title}" redirects off Prowlarr's origin (${redactUrl(new URL(location, url).toString())}): not followed`,
            false,
          );
        url = next;
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw fail(`Prowlarr download of "${title}" answered ${res.status}`, transientStatus(res.status), res.status);
      }
      const bytes = Buffer.from(await res.arrayBuffer());
      if (bytes.length > maxTorrentBytes)
        throw fail(`the .torrent of "${title}" is ${bytes.length} bytes (limit ${maxTorrentBytes})`, false);
      try {
        return { kind: "torrent", bytes, infoHash: parseTorrent(bytes).clientId };
      } catch (e) {
        throw fail(`the download of "${title}" is no torrent file: ${(e as Error).message}`, false);
      }
    }
    throw fail(`the download of "${title}" redirects too often`, false);
  }

  function magnetSource(uri: string, title: string): TorrentSource {
    const infoHash = magnetClientId(uri);
    if (!infoHash) throw fail(`the magnet of "${title}" has no info-hash`, false);
    return { kind: "magnet", uri, infoHash };
  }
}

export type ProwlarrClient = ReturnType<typeof prowlarrClient>;

const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null);
const int = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : null);

function normalise(raw: Record<string, unknown>): ProwlarrResult | null {
  if (typeof raw !== "object" || raw === null) return null;
  const title = str(raw.title);
  if (!title) return null;
  // Prowlarr also serves usenet indexers (`protocol: "usenet"`): their releases are no torrents.
  if (typeof raw.protocol === "string" && raw.protocol.toLowerCase() !== "torrent") return null;
  const hash = str(raw.infoHash);
  return {
    guid: str(raw.guid) ?? title,
    title,
    size: int(raw.size) ?? 0,
    indexer: str(raw.indexer),
    indexerId: int(raw.indexerId),
    infoHash: hash && /^[0-9a-f]{40}$/i.test(hash) ? hash.toLowerCase() : null,
    downloadUrl: str(raw.downloadUrl),
    magnetUrl: str(raw.magnetUrl) ?? (str(raw.guid)?.startsWith("magnet:") ? str(raw.guid) : null),
    seeders: int(raw.seeders),
    leechers: int(raw.leechers),
    publishDate: str(raw.publishDate),
  };
}
