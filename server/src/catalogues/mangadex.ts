/**
 * MangaDex, API v5 (public, no authentication for reading).
 *
 * Shapes, from MangaDex's API documentation (api.mangadex.org/docs, the OpenAPI file behind
 * `/docs/swagger.html`) and its maintained client schemas (docs.rs `mangadex-api-schema-rust`,
 * `v5/manga_aggregate.rs`):
 * - `GET /manga?title=…&limit=…&includes[]=cover_art` → `{ result: "ok", response: "collection",
 *   data: [Manga], limit, offset, total }`.
 * - `GET /manga/{id}?includes[]=cover_art&includes[]=author&includes[]=artist` → `{ result: "ok",
 *   response: "entity", data: Manga }`; an unknown id is 404 `{ result: "error", errors: [ … ] }`.
 * - Manga: `{ id, type: "manga", attributes: { title: { <lang>: … }, altTitles: [ { <lang>: … } ],
 *   description: { <lang>: … }, originalLanguage, lastVolume, lastChapter (strings, "" or null
 *   when unknown), status: ongoing|completed|hiatus|cancelled, year, tags: [ { attributes: { name:
 *   { en }, group: genre|theme|format|content } } ] }, relationships: [ { id, type: cover_art|author|
 *   artist, attributes?: { fileName } | { name } } ] }` (attributes of a relationship only when
 *   asked for with `includes[]`).
 * - `GET /manga/{id}/aggregate?translatedLanguage[]=en` → `{ result: "ok", volumes: { "<vol>": {
 *   volume, count, chapters: { "<ch>": { chapter, id, others: [ … ], count } } } } }`; chapters
 *   without a volume are under the key "none"; an empty object is serialised as `[]` (PHP), so
 *   `volumes` and `chapters` may be arrays.
 * - Covers: `{uploads}/covers/{mangaId}/{fileName}`, with `.256.jpg` and `.512.jpg` thumbnails.
 * - Rate limit: about 5 requests per second per address; the client sends at most 4. A 429 names
 *   the end of its window in `X-RateLimit-Retry-After` (Unix seconds), not in Retry-After.
 */
import { CATALOGUE_STATUSES, type AggregateVolume, type CatalogueStatus } from "../domain/catalogue.ts";
import type { CacheMode, PoliteHttp } from "./polite-http.ts";
import { CatalogueError } from "./polite-http.ts";
import {
  asRecord,
  plainText,
  strings,
  wholeCount,
  yearOf,
  type CatalogueAggregate,
  type CatalogueClient,
  type CatalogueHit,
  type CatalogueWork,
  MAX_COVER_BYTES,
} from "./types.ts";

export const MANGADEX_DEFAULT_BASE_URL = "https://api.mangadex.org";
export const MANGADEX_DEFAULT_COVER_BASE_URL = "https://uploads.mangadex.org";
export const MANGADEX_MIN_INTERVAL_MS = 250;
const SEARCH_LIMIT = 10;

