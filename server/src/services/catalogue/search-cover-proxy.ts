/**
 * The covers of catalogue search results, shown through the service (see catalogue-service's
 * searchCover). Keys are opaque (a hash of the catalogue and address), so the service fetches only
 * addresses a catalogue's own answer named; both tables are bounded, oldest first out.
 */
import { createHash } from "node:crypto";
import type { CatalogueName } from "../../domain/catalogue.ts";

/** Search results remembered (a few searches' worth of hits). */
const MAX_ISSUED = 2000;
/** Covers kept in memory (thumbnail-sized, a few tens of KiB each). */
const MAX_CACHED = 64;

export interface SearchCover {
  bytes: Buffer;
  contentType: string;
}

function bounded<V>(max: number) {
  const map = new Map<string, V>();
  return {
    get: (k: string) => map.get(k),
    set(k: string, v: V) {
      map.delete(k);
      map.set(k, v);
      while (map.size > max) map.delete(map.keys().next().value as string);
    },
  };
}

export function searchCoverProxy() {
  const issued = bounded<{ catalogue: CatalogueName; url: string }>(MAX_ISSUED);
  const cache = bounded<SearchCover>(MAX_CACHED);
  return {
    /** The service's address for a search result's cover. */
    issue(catalogue: CatalogueName, url: string): string {
      const key = createHash("sha256").update(`${catalogue}\n${url}`).digest("hex").slice(0, 32);
      issued.set(key, { catalogue, url });
      return `/api/catalogues/covers/${key}`;
    },
    lookup: (key: string) => issued.get(key),
    cached: (key: string) => cache.get(key),
    keep(key: string, cover: SearchCover): SearchCover {
      cache.set(key, cover);
      return cover;
    },
  };
}
