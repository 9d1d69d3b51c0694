/**
 * MangaUpdates (Baka-Updates), API v1 (public, no authentication for reading).
 *
 * Shapes, from the MangaUpdates API's OpenAPI description (api.mangaupdates.com/v1, models
 * `SeriesSearchRequestV1`, `SeriesSearchResponseV1`, `SeriesModelSearchV1`, `SeriesModelV1`) and
 * the clients that read it (Komf's `MangaUpdatesClient` and its series model):
 * - `POST /series/search` with `{ search, page, perpage }` → `{ total_hits, page, per_page, results:
 *   [ { record: { series_id, title, url, description, image: { url: { original, thumb } }, type,
 *   year, bayesian_rating, genres: [ { genre } ], latest_chapter }, hit_title, metadata } ] }`.
 * - `GET /series/{id}` → `{ series_id, title, url, associated: [ { title } ], description (HTML),
 *   image, type, year, genres, categories, latest_chapter, status, licensed, completed, authors:
 *   [ { name, author_id, type: Author|Artist } ], publishers, … }`; an unknown id is 404.
 * - `status` is free text written by the site's editors, e.g. "38 Volumes (Complete)",
 *   "12 Volumes (Ongoing)", "3 Volumes (Hiatus)", with more lines for extras or side stories:
 *   the book count is the number before "Volume(s)" on the first line; the status word is the one
 *   in parentheses on that line.
 * - Titles and names may carry HTML entities (`&amp;`).
 * - No published rate limit; the client sends at most one request a second.
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

export const MANGAUPDATES_DEFAULT_BASE_URL = "https://api.mangaupdates.com/v1";
export const MANGAUPDATES_MIN_INTERVAL_MS = 1000;
const SEARCH_LIMIT = 10;

const STATUS_WORDS: [RegExp, CatalogueStatus][] = [
  [/\(\s*ongoing\s*\)/i, "ongoing"],
  [/\(\s*complete(d)?\s*\)/i, "completed"],
  [/\(\s*hiatus\s*\)/i, "hiatus"],
  [/\(\s*(cancell?ed|discontinued|dropped)\s*\)/i, "cancelled"],
];

/** The book count and status word of MangaUpdates' free-text status (first line only). */
export function parseMangaUpdatesStatus(
  text: unknown,
  completed: unknown = null,
): { volumes: number | null; status: CatalogueStatus | null } {
  const first = typeof text === "string" ? (text.split(/\r?\n|<br\s*\/?>/i)[0] ?? "") : "";
  const m = /(\d+)\s+Volumes?\b/i.exec(first);
  const volumes = m ? wholeCount(m[1]) : null;
  let status: CatalogueStatus | null = null;
  for (const [re, word] of STATUS_WORDS) if (re.test(first)) status = word;
  if (status === null && completed === true) status = "completed";
  return { volumes, status };
}

export class MangaUpdatesClient implements CatalogueClient {
  readonly name = "mangaupdates" as const;

  constructor(
    private readonly http: PoliteHttp,
    private readonly baseUrl: string,
  ) {}

  private url(path: string): string {
    return `${this.baseUrl.replace(/\/+$/, "")}${path}`;
  }

  private base(raw: unknown): CatalogueHit | null {
    const r = asRecord(raw);
    const id = r.series_id;
    if (typeof id !== "number" && typeof id !== "string") return null;
    const image = asRecord(asRecord(r.image).url);
    const cover = typeof image.original === "string" ? image.original : null;
    const parsed = parseMangaUpdatesStatus(r.status, r.completed);
    return {
      catalogue: "mangaupdates",
      catalogueId: String(id),
      title: plainText(r.title) ?? String(id),
      status: parsed.status,
      year: yearOf(r.year),
      coverUrl: cover,
      volumes: parsed.volumes,
      chapters: wholeCount(r.latest_chapter),
      url: typeof r.url === "string" ? r.url : null,
    };
  }

  async search(query: string): Promise<CatalogueHit[]> {
    const body = await this.http.json(this.url("/series/search"), {
      method: "POST",
      body: { search: query, page: 1, perpage: SEARCH_LIMIT },
    });
    const results = asRecord(body).results;
    if (!Array.isArray(results))
      throw new CatalogueError(this.name, "failed", "MangaUpdates search: no results list in the answer");
    return results.map((r) => this.base(asRecord(r).record)).filter((h): h is CatalogueHit => h !== null);
  }

  async work(id: string, cache?: CacheMode): Promise<CatalogueWork> {
    const body = asRecord(await this.http.json(this.url(`/series/${encodeURIComponent(id)}`), { cache }));
    const hit = this.base(body);
    if (!hit) throw new CatalogueError(this.name, "failed", `MangaUpdates series ${id}: no series in the answer`);
    const authors = Array.isArray(body.authors) ? body.authors.map(asRecord) : [];
    return {
      ...hit,
      description: plainText(body.description),
      alternativeTitles: strings(body.associated, (a) => plainText(asRecord(a).title)),
      authors: [...new Set(strings(authors, (a) => plainText(asRecord(a).name)))],
      genres: strings(body.genres, (g) => plainText(asRecord(g).genre)),
      originalLanguage: null,
    };
  }

  cover(url: string) {
    return this.http.bytes(url, MAX_COVER_BYTES);
  }
}
