/**
 * REST and GraphQL agree, endpoint by endpoint (docs/api.md, the paragraph on ids under "REST"): the same operation asked both
 * ways with an unknown id and with malformed ones answers the same status and code. The rule: an id
 * that is a positive integer up to 2³¹−1 but names nothing is 404 with the kind's code; anything else
 * (0, −1, a fraction, text, a number past 2³¹−1) is 400 `bad_request` — in GraphQL too, where the
 * schema's Int lets 0 and −1 through to the resolvers. An empty service, the public API only.
 * The good answers and the values that are wrong in other ways: twins-conformance-data.test.ts,
 * twins-conformance-values.test.ts.
 */
import { describe, expect, it } from "vitest";
import { expectJson } from "./fixtures.ts";
import { askBoth, expectAgree, MALFORMED_IDS, UNKNOWN_ID, type GqlRequest, type RestRequest } from "./twins-harness.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

interface IdRow {
  name: string;
  rest: (id: string, ctx: Ctx) => RestRequest;
  /** A GraphQL document whose id variable is `$id`; `vars` adds the other arguments. */
  gql: string;
  vars?: (ctx: Ctx) => Record<string, unknown>;
  /** The id is optional (a filter): absent is fine, a bad one is still refused. */
  optional?: boolean;
}
interface Ctx {
  seriesId: number;
}

const S = (op: string, args = "", sel = "{ __typename }") =>
  `query ($id: Int!${args ? `, ${args}` : ""}) { ${op} ${sel} }`;
const M = (op: string, args = "", sel = "{ __typename }") =>
  `mutation ($id: Int!${args ? `, ${args}` : ""}) { ${op} ${sel} }`;
/** A well-formed MangaDex work id (nothing is fetched for an unknown series). */
const MANGADEX_ID = "0a1b2c3d-0000-4000-8000-000000000001";
const post = (path: string, json: unknown = {}): RestRequest => ({ method: "POST", path, json });

