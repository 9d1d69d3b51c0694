/**
 * Stand-ins of the three public catalogues for tests: real node:http servers on 127.0.0.1 (free
 * port) answering in the real APIs' shapes. Where each shape comes from:
 *
 * - MangaDex API v5 — the OpenAPI document behind api.mangadex.org/docs/swagger.html (paths
 *   `/manga`, `/manga/{id}`, `/manga/{id}/aggregate`; the `{ result, response, data, limit, offset,
 *   total }` collection and `{ result, response: "entity", data }` entity envelopes; the
 *   `{ result: "error", errors: [{ id, status, title, detail }] }` error body) and the maintained
 *   client schemas on docs.rs (`mangadex-api-schema-rust`, `v5/manga_aggregate.rs`: volumes keyed
 *   by number with `{ volume, count, chapters: { "<n>": { chapter, id, others, count } } }`, the key
 *   "none" for chapters without a volume, and PHP's `[]` for an empty map). Covers live on the
 *   uploads host at `/covers/{mangaId}/{fileName}` with `.256.jpg`/`.512.jpg` thumbnails.
 * - MangaUpdates API v1 — its OpenAPI models `SeriesSearchRequestV1`, `SeriesSearchResponseV1`
 *   (`{ total_hits, page, per_page, results: [{ record, hit_title, metadata }] }`),
 *   `SeriesModelSearchV1` and `SeriesModelV1` (`series_id, title, url, associated, description,
 *   image: { url: { original, thumb } }, year, genres: [{ genre }], latest_chapter, status (free text
 *   such as "12 Volumes (Complete)"), completed, authors: [{ name, author_id, type }]`), as also read
 *   by Komf's MangaUpdates client.
 * - AniList GraphQL — a subset of its schema (graphql.anilist.co introspection: `Page`, `Media`,
 *   `MediaTitle`, `MediaStatus`, `MediaCoverImage`, `FuzzyDate`, `StaffConnection`) executed by
 *   graphql-js, so the client's query must be valid against it; an unknown id answers HTTP 404 with
 *   `{ errors: [{ message: "Not Found.", status: 404 }], data: { Media: null } }` as AniList does;
 *   answers carry `X-RateLimit-Limit`/`X-RateLimit-Remaining`; a 429 carries `Retry-After`.
 *
 * Each fake records every request with its arrival time (`requests`), can answer the next requests
 * with an error (`failNext({ status, times, retryAfter })`), and can refuse more than
 * `maxPerSecond` requests in any second with 429 (as the real catalogues do). A 429 asks for its
 * wait as that catalogue does: MangaDex with `X-RateLimit-Retry-After` (a Unix time), AniList and
 * MangaUpdates with `Retry-After` (seconds).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { buildSchema, graphql } from "graphql";
import { drawnPage } from "../../src/library/test-pages.ts";

export interface FakeCatalogueWork {
  id: string;
  title: string;
  altTitles?: string[];
  description?: string | null;
  status?: "ongoing" | "completed" | "hiatus" | "cancelled";
  year?: number | null;
  /** Books and chapters the catalogue states (null: not stated). */
  volumes?: number | null;
  chapters?: number | null;
  authors?: string[];
  genres?: string[];
  /** Cover bytes (a JPEG); null: no cover. */
  cover?: Buffer | null;
  /** MangaDex only: language → volume key → chapter keys (e.g. { en: { "1": ["1","2"], none: ["9"] } }). */
  aggregate?: Record<string, Record<string, string[]>>;
}

export interface FakeRequest {
  at: number;
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
  headers: http.IncomingHttpHeaders;
}

export interface FakeCatalogue {
  url: string;
  works: FakeCatalogueWork[];
  requests: FakeRequest[];
  /** The next `times` requests (matching `path` when given) answer `status`. */
  failNext(f: { status: number; times: number; retryAfter?: number; path?: RegExp }): void;
  /** Requests refused with 429 for going faster than `maxPerSecond`. */
  throttled: number;
  close(): Promise<void>;
}

export async function fakeCover(seed: number): Promise<Buffer> {
  return drawnPage(seed, { width: 120, height: 180 });
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> } | { status: number; bytes: Buffer };
type Handler = (r: FakeRequest, base: string) => Promise<Answer> | Answer;

/** A 429 as the catalogue words it, asking to wait `seconds` (when the test gives a wait). */
type TooMany = (seconds: number | undefined) => { body: unknown; headers: Record<string, string> };

