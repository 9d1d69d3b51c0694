/**
 * REST and GraphQL agree on wrong values (docs/api.md, the paragraph on ids and wrong values under "REST"): the same
 * operation asked both ways with a required field missing, a value of the wrong type, or a value
 * out of range is refused with the same status, the same code and the same `field`, and changes
 * nothing. An empty service, a library folder written here, the public API only.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cbz, expectJson, scanLibrary } from "./fixtures.ts";
import { askBoth, expectAgree, type GqlRequest, type RestRequest } from "./twins-harness.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

interface Ctx {
  seriesId: number;
  fileId: number;
  mappingId: number;
}
interface ValueRow {
  name: string;
  rest: (c: Ctx) => RestRequest;
  gql: (c: Ctx) => GqlRequest;
}

const put = (p: string, json: unknown): RestRequest => ({ method: "PUT", path: p, json });
const post = (p: string, json: unknown = {}): RestRequest => ({ method: "POST", path: p, json });
const patch = (p: string, json: unknown): RestRequest => ({ method: "PATCH", path: p, json });
const q = (query: string, variables: Record<string, unknown> = {}): GqlRequest => ({ query, variables });

const progress = (page: unknown, extra: Record<string, unknown> = {}): ValueRow => ({
  name: `setFileProgress page ${JSON.stringify(page)} ${JSON.stringify(extra)}`,
  rest: (c) => put(`/api/files/${c.fileId}/progress`, { ...(page === undefined ? {} : { page }), ...extra }),
  gql: (c) =>
    q(`mutation ($f: Int!, $p: Int, $d: Boolean) { setFileProgress(fileId: $f, page: $p, completed: $d) { page } }`, {
      f: c.fileId,
      p: page,
      d: extra.completed,
    }),
});
const seriesPatch = (field: string, restValue: unknown, gqlField: string, gqlValue = restValue): ValueRow => ({
  name: `updateSeries ${field} ${JSON.stringify(restValue)}`,
  rest: (c) => patch(`/api/manga/${c.seriesId}`, { [field]: restValue }),
  gql: (c) =>
    q(`mutation ($id: Int!, $i: SeriesInput!) { updateSeries(id: $id, input: $i) { id } }`, {
      id: c.seriesId,
      i: { [gqlField]: gqlValue },
    }),
});
const mapSave = (revision: unknown, entries: unknown): ValueRow => ({
  name: `saveChapterMap ${JSON.stringify({ revision, entries })}`,
  rest: (c) => put(`/api/manga/${c.seriesId}/chapter-map`, { revision, entries }),
  gql: (c) =>
    q(
      `mutation ($id: Int!, $r: Int!, $e: [MapEntryInput!]!) { saveChapterMap(seriesId: $id, revision: $r, entries: $e) { revision } }`,
      { id: c.seriesId, r: revision, e: entries },
    ),
});

/** Values the GraphQL schema lets through to the same rules as REST: code and `field` must agree too. */
const OUT_OF_RANGE: ValueRow[] = [
  progress(0),
  progress(-1),
  progress(999),
  progress(undefined),
  seriesPatch("known_book_count", -1, "knownBookCount"),
  seriesPatch("edition_book_count", 100_000, "editionBookCount"),
  seriesPatch("title", "", "title"),
  seriesPatch("title", "a\u0001b", "title"),
  seriesPatch("language", "!!", "language"),
  seriesPatch("translation_source_languages", ["xx-1"], "translationSourceLanguages"),
  {
    name: "createSeries without a title",
    rest: () => post("/api/manga", {}),
    gql: () => q(`mutation { createSeries(input: {}) { id } }`),
  },
  mapSave(-1, []),
  mapSave(0, [{ volume: "abc", chapters: [] }]),
  mapSave(0, [{ volume: "1", chapters: ["x"] }]),
  {
    name: "submitReading volume x",
    rest: (c) => post(`/api/manga/${c.seriesId}/chapter-map/readings`, { volume: "x", chapters: ["1"] }),
    gql: (c) =>
      q(`mutation ($id: Int!) { submitReading(seriesId: $id, volume: "x", chapters: ["1"]) { revision } }`, {
        id: c.seriesId,
      }),
  },
  {
    name: "importMapSuggestion from an operator source",
    rest: (c) => post(`/api/manga/${c.seriesId}/chapter-map/suggestions`, { source: "operator", entries: [] }),
    gql: (c) =>
      q(`mutation ($id: Int!) { importMapSuggestion(seriesId: $id, source: "operator", entries: []) { revision } }`, {
        id: c.seriesId,
      }),
  },
  {
    name: "previewBookStarts without a start",
    rest: (c) => post(`/api/manga/${c.seriesId}/chapter-map/book-starts/preview`, { revision: 0, starts: [] }),
    gql: (c) =>
      q(`mutation ($id: Int!) { previewBookStarts(seriesId: $id, revision: 0, starts: []) { lastEndReason } }`, {
        id: c.seriesId,
      }),
  },
  ...[0, -1].map((page): ValueRow => ({
    name: `audit page ${page}`,
    rest: (c) => ({ path: `/api/manga/${c.seriesId}/audit?page=${page}` }),
    gql: (c) =>
      q(`query ($id: Int!, $p: Int) { audit(seriesId: $id, page: $p) { total } }`, { id: c.seriesId, p: page }),
  })),
  {
    name: "audit sort bogus",
    rest: (c) => ({ path: `/api/manga/${c.seriesId}/audit?sort=bogus` }),
    gql: (c) => q(`query ($id: Int!) { audit(seriesId: $id, sort: "bogus") { total } }`, { id: c.seriesId }),
  },
  ...[[], [0], [-3], Array.from({ length: 1001 }, (_, i) => i + 1)].map((ids): ValueRow => ({
    name: `previewRetirement fileIds ${JSON.stringify(ids).slice(0, 20)}`,
    rest: (c) => post(`/api/manga/${c.seriesId}/audit/retire/preview`, { file_ids: ids }),
    gql: (c) =>
      q(`mutation ($id: Int!, $f: [Int!]!) { previewRetirement(seriesId: $id, fileIds: $f) { confirmation } }`, {
        id: c.seriesId,
        f: ids,
      }),
  })),
  ...[5000, -5000].map((priority): ValueRow => ({
    name: `setSourcePriority ${priority}`,
    rest: (c) => patch(`/api/manga/${c.seriesId}/sources/${c.mappingId}`, { priority }),
    gql: (c) =>
      q(
        `mutation ($s: Int!, $m: Int!, $p: Int!) { setSourcePriority(seriesId: $s, mappingId: $m, priority: $p) { id } }`,
        {
          s: c.seriesId,
          m: c.mappingId,
          p: priority,
        },
      ),
  })),
  {
    name: "linkSource language !!",
    rest: (c) =>
      post(`/api/manga/${c.seriesId}/sources`, { provider: "drop-folder", source_id: "Work", language: "!!" }),
    gql: (c) =>
      q(
        `mutation ($id: Int!) { linkSource(seriesId: $id, provider: "drop-folder", sourceId: "Work", language: "!!") { __typename } }`,
        {
          id: c.seriesId,
        },
      ),
  },
  {
    name: "searchSources with an unknown provider",
    rest: (c) => post(`/api/manga/${c.seriesId}/sources/search`, { provider: "nope" }),
    gql: (c) =>
      q(`mutation ($id: Int!) { searchSources(seriesId: $id, provider: "nope") { __typename } }`, { id: c.seriesId }),
  },
  {
    name: "previewSourceRejection of a mapping the series does not have",
    rest: (c) =>
      post(`/api/manga/${c.seriesId}/audit/reject-source/preview`, { provider: "drop-folder", source_id: "Other" }),
    gql: (c) =>
      q(
        `mutation ($id: Int!) { previewSourceRejection(seriesId: $id, provider: "drop-folder", sourceId: "Other") { __typename } }`,
        {
          id: c.seriesId,
        },
      ),
  },
  ...[["!!"], Array.from({ length: 21 }, (_, i) => `l${String.fromCharCode(97 + i)}`)].map((languages): ValueRow => ({
    name: `updateDownloadSettings ${languages.length} languages`,
    rest: () => put(`/api/settings/downloads`, { languages }),
    gql: () => q(`mutation ($l: [String!]!) { updateDownloadSettings(languages: $l) { languages } }`, { l: languages }),
  })),
  {
    name: "updateTranslationSettings source language !!",
    rest: () => put(`/api/settings/translation`, { source_languages: ["!!"] }),
    gql: () => q(`mutation { updateTranslationSettings(input: { sourceLanguages: ["!!"] }) { enabled } }`),
  },
  {
    name: "updateTranslationSettings ai url ftp",
    rest: () => put(`/api/settings/translation`, { ai: { base_url: "ftp://x" } }),
    gql: () => q(`mutation { updateTranslationSettings(input: { ai: { baseUrl: "ftp://x" } }) { enabled } }`),
  },
  {
    name: "updateSourceSettings url ftp",
    rest: () => put(`/api/settings/sources`, { suwayomi: { url: "ftp://x" } }),
    gql: () => q(`mutation { updateSourceSettings(input: { suwayomi: { url: "ftp://x" } }) { __typename } }`),
  },
  {
    name: "updateSourceSettings basic auth without a user",
    rest: () => put(`/api/settings/sources`, { suwayomi: { enabled: true, url: "http://127.0.0.1:9", auth: "basic" } }),
    gql: () =>
      q(
        `mutation { updateSourceSettings(input: { suwayomi: { enabled: true, url: "http://127.0.0.1:9", auth: BASIC } }) { __typename } }`,
      ),
  },
  {
    name: "updateCatalogueSettings url ftp",
    rest: () => put(`/api/settings/catalogues`, { mangadex: { base_url: "ftp://x" } }),
    gql: () => q(`mutation { updateCatalogueSettings(input: { mangadex: { baseUrl: "ftp://x" } }) { __typename } }`),
  },
  {
    name: "updateIndexerSettings url ftp",
    rest: () => put(`/api/settings/indexer`, { prowlarr: { url: "ftp://x" } }),
    gql: () => q(`mutation { updateIndexerSettings(input: { prowlarr: { url: "ftp://x" } }) { __typename } }`),
  },
  ...[
    ["2020-13-01", "2020-12-31"],
    ["2021-01-10", "2021-01-01"],
    ["2021-01-01", "2022-06-01"],
    ["yesterday", undefined],
  ].map(([from, to]): ValueRow => ({
    name: `calendar ${from}..${to}`,
    rest: () => ({ path: `/api/calendar?from=${from}${to ? `&to=${to}` : ""}` }),
    gql: () => q(`query ($f: String, $t: String) { calendar(from: $f, to: $t) { from } }`, { f: from, t: to }),
  })),
  ...[0, -1].map((limit): ValueRow => ({
    name: `continueReading limit ${limit}`,
    rest: () => ({ path: `/api/reading/continue?limit=${limit}` }),
    gql: () => q(`query ($l: Int) { continueReading(limit: $l) { fileId } }`, { l: limit }),
  })),
  {
    name: "labelOrder over 5000 labels",
    rest: () => post(`/api/labels/order`, { labels: Array.from({ length: 5001 }, (_, i) => String(i)) }),
    gql: () =>
      q(`query ($l: [String!]!) { labelOrder(labels: $l) { nextWhole } }`, {
        l: Array.from({ length: 5001 }, (_, i) => String(i)),
      }),
  },
  {
    name: "setMonitored number abc",
    rest: (c) => put(`/api/manga/${c.seriesId}/monitoring`, { kind: "chapter", number: "abc", monitored: true }),
    gql: (c) =>
      q(
        `mutation ($id: Int!) { setMonitored(seriesId: $id, kind: CHAPTER, number: "abc", monitored: true) { number } }`,
        {
          id: c.seriesId,
        },
      ),
  },
  {
    name: "slotOffers kind bogus",
    rest: (c) => ({ path: `/api/manga/${c.seriesId}/slots/bogus/1/offers` }),
    gql: (c) =>
      q(`query ($id: Int!) { slotOffers(seriesId: $id, kind: "bogus", number: "1") { __typename } }`, {
        id: c.seriesId,
      }),
  },
  ...["abc", `${"0".repeat(32)}-0`].flatMap((job): ValueRow[] => [
    {
      name: `retryTranslation ${job}`,
      rest: () => post(`/api/translations/${job}/retry`),
      gql: () => q(`mutation ($j: String!) { retryTranslation(id: $j) { id } }`, { j: job }),
    },
    {
      name: `cancelTranslation ${job}`,
      rest: () => post(`/api/translations/${job}/cancel`),
      gql: () => q(`mutation ($j: String!) { cancelTranslation(id: $j) { id } }`, { j: job }),
    },
  ]),
  {
    name: "acceptCatalogueOffer known_book_count -1",
    rest: (c) => post(`/api/manga/${c.seriesId}/catalogue-counts/accept`, { known_book_count: -1 }),
    gql: (c) =>
      q(`mutation ($id: Int!) { acceptCatalogueOffer(seriesId: $id, knownBookCount: -1) { __typename } }`, {
        id: c.seriesId,
      }),
  },
  {
    name: "verifyBook digest malformed",
    rest: (c) =>
      put(`/api/manga/${c.seriesId}/volumes/1/verification`, { digest: "md5:1", chapters: ["1"], note: "n" }),
    gql: (c) =>
      q(
        `mutation ($id: Int!) { verifyBook(seriesId: $id, volume: "1", input: { digest: "md5:1", chapters: ["1"], note: "n" }) { volume } }`,
        {
          id: c.seriesId,
        },
      ),
  },
  {
    name: "previewBookAssembly volume x",
    rest: (c) => post(`/api/manga/${c.seriesId}/volumes/x/assemble?dry_run=true`),
    gql: (c) =>
      q(`mutation ($id: Int!) { previewBookAssembly(seriesId: $id, volume: "x") { __typename } }`, { id: c.seriesId }),
  },
  {
    name: "assembleSeries with a forged confirmation",
    rest: (c) => post(`/api/manga/${c.seriesId}/assemble?dry_run=false`, { confirmation: "c1.forged" }),
    gql: (c) =>
      q(`mutation ($id: Int!) { assembleSeries(seriesId: $id, confirmation: "c1.forged") { __typename } }`, {
        id: c.seriesId,
      }),
  },
];

