/**
 * The map editor's book starts: `ChapterMap.bookStarts` from the operator entries, and the plan
 * from starts (domain/map-editor.ts) with its coverage preview, over REST
 * (POST /api/manga/{id}/chapter-map/book-starts/preview) and GraphQL (previewBookStarts) — the same
 * answer and the same error codes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectJson, expectProblem, type RestMap } from "./fixtures.ts";
import { gqlEnum, seriesByTitle } from "./web-support-helpers.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const CHAPTER_SIDE = "coverage book wanted";
const BOOK_SIDE = "coverage coversChapters chapters wanted";
const PLAN = `entries { volume chapters } problems { code message volume } warnings { code message volume } lastEnd lastEndReason
  preview { revision mapBefore mapAfter becomeDuplicateFileIds stopDuplicateFileIds
    chapters { number before { ${CHAPTER_SIDE} } after { ${CHAPTER_SIDE} } becomeDuplicates stopDuplicates }
    books { number before { ${BOOK_SIDE} } after { ${BOOK_SIDE} } becomeDuplicates stopDuplicates } }`;
const PREVIEW = `mutation($id: Int!, $revision: Int!, $starts: [BookStartInput!]!, $lastEnd: String) {
  previewBookStarts(seriesId: $id, revision: $revision, starts: $starts, lastEnd: $lastEnd) { ${PLAN} } }`;

interface Start {
  volume: string;
  start: string;
}
type Side = Record<string, unknown>;
interface RestChange {
  number: string;
  before: Side;
  after: Side;
  become_duplicates: number[];
  stop_duplicates: number[];
}
interface RestPlan {
  revision: number;
  entries: { volume: string; chapters: string[] }[];
  problems: { code: string; message: string; volume: string | null }[];
  warnings: { code: string; message: string; volume: string }[];
  last_end: string | null;
  last_end_reason: string;
  preview: null | {
    revision: number;
    map_before: string;
    map_after: string;
    chapters: RestChange[];
    books: RestChange[];
    become_duplicate_file_ids: number[];
    stop_duplicate_file_ids: number[];
  };
}

/** The REST plan as GraphQL spells it (camelCase, enum names in capitals). */
function restToGql(p: RestPlan) {
  const side = (s: Side) =>
    Object.fromEntries(
      Object.entries(s).map(([k, v]) => [
        k.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()),
        k === "coverage" ? gqlEnum(v as string | null) : v,
      ]),
    );
  const change = (c: RestChange) => ({
    number: c.number,
    before: side(c.before),
    after: side(c.after),
    becomeDuplicates: c.become_duplicates,
    stopDuplicates: c.stop_duplicates,
  });
  return {
    entries: p.entries,
    problems: p.problems,
    warnings: p.warnings,
    lastEnd: p.last_end,
    lastEndReason: p.last_end_reason,
    preview: p.preview && {
      revision: p.preview.revision,
      mapBefore: gqlEnum(p.preview.map_before),
      mapAfter: gqlEnum(p.preview.map_after),
      becomeDuplicateFileIds: p.preview.become_duplicate_file_ids,
      stopDuplicateFileIds: p.preview.stop_duplicate_file_ids,
      chapters: p.preview.chapters.map(change),
      books: p.preview.books.map(change),
    },
  };
}