/** An error body as the catalogue words it. */
type ErrorBody = (status: number, detail: string) => unknown;

const retryAfterHeader: TooMany = (seconds) =>
  ({
    body: { message: "Too Many Requests." },
    headers: seconds === undefined ? {} : { "retry-after": String(seconds) },
  }) as { body: unknown; headers: Record<string, string> };

async function startFake(
  works: FakeCatalogueWork[],
  options: { maxPerSecond?: number; headers?: () => Record<string, string>; tooMany?: TooMany; error: ErrorBody },
  handle: Handler,
): Promise<FakeCatalogue> {
  const tooMany = options.tooMany ?? retryAfterHeader;
  const requests: FakeRequest[] = [];
  const failures: { status: number; times: number; retryAfter?: number; path?: RegExp }[] = [];
  let base = "";
  const fake: FakeCatalogue = {
    url: "",
    works,
    requests,
    throttled: 0,
    failNext(f) {
      failures.push({ ...f });
    },
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const at = Date.now();
      const r: FakeRequest = {
        at,
        method: req.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        body: await readBody(req),
        headers: req.headers,
      };
      requests.push(r);
      const extra = options.headers?.() ?? {};
      const send = (a: Answer) => {
        if ("bytes" in a) {
          res.writeHead(a.status, { "content-type": "image/jpeg", "content-length": String(a.bytes.length) });
          res.end(a.bytes);
          return;
        }
        res.writeHead(a.status, { "content-type": "application/json", ...extra, ...a.headers });
        res.end(JSON.stringify(a.body));
      };
      if (options.maxPerSecond !== undefined) {
        const recent = requests.filter((x) => r.at - x.at < 1000).length;
        if (recent > options.maxPerSecond) {
          fake.throttled += 1;
          send({ status: 429, ...tooMany(1) });
          return;
        }
      }
      const failure = failures.find((f) => f.times > 0 && (!f.path || f.path.test(r.path)));
      if (failure) {
        failure.times -= 1;
        if (failure.status === 429) {
          send({ status: 429, ...tooMany(failure.retryAfter) });
          return;
        }
        const headers: Record<string, string> =
          failure.retryAfter === undefined ? {} : { "retry-after": String(failure.retryAfter) };
        send({ status: failure.status, body: options.error(failure.status, `failure ${failure.status}`), headers });
        return;
      }
      send(await handle(r, base));
    })().catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.url = base;
  fake.close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}

const matches = (w: FakeCatalogueWork, q: string) =>
  [w.title, ...(w.altTitles ?? [])].some((t) => t.toLowerCase().includes(q.toLowerCase().trim()));

// ---------------------------------------------------------------------------------------------
// MangaDex

/** A MangaDex-shaped UUID from a small number (stable in tests). */
export const mangadexId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

function mangadexEntity(w: FakeCatalogueWork, includes: string[]) {
  const coverFile = w.cover ? `${w.id.slice(-6)}-cover.jpg` : null;
  const relationships: unknown[] = [];
  if (coverFile)
    relationships.push({
      id: randomUUID(),
      type: "cover_art",
      ...(includes.includes("cover_art") ? { attributes: { fileName: coverFile, volume: "1", locale: "ja" } } : {}),
    });
  for (const name of w.authors ?? [])
    relationships.push({
      id: randomUUID(),
      type: "author",
      ...(includes.includes("author") ? { attributes: { name } } : {}),
    });
  return {
    id: w.id,
    type: "manga",
    attributes: {
      title: { en: w.title },
      altTitles: (w.altTitles ?? []).map((t) => ({ "ja-ro": t })),
      description: w.description ? { en: w.description } : {},
      isLocked: false,
      links: {},
      originalLanguage: "ja",
      lastVolume: w.volumes ? String(w.volumes) : "",
      lastChapter: w.chapters ? String(w.chapters) : "",
      publicationDemographic: "shounen",
      status: w.status ?? "ongoing",
      year: w.year ?? null,
      contentRating: "safe",
      tags: (w.genres ?? []).map((g) => ({
        id: randomUUID(),
        type: "tag",
        attributes: { name: { en: g }, description: {}, group: "genre", version: 1 },
        relationships: [],
      })),
      state: "published",
      chapterNumbersResetOnNewVolume: false,
      createdAt: "2020-01-01T00:00:00+00:00",
      updatedAt: "2024-01-01T00:00:00+00:00",
      version: 1,
      availableTranslatedLanguages: Object.keys(w.aggregate ?? {}),
      latestUploadedChapter: randomUUID(),
    },
    relationships,
  };
}

