/**
 * The chapter-map use cases with strictly mocked repositories: every repository method is a mock
 * that fails the test when called without being set up, and each test states exactly which
 * repository calls happen and in what order.
 *
 * The service reads whole snapshots through loadSnapshot (repositories/snapshot-repo.ts), which
 * takes the database handle. That repository function is mocked at module level too (strict in the
 * same way) and answers with rule-core fixtures; ctx.db is an empty frozen object that nothing may use.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { mapEntry, snapshot } from "../../src/domain/test-fixtures.ts";
import type { MapSourceFacts, SeriesSnapshot } from "../../src/domain/types.ts";
import type { SeriesRow } from "../../src/repositories/series-repo.ts";
import { loadSnapshot } from "../../src/repositories/snapshot-repo.ts";
import type { AppContext } from "../../src/services/context.ts";
import { mapService } from "../../src/services/maps/map-service.ts";
import { mapRevisionBody, mapSaveBody, readingBody, suggestionBody } from "../../src/http/bodies/maps.ts";
import {
  callLog,
  expectNoUnexpectedCalls,
  failing,
  seriesRow as anySeriesRow,
  strictContext,
  strictRepos,
  type StrictRepos,
} from "./strict-mocks.ts";

/**
 * What REST hands the service: its JSON body parsed into the typed input (a malformed shape is
 * refused there, before the service reads anything), then the service's own rules.
 */
function viaRest<T>(
  parse: (body: unknown) => T,
  body: unknown,
  call: (input: T) => Promise<unknown>,
): Promise<unknown> {
  return Promise.resolve().then(() => call(parse(body)));
}

vi.mock("../../src/repositories/snapshot-repo.ts", () => ({ loadSnapshot: vi.fn() }));

const snapshotMock = vi.mocked(loadSnapshot);

/** Repository calls and loadSnapshot calls, in the order they happened. */
const calls = () => callLog(repos, { loadSnapshot: snapshotMock });

/** Series 7 "Alpha": finished, two books. */
const seriesRow = (over: Partial<SeriesRow> = {}): SeriesRow =>
  anySeriesRow({ status: "finished", knownBookCount: 2, ...over });

const source = (
  kind: MapSourceFacts["kind"],
  name: string,
  entries: MapSourceFacts["entries"],
  revision = 1,
): MapSourceFacts => ({
  id: revision * 100 + name.length,
  kind,
  name,
  revision,
  entries,
});

let unexpected: string[];
let repos: StrictRepos;
let ctx: AppContext;
let service: ReturnType<typeof mapService>;

beforeEach(() => {
  unexpected = [];
  repos = strictRepos(unexpected);
  snapshotMock.mockReset();
  snapshotMock.mockImplementation(failing("loadSnapshot", unexpected));
  ctx = strictContext(repos, "/nonexistent");
  service = mapService(ctx);
});
afterEach(() => {
  expectNoUnexpectedCalls(unexpected);
});

/** Series 7 exists; its snapshot (for views and previews) is `snap`. */
function givenSeries(row = seriesRow(), snap: SeriesSnapshot = snapshot({ series: { id: 7 } })) {
  repos.series.get.mockResolvedValue(row);
  snapshotMock.mockImplementation(async (db, id) => {
    expect(db).toBe(ctx.db);
    expect(id).toBe(7);
    return snap;
  });
}

describe("view", () => {
  it("refuses an unknown series without loading a snapshot", async () => {
    repos.series.get.mockResolvedValue(null);
    await expect(service.view(8)).rejects.toMatchObject({
      code: "series_not_found",
      status: 404,
      message: "series 8 does not exist",
    });
    expect(calls()).toEqual(["series.get"]);
  });

  it("shows the operator entries and readings; catalogue maps only as suggestions, stored estimates nowhere", async () => {
    givenSeries(
      seriesRow(),
      snapshot({
        series: { id: 7 },
        volumes: "1-3",
        chapters: "1-12",
        sources: [
          source("operator", "operator", [mapEntry("2", "5-8"), mapEntry("1", "1-4")], 4),
          source("reading", "reading", [mapEntry("3", "9-12")]),
          source("catalogue", "catalogue:db", [mapEntry("1", "1-4"), mapEntry("2", "5-8"), mapEntry("3", "9-12")]),
          source("estimate", "estimate", [mapEntry("3", "9-10")]),
        ],
      }),
    );
    const view = await service.view(7);
    expect(view).toMatchObject({
      seriesId: 7,
      revision: 4,
      entries: [mapEntry("1", "1-4"), mapEntry("2", "5-8")],
      readings: [mapEntry("3", "9-12")],
      conflicts: [],
    });
    expect(view.suggestions.map((s) => [s.name, s.kind])).toEqual([["catalogue:db", "catalogue"]]);
    expect(calls()).toEqual(["series.get", "loadSnapshot"]);
  });
});