/** Operations keyed by a series id. */
const SERIES_ROWS: IdRow[] = [
  { name: "series", rest: (id) => ({ path: `/api/manga/${id}` }), gql: S("series(id: $id)") },
  {
    name: "updateSeries",
    rest: (id) => ({ method: "PATCH", path: `/api/manga/${id}`, json: { monitored: true } }),
    gql: M("updateSeries(id: $id, input: { monitored: true })"),
  },
  { name: "units", rest: (id) => ({ path: `/api/manga/${id}/units` }), gql: S("units(seriesId: $id)") },
  { name: "seriesPage", rest: (id) => ({ path: `/api/manga/${id}/units` }), gql: S("seriesPage(seriesId: $id)") },
  { name: "chapterMap", rest: (id) => ({ path: `/api/manga/${id}/chapter-map` }), gql: S("chapterMap(seriesId: $id)") },
  {
    name: "saveChapterMap",
    rest: (id) => ({ method: "PUT", path: `/api/manga/${id}/chapter-map`, json: { revision: 0, entries: [] } }),
    gql: M("saveChapterMap(seriesId: $id, revision: 0, entries: [])"),
  },
  {
    name: "previewChapterMap",
    rest: (id) => ({
      method: "PUT",
      path: `/api/manga/${id}/chapter-map?dry_run=true`,
      json: { revision: 0, entries: [] },
    }),
    gql: M("previewChapterMap(seriesId: $id, revision: 0, entries: [])"),
  },
  {
    name: "deleteChapterMap",
    rest: (id) => ({ method: "DELETE", path: `/api/manga/${id}/chapter-map`, json: { revision: 0 } }),
    gql: M("deleteChapterMap(seriesId: $id, revision: 0)"),
  },
  {
    name: "previewChapterMapRemoval",
    rest: (id) => ({ method: "DELETE", path: `/api/manga/${id}/chapter-map?dry_run=true`, json: { revision: 0 } }),
    gql: M("previewChapterMapRemoval(seriesId: $id, revision: 0)"),
  },
  {
    name: "submitReading",
    rest: (id) => post(`/api/manga/${id}/chapter-map/readings`, { volume: "1", chapters: ["1"] }),
    gql: M(`submitReading(seriesId: $id, volume: "1", chapters: ["1"])`),
  },
  {
    name: "importMapSuggestion",
    rest: (id) => post(`/api/manga/${id}/chapter-map/suggestions`, { source: "catalogue:x", entries: [] }),
    gql: M(`importMapSuggestion(seriesId: $id, source: "catalogue:x", entries: [])`),
  },
  {
    name: "previewBookStarts",
    rest: (id) =>
      post(`/api/manga/${id}/chapter-map/book-starts/preview`, { revision: 0, starts: [{ volume: "1", start: "1" }] }),
    gql: M(`previewBookStarts(seriesId: $id, revision: 0, starts: [{ volume: "1", start: "1" }])`),
  },
  {
    name: "previewSuggestedBooks",
    rest: (id) =>
      post(`/api/manga/${id}/chapter-map/suggestions/adopt?dry_run=true`, {
        source: "catalogue:mangadex",
        revision: 0,
      }),
    gql: M(`previewSuggestedBooks(seriesId: $id, source: "catalogue:mangadex", revision: 0)`),
  },
  {
    name: "adoptSuggestedBooks",
    rest: (id) => post(`/api/manga/${id}/chapter-map/suggestions/adopt`, { source: "catalogue:mangadex", revision: 0 }),
    gql: M(`adoptSuggestedBooks(seriesId: $id, source: "catalogue:mangadex", revision: 0)`),
  },
  {
    name: "verifiedBooks",
    rest: (id) => ({ path: `/api/manga/${id}/verified-books` }),
    gql: S("verifiedBooks(seriesId: $id)"),
  },
  {
    name: "verifyBook",
    rest: (id) => ({
      method: "PUT",
      path: `/api/manga/${id}/volumes/1/verification`,
      json: { digest: `sha256:${"0".repeat(64)}`, chapters: ["1"], note: "n" },
    }),
    gql: M(
      `verifyBook(seriesId: $id, volume: "1", input: { digest: "sha256:${"0".repeat(64)}", chapters: ["1"], note: "n" })`,
    ),
  },
  {
    name: "withdrawVerification",
    rest: (id) => ({ method: "DELETE", path: `/api/manga/${id}/volumes/1/verification` }),
    gql: M(`withdrawVerification(seriesId: $id, volume: "1")`, "", ""),
  },
  {
    name: "previewBookAssembly",
    rest: (id) => post(`/api/manga/${id}/volumes/1/assemble?dry_run=true`),
    gql: M(`previewBookAssembly(seriesId: $id, volume: "1")`),
  },
  {
    name: "assembleBook",
    rest: (id) => post(`/api/manga/${id}/volumes/1/assemble?dry_run=false`, { confirmation: "x" }),
    gql: M(`assembleBook(seriesId: $id, volume: "1", confirmation: "x")`),
  },
  {
    name: "previewSeriesAssembly",
    rest: (id) => post(`/api/manga/${id}/assemble?dry_run=true`),
    gql: M("previewSeriesAssembly(seriesId: $id)"),
  },
  {
    name: "assembleSeries",
    rest: (id) => post(`/api/manga/${id}/assemble?dry_run=false`, { confirmation: "x" }),
    gql: M(`assembleSeries(seriesId: $id, confirmation: "x")`),
  },
  { name: "audit", rest: (id) => ({ path: `/api/manga/${id}/audit` }), gql: S("audit(seriesId: $id)") },
  {
    name: "previewRetirement",
    rest: (id) => post(`/api/manga/${id}/audit/retire/preview`, { file_ids: [1] }),
    gql: M("previewRetirement(seriesId: $id, fileIds: [1])"),
  },
  {
    name: "retireFiles",
    rest: (id) => post(`/api/manga/${id}/audit/retire`, { confirmation: "x" }),
    gql: M(`retireFiles(seriesId: $id, confirmation: "x")`),
  },
  {
    name: "previewSourceRejection",
    rest: (id) => post(`/api/manga/${id}/audit/reject-source/preview`, { provider: "drop-folder", source_id: "w" }),
    gql: M(`previewSourceRejection(seriesId: $id, provider: "drop-folder", sourceId: "w")`),
  },
  {
    name: "rejectSource",
    rest: (id) => post(`/api/manga/${id}/audit/reject-source`, { confirmation: "x" }),
    gql: M(`rejectSource(seriesId: $id, confirmation: "x")`),
  },
  {
    name: "previewDuplicateRetirement",
    rest: (id) => post(`/api/manga/${id}/volumes/1/duplicates/preview`),
    gql: M(`previewDuplicateRetirement(seriesId: $id, volume: "1")`),
  },
  {
    name: "retireDuplicates",
    rest: (id) => post(`/api/manga/${id}/volumes/1/duplicates/retire`, { confirmation: "x" }),
    gql: M(`retireDuplicates(seriesId: $id, volume: "1", confirmation: "x")`),
  },
  {
    name: "sourceMappings",
    rest: (id) => ({ path: `/api/manga/${id}/sources` }),
    gql: S("sourceMappings(seriesId: $id)"),
  },
  {
    name: "searchSources",
    rest: (id) => post(`/api/manga/${id}/sources/search`, { provider: "drop-folder" }),
    gql: M(`searchSources(seriesId: $id, provider: "drop-folder")`),
  },
  {
    name: "linkSource",
    rest: (id) => post(`/api/manga/${id}/sources`, { provider: "drop-folder", source_id: "w", language: "en" }),
    gql: M(`linkSource(seriesId: $id, provider: "drop-folder", sourceId: "w", language: "en")`),
  },
  {
    name: "setSourcePriority (series)",
    rest: (id) => ({ method: "PATCH", path: `/api/manga/${id}/sources/1`, json: { priority: 1 } }),
    gql: M("setSourcePriority(seriesId: $id, mappingId: 1, priority: 1)"),
  },
  {
    name: "refreshSources",
    rest: (id) => post(`/api/manga/${id}/sources/refresh`),
    gql: M("refreshSources(seriesId: $id)"),
  },
  { name: "wanted", rest: (id) => ({ path: `/api/manga/${id}/wanted` }), gql: S("wanted(seriesId: $id)") },
  { name: "runWantedPass", rest: (id) => post(`/api/manga/${id}/wanted/run`), gql: M("runWantedPass(seriesId: $id)") },
  { name: "downloads", rest: (id) => ({ path: `/api/manga/${id}/downloads` }), gql: S("downloads(seriesId: $id)") },
  {
    name: "blocklist",
    rest: (id) => ({ path: `/api/blocklist?manga_id=${id}` }),
    gql: "query ($id: Int) { blocklist(seriesId: $id) { __typename } }",
    optional: true,
  },
  {
    name: "torrentJobs",
    rest: (id) => ({ path: `/api/torrents?series_id=${id}` }),
    gql: "query ($id: Int) { torrentJobs(seriesId: $id) { __typename } }",
    optional: true,
  },
  {
    name: "translationJobs",
    rest: (id) => ({ path: `/api/translations?manga_id=${id}` }),
    gql: "query ($id: Int) { translationJobs(seriesId: $id) { __typename } }",
    optional: true,
  },
  {
    name: "searchTranslations",
    rest: (id) => post(`/api/manga/${id}/translations/search`),
    gql: M("searchTranslations(seriesId: $id)"),
  },
  {
    name: "seriesCatalogue",
    rest: (id) => ({ path: `/api/manga/${id}/catalogue` }),
    gql: S("seriesCatalogue(seriesId: $id)"),
  },
  {
    name: "linkCatalogue",
    rest: (id) => post(`/api/manga/${id}/catalogue-links`, { catalogue: "mangadex", catalogue_id: MANGADEX_ID }),
    gql: M(`linkCatalogue(seriesId: $id, catalogue: MANGADEX, catalogueId: "${MANGADEX_ID}")`),
  },
  {
    name: "refreshCatalogues",
    rest: (id) => post(`/api/manga/${id}/catalogue-links/refresh`),
    gql: M("refreshCatalogues(seriesId: $id)"),
  },
  {
    name: "unlinkCatalogue",
    rest: (id) => ({ method: "DELETE", path: `/api/manga/${id}/catalogue-links/mangadex` }),
    gql: M("unlinkCatalogue(seriesId: $id, catalogue: MANGADEX)"),
  },
  {
    name: "acceptCatalogueOffer",
    rest: (id) => post(`/api/manga/${id}/catalogue-counts/accept`, { known_book_count: 3 }),
    gql: M("acceptCatalogueOffer(seriesId: $id, knownBookCount: 3)"),
  },
  {
    name: "continueReading",
    rest: (id) => ({ path: `/api/reading/continue?manga_id=${id}` }),
    gql: "query ($id: Int) { continueReading(seriesId: $id) { __typename } }",
    optional: true,
  },
  {
    name: "slotOffers",
    rest: (id) => ({ path: `/api/manga/${id}/slots/chapter/1/offers` }),
    gql: S(`slotOffers(seriesId: $id, kind: "chapter", number: "1")`),
  },
  {
    name: "downloadOffer",
    rest: (id) => post(`/api/manga/${id}/slots/chapter/1/download`, { mapping_id: 1, external_id: "x" }),
    gql: M(`downloadOffer(seriesId: $id, kind: "chapter", number: "1", mappingId: 1, externalId: "x")`),
  },
  {
    name: "searchSlot",
    rest: (id) => post(`/api/manga/${id}/slots/chapter/1/search`),
    gql: M(`searchSlot(seriesId: $id, kind: "chapter", number: "1")`),
  },
  {
    name: "setMonitored",
    rest: (id) => ({
      method: "PUT",
      path: `/api/manga/${id}/monitoring`,
      json: { kind: "chapter", number: "1", monitored: true },
    }),
    gql: M(`setMonitored(seriesId: $id, kind: CHAPTER, number: "1", monitored: true)`),
  },
  {
    name: "pageEvidence",
    rest: (id) => ({ path: `/api/manga/${id}/page-evidence` }),
    gql: S("pageEvidence(seriesId: $id)"),
  },
  {
    name: "previewPageEvidenceAdoption",
    rest: (id) => post(`/api/manga/${id}/volumes/1/page-evidence/adopt?dry_run=true`),
    gql: M(`previewPageEvidenceAdoption(seriesId: $id, volume: "1")`),
  },
  {
    name: "adoptPageEvidence",
    rest: (id) => post(`/api/manga/${id}/volumes/1/page-evidence/adopt?dry_run=false`, { confirmation: "x" }),
    gql: M(`adoptPageEvidence(seriesId: $id, volume: "1", confirmation: "x")`),
  },
];