const mdError = (status: number, title: string, detail: string) => ({
  status,
  body: { result: "error", errors: [{ id: randomUUID(), status, title, detail, context: null }] },
});

/**
 * MangaDex's 429 (api.mangadex.org/docs "Limitations"; the maintained Rust client's `rate_limit.rs`
 * reads the same three headers): no Retry-After, but `X-RateLimit-Retry-After` with the Unix time
 * (seconds) the window ends, beside `X-RateLimit-Limit` and `X-RateLimit-Remaining: 0`, and the
 * error envelope as body.
 */
const mangadexTooMany: TooMany = (seconds) => ({
  body: mdError(429, "Too Many Requests", "You have been rate limited").body,
  headers: {
    "x-ratelimit-limit": "5",
    "x-ratelimit-remaining": "0",
    ...(seconds === undefined ? {} : { "x-ratelimit-retry-after": String(Math.ceil(Date.now() / 1000 + seconds)) }),
  },
});

export function startFakeMangaDex(works: FakeCatalogueWork[], options: { maxPerSecond?: number } = {}) {
  const error: ErrorBody = (status, detail) => mdError(status, "Error", detail).body;
  return startFake(works, { maxPerSecond: options.maxPerSecond ?? 5, tooMany: mangadexTooMany, error }, (r) => {
    const includes = r.query.getAll("includes[]");
    if (r.method === "GET" && r.path === "/manga") {
      const q = r.query.get("title") ?? "";
      const limit = Number(r.query.get("limit") ?? "10");
      const hits = works.filter((w) => matches(w, q));
      return {
        status: 200,
        body: {
          result: "ok",
          response: "collection",
          data: hits.slice(0, limit).map((w) => mangadexEntity(w, includes)),
          limit,
          offset: 0,
          total: hits.length,
        },
      };
    }
    const manga = /^\/manga\/([^/]+)$/.exec(r.path);
    if (r.method === "GET" && manga) {
      const w = works.find((x) => x.id === manga[1]);
      if (!w) return mdError(404, "Not found", `Manga with id ${manga[1]} was not found`);
      return { status: 200, body: { result: "ok", response: "entity", data: mangadexEntity(w, includes) } };
    }
    const agg = /^\/manga\/([^/]+)\/aggregate$/.exec(r.path);
    if (r.method === "GET" && agg) {
      const w = works.find((x) => x.id === agg[1]);
      if (!w) return mdError(404, "Not found", `Manga with id ${agg[1]} was not found`);
      const langs = r.query.getAll("translatedLanguage[]");
      const volumes: Record<string, unknown> = {};
      for (const lang of langs.length ? langs : Object.keys(w.aggregate ?? {}))
        for (const [volume, chapters] of Object.entries(w.aggregate?.[lang] ?? {})) {
          const v = (volumes[volume] ??= { volume, count: 0, chapters: {} as Record<string, unknown> }) as {
            count: number;
            chapters: Record<string, unknown>;
          };
          for (const chapter of chapters) {
            v.chapters[chapter] = { chapter, id: randomUUID(), others: [], count: 1 };
            v.count += 1;
          }
        }
      // PHP serialises an empty map as a list: MangaDex answers `"volumes": []` for no chapters.
      return { status: 200, body: { result: "ok", volumes: Object.keys(volumes).length ? volumes : [] } };
    }
    const cover = /^\/covers\/([^/]+)\/([^/]+)\.(256|512)\.jpg$/.exec(r.path);
    if (r.method === "GET" && cover) {
      const w = works.find((x) => x.id === cover[1]);
      if (!w?.cover) return { status: 404, body: { message: "no cover" } };
      return { status: 200, bytes: w.cover };
    }
    return mdError(404, "Not found", `no route ${r.method} ${r.path}`);
  });
}

// ---------------------------------------------------------------------------------------------
// MangaUpdates (base URL: `${url}/v1`)

const MU_STATUS: Record<NonNullable<FakeCatalogueWork["status"]>, string> = {
  ongoing: "Ongoing",
  completed: "Complete",
  hiatus: "Hiatus",
  cancelled: "Cancelled",
};

