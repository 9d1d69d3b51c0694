/**
 * Public catalogues end to end, from an empty service through the public API only, against fakes of
 * MangaDex, MangaUpdates and AniList on 127.0.0.1 (fakes/catalogue-servers.ts): search, link,
 * refresh, unlink, create-linked, remove a linked series (its cover goes unless another link names
 * it); the MangaDex aggregate as a suggestion (a chapter under two volumes in neither, `none` in no
 * book); counts that only the operator accepts; an operator map that survives every refresh;
 * failures (500, 429, unreachable) that change nothing; REST and GraphQL agreeing; the polite rate
 * limit measured on the fakes.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fakeCover,
  mangadexId,
  startFakeAniList,
  startFakeMangaDex,
  startFakeMangaUpdates,
  type FakeCatalogue,
  type FakeCatalogueWork,
} from "./fakes/catalogue-servers.ts";
import { expectJson, expectProblem, type RestMap, type RestUnits } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

interface Hit {
  catalogue: string;
  catalogue_id: string;
  title: string;
  status: string | null;
  year: number | null;
  cover_url: string | null;
  cover_preview_url: string | null;
  volumes: number | null;
  chapters: number | null;
}
interface Agreement {
  value: number | string | null;
  grade: string | null;
  values: { catalogue: string; value: number | string }[];
}
interface CatalogueView {
  series_id: number;
  links: {
    catalogue: string;
    catalogue_id: string;
    status: string | null;
    volumes: number | null;
    has_cover: boolean;
  }[];
  metadata: {
    description: string | null;
    alternative_titles: string[];
    authors: string[];
    genres: string[];
    cover_url: string | null;
    cover_from: string | null;
  };
  catalogue_counts: {
    catalogues: { catalogue: string; status: string | null; volumes: number | null; chapters: number | null }[];
    volumes: Agreement;
    chapters: Agreement;
    status: Agreement;
  };
  offers: { field: string; value: number | string; grade: string; catalogues: string[]; text: string }[];
  suggestion: {
    source: string;
    books: number;
    conflicts: { chapter: string; volumes: string[] }[];
    no_book: string[];
  } | null;
}
interface SeriesFull {
  id: number;
  title: string;
  status: string;
  known_book_count: number | null;
  form: string;
}

const TIDE_MD = mangadexId(1);
let md: FakeCatalogue, mu: FakeCatalogue, al: FakeCatalogue;
let tide: { md: FakeCatalogueWork; mu: FakeCatalogueWork; al: FakeCatalogueWork };

beforeAll(async () => {
  const cover = await fakeCover(7);
  tide = {
    md: {
      id: TIDE_MD,
      title: "Tide Atlas",
      altTitles: ["Shio no Chizu"],
      description: "A cartographer maps the **tides**.",
      status: "completed",
      year: 2019,
      volumes: 3,
      chapters: 24,
      authors: ["Aoi Mori"],
      genres: ["Adventure", "Drama"],
      cover,
      aggregate: {
        en: { "1": ["1", "2", "3", "4"], "2": ["5", "6", "7", "8"], "3": ["8", "9", "10", "11"], none: ["12", "13"] },
        fr: { "1": ["1", "2"] },
      },
    },
    mu: {
      id: "54321",
      title: "Tide Atlas",
      altTitles: ["潮の地図"],
      description: "Maps &amp; tides.<BR>Second line.",
      status: "completed",
      year: 2019,
      volumes: 3,
      chapters: 24,
      authors: ["MORI Aoi"],
      genres: ["Adventure", "Seinen"],
      cover: await fakeCover(8),
    },
    al: {
      id: "101",
      title: "Tide Atlas",
      status: "completed",
      year: 2019,
      volumes: 3,
      chapters: 24,
      authors: ["Aoi Mori"],
      genres: ["Adventure"],
      cover: await fakeCover(9),
    },
  };
  md = await startFakeMangaDex([
    tide.md,
    { id: mangadexId(2), title: "Tide Pool Diaries", status: "ongoing", cover: null, aggregate: {} },
    {
      id: mangadexId(3),
      title: "Harbor Lights",
      status: "ongoing",
      volumes: null,
      cover: await fakeCover(3),
      aggregate: { en: { "1": ["1", "2"], none: ["3"] } },
    },
  ]);
  mu = await startFakeMangaUpdates([tide.mu, { id: "777", title: "Harbor Lights", status: "ongoing", volumes: 2 }]);
  al = await startFakeAniList([tide.al, { id: "202", title: "Harbor Lights", status: "ongoing", volumes: null }]);
});

afterAll(async () => {
  await Promise.all([md?.close(), mu?.close(), al?.close()]);
});

async function emptyService(): Promise<TestApp> {
  const app = await createTestApp({ env: { CATALOGUE_RETRY_BASE_MS: "100" } });
  await expectJson(
    await app.api("/api/settings/catalogues", {
      method: "PUT",
      json: {
        mangadex: { base_url: md.url, cover_base_url: md.url },
        mangaupdates: { base_url: `${mu.url}/v1` },
        anilist: { base_url: al.url },
      },
    }),
    200,
  );
  return app;
}

const view = async (app: TestApp, id: number) =>
  expectJson<CatalogueView>(await app.api(`/api/manga/${id}/catalogue`), 200);
const chapterMap = async (app: TestApp, id: number) =>
  expectJson<RestMap & { suggestions: { source: string; entries: { volume: string; chapters: string[] }[] }[] }>(
    await app.api(`/api/manga/${id}/chapter-map`),
    200,
  );
const units = async (app: TestApp, id: number) => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);

async function createSeries(app: TestApp, title: string): Promise<SeriesFull> {
  return expectJson<SeriesFull>(await app.api("/api/manga", { method: "POST", json: { title } }), 201);
}

async function link(app: TestApp, id: number, catalogue: string, catalogueId: string): Promise<CatalogueView> {
  return expectJson<CatalogueView>(
    await app.api(`/api/manga/${id}/catalogue-links`, {
      method: "POST",
      json: { catalogue, catalogue_id: catalogueId },
    }),
    201,
  );
}

describe("catalogue settings", () => {
  let app: TestApp;
  beforeAll(async () => (app = await createTestApp()));
  afterAll(() => app.dispose());

  it("default to the public APIs, all enabled; a bad URL is refused and changes nothing", async () => {
    const defaults = {
      mangadex: { enabled: true, base_url: "https://api.mangadex.org", cover_base_url: "https://uploads.mangadex.org" },
      mangaupdates: { enabled: true, base_url: "https://api.mangaupdates.com/v1" },
      anilist: { enabled: true, base_url: "https://graphql.anilist.co" },
    };
    expect(await expectJson(await app.api("/api/settings/catalogues"), 200)).toEqual(defaults);
    await expectProblem(
      await app.api("/api/settings/catalogues", { method: "PUT", json: { anilist: { base_url: "ftp://x" } } }),
      400,
      "invalid_field",
    );
    await expectProblem(
      await app.api("/api/settings/catalogues", { method: "PUT", json: { comicvine: { enabled: true } } }),
      400,
      "invalid_field",
    );
    expect(await expectJson(await app.api("/api/settings/catalogues"), 200)).toEqual(defaults);
    const changed = await expectJson<typeof defaults>(
      await app.api("/api/settings/catalogues", {
        method: "PUT",
        json: { anilist: { enabled: false }, mangadex: { base_url: "http://127.0.0.1:9/api/" } },
      }),
      200,
    );
    expect(changed.anilist.enabled).toBe(false);
    expect(changed.mangadex.base_url).toBe("http://127.0.0.1:9/api");
    const g = await app.gql<{ catalogueSettings: { anilist: { enabled: boolean }; mangadex: { baseUrl: string } } }>(
      "{ catalogueSettings { anilist { enabled } mangadex { baseUrl coverBaseUrl } } }",
    );
    expect(g.data?.catalogueSettings.mangadex.baseUrl).toBe("http://127.0.0.1:9/api");
    // Back to the public API with an empty base URL.
    const reset = await expectJson<typeof defaults>(
      await app.api("/api/settings/catalogues", { method: "PUT", json: { mangadex: { base_url: "" } } }),
      200,
    );
    expect(reset.mangadex.base_url).toBe("https://api.mangadex.org");
  });
});

describe("search, link, refresh, accept, unlink (one series from an empty service)", () => {
  let app: TestApp;
  let id: number;
  beforeAll(async () => {
    app = await emptyService();
    id = (await createSeries(app, "Tide Atlas")).id;
  });
  afterAll(() => app.dispose());

  it("searches every enabled catalogue; only the search text leaves the service", async () => {
    const seen = [md, mu, al].map((f) => f.requests.length);
    const body = await expectJson<{ results: Hit[]; errors: unknown[] }>(
      await app.api("/api/catalogues/search?q=tide%20atlas"),
      200,
    );
    expect(body.errors).toEqual([]);
    const tideHits = body.results.filter((h) => h.title === "Tide Atlas");
    expect(tideHits.map((h) => [h.catalogue, h.catalogue_id])).toEqual([
      ["mangadex", TIDE_MD],
      ["mangaupdates", "54321"],
      ["anilist", "101"],
    ]);
    expect(tideHits[0]).toMatchObject({ status: "completed", year: 2019, volumes: 3, chapters: 24 });
    expect(tideHits[0]?.cover_url).toBe(`${md.url}/covers/${TIDE_MD}/${TIDE_MD.slice(-6)}-cover.jpg.256.jpg`);
    expect(tideHits[2]).toMatchObject({ status: "completed", volumes: 3 });

    const sent = [md, mu, al].flatMap((f, i) => f.requests.slice(seen[i]));
    expect(sent).toHaveLength(3);
    // The User-Agent names the product's version, as the About states it.
    const { version } = await expectJson<{ version: string }>(await app.api("/api/system/status"), 200);
    for (const r of sent) {
      expect(r.headers["x-api-key"]).toBeUndefined();
      expect(r.headers.cookie).toBeUndefined();
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers.referer).toBeUndefined();
      expect(r.headers["user-agent"]).toMatch(/^manga-library\//);
      expect(r.headers["user-agent"]).toBe(`manga-library/${version} (self-hosted library service)`);
    }
    const [mdReq, muReq, alReq] = sent;
    expect(mdReq?.query.get("title")).toBe("tide atlas");
    expect(JSON.parse(muReq?.body ?? "{}")).toEqual({ search: "tide atlas", page: 1, perpage: 10 });
    expect((JSON.parse(alReq?.body ?? "{}") as { variables: unknown }).variables).toEqual({
      search: "tide atlas",
      perPage: 10,
    });
    await expectProblem(await app.api("/api/catalogues/search?q=%20"), 400, "invalid_field");
    await expectProblem(await app.api("/api/catalogues/search?q=x&catalogue=comicvine"), 400, "invalid_field");
  });

  it("shows a search result's cover through the service, and only addresses a search answered with", async () => {
    const body = await expectJson<{ results: Hit[] }>(await app.api("/api/catalogues/search?q=tide%20atlas"), 200);
    const hit = body.results.find((h) => h.catalogue === "mangadex" && h.title === "Tide Atlas")!;
    expect(hit.cover_preview_url).toMatch(/^\/api\/catalogues\/covers\/[0-9a-f]{32}$/);
    const before = md.requests.length;
    const res = await app.api(hit.cover_preview_url!);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    // Fetched once from the catalogue, then kept.
    expect((await app.api(hit.cover_preview_url!)).status).toBe(200);
    expect(md.requests.slice(before).map((r) => r.path)).toEqual([new URL(hit.cover_url!).pathname]);
    await expectProblem(await app.api(`/api/catalogues/covers/${"0".repeat(32)}`), 404, "cover_not_found");
    const gql = await app.gql<{
      catalogueSearch: { results: { catalogueId: string; coverPreviewUrl: string | null }[] };
    }>('query { catalogueSearch(query: "tide atlas") { results { catalogueId coverPreviewUrl } } }');
    expect(gql.data?.catalogueSearch.results.map((r) => r.coverPreviewUrl)).toEqual(
      body.results.map((h) => h.cover_preview_url),
    );
    await expectProblem(await app.api("/api/catalogues/search?q=x&catalogue=comicvine"), 400, "invalid_field");
  });

  it("links MangaDex: metadata and cover stored, the aggregate becomes a suggestion, nothing covered", async () => {
    const unitsBefore = await units(app, id);
    const seriesBefore = await expectJson<SeriesFull>(await app.api(`/api/manga/${id}`), 200);
    const v = await link(app, id, "mangadex", TIDE_MD);
    expect(v.links).toMatchObject([
      { catalogue: "mangadex", catalogue_id: TIDE_MD, status: "completed", volumes: 3, has_cover: true },
    ]);
    expect(v.metadata).toMatchObject({
      description: "A cartographer maps the **tides**.",
      authors: ["Aoi Mori"],
      genres: ["Adventure", "Drama"],
      cover_url: `/api/manga/${id}/cover`,
      cover_from: "mangadex",
    });
    expect(v.metadata.alternative_titles).toContain("Shio no Chizu");
    expect(v.metadata.alternative_titles).not.toContain("Tide Atlas");
    expect(v.catalogue_counts.volumes).toEqual({
      value: 3,
      grade: "lone",
      values: [{ catalogue: "mangadex", value: 3 }],
    });

    // The aggregate of the series' language (en): chapter 8 under volumes 2 and 3 is in neither,
    // chapters under `none` belong to no book.
    const aggregateReq = md.requests.filter((r) => r.path.endsWith("/aggregate")).at(-1);
    expect(aggregateReq?.query.getAll("translatedLanguage[]")).toEqual(["en"]);
    expect(v.suggestion).toEqual({
      source: "catalogue:mangadex",
      language: "en",
      books: 3,
      conflicts: [{ chapter: "8", volumes: ["2", "3"] }],
      no_book: ["12", "13"],
    });
    const map = await chapterMap(app, id);
    expect(map.entries).toEqual([]);
    expect(map.revision).toBe(0);
    expect(
      map.suggestions.find((s) => s.source === "catalogue:mangadex")?.entries.map((e) => [e.volume, e.chapters]),
    ).toEqual([
      ["1", ["1", "2", "3", "4"]],
      ["2", ["5", "6", "7"]],
      ["3", ["9", "10", "11"]],
    ]);
    // A suggestion covers nothing, makes no duplicate and creates no slot; the series is unchanged.
    expect(await units(app, id)).toEqual(unitsBefore);
    const seriesAfter = await expectJson<SeriesFull>(await app.api(`/api/manga/${id}`), 200);
    expect([seriesAfter.status, seriesAfter.known_book_count, seriesAfter.form]).toEqual([
      seriesBefore.status,
      seriesBefore.known_book_count,
      seriesBefore.form,
    ]);

    const cover = await app.api(`/api/manga/${id}/cover`);
    expect(cover.status).toBe(200);
    expect(cover.headers.get("content-type")).toBe("image/jpeg");
    expect(Buffer.from(await cover.arrayBuffer()).equals(tide.md.cover as Buffer)).toBe(true);
    const again = await app.api(`/api/manga/${id}/cover`, {
      headers: { "if-none-match": cover.headers.get("etag") ?? "" },
    });
    expect(again.status).toBe(304);
    // The library card uses it while no file has a cover.
    const card = await app.gql<{ series: { overview: { coverUrl: string | null } } }>(
      "query($id: Int!) { series(id: $id) { overview { coverUrl } } }",
      { id },
    );
    expect(card.data?.series.overview.coverUrl).toBe(`/api/manga/${id}/cover`);
  });

  it("grades counts across catalogues and offers them; only the operator's accept changes the series", async () => {
    await link(app, id, "mangaupdates", "54321");
    const v = await link(app, id, "anilist", "101");
    expect(v.links.map((l) => l.catalogue)).toEqual(["mangadex", "mangaupdates", "anilist"]);
    expect(v.catalogue_counts.catalogues).toEqual([
      { catalogue: "mangadex", status: "completed", volumes: 3, chapters: 24 },
      { catalogue: "mangaupdates", status: "completed", volumes: 3, chapters: 24 },
      { catalogue: "anilist", status: "completed", volumes: 3, chapters: 24 },
    ]);
    expect(v.catalogue_counts.volumes).toMatchObject({ value: 3, grade: "agreed" });
    expect(v.catalogue_counts.status).toMatchObject({ value: "finished", grade: "agreed" });
    expect(v.metadata.genres).toEqual(["Adventure", "Drama", "Seinen"]);
    expect(v.metadata.authors).toEqual(["Aoi Mori", "MORI Aoi"]);
    expect(v.offers).toEqual([
      {
        field: "known_book_count",
        value: 3,
        grade: "agreed",
        catalogues: ["mangadex", "mangaupdates", "anilist"],
        text: "Use 3 books (MangaDex, MangaUpdates and AniList agree)",
      },
      {
        field: "status",
        value: "finished",
        grade: "agreed",
        catalogues: ["mangadex", "mangaupdates", "anilist"],
        text: "Mark as finished (MangaDex, MangaUpdates and AniList agree)",
      },
    ]);
    let series = await expectJson<SeriesFull>(await app.api(`/api/manga/${id}`), 200);
    expect([series.status, series.known_book_count, series.form]).toEqual(["running", null, "chapters"]);

    await expectProblem(
      await app.api(`/api/manga/${id}/catalogue-counts/accept`, { method: "POST", json: { known_book_count: 4 } }),
      409,
      "catalogue_offer_stale",
    );
    await expectProblem(
      await app.api(`/api/manga/${id}/catalogue-counts/accept`, { method: "POST", json: {} }),
      400,
      "invalid_field",
    );
    const accepted = await expectJson<{ series: SeriesFull; catalogue: CatalogueView }>(
      await app.api(`/api/manga/${id}/catalogue-counts/accept`, { method: "POST", json: { known_book_count: 3 } }),
      200,
    );
    series = accepted.series;
    expect(series.known_book_count).toBe(3);
    expect(accepted.catalogue.offers.map((o) => o.field)).toEqual(["status"]);
    expect(series.status).toBe("running");
    const g = await app.gql<{ acceptCatalogueOffer: { offers: { field: string }[] } }>(
      "mutation($id: Int!) { acceptCatalogueOffer(seriesId: $id, status: FINISHED) { offers { field } } }",
      { id },
    );
    expect(g.errors).toBeUndefined();
    expect(g.data?.acceptCatalogueOffer.offers).toEqual([]);
    series = await expectJson<SeriesFull>(await app.api(`/api/manga/${id}`), 200);
    expect([series.status, series.known_book_count, series.form]).toEqual(["finished", 3, "books"]);
  });

  it("keeps the operator map through every refresh; a refresh replaces only the suggestion", async () => {
    const saved = await expectJson<RestMap>(
      await app.api(`/api/manga/${id}/chapter-map`, {
        method: "PUT",
        json: { revision: 0, entries: [{ volume: "1", chapters: ["1", "2", "3"] }] },
      }),
      200,
    );
    await expectJson(
      await app.api(`/api/manga/${id}/chapter-map/readings`, {
        method: "POST",
        json: { volume: "2", chapters: ["5", "6"] },
      }),
      201,
    );
    const before = await chapterMap(app, id);
    // The catalogue changes its mind: chapter 4 moves to volume 2, chapter 8 is settled in 3.
    (tide.md.aggregate as Record<string, Record<string, string[]>>).en = {
      "1": ["1", "2", "3"],
      "2": ["4", "5", "6", "7"],
      "3": ["8", "9", "10", "11"],
      none: ["12"],
    };
    const v = await expectJson<CatalogueView>(
      await app.api(`/api/manga/${id}/catalogue-links/refresh`, { method: "POST" }),
      200,
    );
    expect(v.suggestion).toMatchObject({ books: 3, conflicts: [], no_book: ["12"] });
    const after = await chapterMap(app, id);
    expect(after.revision).toBe(saved.revision);
    expect(after.entries).toEqual(before.entries);
    expect(after.readings).toEqual(before.readings);
    expect(
      after.suggestions.find((s) => s.source === "catalogue:mangadex")?.entries.map((e) => [e.volume, e.chapters]),
    ).toEqual([
      ["1", ["1", "2", "3"]],
      ["2", ["4", "5", "6", "7"]],
      ["3", ["8", "9", "10", "11"]],
    ]);
    // The scheduled refresh (run now through the API) does the same.
    const status = await expectJson<{
      last_run: string | null;
      last_outcome: { series: number; refreshed: number; failed: number };
    }>(await app.api("/api/catalogues/refresh", { method: "POST" }), 200);
    expect(status.last_outcome).toEqual({ series: 1, refreshed: 1, failed: 0 });
    expect((await chapterMap(app, id)).entries).toEqual(before.entries);
  });

  it("answers 502 catalogue_failed and changes nothing when a catalogue fails or cannot be reached", async () => {
    const before = { view: await view(app, id), map: await chapterMap(app, id) };
    const n = md.requests.length;
    md.failNext({ status: 500, times: 4 });
    const p = await expectProblem(
      await app.api(`/api/manga/${id}/catalogue-links/refresh`, { method: "POST" }),
      502,
      "catalogue_failed",
    );
    expect(p.detail).toMatch(/MangaDex .* 500/);
    // The catalogue by its API name (as in search errors and catalogue_disabled), its last status
    // after the retries as the upstream's, never as ours.
    expect(p).toMatchObject({ catalogue: "mangadex", upstream_status: 500 });
    expect(md.requests.length - n).toBe(4); // the first try and three retries
    expect(await view(app, id)).toEqual(before.view);
    expect(await chapterMap(app, id)).toEqual(before.map);

    // Unreachable: nothing listens on the port.
    await app.api("/api/settings/catalogues", { method: "PUT", json: { anilist: { base_url: "http://127.0.0.1:9" } } });
    const now = { view: await view(app, id), map: await chapterMap(app, id) };
    const unreachable = await expectProblem(
      await app.api(`/api/manga/${id}/catalogue-links/refresh`, { method: "POST" }),
      502,
      "catalogue_failed",
    );
    expect(unreachable).toMatchObject({ catalogue: "anilist", upstream_status: null });
    const gq = await app.gql("mutation($id: Int!) { refreshCatalogues(seriesId: $id) { seriesId } }", { id });
    expect(gq.errors?.[0]?.extensions?.code).toBe("catalogue_failed");
    expect(await view(app, id)).toEqual(now.view);
    expect(await chapterMap(app, id)).toEqual(now.map);
    await app.api("/api/settings/catalogues", { method: "PUT", json: { anilist: { base_url: al.url } } });

    // A refusal keeps the catalogue's own words (MangaDex's error envelope `errors[].detail`).
    md.failNext({ status: 400, times: 1 });
    const refused = await expectProblem(
      await app.api(`/api/manga/${id}/catalogue-links/refresh`, { method: "POST" }),
      502,
      "catalogue_failed",
    );
    expect(refused).toMatchObject({ catalogue: "mangadex", upstream_status: 400 });
    expect(refused.detail).toMatch(/answered 400: failure 400/);
    expect(await view(app, id)).toEqual(now.view);

    // An unknown id is the catalogue's 404, a malformed one never leaves the service.
    await expectProblem(
      await app.api(`/api/manga/${id}/catalogue-links`, {
        method: "POST",
        json: { catalogue: "mangadex", catalogue_id: mangadexId(999) },
      }),
      404,
      "catalogue_entry_not_found",
    );
    await expectProblem(
      await app.api(`/api/manga/${id}/catalogue-links`, {
        method: "POST",
        json: { catalogue: "anilist", catalogue_id: "../../x" },
      }),
      400,
      "invalid_field",
    );
    expect(await view(app, id)).toEqual(now.view);
  });

  it("waits out a 429's Retry-After and then succeeds", async () => {
    const n = mu.requests.length;
    mu.failNext({ status: 429, times: 1, retryAfter: 1 });
    await expectJson(await app.api(`/api/manga/${id}/catalogue-links/refresh`, { method: "POST" }), 200);
    const sent = mu.requests.slice(n).filter((r) => r.path === "/v1/series/54321");
    expect(sent).toHaveLength(2);
    expect((sent[1]?.at ?? 0) - (sent[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it("REST and GraphQL agree", async () => {
    const rest = await view(app, id);
    const g = await app.gql<{
      seriesCatalogue: {
        links: { catalogue: string; catalogueId: string }[];
        metadata: { description: string; coverUrl: string; genres: string[] };
        counts: { volumes: { value: number; grade: string } };
        suggestion: { source: string; books: number; noBook: string[] };
      };
    }>(
      `query($id: Int!) { seriesCatalogue(seriesId: $id) {
        links { catalogue catalogueId } metadata { description coverUrl genres }
        counts { volumes { value grade } } suggestion { source books noBook } } }`,
      { id },
    );
    const c = g.data?.seriesCatalogue;
    expect(c?.links.map((l) => [l.catalogue.toLowerCase(), l.catalogueId])).toEqual(
      rest.links.map((l) => [l.catalogue, l.catalogue_id]),
    );
    expect(c?.metadata).toEqual({
      description: rest.metadata.description,
      coverUrl: rest.metadata.cover_url,
      genres: rest.metadata.genres,
    });
    expect(c?.counts.volumes).toEqual({ value: 3, grade: "AGREED" });
    expect(c?.suggestion).toEqual({
      source: "catalogue:mangadex",
      books: rest.suggestion?.books,
      noBook: rest.suggestion?.no_book,
    });
    const search = await app.gql<{ catalogueSearch: { results: { catalogue: string; catalogueId: string }[] } }>(
      'query { catalogueSearch(query: "harbor", catalogue: MANGAUPDATES) { results { catalogue catalogueId } } }',
    );
    const restSearch = await expectJson<{ results: Hit[] }>(
      await app.api("/api/catalogues/search?q=harbor&catalogue=mangaupdates"),
      200,
    );
    expect(search.data?.catalogueSearch.results.map((r) => r.catalogueId)).toEqual(
      restSearch.results.map((r) => r.catalogue_id),
    );
  });

  it("does not ask a catalogue turned off in the settings; its link keeps what it said last", async () => {
    const before = await view(app, id);
    const n = al.requests.length;
    await app.api("/api/settings/catalogues", { method: "PUT", json: { anilist: { enabled: false } } });
    const after = await expectJson<CatalogueView & { links: { refreshed_at: string }[] }>(
      await app.api(`/api/manga/${id}/catalogue-links/refresh`, { method: "POST" }),
      200,
    );
    expect(al.requests.length).toBe(n);
    const anilist = (v: CatalogueView) => v.links.find((l) => l.catalogue === "anilist");
    expect(anilist(after)).toEqual(anilist(before));
    await expectProblem(
      await app.api(`/api/manga/${id}/catalogue-links`, {
        method: "POST",
        json: { catalogue: "anilist", catalogue_id: "101" },
      }),
      409,
      "catalogue_disabled",
    );
    await app.api("/api/settings/catalogues", { method: "PUT", json: { anilist: { enabled: true } } });
  });

  it("unlinks: the link, its metadata, its cover and its suggestion go; the operator map stays", async () => {
    const before = await chapterMap(app, id);
    const v = await expectJson<CatalogueView>(
      await app.api(`/api/manga/${id}/catalogue-links/mangadex`, { method: "DELETE" }),
      200,
    );
    expect(v.links.map((l) => l.catalogue)).toEqual(["mangaupdates", "anilist"]);
    expect(v.suggestion).toBeNull();
    expect(v.metadata.cover_from).toBe("anilist");
    expect(v.metadata.description).toBe("Maps & tides.\nSecond line.");
    const after = await chapterMap(app, id);
    expect(after.suggestions.map((s) => s.source)).not.toContain("catalogue:mangadex");
    expect([after.revision, after.entries, after.readings]).toEqual([before.revision, before.entries, before.readings]);
    await expectProblem(
      await app.api(`/api/manga/${id}/catalogue-links/mangadex`, { method: "DELETE" }),
      404,
      "catalogue_link_not_found",
    );
    const cover = await app.api(`/api/manga/${id}/cover`);
    expect(Buffer.from(await cover.arrayBuffer()).equals(tide.al.cover as Buffer)).toBe(true);
  });
});

describe("create a series already linked", () => {
  let app: TestApp;
  beforeAll(async () => (app = await emptyService()));
  afterAll(() => app.dispose());

  it("takes the catalogue's title and stores its metadata and suggestion at once", async () => {
    const s = await expectJson<SeriesFull>(
      await app.api("/api/manga", { method: "POST", json: { catalogue: "mangadex", catalogue_id: mangadexId(3) } }),
      201,
    );
    expect(s.title).toBe("Harbor Lights");
    expect(existsSync(path.join(app.config.libraryRoot, "Harbor Lights"))).toBe(true);
    const v = await view(app, s.id);
    expect(v.links.map((l) => l.catalogue)).toEqual(["mangadex"]);
    expect(v.metadata.cover_url).toBe(`/api/manga/${s.id}/cover`);
    expect(v.suggestion).toMatchObject({ books: 1, no_book: ["3"] });

    const g = await app.gql<{
      createLinkedSeries: { id: number; title: string; catalogue: { links: { catalogue: string }[] } };
    }>(
      'mutation { createLinkedSeries(catalogue: ANILIST, catalogueId: "202", input: { title: "Harbor Lights (AniList)" }) { id title catalogue { links { catalogue } } } }',
    );
    expect(g.errors).toBeUndefined();
    expect(g.data?.createLinkedSeries).toMatchObject({
      title: "Harbor Lights (AniList)",
      catalogue: { links: [{ catalogue: "ANILIST" }] },
    });
  });

  it("creates nothing when the catalogue fails", async () => {
    const list = await expectJson<unknown[]>(await app.api("/api/manga"), 200);
    mu.failNext({ status: 503, times: 4 });
    await expectProblem(
      await app.api("/api/manga", { method: "POST", json: { catalogue: "mangaupdates", catalogue_id: "777" } }),
      502,
      "catalogue_failed",
    );
    await expectProblem(
      await app.api("/api/manga", { method: "POST", json: { catalogue: "mangaupdates", catalogue_id: "999" } }),
      404,
      "catalogue_entry_not_found",
    );
    expect(await expectJson<unknown[]>(await app.api("/api/manga"), 200)).toEqual(list);
    expect(existsSync(path.join(app.config.libraryRoot, "Harbor Lights (MangaUpdates)"))).toBe(false);
  });
});

describe("removing linked series", () => {
  let app: TestApp;
  beforeAll(async () => (app = await emptyService()));
  afterAll(() => app.dispose());

  /** The stored covers, by the sha256 their content-addressed names start with. */
  const stored = async () =>
    (await readdir(path.join(app.config.dataDir, "covers"))).map((f) => f.split(".")[0]).sort();
  const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
  const remove = async (id: number) =>
    expectJson<{ removed: boolean }>(await app.api(`/api/manga/${id}`, { method: "DELETE" }), 200);
  const coverOf = async (id: number) => {
    const res = await app.api(`/api/manga/${id}/cover`);
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };

  it("takes its cover along unless another series' link names the same image", async () => {
    const harbor = await expectJson<SeriesFull>(
      await app.api("/api/manga", { method: "POST", json: { catalogue: "mangadex", catalogue_id: mangadexId(3) } }),
      201,
    );
    const again = await createSeries(app, "Harbor Lights Again");
    await link(app, again.id, "mangadex", mangadexId(3));
    const tideSeries = await expectJson<SeriesFull>(
      await app.api("/api/manga", { method: "POST", json: { catalogue: "anilist", catalogue_id: "101" } }),
      201,
    );
    const harborCover = await coverOf(harbor.id);
    expect((await coverOf(again.id)).equals(harborCover)).toBe(true);
    expect(await stored()).toEqual([sha(harborCover), sha(tide.al.cover as Buffer)].sort());

    // The other series' link still names the image: it stays, and that series still shows it.
    expect((await remove(harbor.id)).removed).toBe(true);
    expect(await stored()).toEqual([sha(harborCover), sha(tide.al.cover as Buffer)].sort());
    expect((await coverOf(again.id)).equals(harborCover)).toBe(true);

    // No link names it any more: it goes with the last series; the unrelated cover stays.
    expect((await remove(again.id)).removed).toBe(true);
    expect(await stored()).toEqual([sha(tide.al.cover as Buffer)]);
    expect((await coverOf(tideSeries.id)).equals(tide.al.cover as Buffer)).toBe(true);
  });
});

