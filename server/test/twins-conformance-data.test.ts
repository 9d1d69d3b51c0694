/**
 * REST and GraphQL agree on good answers (docs/api.md): the same operation asked both ways on the
 * same state carries the same data, field names aside (snake_case against camelCase, GraphQL enums
 * against REST's lowercase words). What GraphQL selects must be in REST's answer with the same value.
 * An empty service, a library folder and a drop folder written here, the public API only.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cbz, expectJson, scanLibrary } from "./fixtures.ts";
import { askBoth, expectSameData, type GqlRequest, type RestRequest } from "./twins-harness.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

interface Ctx {
  seriesId: number;
  fileId: number;
  chapterFileId: number;
  mappingId: number;
}
interface DataRow {
  name: string;
  rest: (c: Ctx) => RestRequest;
  gql: (c: Ctx) => GqlRequest;
  /** REST's answer reduced to what GraphQL answers (a different envelope, volatile tokens). */
  pick?: (rest: unknown) => unknown;
  pickGql?: (gql: unknown) => unknown;
}

const q = (query: string, variables: Record<string, unknown> = {}): GqlRequest => ({ query, variables });
const S = (c: Ctx) => ({ id: c.seriesId });

const SERIES_FIELDS = `id title folder form formOverride language originalLanguage monitored status knownBookCount
  editionBookCount webtoon planWording assembleBooksAutomatically translationFallbackEnabled translationSourceLanguages`;
const AUDIT_FILE = `id path size pageCount kind number numberEnd part language state origin flags blackShare
  source { provider sourceId } thumbnails { first last }`;
const MAPPING = `id seriesId providerId provider providerKind displayName sourceId language priority state offers available
  health { status recent published degraded failed lastProblemAt }`;
const PROGRESS = "fileId page completed pageCount updatedAt device";

