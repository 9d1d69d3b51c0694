/**
 * Monitoring from the row menu: PUT /api/manga/{id}/monitoring and GraphQL setMonitored answer the
 * unit as the units view shows it, agree with each other, create the slot of a unit the series
 * lists without one, refuse numbers the series does not know, and publish series_changed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LibraryEvent } from "../src/events.ts";
import {
  createSeriesWithFiles,
  expectJson,
  expectProblem,
  scanLibrary,
  unitOf,
  type RestUnit,
  type RestUnits,
} from "./fixtures.ts";
import { gqlUnit } from "./web-support-helpers.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const UNIT =
  "kind number book owned monitored coverage plan estimatedBook pageCount fileIds duplicateFileIds problems extra";
const SET = `mutation($id: Int!, $kind: UnitKind!, $number: String!, $monitored: Boolean!) {
  setMonitored(seriesId: $id, kind: $kind, number: $number, monitored: $monitored) { ${UNIT} } }`;

describe("setMonitored over REST and GraphQL", () => {
  let app: TestApp;
  let id: number;

  beforeAll(async () => {
    app = await createTestApp();
    id = (await createSeriesWithFiles(app, "Watch", { books: [1], chapters: [1, 2, 3] })).id;
    await scanLibrary(app);
  });
  afterAll(async () => {
    await app?.dispose();
  });

  const units = async () => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
  const put = (seriesId: number, body: unknown) =>
    app.api(`/api/manga/${seriesId}/monitoring`, { method: "PUT", json: body });

  it("REST answers the unit as the units view shows it; GraphQL answers the same unit", async () => {
    expect(unitOf(await units(), "chapter", "2").monitored).toBe(true);
    const off = await expectJson<RestUnit>(await put(id, { kind: "chapter", number: "2", monitored: false }), 200);
    expect(off).toMatchObject({ kind: "chapter", number: "2", monitored: false });
    expect(off).toEqual(unitOf(await units(), "chapter", "2"));

    const g = await app.gql<{ setMonitored: unknown }>(SET, { id, kind: "CHAPTER", number: "2", monitored: true });
    expect(g.errors).toBeUndefined();
    const now = unitOf(await units(), "chapter", "2");
    expect(now.monitored).toBe(true);
    expect(g.data?.setMonitored).toEqual(gqlUnit(now));

    // Books too; the label is canonicalised ("01" is book 1); setting the same value twice is harmless.
    for (let i = 0; i < 2; i++)
      expect(
        await expectJson<RestUnit>(await put(id, { kind: "book", number: "01", monitored: false }), 200),
      ).toMatchObject({ kind: "book", number: "1", monitored: false });
    expect(unitOf(await units(), "book", "1").monitored).toBe(false);
  });

  it("the series page's row menu follows: Monitor on an unmonitored row, Stop monitoring on a monitored one", async () => {
    const menu = async (number: string) => {
      const r = await app.gql<{
        seriesPage: { sections: { rows: { kind: string; number: string; menu: { id: string }[] }[] }[] };
      }>(`query($id: Int!) { seriesPage(seriesId: $id) { sections { rows { kind number menu { id } } } } }`, { id });
      const row = r
        .data!.seriesPage.sections.flatMap((s) => s.rows)
        .find((x) => x.kind === "CHAPTER" && x.number === number);
      return row?.menu.map((m) => m.id);
    };
    await put(id, { kind: "chapter", number: "3", monitored: false });
    expect(await menu("3")).toContain("MONITOR");
    await app.gql(SET, { id, kind: "CHAPTER", number: "3", monitored: true });
    expect(await menu("3")).toContain("UNMONITOR");
  });

  it("a unit listed without a slot gets one with the flag; a number the series does not know is unit_not_found", async () => {
    // A chapter file without a chapter slot (the units view lists it as a stray extra, unmonitored).
    const sha = "a".repeat(64);
    await app.ctx.db.libraryFile.create({
      data: {
        seriesId: id,
        path: "Watch/Watch - c099.cbz",
        size: 10n,
        mtimeMs: 1n,
        sha256: sha,
        pageCount: 4,
        kind: "chapter",
        chapter: "99",
        chapterEnd: "99",
      },
    });
    expect(unitOf(await units(), "chapter", "99")).toMatchObject({
      monitored: false,
      extra: true,
      problems: ["file without a chapter slot"],
    });
    const made = await expectJson<RestUnit>(await put(id, { kind: "chapter", number: "99", monitored: true }), 200);
    expect(made).toMatchObject({
      kind: "chapter",
      number: "99",
      monitored: true,
      owned: true,
      extra: false,
      problems: [],
    });
    expect(await app.ctx.db.chapterSlot.findFirst({ where: { seriesId: id, number: "99" } })).toMatchObject({
      monitored: true,
      extra: false,
    });

    const slots = await app.ctx.db.volumeSlot.count({ where: { seriesId: id } });
    await expectProblem(await put(id, { kind: "book", number: "42", monitored: true }), 404, "unit_not_found");
    const g = await app.gql(SET, { id, kind: "BOOK", number: "42", monitored: true });
    expect(g.errors?.[0]?.extensions).toMatchObject({ code: "unit_not_found", status: 404 });
    expect(await app.ctx.db.volumeSlot.count({ where: { seriesId: id } })).toBe(slots);
  });

  it("invalid input and unknown series: the same codes on both transports", async () => {
    await expectProblem(await put(424242, { kind: "book", number: "1", monitored: true }), 404, "series_not_found");
    expect(
      (await app.gql(SET, { id: 424242, kind: "BOOK", number: "1", monitored: true })).errors?.[0]?.extensions?.code,
    ).toBe("series_not_found");
    await expectProblem(await put(id, { kind: "book", number: "one", monitored: true }), 400, "invalid_label");
    expect(
      (await app.gql(SET, { id, kind: "BOOK", number: "one", monitored: true })).errors?.[0]?.extensions?.code,
    ).toBe("invalid_label");
    await expectProblem(await put(id, { kind: "volume", number: "1", monitored: true }), 400, "invalid_field");
    await expectProblem(await put(id, { kind: "book", number: "1", monitored: "yes" }), 400, "invalid_field");
    await expectProblem(await put(id, { kind: "book", number: 1, monitored: true }), 400, "invalid_label");
    await expectProblem(await put(id, []), 400, "bad_request");
  });

  it("publishes series_changed for the series", async () => {
    const sub = app.ctx.events.subscribe();
    const first = (async (): Promise<LibraryEvent | undefined> => {
      for await (const ev of sub) return ev;
      return undefined;
    })();
    expect((await put(id, { kind: "chapter", number: "1", monitored: false })).status).toBe(200);
    expect(await first).toMatchObject({ kind: "series_changed", seriesId: id });
  });
});