/**
 * Values GraphQL's schema refuses by type before any rule runs (a required argument missing, text
 * for a number, an unknown enum value): REST must refuse the same body too, with 400.
 */
const BY_TYPE: ValueRow[] = [
  progress("x"),
  seriesPatch("monitored", "yes", "monitored"),
  seriesPatch("status", "sleeping", "status"),
  mapSave("1", []),
  mapSave(0, "none"),
  {
    name: "saveChapterMap without a revision",
    rest: (c) => put(`/api/manga/${c.seriesId}/chapter-map`, { entries: [] }),
    gql: (c) =>
      q(`mutation ($id: Int!) { saveChapterMap(seriesId: $id, entries: []) { revision } }`, { id: c.seriesId }),
  },
  {
    name: "submitReading without chapters",
    rest: (c) => post(`/api/manga/${c.seriesId}/chapter-map/readings`, { volume: "1" }),
    gql: (c) =>
      q(`mutation ($id: Int!) { submitReading(seriesId: $id, volume: "1") { revision } }`, { id: c.seriesId }),
  },
  {
    name: "previewRetirement without fileIds",
    rest: (c) => post(`/api/manga/${c.seriesId}/audit/retire/preview`, {}),
    gql: (c) => q(`mutation ($id: Int!) { previewRetirement(seriesId: $id) { confirmation } }`, { id: c.seriesId }),
  },
  {
    name: "setMonitored monitored yes",
    rest: (c) => put(`/api/manga/${c.seriesId}/monitoring`, { kind: "chapter", number: "1", monitored: "yes" }),
    gql: (c) =>
      q(
        `mutation ($id: Int!, $m: Boolean!) { setMonitored(seriesId: $id, kind: CHAPTER, number: "1", monitored: $m) { number } }`,
        {
          id: c.seriesId,
          m: "yes",
        },
      ),
  },
  {
    name: "updateDownloadSettings languages not a list of text",
    rest: () => put(`/api/settings/downloads`, { languages: [1] }),
    gql: () => q(`mutation ($l: [String!]!) { updateDownloadSettings(languages: $l) { languages } }`, { l: [1] }),
  },
  {
    name: "downloadQueue unknown state",
    rest: () => ({ path: `/api/downloads?state=sleeping` }),
    gql: () => q(`query ($s: [DownloadState!]) { downloadQueue(states: $s) { id } }`, { s: ["SLEEPING"] }),
  },
  {
    name: "cancelDownload blocklist maybe",
    rest: () => post(`/api/downloads/1/cancel?blocklist=maybe`),
    gql: () => q(`mutation ($b: Boolean) { cancelDownload(id: 1, blocklist: $b) { id } }`, { b: "maybe" }),
  },
];