describe("book starts over REST and GraphQL", () => {
  let app: TestApp;
  let ids: Map<string, number>;

  beforeAll(async () => {
    app = await createTestApp({ demo: true });
    ids = await seriesByTitle(app);
  });
  afterAll(async () => {
    await app?.dispose();
  });

  const map = async (id: number) => expectJson<RestMap>(await app.api(`/api/manga/${id}/chapter-map`), 200);
  const rest = (id: number, body: unknown) =>
    app.api(`/api/manga/${id}/chapter-map/book-starts/preview`, { method: "POST", json: body });
  const both = async (id: number, revision: number, starts: Start[], lastEnd: string | null = null) => {
    const r = await expectJson<RestPlan>(await rest(id, { revision, starts, last_end: lastEnd }), 200);
    const g = await app.gql<{ previewBookStarts: unknown }>(PREVIEW, { id, revision, starts, lastEnd });
    expect(g.errors).toBeUndefined();
    expect(g.data?.previewBookStarts, "GraphQL equals REST").toEqual(restToGql(r));
    expect(r.revision).toBe(revision);
    return r;
  };

  it("ChapterMap.bookStarts: the first chapter of each operator entry (Harbor: 8 chapters a book)", async () => {
    const g = await app.gql<{ chapterMap: { bookStarts: Start[] } }>(
      `query($id: Int!) { chapterMap(seriesId: $id) { bookStarts { volume start } } }`,
      {
        id: ids.get("Harbor of Paper Cranes"),
      },
    );
    expect(g.data?.chapterMap.bookStarts).toEqual(
      ["1", "9", "17", "25", "33"].map((start, i) => ({ volume: String(i + 1), start })),
    );
    const none = await app.gql<{ chapterMap: { bookStarts: Start[] } }>(
      `query($id: Int!) { chapterMap(seriesId: $id) { bookStarts { volume start } } }`,
      {
        id: ids.get("Moss & Meteor"),
      },
    );
    expect(none.data?.chapterMap.bookStarts).toEqual([]);
  });

  it("Harbor's own starts give back its entries: the saved last book keeps its end, nothing changes", async () => {
    const id = ids.get("Harbor of Paper Cranes")!;
    const m = await map(id);
    const starts = ["1", "9", "17", "25", "33"].map((start, i) => ({ volume: String(i + 1), start }));
    const plan = await both(id, m.revision, starts);
    expect(plan).toMatchObject({ problems: [], warnings: [], last_end: "40.5", last_end_reason: "saved" });
    expect(plan.entries).toEqual(m.entries);
    expect(plan.preview).toMatchObject({
      map_before: "exact",
      map_after: "exact",
      chapters: [],
      books: [],
      become_duplicate_file_ids: [],
      stop_duplicate_file_ids: [],
    });
  });

  it("Moss (paused, no map): the last book's end is not implied, a warning asks for it; the preview shows the change; saving the entries works", async () => {
    const id = ids.get("Moss & Meteor")!;
    const m = await map(id);
    const starts = [
      { volume: "2", start: "7" },
      { volume: "1", start: "1" },
    ];
    const plan = await both(id, m.revision, starts);
    expect(plan.entries).toEqual([
      { volume: "1", chapters: ["1", "2", "3", "4", "5", "6"] },
      { volume: "2", chapters: [] },
    ]);
    expect(plan).toMatchObject({
      problems: [],
      last_end: null,
      last_end_reason: "unknown",
      warnings: [{ code: "last_book_end_unknown", volume: "2" }],
    });
    expect(plan.preview?.map_before).toBe("none");
    // Book 1 was found by the scan: a hand import covers its chapters only once it is verified.
    expect(plan.preview?.books.find((b) => b.number === "1")?.after).toMatchObject({
      covers_chapters: false,
      chapters: ["1", "2", "3", "4", "5", "6"],
    });

    // With the end given the last book is exact too.
    const ended = await both(id, m.revision, starts, "12");
    expect(ended).toMatchObject({ warnings: [], last_end: "12", last_end_reason: "given" });
    expect(ended.entries[1]).toEqual({ volume: "2", chapters: ["7", "8", "9", "10", "11", "12"] });

    const saved = await app.gql<{ saveChapterMap: { revision: number; bookStarts: Start[] } }>(
      `mutation($id: Int!, $revision: Int!, $entries: [MapEntryInput!]!) { saveChapterMap(seriesId: $id, revision: $revision, entries: $entries) { revision bookStarts { volume start } } }`,
      { id, revision: m.revision, entries: ended.entries },
    );
    expect(saved.errors).toBeUndefined();
    expect(saved.data?.saveChapterMap).toEqual({
      revision: m.revision + 1,
      bookStarts: [
        { volume: "1", start: "1" },
        { volume: "2", start: "7" },
      ],
    });
  });

  it("problems: no entries and no preview", async () => {
    const id = ids.get("The Clockmaker's Apprentice")!;
    const m = await map(id);
    const plan = await both(id, m.revision, [
      { volume: "1", start: "5" },
      { volume: "2", start: "3" },
      { volume: "x", start: "1" },
    ]);
    expect(plan.entries).toEqual([]);
    expect(plan.preview).toBeNull();
    expect(plan.problems.map((p) => [p.code, p.volume])).toEqual([
      ["invalid_volume", "x"],
      ["starts_not_increasing", "2"],
    ]);
    const before = await both(id, m.revision, [{ volume: "1", start: "5" }], "4");
    expect(before.problems).toMatchObject([{ code: "end_before_start", volume: "1" }]);
    const badEnd = await both(id, m.revision, [{ volume: "1", start: "5" }], "four");
    expect(badEnd.problems).toMatchObject([{ code: "invalid_chapter", volume: null }]);
  });

  it("a stale revision → map_revision_stale; an unknown series → series_not_found; malformed bodies → bad_request / invalid_label", async () => {
    const id = ids.get("The Clockmaker's Apprentice")!;
    const m = await map(id);
    const starts = [{ volume: "1", start: "1" }];
    await expectProblem(await rest(id, { revision: m.revision + 5, starts }), 409, "map_revision_stale");
    const g = await app.gql(PREVIEW, { id, revision: m.revision + 5, starts });
    expect(g.errors?.[0]?.extensions).toMatchObject({
      code: "map_revision_stale",
      status: 409,
      current_revision: m.revision,
    });
    await expectProblem(await rest(424242, { revision: 0, starts }), 404, "series_not_found");
    expect((await app.gql(PREVIEW, { id: 424242, revision: 0, starts })).errors?.[0]?.extensions?.code).toBe(
      "series_not_found",
    );
    await expectProblem(await rest(id, { revision: m.revision, starts: "1,2" }), 400, "bad_request");
    await expectProblem(
      await rest(id, { revision: m.revision, starts: [{ volume: 1, start: "1" }] }),
      400,
      "invalid_label",
    );
    await expectProblem(await rest(id, { revision: m.revision, starts, last_end: 12 }), 400, "invalid_label");
    await expectProblem(await rest(id, { starts }), 400, "bad_request");
    // No book at all is no map: 422 (removing the map is DELETE).
    await expectProblem(await rest(id, { revision: m.revision, starts: [] }), 422, "book_starts_empty");
    expect((await app.gql(PREVIEW, { id, revision: m.revision, starts: [] })).errors?.[0]?.extensions).toMatchObject({
      code: "book_starts_empty",
      status: 422,
    });
  });

  it("moving only the start of a saved last book keeps its saved end", async () => {
    const id = ids.get("Harbor of Paper Cranes")!;
    const m = await map(id);
    const starts = ["1", "9", "17", "25", "34"].map((start, i) => ({ volume: String(i + 1), start }));
    const plan = await both(id, m.revision, starts);
    expect(plan).toMatchObject({ last_end: "40.5", last_end_reason: "saved" });
    expect(plan.entries[4]?.chapters.at(0)).toBe("34");
    expect(plan.entries[4]?.chapters.at(-1)).toBe("40.5");
    expect(plan.entries[3]?.chapters.at(-1)).toBe("33");
  });
});