const ROWS: DataRow[] = [
  {
    name: "series",
    rest: (c) => ({ path: `/api/manga/${c.seriesId}` }),
    gql: (c) => q(`query ($id: Int!) { series(id: $id) { ${SERIES_FIELDS} } }`, S(c)),
  },
  { name: "seriesList", rest: () => ({ path: "/api/manga" }), gql: () => q(`{ seriesList { ${SERIES_FIELDS} } }`) },
  {
    name: "units",
    rest: (c) => ({ path: `/api/manga/${c.seriesId}/units` }),
    gql: (c) =>
      q(
        `query ($id: Int!) { units(seriesId: $id) { seriesId form map status planWording units { kind number book owned
          monitored coverage plan estimatedBook pageCount fileIds problems extra duplicateFileIds } } }`,
        S(c),
      ),
    // One enum value is named shorter than REST's words (a GraphQL name cannot hold them).
    pickGql: (g) =>
      JSON.parse(
        JSON.stringify(g).replaceAll('"ASSEMBLE_WHEN_CHAPTERS_COMPLETE"', '"ASSEMBLE_WHEN_ITS_CHAPTERS_ARE_COMPLETE"'),
      ) as unknown,
  },
  {
    name: "chapterMap",
    rest: (c) => ({ path: `/api/manga/${c.seriesId}/chapter-map` }),
    gql: (c) =>
      q(
        `query ($id: Int!) { chapterMap(seriesId: $id) { seriesId revision state entries { volume chapters }
          readings { volume chapters } conflicts { chapter books } suggestions { source kind revision
          entries { volume chapters status adoptable conflicts { chapter volumes scope } } } } }`,
        S(c),
      ),
  },
  {
    name: "verifiedBooks",
    rest: (c) => ({ path: `/api/manga/${c.seriesId}/verified-books` }),
    gql: (c) =>
      q(
        `query ($id: Int!) { verifiedBooks(seriesId: $id) { volume fileId digest chapters suspectReason verified } }`,
        S(c),
      ),
  },
  {
    name: "audit",
    rest: (c) => ({ path: `/api/manga/${c.seriesId}/audit?sort=-size` }),
    gql: (c) =>
      q(
        `query ($id: Int!) { audit(seriesId: $id, sort: "-size") { seriesId page pageSize total files { ${AUDIT_FILE} } } }`,
        S(c),
      ),
  },
  {
    name: "previewRetirement",
    rest: (c) => ({
      method: "POST",
      path: `/api/manga/${c.seriesId}/audit/retire/preview`,
      json: { file_ids: [c.chapterFileId] },
    }),
    gql: (c) =>
      q(
        `mutation ($id: Int!, $f: [Int!]!) { previewRetirement(seriesId: $id, fileIds: $f) { files { ${AUDIT_FILE} } } }`,
        {
          ...S(c),
          f: [c.chapterFileId],
        },
      ),
  },
  {
    name: "previewSeriesAssembly",
    rest: (c) => ({ method: "POST", path: `/api/manga/${c.seriesId}/assemble?dry_run=true` }),
    gql: (c) =>
      q(
        `mutation ($id: Int!) { previewSeriesAssembly(seriesId: $id) { seriesId books { volume status code detail } } }`,
        S(c),
      ),
  },
  {
    name: "previewBookAssembly",
    rest: (c) => ({ method: "POST", path: `/api/manga/${c.seriesId}/volumes/2/assemble?dry_run=true` }),
    gql: (c) =>
      q(
        `mutation ($id: Int!) { previewBookAssembly(seriesId: $id, volume: "2") { volume fileName path
          chapters { number fileIds } files { id path sha256 size } } }`,
        S(c),
      ),
  },
  {
    name: "previewSourceRejection",
    rest: (c) => ({
      method: "POST",
      path: `/api/manga/${c.seriesId}/audit/reject-source/preview`,
      json: { provider: "drop-folder", source_id: "Work" },
    }),
    gql: (c) =>
      q(
        `mutation ($id: Int!) { previewSourceRejection(seriesId: $id, provider: "drop-folder", sourceId: "Work") {
          provider sourceId language offers files { ${AUDIT_FILE} } } }`,
        S(c),
      ),
  },
  {
    name: "refreshSources",
    rest: (c) => ({ method: "POST", path: `/api/manga/${c.seriesId}/sources/refresh` }),
    gql: (c) =>
      q(
        `mutation ($id: Int!) { refreshSources(seriesId: $id) { seriesId mappings { mappingId provider sourceId status error
          offers added updated removed overridesApplied } } }`,
        S(c),
      ),
  },
  {
    name: "filePages",
    rest: (c) => ({ path: `/api/files/${c.fileId}/pages` }),
    gql: (c) =>
      q(
        `query ($f: Int!) { filePages(fileId: $f) { fileId seriesId kind number pageCount pages { index name width height } } }`,
        {
          f: c.fileId,
        },
      ),
  },
  {
    name: "setMonitored",
    rest: (c) => ({
      method: "PUT",
      path: `/api/manga/${c.seriesId}/monitoring`,
      json: { kind: "chapter", number: "4", monitored: false },
    }),
    gql: (c) =>
      q(
        `mutation ($id: Int!) { setMonitored(seriesId: $id, kind: CHAPTER, number: "4", monitored: false) { kind number owned monitored coverage fileIds } }`,
        S(c),
      ),
  },
  { name: "calendarFeed", rest: () => ({ path: "/api/calendar/feed" }), gql: () => q(`{ calendarFeed { path } }`) },
  {
    name: "previewChapterMap",
    rest: (c) => ({
      method: "PUT",
      path: `/api/manga/${c.seriesId}/chapter-map?dry_run=true`,
      json: {
        revision: 1,
        entries: [
          { volume: "1", chapters: ["1", "2", "3"] },
          { volume: "2", chapters: ["4", "5"] },
        ],
      },
    }),
    gql: (c) =>
      q(
        `mutation ($id: Int!) { previewChapterMap(seriesId: $id, revision: 1, entries: [{ volume: "1", chapters: ["1", "2", "3"] }, { volume: "2", chapters: ["4", "5"] }]) {
          revision mapBefore mapAfter becomeDuplicateFileIds stopDuplicateFileIds
          chapters { number before { book coverage wanted } after { book coverage wanted } becomeDuplicates stopDuplicates }
          books { number before { chapters coverage coversChapters wanted } after { chapters coverage coversChapters wanted } } } }`,
        S(c),
      ),
  },
  {
    name: "recycleBin",
    rest: () => ({ path: "/api/recycle-bin" }),
    gql: () =>
      q(`{ recycleBin { id fileId seriesId originalPath binPath size sha256 reason recycledAt restorableUntil } }`),
  },
  {
    name: "sourceMappings",
    rest: (c) => ({ path: `/api/manga/${c.seriesId}/sources` }),
    gql: (c) => q(`query ($id: Int!) { sourceMappings(seriesId: $id) { ${MAPPING} } }`, S(c)),
  },
  {
    name: "setSourcePriority",
    rest: (c) => ({ method: "PATCH", path: `/api/manga/${c.seriesId}/sources/${c.mappingId}`, json: { priority: 7 } }),
    gql: (c) =>
      q(
        `mutation ($id: Int!, $m: Int!) { setSourcePriority(seriesId: $id, mappingId: $m, priority: 7) { ${MAPPING} } }`,
        {
          ...S(c),
          m: c.mappingId,
        },
      ),
  },
  {
    name: "searchSources",
    rest: (c) => ({
      method: "POST",
      path: `/api/manga/${c.seriesId}/sources/search`,
      json: { provider: "drop-folder" },
    }),
    gql: (c) =>
      q(
        `mutation ($id: Int!) { searchSources(seriesId: $id, provider: "drop-folder") { providerId provider
          works { sourceId title language sourceName thumbnailUrl linked rejected } } }`,
        S(c),
      ),
  },
  {
    name: "providers",
    rest: () => ({ path: "/api/providers" }),
    gql: () => q(`{ providers { id name kind displayName language baseUrl enabled priority available } }`),
  },
  {
    name: "sourceSettings",
    rest: () => ({ path: "/api/settings/sources" }),
    gql: () => q(`{ sourceSettings { suwayomi { enabled url auth username password passwordSet configured } } }`),
    pickGql: (g) => ({ suwayomi: (g as { suwayomi: unknown }).suwayomi }),
  },
  {
    name: "downloadSettings",
    rest: () => ({ path: "/api/settings/downloads" }),
    gql: () => q(`{ downloadSettings { languages } }`),
  },
  {
    name: "indexerSettings",
    rest: () => ({ path: "/api/settings/indexer" }),
    gql: () =>
      q(`{ indexerSettings { active prowlarr { enabled url apiKey apiKeySet } qbittorrent { enabled url username password
        passwordSet category tag savePath retention } } }`),
  },
  {
    name: "translationSettings",
    rest: () => ({ path: "/api/settings/translation" }),
    gql: () =>
      q(
        `{ translationSettings { enabled sourceLanguages engine ai { baseUrl model apiKey apiKeySet } processor { url token tokenSet } } }`,
      ),
  },
  {
    name: "catalogueSettings",
    rest: () => ({ path: "/api/settings/catalogues" }),
    gql: () =>
      q(
        `{ catalogueSettings { mangadex { enabled baseUrl coverBaseUrl } mangaupdates { enabled baseUrl } anilist { enabled baseUrl } } }`,
      ),
  },
  {
    name: "seriesCatalogue",
    rest: (c) => ({ path: `/api/manga/${c.seriesId}/catalogue` }),
    gql: (c) =>
      q(
        `query ($id: Int!) { seriesCatalogue(seriesId: $id) { seriesId links { catalogue } metadata { description alternativeTitles
          authors genres coverUrl } offers { field } suggestion { source } } }`,
        S(c),
      ),
  },
  {
    name: "wanted",
    rest: (c) => ({ path: `/api/manga/${c.seriesId}/wanted` }),
    gql: (c) =>
      q(
        `query ($id: Int!) { wanted(seriesId: $id) { seriesId lastPassAt nextPassAt emptyPasses entries { kind number reason } } }`,
        S(c),
      ),
  },
  {
    name: "downloads",
    rest: (c) => ({ path: `/api/manga/${c.seriesId}/downloads` }),
    gql: (c) => q(`query ($id: Int!) { downloads(seriesId: $id) { id } }`, S(c)),
  },
  { name: "downloadQueue", rest: () => ({ path: "/api/downloads" }), gql: () => q(`{ downloadQueue { id } }`) },
  {
    name: "blocklist",
    rest: (c) => ({ path: `/api/blocklist?manga_id=${c.seriesId}` }),
    gql: (c) => q(`query ($id: Int) { blocklist(seriesId: $id) { id } }`, S(c)),
  },
  {
    name: "torrentJobs",
    rest: (c) => ({ path: `/api/torrents?series_id=${c.seriesId}` }),
    gql: (c) => q(`query ($id: Int) { torrentJobs(seriesId: $id) { id } }`, S(c)),
  },
  {
    name: "translationJobs",
    rest: (c) => ({ path: `/api/translations?manga_id=${c.seriesId}` }),
    gql: (c) => q(`query ($id: Int) { translationJobs(seriesId: $id) { id } }`, S(c)),
  },
  {
    name: "fileProgress",
    rest: (c) => ({ path: `/api/files/${c.fileId}/progress` }),
    gql: (c) => q(`query ($f: Int!) { fileProgress(fileId: $f) { ${PROGRESS} } }`, { f: c.fileId }),
  },
  {
    name: "continueReading",
    rest: (c) => ({ path: `/api/reading/continue?manga_id=${c.seriesId}` }),
    gql: (c) =>
      q(
        `query ($id: Int) { continueReading(seriesId: $id) { fileId seriesId seriesTitle kind number title progress { page completed pageCount updatedAt device } } }`,
        S(c),
      ),
    // REST spreads the place into the entry; GraphQL nests it under `progress`.
    pickGql: (g) =>
      (g as { progress: Record<string, unknown> }[]).map(({ progress, ...rest }) => ({ ...rest, ...progress })),
  },
  {
    name: "calendar",
    rest: () => ({ path: "/api/calendar?from=2030-01-01&to=2030-01-31" }),
    gql: () =>
      q(`{ calendar(from: "2030-01-01", to: "2030-01-31") { from to entries { seriesId } overdue { seriesId } } }`),
  },
  {
    name: "slotOffers",
    rest: (c) => ({ path: `/api/manga/${c.seriesId}/slots/chapter/1/offers` }),
    gql: (c) =>
      q(
        `query ($id: Int!) { slotOffers(seriesId: $id, kind: "chapter", number: "1") { seriesId kind number reason offers { mappingId } } }`,
        S(c),
      ),
  },
  {
    name: "rules",
    rest: () => ({ path: "/api/rules" }),
    gql: () =>
      q(
        `{ rules { maxBlackShare fewPages oversizedBookPages sourcePriorityMin sourcePriorityMax calendarMinReleases calendarMinIntervalDays calendarMaxIntervalDays calendarOverdueIntervals recycleRetentionDays } }`,
      ),
  },
  {
    name: "labelOrder",
    rest: () => ({ method: "POST", path: "/api/labels/order", json: { labels: ["10", "2", "x", "2.5"] } }),
    gql: () => q(`{ labelOrder(labels: ["10", "2", "x", "2.5"]) { labels rejected nextWhole } }`),
  },
];

