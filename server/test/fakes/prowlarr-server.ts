/**
 * A Prowlarr-compatible search server on 127.0.0.1: `GET /api/v1/search` behind `X-Api-Key`,
 * answering the documented fields, with download links rewritten the way Prowlarr does
 * (`{server}/{indexerId}/download?apikey=…&link=…`) serving .torrent bytes. A release may instead
 * carry only a magnet, or a download link on another origin (which the service must not follow).
 * Shapes from Prowlarr's API v1 (its published OpenAPI document, `/api/v1/search`; `/api/v1/indexer`
 * answers IndexerResource objects, of which the fake fills `id`, `name`, `enable` and `protocol`).
 * Like Prowlarr's SearchController (`MapReleases`), the magnet link is rewritten to a download link
 * too, and that link answers a permanent redirect to the magnet (NewznabController `GetDownload`,
 * "handle magnet URLs"): a result's `magnetUrl` is an http link on Prowlarr's origin, not `magnet:`.
 */
import { createServer, type Server } from "node:http";

export interface FakeRelease {
  title: string;
  size: number;
  indexerId?: number;
  indexer?: string;
  seeders?: number;
  categories?: number[];
  /** Served from the fake's own download route. */
  torrent?: Buffer;
  /** Stated in the answer (lower- or upper-case as given); absent: null. */
  infoHash?: string;
  /** The indexer's magnet: answered as a Prowlarr download link that redirects to it. */
  magnetUrl?: string;
  /** A download link on another origin, answered verbatim. */
  foreignDownloadUrl?: string;
  /** Prowlarr's DownloadProtocol, serialised camel-case as Prowlarr's JSON does; default torrent. */
  protocol?: "torrent" | "usenet";
}

export interface FakeProwlarr {
  url: string;
  apiKey: string;
  releases: FakeRelease[];
  /** Every request: method, path and query (the key included, as a real server sees it). */
  requests: { method: string; path: string; query: URLSearchParams; apiKeyHeader: string | null }[];
  close(): Promise<void>;
}

export async function startFakeProwlarr(options: {
  apiKey: string;
  releases: FakeRelease[];
  /** The indexers `/api/v1/indexer` lists (default: two, one of them disabled). */
  indexers?: { id: number; name: string; enable: boolean }[];
}): Promise<FakeProwlarr> {
  const requests: FakeProwlarr["requests"] = [];
  const releases = options.releases;
  let base = "";
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const header = req.headers["x-api-key"];
    const apiKeyHeader = typeof header === "string" ? header : null;
    requests.push({ method: req.method ?? "GET", path: url.pathname, query: url.searchParams, apiKeyHeader });
    const json = (status: number, v: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(v));
    };
    if (url.pathname === "/api/v1/search") {
      if (apiKeyHeader !== options.apiKey) return json(401, { message: "Unauthorized" });
      const query = (url.searchParams.get("query") ?? "").toLowerCase();
      const cats = url.searchParams.getAll("categories").map(Number);
      const hits = releases
        .map((r, i) => ({ r, i }))
        .filter(
          ({ r }) =>
            r.title.toLowerCase().includes(query) &&
            (r.categories ?? [7030]).some((c) => cats.includes(c) || cats.includes(Math.floor(c / 1000) * 1000)),
        );
      return json(
        200,
        hits.map(({ r, i }) => {
          const indexerId = r.indexerId ?? 1;
          const proxied = (kind: string) =>
            `${base}/${indexerId}/download?apikey=${options.apiKey}&link=${Buffer.from(`https://tracker.invalid/${kind}/${i}`).toString("base64url")}&file=${encodeURIComponent(r.title)}&i=${i}&kind=${kind}`;
          const downloadUrl = r.torrent ? proxied("dl") : (r.foreignDownloadUrl ?? null);
          return {
            guid: `https://tracker.invalid/details/${i}`,
            title: r.title,
            size: r.size,
            indexer: r.indexer ?? `Indexer ${indexerId}`,
            indexerId,
            publishDate: "2024-05-01T00:00:00Z",
            downloadUrl,
            magnetUrl: r.magnetUrl ? proxied("magnet") : null,
            infoHash: r.infoHash ?? null,
            seeders: r.seeders ?? 10,
            leechers: 1,
            protocol: r.protocol ?? "torrent",
            categories: (r.categories ?? [7030]).map((id) => ({ id, name: id === 7030 ? "Books/Comics" : "Books" })),
          };
        }),
      );
    }
    if (url.pathname === "/api/v1/indexer") {
      if (apiKeyHeader !== options.apiKey) return json(401, { message: "Unauthorized" });
      const indexers = options.indexers ?? [
        { id: 1, name: "Nyaa", enable: true },
        { id: 2, name: "Old Tracker", enable: false },
      ];
      return json(
        200,
        indexers.map((i) => ({ ...i, protocol: "torrent", privacy: "public", priority: 25, supportsSearch: true })),
      );
    }
    const dl = /^\/(\d+)\/download$/.exec(url.pathname);
    if (dl) {
      if (url.searchParams.get("apikey") !== options.apiKey) return json(401, { message: "Unauthorized" });
      const r = releases[Number(url.searchParams.get("i"))];
      if (url.searchParams.get("kind") === "magnet" && r?.magnetUrl) {
        res.writeHead(301, { location: r.magnetUrl });
        return res.end();
      }
      if (!r?.torrent) return json(404, { message: "Not found" });
      res.writeHead(200, { "content-type": "application/x-bittorrent" });
      return res.end(r.torrent);
    }
    return json(404, { message: "Not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return {
    url: base,
    apiKey: options.apiKey,
    releases,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A plain server counting its requests: the "other origin" a download link must never reach. */
export async function startCountingServer(): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { "content-type": "application/x-bittorrent" });
    res.end("d4:infod4:name3:badee");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
