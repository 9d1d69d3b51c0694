/**
 * What a series has comes from its sources, probed from an empty service through the public API only
 * (REST and GraphQL, which must agree) with a Suwayomi-compatible server on 127.0.0.1: the numbering
 * the sources list reconciled before anything is created (one release per source and number, split
 * parts, a lone decimal matching another source's whole, extras for other decimals, chapter 0 and
 * unnumbered releases), volume releases as book slots, other languages making no slot, the monitored
 * flag inherited, extras never counted nor fetched by the pass but fetched on request, an offer that
 * disappears at a refresh leaving its slot with the ledger's `no_longer_listed`, and one
 * `series_changed` per refresh.
 */
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { FAST_ENV, settled, until } from "./downloads-fixtures.ts";
import { expectJson, type RestUnit, type RestUnits } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, TEST_API_KEY, type TestApp } from "./utils.ts";
import { gqlUnit } from "./web-support-helpers.ts";

const A: FakeSource = { id: "7401", name: "Tide Scans", lang: "en" };
const B: FakeSource = { id: "7402", name: "Ebb Shelf", lang: "en" };
const FR: FakeSource = { id: "7403", name: "Marée Scans", lang: "fr" };

const UNIT_FIELDS =
  "kind number book owned monitored coverage plan estimatedBook pageCount fileIds duplicateFileIds problems extra";