describe("replace (PUT chapter-map)", () => {
  const valid = { revision: 2, entries: [{ volume: "1", chapters: ["1"] }] };

  it.each([
    ["a body that is not an object", "nope", "bad_request", undefined],
    ["a body that is an array", [valid], "bad_request", undefined],
    ["no revision", { entries: [] }, "bad_request", "revision"],
    ["a negative revision", { revision: -1, entries: [] }, "bad_request", "revision"],
    ["a fractional revision", { revision: 1.5, entries: [] }, "bad_request", "revision"],
    ["a revision sent as a string", { revision: "2", entries: [] }, "bad_request", "revision"],
    ["no entries", { revision: 2 }, "bad_request", "entries"],
    ["an entry without a chapter list", { revision: 2, entries: [{ volume: "1" }] }, "bad_request", "entries"],
    [
      "a volume sent as a number",
      { revision: 2, entries: [{ volume: 1, chapters: [] }] },
      "invalid_label",
      "entries[0].volume",
    ],
    [
      "a chapter sent as a float",
      { revision: 2, entries: [{ volume: "1", chapters: [10.5] }] },
      "invalid_label",
      "entries[0].chapters[0]",
    ],
    [
      "a chapter that is no number",
      { revision: 2, entries: [{ volume: "1", chapters: ["ten"] }] },
      "invalid_label",
      "entries[0].chapters[0]",
    ],
  ])("refuses %s before reading the revision or writing", async (_name, body, code, field) => {
    givenSeries();
    await expect(viaRest(mapSaveBody, body, (input) => service.replace(7, input, false))).rejects.toMatchObject({
      code,
      status: 400,
      extra: field ? { field } : {},
    });
    expect(calls().filter((c) => c !== "series.get")).toEqual([]);
  });

  it.each([
    [
      "a chapter in two books",
      [
        { volume: "1", chapters: ["3"] },
        { volume: "2", chapters: ["3"] },
      ],
      "chapter_in_two_volumes",
    ],
    [
      "a book listed twice",
      [
        { volume: "1", chapters: ["1"] },
        { volume: "01", chapters: ["2"] },
      ],
      "duplicate_volume",
    ],
    ["a chapter repeated in one book", [{ volume: "1", chapters: ["10.5", "10.50"] }], "duplicate_chapter"],
  ])("refuses %s as invalid_map with the problem listed, without writing", async (_name, entries, problem) => {
    givenSeries();
    const error = await service.replace(7, { revision: 2, entries }, false).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "invalid_map", extra: { problems: [{ code: problem }] } });
    expect(calls()).toEqual(["series.get"]);
  });

  it("refuses an unknown series", async () => {
    repos.series.get.mockResolvedValue(null);
    await expect(service.replace(8, valid, false)).rejects.toMatchObject({ code: "series_not_found" });
    expect(calls()).toEqual(["series.get"]);
  });

  it.each([false, true])("never calls replaceOperator with a stale revision (dry run %s)", async (dryRun) => {
    givenSeries();
    repos.maps.operatorRevision.mockResolvedValue(3);
    await expect(service.replace(7, valid, dryRun)).rejects.toMatchObject({
      code: "map_revision_stale",
      status: 409,
      message: "the map is at revision 3, not 2: reload it and review again",
      extra: { current_revision: 3 },
    });
    expect(repos.maps.operatorRevision).toHaveBeenCalledWith(7);
    expect(calls()).toEqual(["series.get", "maps.operatorRevision"]);
  });

  it("answers stale, and adds no slots, when another save wins between the check and the write", async () => {
    givenSeries();
    repos.maps.operatorRevision.mockResolvedValueOnce(2).mockResolvedValueOnce(3);
    repos.maps.replaceOperator.mockResolvedValue(null);
    await expect(service.replace(7, valid, false)).rejects.toMatchObject({
      code: "map_revision_stale",
      extra: { current_revision: 3 },
    });
    expect(calls()).toEqual(["series.get", "maps.operatorRevision", "maps.replaceOperator", "maps.operatorRevision"]);
  });

  it("saves canonical, sorted entries at the revision read, then makes the mapped books and chapters slots", async () => {
    givenSeries(
      seriesRow({ monitored: false }),
      snapshot({ series: { id: 7 }, sources: [source("operator", "operator", [mapEntry("1", "1-2")], 3)] }),
    );
    repos.maps.operatorRevision.mockResolvedValue(2);
    repos.maps.replaceOperator.mockResolvedValue(3);
    repos.slots.ensureVolumes.mockResolvedValue(2);
    repos.slots.ensureChapters.mockResolvedValue(5);

    const result = await service.replace(
      7,
      {
        revision: 2,
        entries: [
          { volume: "2", chapters: ["10", "9"] },
          { volume: "01", chapters: ["2", "01", "1.50"] },
          { volume: "3", chapters: [] },
        ],
      },
      false,
    );

    expect(repos.maps.replaceOperator).toHaveBeenCalledWith(7, 2, [
      { volume: "1", chapters: ["1", "1.5", "2"] },
      { volume: "2", chapters: ["9", "10"] },
      { volume: "3", chapters: [] },
    ]);
    expect(repos.slots.ensureVolumes).toHaveBeenCalledWith(7, ["1", "2", "3"], false);
    expect(repos.slots.ensureChapters).toHaveBeenCalledWith(
      7,
      ["1", "1.5", "2", "9", "10"].map((number) => ({ number })),
      false,
    );
    expect(calls()).toEqual([
      "series.get",
      "maps.operatorRevision",
      "maps.replaceOperator",
      "slots.ensureVolumes",
      "slots.ensureChapters",
      "loadSnapshot",
    ]);
    expect(result).toMatchObject({ dryRun: false, map: { seriesId: 7, revision: 3 } });
  });

  it("previews on a dry run without writing anything", async () => {
    givenSeries(seriesRow(), snapshot({ series: { id: 7, knownBookCount: 2 }, volumes: "1-2", chapters: "1-4" }));
    repos.maps.operatorRevision.mockResolvedValue(2);
    const result = await service.replace(
      7,
      {
        revision: 2,
        entries: [
          { volume: "1", chapters: ["1", "2"] },
          { volume: "2", chapters: ["3", "4"] },
        ],
      },
      true,
    );
    expect(result).toMatchObject({ dryRun: true, revision: 2, preview: { mapBefore: "none", mapAfter: "exact" } });
    expect(calls()).toEqual(["series.get", "maps.operatorRevision", "loadSnapshot"]);
  });
});

