/**
 * A Suwayomi-Server as released before 2.3 (no fetchMangaAndChapters; chapters through
 * fetchChapters), whose source site fails once in passing while a chapter's pages are listed (Suwayomi
 * answers that as a GraphQL error with HTTP 200), from an empty service and through the public REST
 * API only: the search shows covers on the Suwayomi server, the link lists the chapters, and every
 * chapter arrives and is published without any other step.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { expectJson, type RestUnits } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const SRC: FakeSource = { id: "7501", name: "Old Shelf", lang: "en" };

interface RestDownload {
  chapter: string | null;
  state: string;
  error: string | null;
}

describe("a Suwayomi before 2.3 with a flaky source site", () => {
  let fake: FakeSuwayomi;
  let app: TestApp;
  beforeAll(async () => {
    fake = await startFakeSuwayomi({
      schema: "v2.2",
      sources: [SRC],
      works: [
        fakeWork({
          id: 31,
          title: "Quiet Orchard",
          source: SRC,
          thumbnailUrl: "https://covers.invalid/quiet-orchard.jpg",
          chapters: [
            fakeChapter({ chapterNumber: 1, pages: await drawnChapter(5, 1) }),
            fakeChapter({ chapterNumber: 2, pages: await drawnChapter(5, 2), sourceErrors: ["HTTP error 503"] }),
          ],
        }),
      ],
    });
    app = await createTestApp({ env: FAST_ENV });
  });
  afterAll(async () => {
    await app?.dispose();
    await fake?.close();
  });

  it("links through fetchChapters and publishes every chapter, the source's passing failure retried", async () => {
    await expectJson(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { enabled: true, url: fake.url, auth: "none" } },
      }),
      200,
    );
    const s = await expectJson<{ id: number }>(
      await app.api("/api/manga", { method: "POST", json: { title: "Quiet Orchard" } }),
      201,
    );
    const found = await expectJson<{ works: { source_id: string; thumbnail_url: string | null }[] }>(
      await app.api(`/api/manga/${s.id}/sources/search`, { method: "POST", json: { provider: SRC.id } }),
      200,
    );
    expect(found.works).toMatchObject([{ source_id: "31", thumbnail_url: `${fake.url}/api/v1/manga/31/thumbnail` }]);
    const linked = await expectJson<{ refresh: { status: string; offers: number } }>(
      await app.api(`/api/manga/${s.id}/sources`, {
        method: "POST",
        json: { provider: SRC.id, source_id: "31", language: "en" },
      }),
      201,
    );
    expect(linked.refresh).toMatchObject({ status: "ok", offers: 2 });

    const done = await until(
      "both chapters published",
      async () => expectJson<RestDownload[]>(await app.api(`/api/manga/${s.id}/downloads`), 200),
      (rows) => rows.length === 2 && rows.every((r) => ["published", "degraded", "failed"].includes(r.state)),
    );
    expect(done.map((r) => [r.chapter, r.state]).sort()).toEqual([
      ["1", "published"],
      ["2", "published"],
    ]);
    const owned = await expectJson<RestUnits>(await app.api(`/api/manga/${s.id}/units`), 200);
    expect(owned.units.filter((u) => u.kind === "chapter").map((u) => [u.number, u.owned])).toEqual([
      ["1", true],
      ["2", true],
    ]);
    // Chapter 2's page list was asked twice (the 503, then the retry); the chapters never through the 2.3 call again.
    expect(fake.requests.filter((r) => r.endsWith(" fetchChapterPages")).length).toBe(3);
    expect(fake.requests.filter((r) => r.endsWith(" fetchMangaAndChapters")).length).toBe(1);
  });
});
