/**
 * The series page's Search and Interactive search on a slot, through REST and GraphQL against a
 * Suwayomi-compatible server on 127.0.0.1: every offer with its language, scanlator, source health
 * and verdict; a pick by hand queues that offer; Search queues the best one, an extra too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { downloadsOf, FAST_ENV, settled, until } from "./downloads-fixtures.ts";
import { expectJson, expectProblem, useSuwayomi, createSeries, linkSources } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const A: FakeSource = { id: "7601", name: "First", lang: "en" };
const B: FakeSource = { id: "7602", name: "Second", lang: "en" };
const F: FakeSource = { id: "7603", name: "Troisième", lang: "fr" };
let fake: FakeSuwayomi;
let app: TestApp;
let id: number;

interface RestOffers {
  reason: string | null;
  offers: {
    mapping_id: number;
    provider_name: string;
    language: string;
    scanlator: string | null;
    health: string;
    verdict: string;
    why: string;
  }[];
}

beforeAll(async () => {
  const pages = await drawnChapter(4, 3);
  const chapters = (extra = false) => [
    fakeChapter({ chapterNumber: 1, pages, scanlator: "Team" }),
    fakeChapter({ chapterNumber: 2, pages }),
    ...(extra ? [fakeChapter({ chapterNumber: 2.5, name: "Chapter 2.5", pages })] : []),
  ];
  fake = await startFakeSuwayomi({
    sources: [A, B, F],
    works: [
      fakeWork({ id: 1, title: "Lantern", source: A, chapters: chapters(true) }),
      fakeWork({ id: 2, title: "Lantern", source: B, chapters: chapters() }),
      fakeWork({ id: 3, title: "Lantern", source: F, chapters: chapters() }),
    ],
  });
  app = await createTestApp({ env: FAST_ENV });
  await useSuwayomi(app, fake.url);
  // Unmonitored: nothing is fetched by itself, only on request.
  id = await createSeries(app, "Lantern", { monitored: false });
  await linkSources(app, id, [
    [A.id, 1, 10, "en"],
    [B.id, 2, 0, "en"],
    [F.id, 3, 0, "fr"],
  ]);
});
afterAll(async () => {
  await app?.dispose();
  await fake?.close();
});

describe("interactive search and search on a slot", () => {
  it("lists every offer with why it would or would not be chosen; REST and GraphQL agree", async () => {
    const rest = await expectJson<RestOffers>(await app.api(`/api/manga/${id}/slots/chapter/1/offers`), 200);
    expect(rest.reason).toBeNull();
    expect(rest.offers.map((o) => [o.provider_name, o.language, o.scanlator, o.health, o.verdict])).toEqual([
      ["First (en)", "en", "Team", "unknown", "chosen"],
      ["Second (en)", "en", "Team", "unknown", "ranked_lower"],
      ["Troisième (fr)", "fr", "Team", "unknown", "other_language"],
    ]);
    expect(rest.offers[2]!.why).toMatch(/languages/);
    const gql = await app.gql<{ slotOffers: { offers: { providerName: string; verdict: string; why: string }[] } }>(
      `query($s: Int!) { slotOffers(seriesId: $s, kind: "chapter", number: "1") { offers { providerName verdict why } } }`,
      { s: id },
    );
    expect(gql.data!.slotOffers.offers.map((o) => [o.providerName, o.verdict.toLowerCase(), o.why])).toEqual(
      rest.offers.map((o) => [o.provider_name, o.verdict, o.why]),
    );
    await expectProblem(await app.api(`/api/manga/${id}/slots/chapter/99/offers`), 404, "not_found");
    await expectProblem(await app.api(`/api/manga/${id}/slots/page/1/offers`), 400, "invalid_field");
  });

  it("a pick by hand queues that offer; Search queues the best one, an unmonitored extra too", async () => {
    const rest = await expectJson<RestOffers>(await app.api(`/api/manga/${id}/slots/chapter/1/offers`), 200);
    const second = rest.offers.find((o) => o.provider_name === "Second (en)")!;
    const external = (
      await expectJson<{ offers: { external_id: string; mapping_id: number }[] }>(
        await app.api(`/api/manga/${id}/slots/chapter/1/offers`),
        200,
      )
    ).offers.find((o) => o.mapping_id === second.mapping_id)!.external_id;
    const picked = await expectJson<{ download_ids: number[] }>(
      await app.api(`/api/manga/${id}/slots/chapter/1/download`, {
        method: "POST",
        json: { mapping_id: second.mapping_id, external_id: external },
      }),
      201,
    );
    expect(picked.download_ids).toHaveLength(1);
    const searched = await app.gql<{ searchSlot: { downloadIds: number[]; reason: string | null } }>(
      `mutation($s: Int!) { searchSlot(seriesId: $s, kind: "chapter", number: "2.5") { downloadIds reason } }`,
      { s: id },
    );
    expect(searched.errors).toBeUndefined();
    expect(searched.data!.searchSlot.downloadIds).toHaveLength(1);
    const rows = await until(
      "both published",
      () => downloadsOf(app, id),
      (r) => r.length === 2 && settled(r),
    );
    expect(rows.map((r) => [r.chapter, r.state, r.sourceMappingId === second.mapping_id ? "B" : "A"])).toEqual([
      ["1", "published", "B"],
      ["2.5", "published", "A"],
    ]);
  });
});