describe("remove (DELETE chapter-map)", () => {
  it.each([
    ["no revision", {}],
    ["a revision that is not an integer", { revision: "3" }],
    ["a body that is not an object", 3],
  ])("refuses %s with bad_request before reading the revision", async (_name, body) => {
    givenSeries();
    await expect(viaRest(mapRevisionBody, body, (input) => service.remove(7, input, false))).rejects.toMatchObject({
      code: "bad_request",
    });
    expect(calls().filter((c) => c !== "series.get")).toEqual([]);
  });

  it.each([false, true])("never calls replaceOperator with a stale revision (dry run %s)", async (dryRun) => {
    givenSeries();
    repos.maps.operatorRevision.mockResolvedValue(5);
    await expect(service.remove(7, { revision: 4 }, dryRun)).rejects.toMatchObject({
      code: "map_revision_stale",
      extra: { current_revision: 5 },
    });
    expect(calls()).toEqual(["series.get", "maps.operatorRevision"]);
  });

  it("removes the operator entries only, at the revision read, and adds no slots", async () => {
    givenSeries();
    repos.maps.operatorRevision.mockResolvedValue(4);
    repos.maps.replaceOperator.mockResolvedValue(5);
    const result = await service.remove(7, { revision: 4 }, false);
    expect(repos.maps.replaceOperator).toHaveBeenCalledWith(7, 4, null);
    expect(calls()).toEqual(["series.get", "maps.operatorRevision", "maps.replaceOperator", "loadSnapshot"]);
    expect(result.dryRun).toBe(false);
  });

  it("answers stale when another save wins between the check and the delete", async () => {
    givenSeries();
    repos.maps.operatorRevision.mockResolvedValueOnce(4).mockResolvedValueOnce(6);
    repos.maps.replaceOperator.mockResolvedValue(null);
    await expect(service.remove(7, { revision: 4 }, false)).rejects.toMatchObject({
      code: "map_revision_stale",
      extra: { current_revision: 6 },
    });
    expect(calls()).toEqual(["series.get", "maps.operatorRevision", "maps.replaceOperator", "maps.operatorRevision"]);
  });
});