/** The title in English, else romanised Japanese, else the first one given. */
function pickTitle(title: Record<string, unknown>): string | null {
  for (const lang of ["en", "ja-ro", "ko-ro", "zh-ro"]) {
    const v = title[lang];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  const first = Object.values(title).find((v): v is string => typeof v === "string" && v.trim() !== "");
  return first?.trim() ?? null;
}

function status(v: unknown): CatalogueStatus | null {
  return typeof v === "string" && (CATALOGUE_STATUSES as readonly string[]).includes(v) ? (v as CatalogueStatus) : null;
}

/** Objects keyed by number, or the `[]` PHP writes for an empty one: the values either way. */
function valuesOf(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  return Object.values(asRecord(v));
}

/** The aggregate's volumes: each volume's own `volume` field (the key when absent) and its chapter keys. */
export function aggregateVolumes(raw: unknown): AggregateVolume[] {
  const volumes: AggregateVolume[] = [];
  const entries = Array.isArray(asRecord(raw).volumes)
    ? (asRecord(raw).volumes as unknown[]).map((v) => [null, v] as const)
    : Object.entries(asRecord(asRecord(raw).volumes));
  for (const [key, value] of entries) {
    const v = asRecord(value);
    const volume = typeof v.volume === "string" ? v.volume : key;
    if (volume === null) continue;
    const chapters = valuesOf(v.chapters)
      .map((c) => asRecord(c).chapter)
      .filter((c): c is string => typeof c === "string");
    volumes.push({ volume, chapters });
  }
  return volumes;
}

export class MangaDexClient implements CatalogueClient {
  readonly name = "mangadex" as const;

  constructor(
    private readonly http: PoliteHttp,
    private readonly baseUrl: string,
    private readonly coverBaseUrl: string,
  ) {}

  private url(path: string, params: [string, string][] = []): string {
    const u = new URL(`${this.baseUrl.replace(/\/+$/, "")}${path}`);
    for (const [k, v] of params) u.searchParams.append(k, v);
    return u.toString();
  }

  private coverUrl(mangaId: string, entity: Record<string, unknown>, size: "256" | "512"): string | null {
    const rel = valuesOf(entity.relationships)
      .map(asRecord)
      .find((r) => r.type === "cover_art");
    const fileName = asRecord(rel?.attributes).fileName;
    if (typeof fileName !== "string" || !/^[\w.-]+$/.test(fileName)) return null;
    const base = this.coverBaseUrl.replace(/\/+$/, "");
    return `${base}/covers/${encodeURIComponent(mangaId)}/${fileName}.${size}.jpg`;
  }

  private hit(raw: unknown, coverSize: "256" | "512"): CatalogueWork | null {
    const e = asRecord(raw);
    const id = e.id;
    if (typeof id !== "string") return null;
    const a = asRecord(e.attributes);
    const titles = asRecord(a.title);
    const alt = valuesOf(a.altTitles).flatMap((t) =>
      Object.values(asRecord(t)).filter((x): x is string => typeof x === "string"),
    );
    const title = pickTitle(titles) ?? alt[0] ?? id;
    const description = asRecord(a.description);
    const people = (type: string) =>
      valuesOf(e.relationships)
        .map(asRecord)
        .filter((r) => r.type === type)
        .map((r) => asRecord(r.attributes).name)
        .filter((n): n is string => typeof n === "string");
    const genres = valuesOf(a.tags)
      .map((t) => asRecord(asRecord(t).attributes))
      .filter((t) => t.group === "genre" || t.group === "theme")
      .map((t) => asRecord(t.name).en);
    return {
      catalogue: "mangadex",
      catalogueId: id,
      title,
      status: status(a.status),
      year: yearOf(a.year),
      coverUrl: this.coverUrl(id, e, coverSize),
      volumes: wholeCount(a.lastVolume),
      chapters: wholeCount(a.lastChapter),
      url: `https://mangadex.org/title/${id}`,
      description: plainText(description.en ?? Object.values(description)[0]),
      alternativeTitles: [...Object.values(titles).filter((x): x is string => typeof x === "string"), ...alt],
      authors: [...new Set([...people("author"), ...people("artist")])],
      genres: strings(genres),
      originalLanguage: typeof a.originalLanguage === "string" ? a.originalLanguage : null,
    };
  }

  async search(query: string): Promise<CatalogueHit[]> {
    const body = await this.http.json(
      this.url("/manga", [
        ["title", query],
        ["limit", String(SEARCH_LIMIT)],
        ["includes[]", "cover_art"],
        ["order[relevance]", "desc"],
      ]),
    );
    const data = asRecord(body).data;
    if (!Array.isArray(data))
      throw new CatalogueError(this.name, "failed", "MangaDex search: no data list in the answer");
    return data.map((m) => this.hit(m, "256")).filter((h): h is CatalogueWork => h !== null);
  }

  async work(id: string, cache?: CacheMode): Promise<CatalogueWork> {
    const body = await this.http.json(
      this.url(`/manga/${encodeURIComponent(id)}`, [
        ["includes[]", "cover_art"],
        ["includes[]", "author"],
        ["includes[]", "artist"],
      ]),
      { cache },
    );
    const work = this.hit(asRecord(body).data, "512");
    if (!work) throw new CatalogueError(this.name, "failed", `MangaDex manga ${id}: no manga in the answer`);
    return work;
  }

  async aggregate(id: string, language: string, cache?: CacheMode): Promise<CatalogueAggregate> {
    const lang = language.toLowerCase();
    const raw = await this.http.json(
      this.url(`/manga/${encodeURIComponent(id)}/aggregate`, [["translatedLanguage[]", lang]]),
      { cache },
    );
    if (asRecord(raw).result === "error")
      throw new CatalogueError(this.name, "failed", `MangaDex aggregate of ${id}: the answer is an error`);
    return { language: lang, volumes: aggregateVolumes(raw), raw };
  }

  cover(url: string) {
    return this.http.bytes(url, MAX_COVER_BYTES);
  }
}