describe("polite rate limits, measured on the fakes", () => {
  let app: TestApp;
  beforeAll(async () => (app = await emptyService()));
  afterAll(() => app.dispose());

  /**
   * Requests per second over a burst, and the most arriving in any one second. The client spaces its
   * sends; on a loaded machine the fake sees them arrive with jitter of up to a few hundred
   * milliseconds, so single gaps are not judged: the rate over the whole burst is held to the limit
   * (+5 % for the jitter of its two ends), and any one second to the catalogue's own limit.
   */
  async function burst(fake: FakeCatalogue, catalogue: string, count: number) {
    const n = fake.requests.length;
    const throttled = fake.throttled;
    // Different texts: the answer cache must not hide the requests; all sent at once.
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) => app.api(`/api/catalogues/search?q=rate${i}&catalogue=${catalogue}`)),
    );
    for (const a of answers) expect(a.status).toBe(200);
    const at = fake.requests.slice(n).map((r) => r.at);
    expect(at).toHaveLength(count);
    const inAnySecond = Math.max(...at.map((t) => at.filter((x) => x >= t && x < t + 1000).length));
    return {
      inAnySecond,
      perSecond: ((count - 1) * 1000) / ((at.at(-1) as number) - (at[0] as number)),
      throttled: fake.throttled - throttled,
    };
  }

  it("MangaDex: at most 4 a second (its limit is 5), never refused", async () => {
    const r = await burst(md, "mangadex", 9);
    expect(r.perSecond).toBeLessThanOrEqual(4 * 1.05);
    expect(r.inAnySecond).toBeLessThanOrEqual(5);
    expect(r.throttled).toBe(0);
  });

  it("MangaUpdates: at most one a second", async () => {
    const r = await burst(mu, "mangaupdates", 4);
    expect(r.perSecond).toBeLessThanOrEqual(1 * 1.05);
    expect(r.inAnySecond).toBeLessThanOrEqual(2);
  });

  it("AniList: at most 30 a minute (one every 2 s)", async () => {
    const r = await burst(al, "anilist", 3);
    expect(r.perSecond).toBeLessThanOrEqual(0.5 * 1.05);
    expect(r.inAnySecond).toBeLessThanOrEqual(1 + 1);
  });

  it("MangaDex: waits out the window its 429 names in X-RateLimit-Retry-After (a Unix time), then asks again", async () => {
    const n = md.requests.length;
    md.failNext({ status: 429, times: 1, retryAfter: 2, path: /^\/manga$/ });
    const started = Date.now();
    await expectJson(await app.api("/api/catalogues/search?q=window&catalogue=mangadex"), 200);
    const sent = md.requests.slice(n).filter((r) => r.path === "/manga");
    expect(sent).toHaveLength(2);
    // The window ends on the whole second after started + 2 s (less the clock's rounding).
    expect((sent[1]?.at ?? 0) - started).toBeGreaterThanOrEqual(1900);
  });

  it("answers a repeated search from the cache", async () => {
    const n = md.requests.length;
    await expectJson(await app.api("/api/catalogues/search?q=cached&catalogue=mangadex"), 200);
    await expectJson(await app.api("/api/catalogues/search?q=cached&catalogue=mangadex"), 200);
    expect(md.requests.length - n).toBe(1);
  });
});