describe("REST and GraphQL agree on good answers", () => {
  let app: TestApp;
  const ctx: Ctx = { seriesId: 0, fileId: 0, chapterFileId: 0, mappingId: 0 };
  shareTestApp((a) => (app = a));

  it("a series with a book, chapters, a map, a reading, a source, a place and a retired file", async () => {
    const s = await expectJson<{ id: number; folder: string }>(
      await app.api("/api/manga", { method: "POST", json: { title: "Data", known_book_count: 2 } }),
      201,
    );
    ctx.seriesId = s.id;
    const files = [
      ["Data v01.cbz", 12],
      ["Data - c004.cbz", 5],
      ["Data - c005.cbz", 6],
      ["Data - c006.cbz", 7],
      ["Data - c007.cbz", 8],
    ] as const;
    for (const [name, pages] of files) {
      const file = path.join(app.config.libraryRoot, s.folder, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, await cbz(pages));
    }
    expect((await scanLibrary(app)).errors).toEqual([]);
    const units = await expectJson<{ units: { kind: string; number: string; file_ids: number[] }[] }>(
      await app.api(`/api/manga/${s.id}/units`),
      200,
    );
    const fileOf = (kind: string, n: string) =>
      units.units.find((u) => u.kind === kind && u.number === n)!.file_ids[0]!;
    ctx.fileId = fileOf("book", "1");
    ctx.chapterFileId = fileOf("chapter", "5");
    const put = (p: string, json: unknown) => app.api(p, { method: "PUT", json });
    await expectJson(
      await put(`/api/manga/${s.id}/chapter-map`, {
        revision: 0,
        entries: [{ volume: "1", chapters: ["1", "2", "3"] }],
      }),
      200,
    );
    await expectJson(
      await app.api(`/api/manga/${s.id}/chapter-map/readings`, {
        method: "POST",
        json: { volume: "2", chapters: ["4", "5", "6"] },
      }),
      201,
    );
    await expectJson(
      await app.api(`/api/manga/${s.id}/chapter-map/suggestions`, {
        method: "POST",
        json: { source: "catalogue:twins", entries: [{ volume: "3", chapters: ["7"] }] },
      }),
      201,
    );
    await mkdir(path.join(app.config.dataDir, "drop", "Work"), { recursive: true });
    ctx.mappingId = (
      await expectJson<{ mapping: { id: number } }>(
        await app.api(`/api/manga/${s.id}/sources`, {
          method: "POST",
          json: { provider: "drop-folder", source_id: "Work", language: "en" },
        }),
        201,
      )
    ).mapping.id;
    await expectJson(await put(`/api/files/${ctx.fileId}/progress`, { page: 3 }), 200);
    await expectJson(await put("/api/settings/downloads", { languages: ["fr", "de"] }), 200);
    const retired = await expectJson<{ confirmation: string }>(
      await app.api(`/api/manga/${s.id}/audit/retire/preview`, {
        method: "POST",
        json: { file_ids: [fileOf("chapter", "7")] },
      }),
      200,
    );
    await expectJson(
      await app.api(`/api/manga/${s.id}/audit/retire`, {
        method: "POST",
        json: { confirmation: retired.confirmation },
      }),
      200,
    );
  });

  it.each(ROWS.map((r) => [r.name, r] as const))("%s: the same data both ways", async (name, row) => {
    const { rest, gql } = await askBoth(app, row.rest(ctx), row.gql(ctx));
    expect([rest.status < 300, gql.status < 300], `${name}: ${rest.code} / ${gql.code}`).toEqual([true, true]);
    expectSameData(name, row.pick ? row.pick(rest.data) : rest.data, row.pickGql ? row.pickGql(gql.data) : gql.data);
  });
});
