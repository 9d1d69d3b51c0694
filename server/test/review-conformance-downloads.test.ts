/**
 * Reviewed operations of the audit while a download of the series is under way, probed from
 * outside (docs/api.md, "File audit"): an empty service, a Suwayomi-compatible server on 127.0.0.1
 * whose page answers are held by the test, and only the public REST and GraphQL API. While the
 * download runs, previews and confirms of a retirement and a source rejection answer 409
 * download_active; once it has ended, a preview made before it started is
 * stale (409 snapshot_stale) and nothing moved; a fresh preview goes through.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { expectJson, expectProblem } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  heldPage,
  startFakeSuwayomi,
  type FakePage,
  type FakeSource,
  type FakeSuwayomi,
  type FakeWork,
} from "./fakes/suwayomi-server.ts";
import { reviewClient, type Preview, type Retired } from "./review-harness.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const SOURCE: FakeSource = { id: "7301", name: "Tide Scans", lang: "en" };

let fake: FakeSuwayomi;
let app: TestApp;
let work: FakeWork;
const c = () => reviewClient(app);

beforeAll(async () => {
  work = fakeWork({
    id: 981,
    title: "Slack Tide",
    source: SOURCE,
    chapters: await Promise.all(
      [1, 2, 3, 4].map(async (n) => fakeChapter({ chapterNumber: n, pages: await drawnChapter(8, 40 + n) })),
    ),
  });
  fake = await startFakeSuwayomi({ works: [work], sources: [SOURCE] });
  app = await createTestApp({ env: FAST_ENV });
  await expectJson(
    await app.api("/api/settings/sources", {
      method: "PUT",
      json: { suwayomi: { enabled: true, url: fake.url, auth: "none" } },
    }),
    200,
  );
});
afterAll(async () => {
  await app?.dispose();
  await fake?.close();
});

/** A page the fake answers only once `release` is called. */
function held(page: FakePage): { page: FakePage; release: () => void } {
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  return { page: heldPage(page, hold), release };
}

describe("reviews around a download of the series", () => {
  it("while it runs every preview and confirm is 409 download_active; once it ended the earlier previews are stale and nothing moved", async () => {
    const s = await c().createSeries("Slack Tide");
    const found = await expectJson<{ works: { source_id: string; title: string }[] }>(
      await c().post(`/api/manga/${s.id}/sources/search`, { provider: SOURCE.id }),
      200,
    );
    const sourceId = found.works.find((w) => w.title === "Slack Tide")!.source_id;
    await expectJson(
      await c().post(`/api/manga/${s.id}/sources`, { provider: SOURCE.id, source_id: sourceId, language: "en" }),
      201,
    );
    await c().settle(s.id);
    await until(
      "chapters 1–4 listed",
      () => c().audit(s.id),
      (a) => a.total === 4,
    );
    const f1 = (await c().audit(s.id)).files.find((f) => f.number === "1")!;
    const provider = `suwayomi:${SOURCE.id}`;

    const retirement = await expectJson<Preview>(
      await c().post(`/api/manga/${s.id}/audit/retire/preview`, { file_ids: [f1.id] }),
      200,
    );
    const rejection = await expectJson<Preview>(
      await c().post(`/api/manga/${s.id}/audit/reject-source/preview`, { provider, source_id: sourceId }),
      200,
    );

    // Chapter 5 appears at the source; its last page is held, so its download stays under way.
    const last = held((await drawnChapter(1, 99))[0]!);
    work.chapters.push(fakeChapter({ chapterNumber: 5, pages: [...(await drawnChapter(7, 95)), last.page] }));
    await expectJson(await c().post(`/api/manga/${s.id}/sources/refresh`), 200);
    await until(
      "chapter 5 fetching",
      () => c().downloads(s.id),
      (rows) => rows.some((r) => r.chapter === "5" && r.state === "fetching"),
    );
    const under = [
      c().post(`/api/manga/${s.id}/audit/retire/preview`, { file_ids: [f1.id] }),
      c().post(`/api/manga/${s.id}/audit/retire`, { confirmation: retirement.confirmation }),
      c().post(`/api/manga/${s.id}/audit/reject-source/preview`, { provider, source_id: sourceId }),
      c().post(`/api/manga/${s.id}/audit/reject-source`, { confirmation: rejection.confirmation }),
    ];
    for (const res of await Promise.all(under)) await expectProblem(res, 409, "download_active");
    const g = await app.gql(
      `mutation($s: Int!, $c: String!) { retireFiles(seriesId: $s, confirmation: $c) { retired { fileId } } }`,
      { s: s.id, c: retirement.confirmation },
    );
    expect(g.errors?.[0]?.extensions?.code).toBe("download_active");

    last.release();
    await c().settle(s.id);
    expect((await c().downloads(s.id)).find((d) => d.chapter === "5")?.state).toBe("published");
    await expectProblem(
      await c().post(`/api/manga/${s.id}/audit/retire`, { confirmation: retirement.confirmation }),
      409,
      "snapshot_stale",
    );
    await expectProblem(
      await c().post(`/api/manga/${s.id}/audit/reject-source`, { confirmation: rejection.confirmation }),
      409,
      "snapshot_stale",
    );
    const g2 = await app.gql(
      `mutation($s: Int!, $c: String!) { retireFiles(seriesId: $s, confirmation: $c) { retired { fileId } } }`,
      { s: s.id, c: retirement.confirmation },
    );
    expect(g2.errors?.[0]?.extensions?.code).toBe("snapshot_stale");
    expect((await c().audit(s.id)).total).toBe(5);
    expect((await c().mappings(s.id)).map((m) => m.source_id)).toEqual([sourceId]);
    expect((await c().bin()).filter((e) => e.series_id === s.id)).toEqual([]);

    const fresh = await expectJson<Preview>(
      await c().post(`/api/manga/${s.id}/audit/retire/preview`, { file_ids: [f1.id] }),
      200,
    );
    const done = await expectJson<Retired>(
      await c().post(`/api/manga/${s.id}/audit/retire`, { confirmation: fresh.confirmation }),
      200,
    );
    expect(done.retired.map((r) => r.file_id)).toEqual([f1.id]);

    // The rejection names the provider as the link did: a bare Suwayomi source id is that source.
    const bare = await expectJson<Preview & { provider: string; source_id: string; offers: number }>(
      await c().post(`/api/manga/${s.id}/audit/reject-source/preview`, { provider: SOURCE.id, source_id: sourceId }),
      200,
    );
    expect(bare).toMatchObject({ provider, source_id: sourceId, offers: 5 });
    expect(bare.files.map((f) => f.number).sort()).toEqual(["2", "3", "4", "5"]);
  });
});
