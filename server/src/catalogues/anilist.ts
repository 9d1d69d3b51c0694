/**
 * AniList, GraphQL API v2 (public, no authentication for reading): `POST {base}` with
 * `{ query, variables }`.
 *
 * Shapes, from AniList's GraphQL schema (introspection of graphql.anilist.co; docs.anilist.co
 * "Media" and "Rate Limiting") and Komf's `AniListClient`:
 * - `Page(page, perPage) { media(search: String, type: MANGA) { … } }` → `{ data: { Page: { media:
 *   [Media] } } }`; `Media(id: Int, type: MANGA)` → `{ data: { Media } }`, an unknown id answers
 *   HTTP 404 with `{ errors: [ { message: "Not Found.", status: 404 } ], data: { Media: null } }`.
 * - Media: `id, siteUrl, title { romaji english native }, status (FINISHED | RELEASING |
 *   NOT_YET_RELEASED | CANCELLED | HIATUS), description, volumes, chapters (Int, null while
 *   releasing), coverImage { extraLarge large }, startDate { year }, genres, synonyms, staff { edges
 *   { role node { name { full } } } }, countryOfOrigin`.
 * - Rate limit: documented as 90 requests a minute, served as 30 while the API is "degraded"
 *   (`X-RateLimit-Limit: 30`); over it, 429 with `Retry-After`. The client sends one every 2 s.
 */
import type { CatalogueStatus } from "../domain/catalogue.ts";
import type { CacheMode, PoliteHttp } from "./polite-http.ts";
import { CatalogueError } from "./polite-http.ts";
import {
  asRecord,
  plainText,
  strings,
  wholeCount,
  yearOf,
  type CatalogueClient,
  type CatalogueHit,
  type CatalogueWork,
  MAX_COVER_BYTES,
} from "./types.ts";

export const ANILIST_DEFAULT_BASE_URL = "https://graphql.anilist.co";
export const ANILIST_MIN_INTERVAL_MS = 2000;
const SEARCH_LIMIT = 10;

const MEDIA_FIELDS = `
  id
  siteUrl
  title { romaji english native }
  status
  description(asHtml: false)
  volumes
  chapters
  coverImage { extraLarge large }
  startDate { year }
  genres
  synonyms
  countryOfOrigin
  staff(perPage: 10) { edges { role node { name { full } } } }
`;

export const ANILIST_SEARCH_QUERY = `query Search($search: String, $perPage: Int) {
  Page(page: 1, perPage: $perPage) { media(search: $search, type: MANGA) { ${MEDIA_FIELDS} } }
}`;
export const ANILIST_MEDIA_QUERY = `query Work($id: Int) { Media(id: $id, type: MANGA) { ${MEDIA_FIELDS} } }`;

const STATUS: Record<string, CatalogueStatus> = {
  RELEASING: "ongoing",
  FINISHED: "completed",
  HIATUS: "hiatus",
  CANCELLED: "cancelled",
  NOT_YET_RELEASED: "upcoming",
};

const COUNTRY_LANGUAGE: Record<string, string> = { JP: "ja", KR: "ko", CN: "zh", TW: "zh" };

export class AniListClient implements CatalogueClient {
  readonly name = "anilist" as const;

  constructor(
    private readonly http: PoliteHttp,
    private readonly baseUrl: string,
  ) {}

  private async query(query: string, variables: Record<string, unknown>, cache?: CacheMode) {
    const body = asRecord(await this.http.json(this.baseUrl, { method: "POST", body: { query, variables }, cache }));
    const errors = Array.isArray(body.errors) ? body.errors.map(asRecord) : [];
    if (errors.length > 0 && (body.data === null || body.data === undefined))
      throw new CatalogueError(this.name, "failed", `AniList: ${String(errors[0]?.message ?? "error")}`);
    return asRecord(body.data);
  }

  private work_(raw: unknown): CatalogueWork | null {
    const m = asRecord(raw);
    if (typeof m.id !== "number") return null;
    const t = asRecord(m.title);
    const title = [t.english, t.romaji, t.native].find((x): x is string => typeof x === "string" && x.trim() !== "");
    const cover = asRecord(m.coverImage);
    const edges = Array.isArray(asRecord(m.staff).edges) ? (asRecord(m.staff).edges as unknown[]) : [];
    const authors = edges
      .map(asRecord)
      .filter((e) => typeof e.role === "string" && /story|art|original creator/i.test(e.role))
      .map((e) => asRecord(asRecord(e.node).name).full);
    return {
      catalogue: "anilist",
      catalogueId: String(m.id),
      title: title?.trim() ?? String(m.id),
      status: typeof m.status === "string" ? (STATUS[m.status] ?? null) : null,
      year: yearOf(asRecord(m.startDate).year),
      coverUrl: [cover.extraLarge, cover.large].find((x): x is string => typeof x === "string") ?? null,
      volumes: wholeCount(m.volumes),
      chapters: wholeCount(m.chapters),
      url: typeof m.siteUrl === "string" ? m.siteUrl : `https://anilist.co/manga/${m.id}`,
      description: plainText(m.description),
      alternativeTitles: [...strings([t.romaji, t.english, t.native]), ...strings(m.synonyms)],
      authors: [...new Set(strings(authors))],
      genres: strings(m.genres),
      originalLanguage: typeof m.countryOfOrigin === "string" ? (COUNTRY_LANGUAGE[m.countryOfOrigin] ?? null) : null,
    };
  }

  async search(query: string): Promise<CatalogueHit[]> {
    const data = await this.query(ANILIST_SEARCH_QUERY, { search: query, perPage: SEARCH_LIMIT });
    const media = asRecord(data.Page).media;
    if (!Array.isArray(media))
      throw new CatalogueError(this.name, "failed", "AniList search: no media list in the answer");
    return media.map((m) => this.work_(m)).filter((w): w is CatalogueWork => w !== null);
  }

  async work(id: string, cache?: CacheMode): Promise<CatalogueWork> {
    const data = await this.query(ANILIST_MEDIA_QUERY, { id: Number(id) }, cache);
    const work = this.work_(data.Media);
    if (!work) throw new CatalogueError(this.name, "not_found", `AniList media ${id}: the catalogue has no such entry`);
    return work;
  }

  cover(url: string) {
    return this.http.bytes(url, MAX_COVER_BYTES);
  }
}