/** Operations keyed by another id: files, downloads, blocked releases, bin entries, torrent jobs, mappings. */
const OTHER_ROWS: IdRow[] = [
  { name: "fileProgress", rest: (id) => ({ path: `/api/files/${id}/progress` }), gql: S("fileProgress(fileId: $id)") },
  {
    name: "setFileProgress",
    rest: (id) => ({ method: "PUT", path: `/api/files/${id}/progress`, json: { page: 1 } }),
    gql: M("setFileProgress(fileId: $id, page: 1)"),
  },
  {
    name: "clearFileProgress",
    rest: (id) => ({ method: "DELETE", path: `/api/files/${id}/progress` }),
    gql: M("clearFileProgress(fileId: $id)"),
  },
  { name: "filePages", rest: (id) => ({ path: `/api/files/${id}/pages` }), gql: S("filePages(fileId: $id)") },
  { name: "cancelDownload", rest: (id) => post(`/api/downloads/${id}/cancel`), gql: M("cancelDownload(id: $id)") },
  { name: "blockRelease", rest: (id) => post(`/api/downloads/${id}/block`), gql: M("blockRelease(downloadId: $id)") },
  {
    name: "unblockRelease",
    rest: (id) => ({ method: "DELETE", path: `/api/blocklist/${id}` }),
    gql: M("unblockRelease(id: $id)", "", ""),
  },
  { name: "restoreFile", rest: (id) => post(`/api/recycle-bin/${id}/restore`), gql: M("restoreFile(id: $id)") },
  {
    name: "purgeRecycleEntry",
    rest: (id) => ({ method: "DELETE", path: `/api/recycle-bin/${id}` }),
    gql: M("purgeRecycleEntry(id: $id)", "", ""),
  },
  { name: "retryTorrentJob", rest: (id) => post(`/api/torrents/${id}/retry`), gql: M("retryTorrentJob(id: $id)") },
  {
    name: "dismissTorrentJob",
    rest: (id) => post(`/api/torrents/${id}/dismiss`),
    gql: M("dismissTorrentJob(id: $id)"),
  },
  { name: "torrentFiles", rest: (id) => ({ path: `/api/torrents/${id}/files` }), gql: S("torrentFiles(id: $id)") },
  {
    name: "assignTorrentFiles",
    rest: (id) => post(`/api/torrents/${id}/assign`, { assignments: [{ file: "a.cbz", book: "1" }] }),
    gql: M(`assignTorrentFiles(id: $id, assignments: [{ file: "a.cbz", book: "1" }])`),
  },
  {
    name: "setSourcePriority (mapping)",
    rest: (id, c) => ({ method: "PATCH", path: `/api/manga/${c.seriesId}/sources/${id}`, json: { priority: 1 } }),
    gql: M("setSourcePriority(seriesId: $s, mappingId: $id, priority: 1)", "$s: Int!"),
    vars: (c) => ({ s: c.seriesId }),
  },
];