describe("a catalogue asking to wait longer than a request can", () => {
  let app: TestApp;
  beforeAll(async () => (app = await emptyService()));
  afterAll(() => app.dispose());

  it("fails at once as the catalogue's 429, and is not asked again before the time it named", async () => {
    const n = al.requests.length;
    al.failNext({ status: 429, times: 1, retryAfter: 90 });
    const started = Date.now();
    const p = await expectProblem(
      await app.api("/api/catalogues/search?q=patience&catalogue=anilist"),
      502,
      "catalogue_failed",
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(p).toMatchObject({ catalogue: "anilist", upstream_status: 429 });
    expect(p.detail).toMatch(/429.*90 s/);
    const again = await expectProblem(
      await app.api("/api/catalogues/search?q=patience2&catalogue=anilist"),
      502,
      "catalogue_failed",
    );
    expect(again).toMatchObject({ catalogue: "anilist", upstream_status: 429 });
    expect(al.requests.length - n).toBe(1);
    // The other catalogues are not held back by it.
    await expectJson(await app.api("/api/catalogues/search?q=patience&catalogue=mangadex"), 200);
  });
});

describe("adopting suggested books into the operator map", () => {
  let app: TestApp;
  let id: number;
  beforeAll(async () => {
    app = await emptyService();
    id = (await createSeries(app, "Harbor Lights")).id;
    await link(app, id, "mangadex", mangadexId(3));
  });
  afterAll(() => app.dispose());

  it("previews, then saves one book, bound to the map revision; a book the operator set is never adopted again", async () => {
    const body = { source: "catalogue:mangadex", volumes: ["1"], revision: 0 };
    const preview = await expectJson<{ dry_run: boolean; map_after: string; adoption: { adopted: string[] } }>(
      await app.api(`/api/manga/${id}/chapter-map/suggestions/adopt?dry_run=true`, { method: "POST", json: body }),
      200,
    );
    expect(preview).toMatchObject({ dry_run: true, adoption: { adopted: ["1"] } });
    expect((await chapterMap(app, id)).revision).toBe(0);

    const g = await app.gql<{
      previewSuggestedBooks: { adoption: { adopted: string[] }; preview: { revision: number } };
    }>(
      'mutation($id: Int!) { previewSuggestedBooks(seriesId: $id, source: "catalogue:mangadex", volumes: ["1"], revision: 0) { adoption { adopted } preview { revision } } }',
      { id },
    );
    expect(g.data?.previewSuggestedBooks).toEqual({ adoption: { adopted: ["1"] }, preview: { revision: 0 } });

    const saved = await expectJson<{ map: RestMap; adoption: { adopted: string[] } }>(
      await app.api(`/api/manga/${id}/chapter-map/suggestions/adopt`, { method: "POST", json: body }),
      200,
    );
    expect(saved.map.revision).toBe(1);
    expect(saved.map.entries).toEqual([{ volume: "1", chapters: ["1", "2"] }]);
    const p = await expectProblem(
      await app.api(`/api/manga/${id}/chapter-map/suggestions/adopt`, {
        method: "POST",
        json: { ...body, revision: 1 },
      }),
      422,
      "nothing_to_adopt",
    );
    expect(p.skipped).toEqual([{ volume: "1", reason: "set_by_operator" }]);
    await expectProblem(
      await app.api(`/api/manga/${id}/chapter-map/suggestions/adopt`, { method: "POST", json: body }),
      422,
      "nothing_to_adopt",
    );
    await expectProblem(
      await app.api(`/api/manga/${id}/chapter-map/suggestions/adopt`, {
        method: "POST",
        json: { ...body, source: "catalogue:anilist", revision: 1 },
      }),
      404,
      "suggestion_not_found",
    );
    // A refresh afterwards keeps the adopted (now operator) entry exactly.
    await expectJson(await app.api(`/api/manga/${id}/catalogue-links/refresh`, { method: "POST" }), 200);
    const after = await chapterMap(app, id);
    expect([after.revision, after.entries]).toEqual([1, [{ volume: "1", chapters: ["1", "2"] }]]);
  });
});

describe("the scheduled refresh", () => {
  let app: TestApp;
  afterAll(() => app?.dispose());

  it("refreshes every linked series on its interval", async () => {
    app = await createTestApp({ env: { CATALOGUE_REFRESH_INTERVAL_SECONDS: "1" } });
    await app.api("/api/settings/catalogues", {
      method: "PUT",
      json: { mangadex: { base_url: md.url, cover_base_url: md.url } },
    });
    const id = (await createSeries(app, "Tide Pool Diaries")).id;
    await link(app, id, "mangadex", mangadexId(2));
    const asked = () => md.requests.filter((r) => r.path === `/manga/${mangadexId(2)}`).length;
    const linkedAt = asked();
    // Wait for the condition, not for a time: two cycles that each asked MangaDex again.
    for (let i = 0; i < 600; i++) {
      const s = await expectJson<{ last_outcome: { refreshed: number } | null }>(
        await app.api("/api/catalogues/refresh"),
        200,
      );
      if (s.last_outcome?.refreshed === 1 && asked() >= linkedAt + 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(asked()).toBeGreaterThanOrEqual(linkedAt + 2);
    const g = await app.gql<{ catalogueRefreshStatus: { refreshed: number; nextRun: string } }>(
      "{ catalogueRefreshStatus { refreshed nextRun } }",
    );
    expect(g.data?.catalogueRefreshStatus.refreshed).toBe(1);
  });
});