function muRecord(w: FakeCatalogueWork, base: string) {
  return {
    series_id: Number(w.id),
    title: w.title.replace(/&/g, "&amp;"),
    url: `https://www.mangaupdates.com/series/${Number(w.id).toString(36)}/${w.title.toLowerCase().replace(/\W+/g, "-")}`,
    description: w.description ? `${w.description.replace(/\n/g, "<BR>")}` : null,
    image: w.cover
      ? {
          url: { original: `${base}/image/i${w.id}.jpg`, thumb: `${base}/image/thumb/i${w.id}.jpg` },
          height: 180,
          width: 120,
        }
      : { url: { original: null, thumb: null }, height: null, width: null },
    type: "Manga",
    year: w.year ? String(w.year) : "",
    bayesian_rating: 7.5,
    rating_votes: 100,
    genres: (w.genres ?? []).map((genre) => ({ genre })),
    latest_chapter: w.chapters ?? 0,
    rank: { position: {}, old_position: {}, lists: {} },
    last_updated: {
      timestamp: 1700000000,
      as_rfc3339: "2023-11-14T22:13:20+00:00",
      as_string: "November 14th, 2023 10:13pm UTC",
    },
  };
}

export function startFakeMangaUpdates(works: FakeCatalogueWork[], options: { maxPerSecond?: number } = {}) {
  // MangaUpdates' error body, as its 404 below: `{ status: "exception", reason }`.
  const error: ErrorBody = (_status, reason) => ({ status: "exception", reason });
  return startFake(works, { maxPerSecond: options.maxPerSecond, error }, (r, base) => {
    if (r.method === "POST" && r.path === "/v1/series/search") {
      const body = JSON.parse(r.body || "{}") as { search?: string; perpage?: number; page?: number };
      const hits = works.filter((w) => matches(w, body.search ?? ""));
      const perPage = body.perpage ?? 25;
      return {
        status: 200,
        body: {
          total_hits: hits.length,
          page: body.page ?? 1,
          per_page: perPage,
          results: hits.slice(0, perPage).map((w) => ({
            record: muRecord(w, base),
            hit_title: w.title,
            metadata: { user_list: {}, user_genre_highlights: [] },
          })),
        },
      };
    }
    const series = /^\/v1\/series\/(\d+)$/.exec(r.path);
    if (r.method === "GET" && series) {
      const w = works.find((x) => x.id === series[1]);
      if (!w) return { status: 404, body: { status: "exception", reason: "The requested series does not exist" } };
      const status =
        w.volumes || w.status
          ? `${w.volumes ?? "?"} Volumes (${MU_STATUS[w.status ?? "ongoing"]})\n1 Extra (Complete)`
          : null;
      return {
        status: 200,
        body: {
          ...muRecord(w, base),
          associated: (w.altTitles ?? []).map((title) => ({ title })),
          categories: [],
          forum_id: 1,
          status,
          licensed: false,
          completed: w.status === "completed",
          anime: { start: null, end: null },
          related_series: [],
          authors: (w.authors ?? []).map((name, i) => ({
            name,
            author_id: 100 + i,
            type: i === 0 ? "Author" : "Artist",
          })),
          publishers: [],
          publications: [],
          recommendations: [],
          category_recommendations: [],
        },
      };
    }
    const image = /^\/image\/(?:thumb\/)?i(\d+)\.jpg$/.exec(r.path);
    if (r.method === "GET" && image) {
      const w = works.find((x) => x.id === image[1]);
      if (!w?.cover) return { status: 404, body: { status: "exception", reason: "no image" } };
      return { status: 200, bytes: w.cover };
    }
    return { status: 404, body: { status: "exception", reason: `no route ${r.method} ${r.path}` } };
  });
}

// ---------------------------------------------------------------------------------------------
// AniList (base URL: the fake's root, `POST /`)

const ANILIST_SDL = `
  type Query {
    Page(page: Int, perPage: Int): Page
    Media(id: Int, type: MediaType, search: String): Media
  }
  type Page { pageInfo: PageInfo, media(search: String, type: MediaType, id: Int): [Media] }
  type PageInfo { total: Int, perPage: Int, currentPage: Int, hasNextPage: Boolean }
  enum MediaType { ANIME MANGA }
  enum MediaStatus { FINISHED RELEASING NOT_YET_RELEASED CANCELLED HIATUS }
  type MediaTitle { romaji: String, english: String, native: String, userPreferred: String }
  type MediaCoverImage { extraLarge: String, large: String, medium: String, color: String }
  type FuzzyDate { year: Int, month: Int, day: Int }
  type StaffName { full: String, native: String }
  type Staff { id: Int!, name: StaffName }
  type StaffEdge { role: String, node: Staff }
  type StaffConnection { edges: [StaffEdge] }
  type Media {
    id: Int!
    siteUrl: String
    type: MediaType
    title: MediaTitle
    status: MediaStatus
    description(asHtml: Boolean): String
    volumes: Int
    chapters: Int
    coverImage: MediaCoverImage
    startDate: FuzzyDate
    genres: [String]
    synonyms: [String]
    countryOfOrigin: String
    staff(perPage: Int, page: Int): StaffConnection
  }
`;