describe("slots from the sources (audit)", () => {
  let fake: FakeSuwayomi;
  let app: TestApp;
  let ws: Client;

  const create = async (title: string, json: Record<string, unknown> = {}) =>
    (await expectJson<{ id: number }>(await app.api("/api/manga", { method: "POST", json: { title, ...json } }), 201))
      .id;
  const units = async (id: number) => (await expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200)).units;
  /** Until every download of the series has ended (a file is on disk a moment before its row says so). */
  const downloadsEnded = (id: number) =>
    until(
      "downloads ended",
      async () =>
        (await expectJson<{ series_id: number; state: string }[]>(await app.api("/api/downloads"), 200)).filter(
          (d) => d.series_id === id,
        ),
      settled,
      60_000,
    );
  const gqlUnits = async (id: number) => {
    const r = await app.gql<{ units: { units: unknown[] } }>(
      `query($id: Int!) { units(seriesId: $id) { units { ${UNIT_FIELDS} } } }`,
      { id },
    );
    expect(r.errors).toBeUndefined();
    return r.data!.units.units;
  };
  /** REST and GraphQL agree on the units. */
  const agreed = async (id: number): Promise<RestUnit[]> => {
    const rest = await units(id);
    expect(await gqlUnits(id)).toEqual(rest.map((u) => ({ ...gqlUnit(u), extra: u.extra })));
    return rest;
  };
  const rows = (u: RestUnit[]) =>
    u.map((x) => `${x.kind === "book" ? "v" : ""}${x.number}${x.extra ? "x" : ""}${x.monitored ? "" : "-"}`);
  async function link(id: number, source: FakeSource, title: string, language = source.lang): Promise<number> {
    const found = await expectJson<{ works: { source_id: string; title: string }[] }>(
      await app.api(`/api/manga/${id}/sources/search`, { method: "POST", json: { provider: source.id, query: title } }),
      200,
    );
    const work = found.works.find((w) => w.title === title)!;
    const linked = await expectJson<{ refresh: { offers: number } }>(
      await app.api(`/api/manga/${id}/sources`, {
        method: "POST",
        json: { provider: source.id, source_id: work.source_id, language },
      }),
      201,
    );
    return linked.refresh.offers;
  }
  const pass = async (id: number) =>
    expectJson<{ queued: number; ledger: { entries: { kind: string; number: string; reason: string }[] } }>(
      await app.api(`/api/manga/${id}/wanted/run`, { method: "POST" }),
      200,
    );

  beforeAll(async () => {
    const pages = await drawnChapter(3, 7);
    const ch = (chapterNumber: number, extra: Partial<Parameters<typeof fakeChapter>[0]> = {}) =>
      fakeChapter({ chapterNumber, pages, ...extra });
    fake = await startFakeSuwayomi({
      works: [
        // Reconciliation: A and B list the same work.
        fakeWork({
          id: 941,
          title: "Tide Ledger",
          source: A,
          chapters: [
            ch(0, { name: "Chapter 0: Prologue" }),
            ch(1),
            ch(2),
            ch(3),
            ch(3.5),
            ch(4.5),
            ch(5.1),
            ch(5.2),
            ch(6.5),
            ch(7, { scanlator: "Team X" }),
            ch(7, { scanlator: "Team Y" }),
            ch(-1, { name: "Oneshot" }),
            ch(-1, { name: "Vol.3" }),
          ],
        }),
        fakeWork({ id: 942, title: "Tide Ledger", source: B, chapters: [ch(1), ch(2), ch(4), ch(8)] }),
        fakeWork({ id: 943, title: "Tide Ledger", source: FR, chapters: [ch(9), ch(10)] }),
        // Extras on request.
        fakeWork({ id: 944, title: "Side Story Ledger", source: A, chapters: [ch(0), ch(1), ch(1.5), ch(-1)] }),
        // Disappearing offers.
        fakeWork({ id: 945, title: "Fading Ledger", source: A, chapters: [ch(1), ch(2), ch(3)] }),
        // A split that shows itself over time.
        fakeWork({ id: 948, title: "Split Ledger", source: A, chapters: [ch(1), ch(2.1)] }),
        // Events.
        fakeWork({ id: 946, title: "Quiet Ledger", source: A, chapters: [ch(1), ch(2)] }),
        fakeWork({ id: 947, title: "Still Ledger", source: A, chapters: [ch(1), ch(2)] }),
      ],
      sources: [A, B, FR],
    });
    // The scheduled pass every second: only monitored series are refreshed by it.
    app = await createTestApp({ env: { ...FAST_ENV, WANTED_INTERVAL_SECONDS: "1" } });
    await expectJson(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { enabled: true, url: fake.url, auth: "none" } },
      }),
      200,
    );
    ws = createClient({
      url: `${app.baseUrl.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { apiKey: TEST_API_KEY },
      lazy: true,
      retryAttempts: 0,
    });
  });
  afterAll(async () => {
    await ws?.dispose();
    await app?.dispose();
    await fake?.close();
  });

  it("reconciles the numbering of two sources before it creates slots; other languages make none", async () => {
    const id = await create("Tide Ledger", { monitored: false });
    expect(await link(id, A, "Tide Ledger")).toBe(13);
    expect(await link(id, B, "Tide Ledger")).toBe(4);
    expect(await link(id, FR, "Tide Ledger")).toBe(2);
    const u = await agreed(id);
    const chapters = u.filter((x) => x.kind === "chapter");
    const unnumbered = chapters.filter((x) => /^0\.0000\d+$/.test(x.number));
    expect(unnumbered).toHaveLength(1);
    expect(rows(u.filter((x) => !unnumbered.includes(x)))).toEqual(
      expect.arrayContaining(["0x-", "1-", "2-", "3-", "3.5x-", "4-", "5-", "6.5x-", "7-", "8-", "v3-"]),
    );
    // 4.5 is chapter 4 (B lists 4), 5.1 and 5.2 are the parts of 5, two releases of 7 are one.
    expect(chapters.map((x) => x.number)).not.toContain("4.5");
    expect(chapters.map((x) => x.number)).not.toContain("5.1");
    expect(chapters.map((x) => x.number)).not.toContain("9");
    expect(chapters.filter((x) => x.number === "7")).toHaveLength(1);
    expect(unnumbered[0]!.extra).toBe(true);
    expect(chapters).toHaveLength(11);

    // The series page shows the same slots.
    const row = "kind number monitored";
    const page = await app.gql<{
      seriesPage: {
        sections: { rows: { kind: string; number: string; monitored: boolean }[] }[];
        groups: { book: { kind: string; number: string }; children: { kind: string; number: string }[] }[];
        loose: { children: { kind: string; number: string }[] } | null;
      };
    }>(
      `query($id: Int!) { seriesPage(seriesId: $id) { sections { rows { ${row} } } groups { book { ${row} } children { ${row} } } loose { children { ${row} } } } }`,
      { id },
    );
    expect(page.errors).toBeUndefined();
    const sp = page.data!.seriesPage;
    const shown = [
      ...sp.sections.flatMap((x) => x.rows),
      ...sp.groups.flatMap((g) => [g.book, ...g.children]),
      ...(sp.loose?.children ?? []),
    ].map((r) => `${r.kind}:${r.number}`);
    expect(new Set(shown)).toEqual(new Set(u.map((x) => `${x.kind.toUpperCase()}:${x.number}`)));

    // The library card counts main chapters only.
    const card = await app.gql<{ series: { overview: { chapters: number; chaptersOwned: number } } }>(
      `query($id: Int!) { series(id: $id) { overview { chapters chaptersOwned missingChapters } } }`,
      { id },
    );
    expect(card.errors).toBeUndefined();
    expect(card.data!.series.overview).toEqual({ chapters: 7, chaptersOwned: 0, missingChapters: 0 });

    // Chapter 5's offers, read as placed: the two parts of A (B has no 5).
    const offers = await expectJson<{ offers: { provider_name: string; chapter: string; part: number | null }[] }>(
      await app.api(`/api/manga/${id}/slots/chapter/5/offers`),
      200,
    );
    expect(offers.offers.map((o) => [o.provider_name, o.chapter, o.part]).sort()).toEqual([
      ["Tide Scans (en)", "5", 1],
      ["Tide Scans (en)", "5", 2],
    ]);
  });

  it("never fetches an extra by itself, and fetches each kind of extra on request (REST and GraphQL)", async () => {
    const id = await create("Side Story Ledger");
    expect(await link(id, A, "Side Story Ledger")).toBe(4);
    await until(
      "chapter 1 on disk",
      () => units(id),
      (u) => u.some((x) => x.number === "1" && x.owned),
      60_000,
    );
    await downloadsEnded(id);
    const before = await agreed(id);
    const unnumbered = before.find((x) => /^0\.0000\d+$/.test(x.number))!;
    expect(rows(before.filter((x) => x !== unnumbered))).toEqual(["1", "0x-", "1.5x-"]);
    expect(unnumbered).toMatchObject({ extra: true, monitored: false, owned: false });
    // The pass leaves the extras alone, and says nothing is wanted.
    const idle = await pass(id);
    expect(idle.queued).toBe(0);
    expect(idle.ledger.entries.filter((e) => e.number !== "1")).toEqual([]);
    const card = await app.gql<{ series: { overview: { chapters: number; chaptersOwned: number } } }>(
      `query($id: Int!) { series(id: $id) { overview { chapters chaptersOwned } } }`,
      { id },
    );
    expect(card.data!.series.overview).toEqual({ chapters: 1, chaptersOwned: 1 });

    // On request: chapter 0 and the unnumbered one through REST, 1.5 through GraphQL.
    for (const n of ["0", unnumbered.number]) {
      const r = await expectJson<{ download_ids: number[]; reason: string | null }>(
        await app.api(`/api/manga/${id}/slots/chapter/${n}/search`, { method: "POST" }),
        200,
      );
      expect(r.download_ids).toHaveLength(1);
    }
    const g = await app.gql<{ searchSlot: { downloadIds: number[]; reason: string | null } }>(
      `mutation($s: Int!) { searchSlot(seriesId: $s, kind: "chapter", number: "1.5") { downloadIds reason } }`,
      { s: id },
    );
    expect(g.errors).toBeUndefined();
    expect(g.data!.searchSlot.downloadIds).toHaveLength(1);
    // Polled through REST alone: REST and GraphQL are compared once nothing is being published.
    await until(
      "the extras on disk",
      () => units(id),
      (u) => u.every((x) => x.owned),
      60_000,
    );
    await downloadsEnded(id);
    const after = await agreed(id);
    expect(after.filter((x) => x.extra).map((x) => x.extra)).toEqual([true, true, true]);
    const owned = await app.gql<{ series: { overview: { chapters: number; chaptersOwned: number } } }>(
      `query($id: Int!) { series(id: $id) { overview { chapters chaptersOwned } } }`,
      { id },
    );
    expect(owned.data!.series.overview).toEqual({ chapters: 1, chaptersOwned: 1 });
  });

  it("keeps a slot whose offer disappeared at a refresh; the ledger says no source lists it; listed again, it is wanted", async () => {
    const id = await create("Fading Ledger", { monitored: false });
    expect(await link(id, A, "Fading Ledger")).toBe(3);
    const work = fake.works.find((w) => w.id === 945)!;
    const three = work.chapters.pop()!;
    const refreshed = await expectJson<{ mappings: { offers: number }[] }>(
      await app.api(`/api/manga/${id}/sources/refresh`, { method: "POST" }),
      200,
    );
    expect(refreshed.mappings.map((m) => m.offers)).toEqual([2]);
    expect(rows(await agreed(id))).toEqual(["1-", "2-", "3-"]);

    await expectJson(await app.api(`/api/manga/${id}`, { method: "PATCH", json: { monitored: true } }), 200);
    await expectJson(
      await app.api(`/api/manga/${id}/monitoring`, {
        method: "PUT",
        json: { kind: "chapter", number: "3", monitored: true },
      }),
      200,
    );
    const p = await pass(id);
    expect(p.queued).toBe(0);
    expect(p.ledger.entries.map((e) => [e.number, e.reason])).toEqual([["3", "no_longer_listed"]]);
    const g = await app.gql<{ wanted: { entries: { number: string; reason: string }[] } }>(
      `query($s: Int!) { wanted(seriesId: $s) { entries { number reason } } }`,
      { s: id },
    );
    expect(g.errors).toBeUndefined();
    expect(g.data!.wanted.entries).toEqual([{ number: "3", reason: "NO_LONGER_LISTED" }]);

    // Listed again: a refresh clears the mark and the pass fetches it.
    work.chapters.push(three);
    await expectJson(await app.api(`/api/manga/${id}/sources/refresh`, { method: "POST" }), 200);
    await until(
      "chapter 3 on disk",
      () => units(id),
      (u) => u.find((x) => x.number === "3")!.owned,
      60_000,
    );
  });

  it("reads a lone decimal as an extra until its other parts arrive; then it is a split chapter and the extra goes", async () => {
    const id = await create("Split Ledger", { monitored: false });
    expect(await link(id, A, "Split Ledger")).toBe(2);
    expect(rows(await agreed(id))).toEqual(["1-", "2.1x-"]);
    // Monitoring an extra changes nothing (the Wanted pass never takes one), so it does not keep it.
    await expectJson(
      await app.api(`/api/manga/${id}/monitoring`, {
        method: "PUT",
        json: { kind: "chapter", number: "2.1", monitored: true },
      }),
      200,
    );
    expect(rows(await agreed(id))).toEqual(["1-", "2.1x"]);
    fake.works
      .find((w) => w.id === 948)!
      .chapters.push(fakeChapter({ chapterNumber: 2.2, pages: await drawnChapter(3, 9) }));
    await expectJson(await app.api(`/api/manga/${id}/sources/refresh`, { method: "POST" }), 200);
    expect(rows(await agreed(id))).toEqual(["1-", "2-"]);
    const offers = await expectJson<{ offers: { chapter: string; part: number | null }[] }>(
      await app.api(`/api/manga/${id}/slots/chapter/2/offers`),
      200,
    );
    expect(offers.offers.map((o) => [o.chapter, o.part]).sort()).toEqual([
      ["2", 1],
      ["2", 2],
    ]);
  });

  it("publishes one series_changed for a link, and one when the scheduled pass finds a new release", async () => {
    const events: { kind: string; seriesId: number | null }[] = [];
    const subscribe = (seriesId: number) =>
      ws.subscribe<{ libraryEvents: { kind: string; seriesId: number | null } }>(
        {
          query: `subscription($s: Int) { libraryEvents(seriesId: $s) { kind seriesId } }`,
          variables: { s: seriesId },
        },
        { next: (r) => r.data && events.push(r.data.libraryEvents), error: () => {}, complete: () => {} },
      );
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const changed = (id: number) => events.filter((e) => e.kind === "SERIES_CHANGED" && e.seriesId === id).length;

    // A series that is not monitored: the link makes its slots with one event, and nothing else follows.
    const still = await create("Still Ledger", { monitored: false });
    const stop1 = subscribe(still);
    await pause(300);
    expect(await link(still, A, "Still Ledger")).toBe(2);
    await pause(2500);
    stop1();
    expect(rows(await units(still))).toEqual(["1-", "2-"]);
    expect(changed(still)).toBe(1);

    // A monitored series, once its chapters arrived: an extra at the source becomes a slot through the
    // scheduled pass alone, with one event.
    const quiet = await create("Quiet Ledger");
    expect(await link(quiet, A, "Quiet Ledger")).toBe(2);
    await until(
      "chapters 1 and 2 on disk",
      () => units(quiet),
      (u) => u.length === 2 && u.every((x) => x.owned),
      60_000,
    );
    await pause(1500);
    const stop2 = subscribe(quiet);
    await pause(300);
    fake.works
      .find((w) => w.id === 946)!
      .chapters.push(fakeChapter({ chapterNumber: 2.5, pages: await drawnChapter(3, 8) }));
    await until(
      "the extra 2.5 as a slot",
      () => units(quiet),
      (u) => u.some((x) => x.number === "2.5"),
      30_000,
    );
    await pause(3000);
    stop2();
    expect(rows(await units(quiet))).toEqual(["1", "2", "2.5x-"]);
    expect(changed(quiet)).toBe(1);
  });
});