describe("REST and GraphQL agree on ids", () => {
  let app: TestApp;
  const ctx: Ctx = { seriesId: 0 };
  shareTestApp((a) => (app = a));

  it("a series to hang the other ids on", async () => {
    ctx.seriesId = (
      await expectJson<{ id: number }>(await app.api("/api/manga", { method: "POST", json: { title: "Twins" } }), 201)
    ).id;
  });

  for (const row of [...SERIES_ROWS, ...OTHER_ROWS]) {
    describe(row.name, () => {
      it("an unknown id: 404 both ways, with the same code", async () => {
        const both = await askBoth(app, row.rest(String(UNKNOWN_ID), ctx), {
          query: row.gql,
          variables: { ...row.vars?.(ctx), id: UNKNOWN_ID },
        } satisfies GqlRequest);
        expectAgree(`${row.name} ${UNKNOWN_ID}`, both);
        expect(both.rest.status, `${row.name}: REST answered ${both.rest.code}`).toBe(404);
      });
      it.each(MALFORMED_IDS)("a malformed id (%s): 400 bad_request both ways", async (text, value) => {
        const both = await askBoth(app, row.rest(encodeURIComponent(text), ctx), {
          query: row.gql,
          variables: { ...row.vars?.(ctx), id: value },
        });
        expectAgree(`${row.name} ${text}`, both);
        expect([both.rest.status, both.rest.code]).toEqual([400, "bad_request"]);
      });
    });
  }
});