describe("addReading (POST chapter-map/readings)", () => {
  it.each([
    ["no chapters", { volume: "2", chapters: [] }, "invalid_map"],
    ["no chapter list", { volume: "2" }, "bad_request"],
    ["a volume sent as a number", { volume: 2, chapters: ["4"] }, "invalid_label"],
    ["a chapter that is no number", { volume: "2", chapters: ["four"] }, "invalid_label"],
    ["a chapter given twice", { volume: "2", chapters: ["4", "4.0"] }, "invalid_map"],
  ])("refuses %s without reading the map or writing", async (_name, body, code) => {
    givenSeries();
    await expect(viaRest(readingBody, body, (input) => service.addReading(7, input))).rejects.toMatchObject({ code });
    expect(calls().filter((c) => c !== "series.get")).toEqual([]);
  });

  it("refuses chapters another book already holds in the operator map or a reading (422), without writing", async () => {
    givenSeries();
    repos.maps.sources.mockResolvedValue([
      source("operator", "operator", [mapEntry("1", "1-5"), mapEntry("2", "6-8")]),
      source("reading", "reading", [mapEntry("3", "9-10")]),
      // Suggestions and estimates never block a reading.
      source("catalogue", "catalogue:db", [mapEntry("1", "1-12")]),
      source("estimate", "estimate", [mapEntry("4", "11-12")]),
    ]);
    await expect(service.addReading(7, { volume: "2", chapters: ["5", "6", "9", "11", "12"] })).rejects.toMatchObject({
      code: "reading_conflicts_with_map",
      status: 422,
      extra: { chapters: ["5 (vol 1)", "9 (vol 3)"] },
    });
    expect(calls()).toEqual(["series.get", "maps.sources"]);
  });

  it("records the reading sorted and makes its book and chapters slots", async () => {
    givenSeries(seriesRow({ monitored: true }));
    repos.maps.sources.mockResolvedValue([source("operator", "operator", [mapEntry("2", "4-5")])]);
    repos.maps.upsertReading.mockResolvedValue(undefined);
    repos.slots.ensureVolumes.mockResolvedValue(1);
    repos.slots.ensureChapters.mockResolvedValue(2);

    await service.addReading(7, { volume: "02", chapters: ["6", "4.5", "5"] });

    expect(repos.maps.upsertReading).toHaveBeenCalledWith(7, { volume: "2", chapters: ["4.5", "5", "6"] });
    expect(repos.slots.ensureVolumes).toHaveBeenCalledWith(7, ["2"], true);
    expect(repos.slots.ensureChapters).toHaveBeenCalledWith(
      7,
      [{ number: "4.5" }, { number: "5" }, { number: "6" }],
      true,
    );
    expect(calls()).toEqual([
      "series.get",
      "maps.sources",
      "maps.upsertReading",
      "slots.ensureVolumes",
      "slots.ensureChapters",
      "loadSnapshot",
    ]);
  });
});

describe("addSuggestion (POST chapter-map/suggestions)", () => {
  it.each([
    ["no source", { entries: [] }],
    ["an estimate", { source: "estimate:even-split", entries: [] }],
    ["the operator", { source: "operator", entries: [] }],
    ["a kind without a name", { source: "catalogue:", entries: [] }],
    ["a name with a slash", { source: "official:a/b", entries: [] }],
  ])("refuses %s as suggestion_source_invalid (422) without writing", async (_name, body) => {
    givenSeries();
    await expect(viaRest(suggestionBody, body, (input) => service.addSuggestion(7, input))).rejects.toMatchObject({
      code: "suggestion_source_invalid",
      status: 422,
      extra: { field: "source" },
    });
    expect(calls().filter((c) => c !== "series.get")).toEqual([]);
  });

  it("stores a catalogue or official map verbatim as a suggestion, never as operator entries", async () => {
    givenSeries();
    repos.maps.replaceSuggestion.mockResolvedValue(41);
    const body = {
      source: "official:Publisher",
      entries: [{ volume: "2", chapters: ["9", "8"] }],
      note: "kept verbatim",
    };

    await service.addSuggestion(7, suggestionBody(body));

    expect(repos.maps.replaceSuggestion).toHaveBeenCalledWith(
      7,
      "official",
      "official:Publisher",
      JSON.stringify(body),
      [{ volume: "2", chapters: ["9", "8"] }],
    );
    expect(calls()).toEqual(["series.get", "maps.replaceSuggestion", "loadSnapshot"]);
  });
});
