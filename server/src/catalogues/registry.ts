/**
 * The catalogue clients behind one interface. One PoliteHttp per catalogue lives as long as the
 * service, so the rate limit, the Retry-After hold and the answer cache hold across requests and
 * settings changes (a changed base URL only changes the cache keys).
 */
import type { CatalogueName } from "../domain/catalogue.ts";
import { ANILIST_DEFAULT_BASE_URL, ANILIST_MIN_INTERVAL_MS, AniListClient } from "./anilist.ts";
import type { CataloguesConfig } from "./config.ts";
import {
  MANGADEX_DEFAULT_BASE_URL,
  MANGADEX_DEFAULT_COVER_BASE_URL,
  MANGADEX_MIN_INTERVAL_MS,
  MangaDexClient,
} from "./mangadex.ts";
import { MANGAUPDATES_DEFAULT_BASE_URL, MANGAUPDATES_MIN_INTERVAL_MS, MangaUpdatesClient } from "./mangaupdates.ts";
import { PoliteHttp } from "./polite-http.ts";
import type { CatalogueClient } from "./types.ts";

export interface CatalogueConnection {
  enabled: boolean;
  baseUrl: string;
}

export interface CatalogueSettings {
  mangadex: CatalogueConnection & { coverBaseUrl: string };
  mangaupdates: CatalogueConnection;
  anilist: CatalogueConnection;
}

/** The public APIs, all enabled: a catalogue is asked only when the operator searches or links. */
export const DEFAULT_CATALOGUE_SETTINGS: CatalogueSettings = {
  mangadex: { enabled: true, baseUrl: MANGADEX_DEFAULT_BASE_URL, coverBaseUrl: MANGADEX_DEFAULT_COVER_BASE_URL },
  mangaupdates: { enabled: true, baseUrl: MANGAUPDATES_DEFAULT_BASE_URL },
  anilist: { enabled: true, baseUrl: ANILIST_DEFAULT_BASE_URL },
};

/** Shortest time between two requests to each catalogue (its polite rate limit). */
export const MIN_INTERVAL_MS: Record<CatalogueName, number> = {
  mangadex: MANGADEX_MIN_INTERVAL_MS,
  mangaupdates: MANGAUPDATES_MIN_INTERVAL_MS,
  anilist: ANILIST_MIN_INTERVAL_MS,
};

export function catalogueRegistry(config: CataloguesConfig) {
  const make = (name: string, c: CatalogueName) =>
    new PoliteHttp({ name, catalogue: c, minIntervalMs: MIN_INTERVAL_MS[c], retryBaseMs: config.retryBaseMs });
  const http: Record<CatalogueName, PoliteHttp> = {
    mangadex: make("MangaDex", "mangadex"),
    mangaupdates: make("MangaUpdates", "mangaupdates"),
    anilist: make("AniList", "anilist"),
  };
  return {
    http,
    client(name: CatalogueName, settings: CatalogueSettings): CatalogueClient {
      switch (name) {
        case "mangadex":
          return new MangaDexClient(http.mangadex, settings.mangadex.baseUrl, settings.mangadex.coverBaseUrl);
        case "mangaupdates":
          return new MangaUpdatesClient(http.mangaupdates, settings.mangaupdates.baseUrl);
        case "anilist":
          return new AniListClient(http.anilist, settings.anilist.baseUrl);
      }
    },
  };
}

export type CatalogueRegistry = ReturnType<typeof catalogueRegistry>;
