/**
 * Interactive search and Search probed from an empty service through REST and GraphQL against a
 * Suwayomi-compatible server on 127.0.0.1: the reason words of each offer, an owned slot, a pick of
 * another language's offer, of a rejected mapping's offer, for an owned slot, and a second pick while
 * the first one's download is still under way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import {
  expectJson,
  expectProblem,
  unitOf,
  type RestUnits,
  useSuwayomi,
  createSeries,
  linkSources,
} from "./fixtures.ts";
import {
  drawnChapter,
  heldPage,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const A: FakeSource = { id: "7801", name: "Alpha", lang: "en" };
const B: FakeSource = { id: "7802", name: "Beta", lang: "en" };
const F: FakeSource = { id: "7803", name: "Gamma", lang: "fr" };
let fake: FakeSuwayomi;
let app: TestApp;
let id: number;
/** Alpha's chapter 2 keeps its last page until the test lets go: its download stays under way. */
let letGo!: () => void;
const held = new Promise<void>((resolve) => (letGo = resolve));

interface Offer {
  mapping_id: number;
  external_id: string;
  provider_name: string;
  language: string;
  scanlator: string | null;
  health: string;
  verdict: string;
  why: string;
}
interface RestOffers {
  reason: string | null;
  offers: Offer[];
}
interface Download {
  id: number;
  series_id: number;
  chapter: string | null;
  state: string;
}

const OFFERS_GQL = `query($s: Int!, $n: String!) { slotOffers(seriesId: $s, kind: "chapter", number: $n) {
  reason offers { mappingId externalId providerName language scanlator health verdict why } } }`;
const offers = async (n: string) =>
  expectJson<RestOffers>(await app.api(`/api/manga/${id}/slots/chapter/${n}/offers`), 200);
const pick = (n: string, o: { mapping_id: number; external_id: string }) =>
  app.api(`/api/manga/${id}/slots/chapter/${n}/download`, {
    method: "POST",
    json: { mapping_id: o.mapping_id, external_id: o.external_id },
  });
const search = (n: string) => app.api(`/api/manga/${id}/slots/chapter/${n}/search`, { method: "POST" });
const downloads = async () =>
  (await expectJson<Download[]>(await app.api(`/api/downloads`), 200)).filter((d) => d.series_id === id);
const settledAll = (rows: Download[]) =>
  rows.every((r) => ["published", "degraded", "failed", "cancelled"].includes(r.state));
const owned = async (n: string) => {
  const u = await expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
  return unitOf(u, "chapter", n).owned;
};
const byName = (r: RestOffers, name: string) => r.offers.find((o) => o.provider_name.startsWith(name))!;

beforeAll(async () => {
  const pages = await drawnChapter(3, 9);
  const chapters = (n: number[]) => n.map((c) => fakeChapter({ chapterNumber: c, pages, scanlator: "Crew" }));
  fake = await startFakeSuwayomi({
    sources: [A, B, F],
    works: [
      fakeWork({
        id: 31,
        title: "Harbor",
        source: A,
        chapters: [
          ...chapters([1]),
          fakeChapter({
            chapterNumber: 2,
            pages: [...pages.slice(0, -1), heldPage(pages.at(-1)!, held)],
            scanlator: "Crew",
          }),
        ],
      }),
      fakeWork({ id: 32, title: "Harbor", source: B, chapters: chapters([1, 2, 3]) }),
      fakeWork({ id: 33, title: "Harbor", source: F, chapters: chapters([1, 2, 3, 4]) }),
    ],
  });
  app = await createTestApp({ env: FAST_ENV });
  await useSuwayomi(app, fake.url);
  id = await createSeries(app, "Harbor", { monitored: false });
  await linkSources(app, id, [
    [A.id, 31, 10, "en"],
    [B.id, 32, 0, "en"],
    [F.id, 33, 0, "fr"],
  ]);
});
afterAll(async () => {
  letGo();
  await app?.dispose();
  await fake?.close();
});

