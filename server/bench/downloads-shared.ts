/** The page server and provider the downloads benchmark and its child share. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readIntoPooled, type PooledBytes } from "../src/providers/page-buffers.ts";
import { ProviderError, type SourceProvider } from "../src/providers/provider.ts";

export const PAGES = Number(process.env.BENCH_DL_PAGES) > 0 ? Number(process.env.BENCH_DL_PAGES) : 24;

export function pageServer(pages: readonly Buffer[]): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const m = /^\/page\/(\d+)$/.exec(req.url ?? "");
    const page = m ? pages[Number(m[1]) % pages.length] : undefined;
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "image/jpeg", "content-length": page.length }).end(page);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

/** A page read as the Suwayomi client reads one: into a reused buffer, given back once written. */
export async function getPage(url: string, signal?: AbortSignal): Promise<PooledBytes> {
  const res = await fetch(url, { signal });
  if (!res.ok || !res.body) throw new ProviderError(`HTTP ${res.status}`, res.status >= 500);
  return readIntoPooled(res.body as unknown as AsyncIterable<Uint8Array>, {
    max: 64 * 1024 * 1024,
    declared: Number(res.headers.get("content-length") ?? "NaN"),
    tooLarge: () => new ProviderError("page too large", false),
  });
}

/** A provider whose chapter c serves pages c*PAGES … from the page server. */
export function benchProvider(base: string): SourceProvider {
  return {
    kind: "drop_folder",
    name: "bench",
    search: async () => [],
    listChapters: async () => [],
    async pages(_sourceId, externalId) {
      const c = Number(externalId);
      return {
        count: PAGES,
        fetch: async (i, signal) => ({
          index: i,
          ...(await getPage(`${base}/page/${c * PAGES + i - 1}`, signal)),
          contentType: "image/jpeg",
        }),
      };
    },
  };
}
