/**
 * The blocklist as a user of the *arr apps meets it, from an empty service and through the public
 * API only (REST, GraphQL for one cancel and the lists) plus a Suwayomi-compatible server on
 * 127.0.0.1: two sources list chapters 1–3; the preferred one is slow; cancelling its chapter 1
 * (REST) and chapter 3 (GraphQL) with "block" fetches them from the other source at once, with no
 * other request, and the Interactive search says why the blocked release is not chosen. Lifting the
 * block makes the release choosable again. Bad input changes nothing. No database seeding, no
 * internal call.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { cbz, chapterFileName, expectJson, expectProblem, type RestUnits } from "./fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  slowPage,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const A: FakeSource = { id: "8101", name: "Slow Harbor", lang: "en" };
const B: FakeSource = { id: "8102", name: "Quick Shelf", lang: "en" };
const TITLE = "Night Ferry";

interface RestDownload {
  id: number;
  chapter: string | null;
  state: string;
  provider_name: string | null;
  external_id: string | null;
  blocked: boolean;
  blockable: boolean;
}
interface RestBlocked {
  id: number;
  series_id: number;
  series_title: string;
  provider_name: string;
  external_id: string;
  kind: string;
  chapter: string | null;
  download_id: number | null;
  created_at: string;
}
interface RestOffers {
  offers: { provider: string; external_id: string; verdict: string; why: string }[];
}

describe("blocklist: cancel and block, the replacement arrives from the other source", () => {
  let fake: FakeSuwayomi;
  let app: TestApp;
  let id: number;
  const downloads = async () => expectJson<RestDownload[]>(await app.api(`/api/manga/${id}/downloads`), 200);
  const ofChapter = (rows: RestDownload[], n: string) =>
    rows
      .filter((r) => r.chapter === n)
      .map((r) => `${r.provider_name === `suwayomi:${A.id}` ? "A" : "B"} ${r.state}`)
      .sort();
  const offers = async (n: string) =>
    expectJson<RestOffers>(await app.api(`/api/manga/${id}/slots/chapter/${n}/offers`), 200);

  beforeAll(async () => {
    const slow = async (n: number) => (await drawnChapter(10, 70 + n)).map((p) => slowPage(p, 400));
    fake = await startFakeSuwayomi({
      sources: [A, B],
      works: [
        fakeWork({
          id: 811,
          title: TITLE,
          source: A,
          chapters: await Promise.all(
            [1, 2, 3].map(async (n) => fakeChapter({ chapterNumber: n, pages: await slow(n) })),
          ),
        }),
        fakeWork({
          id: 812,
          title: TITLE,
          source: B,
          chapters: await Promise.all(
            [1, 2, 3].map(async (n) => fakeChapter({ chapterNumber: n, pages: await drawnChapter(6, 80 + n) })),
          ),
        }),
      ],
    });
    app = await createTestApp({ env: FAST_ENV });
    const dir = path.join(app.config.libraryRoot, TITLE);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, chapterFileName(TITLE, 0)), await cbz(8));
    await expectJson(await app.api("/api/library/scan", { method: "POST" }), 200);
    id = (await expectJson<{ id: number; title: string }[]>(await app.api("/api/manga"), 200)).find(
      (s) => s.title === TITLE,
    )!.id;
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

  it("blocks the release of a cancelled download; the next choice is the other source's, at once", async () => {
    // The slow source first, preferred: its pass queues chapters 1–3 from it.
    for (const [source, priority] of [
      [A, 10],
      [B, 0],
    ] as const) {
      const found = await expectJson<{ works: { source_id: string; title: string }[] }>(
        await app.api(`/api/manga/${id}/sources/search`, { method: "POST", json: { provider: source.id } }),
        200,
      );
      const work = found.works.find((w) => w.title === TITLE)!;
      await expectJson(
        await app.api(`/api/manga/${id}/sources`, {
          method: "POST",
          json: { provider: source.id, source_id: work.source_id, language: "en", priority },
        }),
        201,
      );
      if (source === A)
        await until("chapters 1–3 queued from A", downloads, (r) =>
          ["1", "2", "3"].every((n) => ofChapter(r, n).length === 1),
        );
    }
    const first = await until("chapter 1 fetching from A", downloads, (r) =>
      r.some((d) => d.chapter === "1" && d.state === "fetching"),
    );
    const one = first.find((d) => d.chapter === "1")!;
    const three = first.find((d) => d.chapter === "3")!;
    const two = first.find((d) => d.chapter === "2")!;

    // Bad input is refused and changes nothing.
    await expectProblem(
      await app.api(`/api/downloads/${one.id}/cancel?blocklist=maybe`, { method: "POST" }),
      400,
      "bad_request",
    );
    await expectProblem(
      await app.api(`/api/downloads/${two.id}/block`, { method: "POST" }),
      409,
      "download_not_blockable",
    );
    await expectProblem(await app.api("/api/downloads/999999/block", { method: "POST" }), 404, "download_not_found");
    expect(await expectJson<RestBlocked[]>(await app.api(`/api/blocklist?manga_id=${id}`), 200)).toEqual([]);
    expect((await downloads()).find((d) => d.id === one.id)?.state).not.toBe("cancelled");

    // Chapter 1 through REST, chapter 3 through GraphQL.
    const cancelled = await expectJson<{ state: string; blocked: boolean }>(
      await app.api(`/api/downloads/${one.id}/cancel?blocklist=true`, { method: "POST" }),
      200,
    );
    expect(cancelled).toMatchObject({ state: "cancelled", blocked: true });
    const gql = await app.gql<{ cancelDownload: { id: number; state: string; blocked: boolean } }>(
      `mutation($id: Int!) { cancelDownload(id: $id, blocklist: true) { id state blocked } }`,
      { id: three.id },
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data!.cancelDownload.blocked).toBe(true);

    // No other request: the replacements come from B; chapter 2 still arrives from A.
    const units = await until(
      "chapters 1–3 on disk",
      async () => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200),
      (u) => ["1", "2", "3"].every((n) => u.units.some((x) => x.kind === "chapter" && x.number === n && x.owned)),
      60_000,
    );
    expect(units.units.filter((u) => u.kind === "chapter" && u.owned).map((u) => u.number)).toEqual([
      "0",
      "1",
      "2",
      "3",
    ]);
    const rows = await until("downloads settled", downloads, (r) =>
      r.every((d) => ["published", "cancelled", "failed", "degraded"].includes(d.state)),
    );
    expect(ofChapter(rows, "1")).toEqual(["A cancelled", "B published"]);
    // Each download says whether its release is blocked, and whether it may be blocked now.
    const flags = (n: string) =>
      rows
        .filter((r) => r.chapter === n)
        .map((r) => `${r.state} blocked=${r.blocked} blockable=${r.blockable}`)
        .sort();
    expect(flags("1")).toEqual(["cancelled blocked=true blockable=false", "published blocked=false blockable=false"]);
    await expectProblem(
      await app.api(`/api/downloads/${rows.find((r) => r.chapter === "2")!.id}/block`, { method: "POST" }),
      409,
      "download_not_blockable",
    );
    expect(ofChapter(rows, "2")).toEqual(["A published"]);
    expect(ofChapter(rows, "3")).toEqual(["A cancelled", "B published"]);

    // The list, REST and GraphQL alike.
    const list = await expectJson<RestBlocked[]>(await app.api(`/api/blocklist?manga_id=${id}`), 200);
    expect(list.map((b) => [b.chapter, b.provider_name, b.download_id, b.external_id])).toEqual([
      ["3", `suwayomi:${A.id}`, three.id, three.external_id],
      ["1", `suwayomi:${A.id}`, one.id, one.external_id],
    ]);
    expect(list[0]).toMatchObject({ series_id: id, series_title: TITLE, kind: "chapter" });
    expect(await expectJson<RestBlocked[]>(await app.api("/api/blocklist"), 200)).toEqual(list);
    const gqlList = await app.gql<{ blocklist: Record<string, unknown>[] }>(
      `query($id: Int) { blocklist(seriesId: $id) { id seriesId seriesTitle providerName externalId kind chapter downloadId createdAt } }`,
      { id },
    );
    expect(gqlList.errors).toBeUndefined();
    expect(gqlList.data!.blocklist).toEqual(
      list.map((b) => ({
        id: b.id,
        seriesId: b.series_id,
        seriesTitle: b.series_title,
        providerName: b.provider_name,
        externalId: b.external_id,
        kind: b.kind.toUpperCase(),
        chapter: b.chapter,
        downloadId: b.download_id,
        createdAt: b.created_at,
      })),
    );

    // The Interactive search says why A's chapter 1 is not chosen.
    const blockedOffer = (await offers("1")).offers.find((o) => o.external_id === one.external_id)!;
    expect(blockedOffer).toMatchObject({ provider: `suwayomi:${A.id}`, verdict: "blocked_by_operator" });
    expect(blockedOffer.why).toMatch(/blocked/i);

    // Blocking a finished download's release again keeps the first entry.
    const again = await expectJson<RestBlocked>(
      await app.api(`/api/downloads/${one.id}/block`, { method: "POST" }),
      201,
    );
    expect(again.id).toBe(list[1]!.id);
    expect((await expectJson<RestBlocked[]>(await app.api(`/api/blocklist?manga_id=${id}`), 200)).length).toBe(2);

    // Lifting the block: the release may be chosen again.
    const removed = await app.api(`/api/blocklist/${list[1]!.id}`, { method: "DELETE" });
    expect(removed.status).toBe(204);
    await expectProblem(
      await app.api(`/api/blocklist/${list[1]!.id}`, { method: "DELETE" }),
      404,
      "blocked_release_not_found",
    );
    const lifted = (await offers("1")).offers.find((o) => o.external_id === one.external_id)!;
    expect(lifted.verdict).not.toBe("blocked_by_operator");
    const gqlRemove = await app.gql<{ unblockRelease: boolean }>(`mutation($id: Int!) { unblockRelease(id: $id) }`, {
      id: list[0]!.id,
    });
    expect(gqlRemove.data?.unblockRelease).toBe(true);
    const gqlMissing = await app.gql(`mutation($id: Int!) { unblockRelease(id: $id) }`, { id: list[0]!.id });
    expect(gqlMissing.errors?.[0]?.extensions?.code).toBe("blocked_release_not_found");
    expect(await expectJson<RestBlocked[]>(await app.api(`/api/blocklist?manga_id=${id}`), 200)).toEqual([]);
    await expectProblem(await app.api("/api/blocklist?manga_id=999999"), 404, "series_not_found");
  });
});