describe("interactive search from outside", () => {
  it("each offer says why, in words; REST and GraphQL agree; a number only another language offers has no slot", async () => {
    const two = await offers("2");
    expect(two.reason).toBeNull();
    expect(two.offers.map((o) => [o.provider_name, o.language, o.scanlator, o.health, o.verdict, o.why])).toEqual([
      ["Alpha (en)", "en", "Crew", "unknown", "chosen", expect.stringMatching(/^Would be chosen/)],
      ["Beta (en)", "en", "Crew", "unknown", "ranked_lower", expect.stringMatching(/ranks higher/)],
      ["Gamma (fr)", "fr", "Crew", "unknown", "other_language", "Not in one of the series' languages."],
    ]);
    const gql = await app.gql<{ slotOffers: { reason: string | null; offers: Record<string, unknown>[] } }>(
      OFFERS_GQL,
      { s: id, n: "2" },
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data!.slotOffers.reason).toBeNull();
    expect(
      gql.data!.slotOffers.offers.map((o) => [o.mappingId, o.externalId, String(o.verdict).toLowerCase(), o.why]),
    ).toEqual(two.offers.map((o) => [o.mapping_id, o.external_id, o.verdict, o.why]));
    await expectProblem(await app.api(`/api/manga/${id}/slots/chapter/4/offers`), 404, "not_found");
    await expectProblem(await app.api(`/api/manga/${id}/slots/chapter/x/offers`), 400, "invalid_label");
    await expectProblem(await pick("2", { mapping_id: 999, external_id: "1" }), 404, "not_found");
    expect(await downloads()).toEqual([]);
  });

  it("a pick of another language's offer is the operator's own choice: queued and published", async () => {
    const fr = byName(await offers("3"), "Gamma");
    expect(fr.verdict).toBe("other_language");
    const queued = await expectJson<{ download_ids: number[] }>(await pick("3", fr), 201);
    expect(queued.download_ids).toHaveLength(1);
    await until(
      "chapter 3 owned",
      () => owned("3"),
      (v) => v,
    );
  });

  it("an owned slot: listed with the reason owned; Search queues nothing; a pick is refused, nothing queued", async () => {
    const first = await expectJson<{ download_ids: number[]; reason: string | null }>(await search("1"), 200);
    expect(first).toMatchObject({ reason: null });
    expect(first.download_ids).toHaveLength(1);
    await until(
      "chapter 1 owned",
      () => owned("1"),
      (v) => v,
    );
    await until("downloads settled", downloads, settledAll);
    const before = await downloads();

    const one = await offers("1");
    expect(one.reason).toBe("owned");
    expect(one.offers.map((o) => [o.provider_name, o.verdict])).toEqual([
      ["Alpha (en)", "chosen"],
      ["Beta (en)", "ranked_lower"],
      ["Gamma (fr)", "other_language"],
    ]);
    expect(one.offers[0]!.why).toMatch(/owned/);
    const gql = await app.gql<{ slotOffers: { reason: string | null } }>(OFFERS_GQL, { s: id, n: "1" });
    expect(gql.data?.slotOffers.reason).toBe("owned");

    expect(await expectJson(await search("1"), 200)).toEqual({ download_ids: [], reason: "owned" });
    const viaGql = await app.gql<{ searchSlot: { downloadIds: number[]; reason: string | null } }>(
      `mutation($s: Int!) { searchSlot(seriesId: $s, kind: "chapter", number: "1") { downloadIds reason } }`,
      { s: id },
    );
    expect(viaGql.data?.searchSlot).toEqual({ downloadIds: [], reason: "owned" });
    for (const name of ["Alpha", "Beta", "Gamma"])
      await expectProblem(await pick("1", byName(one, name)), 409, "slot_owned");
    const b = byName(one, "Beta");
    const refused = await app.gql(
      `mutation($s: Int!, $m: Int!, $e: String!) { downloadOffer(seriesId: $s, kind: "chapter", number: "1", mappingId: $m, externalId: $e) { downloadIds } }`,
      { s: id, m: b.mapping_id, e: b.external_id },
    );
    expect(refused.errors?.[0]?.extensions?.code).toBe("slot_owned");
    // The other-language pick owns chapter 3 as well: Search there queues nothing either.
    expect(await expectJson(await search("3"), 200)).toEqual({ download_ids: [], reason: "owned" });
    expect(await downloads()).toEqual(before);
  });

  it("a pick of a rejected mapping's offer: its offers are gone, the pick is 404, the link 409", async () => {
    const beta = byName(await offers("2"), "Beta");
    const preview = await expectJson<{ confirmation: string; offers: number }>(
      await app.api(`/api/manga/${id}/audit/reject-source/preview`, {
        method: "POST",
        json: { provider: B.id, source_id: "32", reason: "another work" },
      }),
      200,
    );
    await expectJson(
      await app.api(`/api/manga/${id}/audit/reject-source`, {
        method: "POST",
        json: { confirmation: preview.confirmation },
      }),
      200,
    );
    const two = await offers("2");
    expect(two.offers.map((o) => o.provider_name)).toEqual(["Alpha (en)", "Gamma (fr)"]);
    const before = await downloads();
    await expectProblem(await pick("2", beta), 404, "not_found");
    expect(await downloads()).toEqual(before);
    await expectProblem(
      await app.api(`/api/manga/${id}/sources`, {
        method: "POST",
        json: { provider: B.id, source_id: "32", language: "en" },
      }),
      409,
      "source_rejected",
    );
  });

  it("a second pick while the first one's download is under way is refused; the release is fetched once", async () => {
    const two = await offers("2");
    const alpha = byName(two, "Alpha");
    const first = await expectJson<{ download_ids: number[] }>(await pick("2", alpha), 201);
    expect(first.download_ids).toHaveLength(1);
    const during = await downloads();
    expect(during.filter((d) => d.chapter === "2")).toEqual([
      expect.objectContaining({ id: first.download_ids[0], chapter: "2" }),
    ]);
    // The same offer again, another source's offer, through REST and GraphQL; Search: nothing queued.
    await expectProblem(await pick("2", alpha), 409, "slot_download_active");
    await expectProblem(await pick("2", byName(two, "Gamma")), 409, "slot_download_active");
    const refused = await app.gql(
      `mutation($s: Int!, $m: Int!, $e: String!) { downloadOffer(seriesId: $s, kind: "chapter", number: "2", mappingId: $m, externalId: $e) { downloadIds } }`,
      { s: id, m: alpha.mapping_id, e: alpha.external_id },
    );
    expect(refused.errors?.[0]?.extensions?.code).toBe("slot_download_active");
    expect(await expectJson(await search("2"), 200)).toEqual({ download_ids: [], reason: "already_queued" });
    expect((await downloads()).map((d) => d.id).sort()).toEqual(during.map((d) => d.id).sort());

    letGo();
    await until(
      "chapter 2 owned",
      () => owned("2"),
      (v) => v,
    );
    await until("downloads settled", downloads, settledAll);
    expect((await downloads()).filter((d) => d.chapter === "2")).toEqual([
      expect.objectContaining({ id: first.download_ids[0], state: "published" }),
    ]);
    // Owned now: the pick is refused for that reason instead.
    await expectProblem(await pick("2", alpha), 409, "slot_owned");
  });
});
