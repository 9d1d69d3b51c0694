/**
 * Unnumbered releases (Suwayomi's chapterNumber −1: a oneshot, an extra the source did not number)
 * from an empty service, through the public API and a Suwayomi-compatible server on 127.0.0.1: each
 * one becomes one extra slot of its own, stable across refreshes, never counted in the main chapter
 * count and never fetched by the Wanted pass; Search on that slot fetches it, and the downloaded file
 * reads back into the same slot on a rescan.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { expectJson, type RestUnits, useSuwayomi } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const A: FakeSource = { id: "7701", name: "Lone Shelf", lang: "en" };

interface RestDownload {
  id: number;
  chapter: string | null;
  state: string;
}

let fake: FakeSuwayomi;
let app: TestApp;
let id: number;

const units = async () => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
const chapterUnits = async () => (await units()).units.filter((u) => u.kind === "chapter");
const downloads = async () => expectJson<RestDownload[]>(await app.api(`/api/manga/${id}/downloads`), 200);
const settled = (rows: RestDownload[]) =>
  rows.every((r) => ["published", "degraded", "failed", "cancelled"].includes(r.state));
const overview = async () => {
  const r = await app.gql<{
    series: { overview: { chapters: number; chaptersOwned: number; missingChapters: number } };
  }>(`query($id: Int!) { series(id: $id) { overview { chapters chaptersOwned missingChapters } } }`, { id });
  expect(r.errors).toBeUndefined();
  return r.data!.series.overview;
};

beforeAll(async () => {
  fake = await startFakeSuwayomi({
    sources: [A],
    works: [
      fakeWork({
        id: 31,
        title: "Paper Lantern",
        source: A,
        chapters: [
          fakeChapter({ id: 3101, chapterNumber: 1, pages: await drawnChapter(5, 1) }),
          fakeChapter({ id: 3102, chapterNumber: 2, pages: await drawnChapter(5, 2) }),
          fakeChapter({ id: 3190, chapterNumber: -1, name: "Oneshot", pages: await drawnChapter(4, 90) }),
          fakeChapter({
            id: 3191,
            chapterNumber: -1,
            name: "Special: Summer Festival",
            pages: await drawnChapter(3, 91),
          }),
        ],
      }),
    ],
  });
  app = await createTestApp({ env: FAST_ENV });
  await useSuwayomi(app, fake.url);
  id = (
    await expectJson<{ id: number }>(
      await app.api("/api/manga", { method: "POST", json: { title: "Paper Lantern" } }),
      201,
    )
  ).id;
});
afterAll(async () => {
  await app?.dispose();
  await fake?.close();
});

describe("unnumbered releases from a source", () => {
  it("each is one unmonitored extra slot, stable, never counted, fetched only on request", async () => {
    const linked = await expectJson<{ refresh: { offers: number } }>(
      await app.api(`/api/manga/${id}/sources`, {
        method: "POST",
        json: { provider: A.id, source_id: "31", language: "en" },
      }),
      201,
    );
    expect(linked.refresh.offers).toBe(4);

    const listed = await chapterUnits();
    const extras = listed.filter((u) => u.extra);
    expect(listed.filter((u) => !u.extra).map((u) => u.number)).toEqual(["1", "2"]);
    expect(extras).toHaveLength(2);
    for (const e of extras) {
      expect(e).toMatchObject({ monitored: false, owned: false });
      expect(e.number).toMatch(/^0\.0000\d{10}1$/);
    }
    const labels = extras.map((e) => e.number);
    expect(new Set(labels).size).toBe(2);

    // The pass after the link fetches the main chapters only.
    await until(
      "chapters 1 and 2 on disk",
      chapterUnits,
      (u) => u.filter((x) => !x.extra).every((x) => x.owned),
      60_000,
    );
    const passed = await until("downloads settled", downloads, settled, 60_000);
    expect(passed.map((d) => d.chapter).sort()).toEqual(["1", "2"]);
    expect(await overview()).toEqual({ chapters: 2, chaptersOwned: 2, missingChapters: 0 });

    // The series page names them by what the source calls them.
    const page = await app.gql<{ seriesPage: { loose: { children: { number: string; title: string }[] } | null } }>(
      `query($id: Int!) { seriesPage(seriesId: $id) { loose { children { number title } } } }`,
      { id },
    );
    expect(page.errors).toBeUndefined();
    expect(page.data!.seriesPage.loose!.children.map((r) => r.title).sort()).toEqual([
      "Extra: Oneshot",
      "Extra: Special: Summer Festival",
    ]);

    // A refresh lists the same releases: the same two slots, no more.
    await expectJson(await app.api(`/api/manga/${id}/sources/refresh`, { method: "POST" }), 200);
    expect((await chapterUnits()).filter((u) => u.extra).map((u) => u.number)).toEqual(labels);

    // Search on one of them (on request) fetches exactly that release.
    const offers = await expectJson<{
      offers: { external_id: string; verdict: string; title: string; label: string }[];
    }>(await app.api(`/api/manga/${id}/slots/chapter/${labels[0]}/offers`), 200);
    expect(offers.offers).toHaveLength(1);
    const wanted = offers.offers[0]!.external_id;
    expect(["3190", "3191"]).toContain(wanted);
    // Named by the source's own name, never by the technical label; GraphQL says the same.
    const name = wanted === "3190" ? "Oneshot" : "Special: Summer Festival";
    expect(offers.offers[0]).toMatchObject({ title: name, label: `Extra: ${name}` });
    const viaGql = await app.gql<{ slotOffers: { offers: { title: string; label: string }[] } }>(
      `query($id: Int!, $n: String!) { slotOffers(seriesId: $id, kind: "chapter", number: $n) { offers { title label } } }`,
      { id, n: labels[0] },
    );
    expect(viaGql.data?.slotOffers.offers).toEqual([{ title: name, label: `Extra: ${name}` }]);
    const searched = await expectJson<{ download_ids: number[] }>(
      await app.api(`/api/manga/${id}/slots/chapter/${labels[0]}/search`, { method: "POST" }),
      200,
    );
    expect(searched.download_ids).toHaveLength(1);
    await until("the extra on disk", chapterUnits, (u) => u.some((x) => x.number === labels[0] && x.owned), 60_000);
    const rows = await until("downloads settled", downloads, settled, 60_000);
    expect(rows.filter((r) => r.chapter === labels[0]).map((r) => r.state)).toEqual(["published"]);

    // Still an extra, never counted; a rescan reads the downloaded file back into the same slot.
    await expectJson(await app.api("/api/library/scan", { method: "POST" }), 200);
    const after = await chapterUnits();
    expect(after.map((u) => `${u.number}${u.owned ? "" : "?"}${u.extra ? "x" : ""}`)).toEqual(
      [...listed].map(
        (u) =>
          `${u.number}${u.number === "1" || u.number === "2" || u.number === labels[0] ? "" : "?"}${u.extra ? "x" : ""}`,
      ),
    );
    expect(await overview()).toEqual({ chapters: 2, chaptersOwned: 2, missingChapters: 0 });
  });
});