describe("REST and GraphQL agree on wrong values", () => {
  let app: TestApp;
  const ctx: Ctx = { seriesId: 0, fileId: 0, mappingId: 0 };
  shareTestApp((a) => (app = a));

  it("a series with a book, chapters and a drop-folder source", async () => {
    const s = await expectJson<{ id: number; folder: string }>(
      await app.api("/api/manga", { method: "POST", json: { title: "Values" } }),
      201,
    );
    ctx.seriesId = s.id;
    for (const [name, pages] of [
      ["Values v01.cbz", 10],
      ["Values - c001.cbz", 4],
    ] as const) {
      const file = path.join(app.config.libraryRoot, s.folder, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, await cbz(pages));
    }
    expect((await scanLibrary(app)).errors).toEqual([]);
    const units = await expectJson<{ units: { file_ids: number[] }[] }>(await app.api(`/api/manga/${s.id}/units`), 200);
    ctx.fileId = units.units.flatMap((u) => u.file_ids)[0]!;
    await mkdir(path.join(app.config.dataDir, "drop", "Work"), { recursive: true });
    const linked = await expectJson<{ mapping: { id: number } }>(
      await app.api(`/api/manga/${s.id}/sources`, {
        method: "POST",
        json: { provider: "drop-folder", source_id: "Work", language: "en" },
      }),
      201,
    );
    ctx.mappingId = linked.mapping.id;
  });

  it.each(OUT_OF_RANGE.map((r) => [r.name, r] as const))("%s: the same refusal both ways", async (name, row) => {
    const both = await askBoth(app, row.rest(ctx), row.gql(ctx));
    expectAgree(name, both);
    expect(both.rest.status, `${name}: REST accepted it`).toBeGreaterThanOrEqual(400);
  });

  it.each(BY_TYPE.map((r) => [r.name, r] as const))("%s: 400 both ways", async (name, row) => {
    const both = await askBoth(app, row.rest(ctx), row.gql(ctx));
    expect([both.rest.status, both.gql.status], `${name}: ${both.rest.code} / ${both.gql.code}`).toEqual([400, 400]);
  });
});