const AL_STATUS: Record<NonNullable<FakeCatalogueWork["status"]>, string> = {
  ongoing: "RELEASING",
  completed: "FINISHED",
  hiatus: "HIATUS",
  cancelled: "CANCELLED",
};

export function startFakeAniList(works: FakeCatalogueWork[], options: { maxPerSecond?: number } = {}) {
  const schema = buildSchema(ANILIST_SDL);
  let remaining = 30;
  const media = (w: FakeCatalogueWork, base: string) => ({
    id: Number(w.id),
    siteUrl: `https://anilist.co/manga/${w.id}`,
    type: "MANGA",
    title: { romaji: w.altTitles?.[0] ?? w.title, english: w.title, native: null, userPreferred: w.title },
    status: AL_STATUS[w.status ?? "ongoing"],
    description: () => (w.description ? `${w.description.replace(/\n/g, "<br>")}` : null),
    volumes: w.volumes ?? null,
    chapters: w.chapters ?? null,
    coverImage: w.cover
      ? {
          extraLarge: `${base}/file/anilistcdn/media/manga/cover/large/bx${w.id}.jpg`,
          large: null,
          medium: null,
          color: null,
        }
      : { extraLarge: null, large: null, medium: null, color: null },
    startDate: { year: w.year ?? null, month: null, day: null },
    genres: w.genres ?? [],
    synonyms: w.altTitles ?? [],
    countryOfOrigin: "JP",
    staff: {
      edges: (w.authors ?? []).map((name, i) => ({
        role: i === 0 ? "Story & Art" : "Art",
        node: { id: i + 1, name: { full: name, native: null } },
      })),
    },
  });
  return startFake(
    works,
    {
      maxPerSecond: options.maxPerSecond,
      error: (status, message) => ({ errors: [{ message, status }], data: null }),
      headers: () => ({ "x-ratelimit-limit": "30", "x-ratelimit-remaining": String(Math.max(0, --remaining)) }),
      // AniList's 429 (docs.anilist.co "Rate Limiting"): Retry-After in seconds, X-RateLimit-Reset
      // as the Unix time the limit resets, and a GraphQL error body.
      tooMany: (seconds) => ({
        body: { errors: [{ message: "Too Many Requests.", status: 429 }], data: null },
        headers: {
          "x-ratelimit-remaining": "0",
          ...(seconds === undefined
            ? {}
            : {
                "retry-after": String(seconds),
                "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000 + seconds)),
              }),
        },
      }),
    },
    async (r, base) => {
      const cover = /^\/file\/anilistcdn\/media\/manga\/cover\/large\/bx(\d+)\.jpg$/.exec(r.path);
      if (r.method === "GET" && cover) {
        const w = works.find((x) => x.id === cover[1]);
        if (!w?.cover) return { status: 404, body: { message: "not found" } };
        return { status: 200, bytes: w.cover };
      }
      if (r.method !== "POST" || r.path !== "/")
        return { status: 404, body: { errors: [{ message: "Not Found.", status: 404 }], data: null } };
      const body = JSON.parse(r.body || "{}") as { query?: string; variables?: Record<string, unknown> };
      let missing = false;
      const result = await graphql({
        schema,
        source: body.query ?? "",
        variableValues: body.variables,
        rootValue: {
          Page: () => ({
            pageInfo: { total: works.length, perPage: 10, currentPage: 1, hasNextPage: false },
            media: (args: { search?: string }) =>
              works.filter((w) => matches(w, args.search ?? "")).map((w) => media(w, base)),
          }),
          Media: (args: { id?: number }) => {
            const w = works.find((x) => Number(x.id) === args.id);
            if (!w) missing = true;
            return w ? media(w, base) : null;
          },
        },
      });
      if (result.errors?.length) return { status: 400, body: { errors: result.errors, data: null } };
      if (missing)
        return {
          status: 404,
          body: {
            errors: [{ message: "Not Found.", status: 404, locations: [{ line: 1, column: 30 }] }],
            data: { Media: null },
          },
        };
      return { status: 200, body: result };
    },
  );
}
