/**
 * The acquisition loop as a new user meets it, from an empty service and through the public API
 * only (REST here; GraphQL for the mutations in the second suite) plus a Suwayomi-compatible server
 * on 127.0.0.1: a series folder with chapters 0–2, the Suwayomi settings, a search, two sources
 * linked → the chapters the sources list become units and are fetched without any other step, the
 * degraded ones (black cards above 15 %, strip slices) replaced from the other source, exactly 15 %
 * and dark pages kept; then a chapter added at the source arrives through the scheduled pass alone.
 * Last, a wrongly linked work is rejected from the audit: its downloaded files go to the recycle
 * bin and it is never fetched nor linked again, while the right work of the same source stays.
 * No database seeding, no internal call.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { darkPanelsPage, nightPage } from "../src/library/test-pages.ts";
import { FAST_ENV, until } from "./downloads-fixtures.ts";
import { cbz, chapterFileName, expectJson, expectProblem, type RestUnits } from "./fixtures.ts";
import {
  chapterWithBlackCards,
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  stripFragmentChapter,
  type FakePage,
  type FakeSource,
  type FakeSuwayomi,
  type FakeWork,
} from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

const A: FakeSource = { id: "7101", name: "Harbor Scans", lang: "en" };
const B: FakeSource = { id: "7102", name: "Second Shelf", lang: "en" };

interface RestDownload {
  id: number;
  chapter: string | null;
  part: number | null;
  state: string;
  provider_name: string | null;
  verdict: { reasons: string[] } | null;
}

/** An app with a fast scheduled pass (every second) and fast retries; nothing else is set up. */
const appWithSchedule = () => createTestApp({ env: { ...FAST_ENV, WANTED_INTERVAL_SECONDS: "1" } });

async function seriesFolder(app: TestApp, title: string, chapters: number[]): Promise<number> {
  const dir = path.join(app.config.libraryRoot, title);
  await mkdir(dir, { recursive: true });
  for (const n of chapters) await writeFile(path.join(dir, chapterFileName(title, n)), await cbz(8));
  const scan = await expectJson<{ series_created: number }>(
    await app.api("/api/library/scan", { method: "POST" }),
    200,
  );
  expect(scan.series_created).toBe(1);
  const list = await expectJson<{ id: number; title: string }[]>(await app.api("/api/manga"), 200);
  return list.find((s) => s.title === title)!.id;
}

const units = async (app: TestApp, id: number) => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
const downloads = async (app: TestApp, id: number) =>
  expectJson<RestDownload[]>(await app.api(`/api/manga/${id}/downloads`), 200);
const chapterRows = (u: RestUnits) =>
  u.units.filter((x) => x.kind === "chapter").map((x) => `${x.number}${x.owned ? "" : "?"}${x.extra ? "x" : ""}`);
const settled = (rows: RestDownload[]) =>
  rows.every((r) => ["published", "degraded", "failed", "cancelled"].includes(r.state));
const jpeg = (bytes: Buffer): FakePage => ({ bytes, contentType: "image/jpeg" });

describe("acquisition from the first link (REST)", () => {
  let fake: FakeSuwayomi;
  let app: TestApp;
  let workA: FakeWork;
  let workB: FakeWork;
  beforeAll(async () => {
    const size = { width: 400, height: 580 };
    const dark = [
      ...(await drawnChapter(6, 55)).map((p) => p),
      jpeg(await nightPage(51, size)),
      jpeg(await nightPage(52, { ...size, sparse: true })),
      jpeg(await darkPanelsPage(53, size)),
    ];
    workA = fakeWork({
      id: 901,
      title: "Tide Harbor",
      source: A,
      chapters: [
        ...(await Promise.all(
          [0, 1, 2].map(async (n) => fakeChapter({ chapterNumber: n, pages: await drawnChapter(6, n) })),
        )),
        // 4 of 25 black cards (16 %): degraded. 3 of 20 (exactly 15 %): kept. Dark drawn pages: kept.
        fakeChapter({ chapterNumber: 3, pages: await chapterWithBlackCards(25, 4, 3) }),
        fakeChapter({ chapterNumber: 4, pages: await chapterWithBlackCards(20, 3, 4) }),
        fakeChapter({ chapterNumber: 5, pages: dark }),
        // Strip slices in a series that reads in pages: degraded.
        fakeChapter({ chapterNumber: 6, pages: await stripFragmentChapter(2, 5, 6) }),
        ...(await Promise.all(
          [7, 8, 9, 10].map(async (n) => fakeChapter({ chapterNumber: n, pages: await drawnChapter(6, n) })),
        )),
      ],
    });
    workB = fakeWork({
      id: 902,
      title: "Tide Harbor",
      source: B,
      chapters: [
        ...(await Promise.all(
          [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(async (n) =>
            fakeChapter({ chapterNumber: n, pages: await drawnChapter(7, 40 + n) }),
          ),
        )),
        // A side chapter: an extra, listed but never fetched by itself.
        fakeChapter({ chapterNumber: 5.5, name: "Chapter 5.5", pages: await drawnChapter(4, 99) }),
      ],
    });
    fake = await startFakeSuwayomi({ works: [workA, workB], sources: [A, B] });
    app = await appWithSchedule();
  });
  afterAll(async () => {
    await app?.dispose();
    await fake?.close();
  });

  it("links two sources: the listed chapters become units and arrive, degraded ones from the other source", async () => {
    const id = await seriesFolder(app, "Tide Harbor", [0, 1, 2]);
    expect(chapterRows(await units(app, id))).toEqual(["0", "1", "2"]);

    await expectJson(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { enabled: true, url: fake.url, auth: "none" } },
      }),
      200,
    );
    const sources = await expectJson<{ id: string }[]>(await app.api("/api/providers/suwayomi/sources?lang=en"), 200);
    expect(sources.map((s) => s.id).sort()).toEqual([A.id, B.id]);

    for (const [source, priority, offers] of [
      [A, 10, 11],
      [B, 0, 12],
    ] as const) {
      const found = await expectJson<{ works: { source_id: string; title: string }[] }>(
        await app.api(`/api/manga/${id}/sources/search`, { method: "POST", json: { provider: source.id } }),
        200,
      );
      const work = found.works.find((w) => w.title === "Tide Harbor")!;
      const linked = await expectJson<{ refresh: { offers: number; status: string } }>(
        await app.api(`/api/manga/${id}/sources`, {
          method: "POST",
          json: { provider: source.id, source_id: work.source_id, language: "en", priority },
        }),
        201,
      );
      expect(linked.refresh).toMatchObject({ status: "ok", offers });
    }

    // At once: every listed chapter is a unit; 0 and 5.5 are extras, the side chapter unmonitored.
    const listed = await units(app, id);
    expect(listed.units.filter((u) => u.kind === "chapter").map((u) => u.number)).toEqual([
      "1",
      "2",
      "3",
      "4",
      "5",
      "6",
      "7",
      "8",
      "9",
      "10",
      "0",
      "5.5",
    ]);
    expect(listed.units.find((u) => u.number === "5.5")).toMatchObject({ extra: true, monitored: false, owned: false });

    // Nothing else is asked of the service: the pass after the link fetches what is wanted.
    const done = await until(
      "chapters 3–10 on disk",
      () => units(app, id),
      (u) => u.units.filter((x) => x.kind === "chapter" && !x.extra).every((x) => x.owned),
      60_000,
    );
    expect(chapterRows(done)).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "0x", "5.5?x"]);
    const rows = await until("downloads settled", () => downloads(app, id), settled, 60_000);
    const outcome = (n: string) =>
      rows
        .filter((r) => r.chapter === n)
        .map((r) => `${r.provider_name === `suwayomi:${A.id}` ? "A" : "B"} ${r.state}`)
        .sort();
    expect(outcome("3")).toEqual(["A degraded", "B published"]);
    expect(outcome("6")).toEqual(["A degraded", "B published"]);
    expect(outcome("4")).toEqual(["A published"]);
    expect(outcome("5")).toEqual(["A published"]);
    for (const n of ["7", "8", "9", "10"]) expect(outcome(n)).toEqual(["A published"]);
    // Chapters 0–2 were on disk; the side chapter is never fetched by itself.
    for (const n of ["0", "1", "2", "5.5"]) expect(outcome(n)).toEqual([]);
    expect(rows.find((r) => r.chapter === "3" && r.state === "degraded")?.verdict?.reasons).toEqual(["black_cards"]);
    expect(rows.find((r) => r.chapter === "6" && r.state === "degraded")?.verdict?.reasons).toEqual(["strip_slices"]);

    // Read back through the page endpoint, every page of the chapters fetched is the source's page
    // byte for byte (pages are fetched into reused buffers, several chapters at once).
    for (const [n, work] of [
      ["4", workA],
      ["5", workA],
      ["7", workA],
      ["3", workB],
    ] as const) {
      const fileId = done.units.find((u) => u.kind === "chapter" && u.number === n)!.file_ids[0]!;
      const served = work.chapters.find((c) => c.chapterNumber === Number(n))!.pages;
      for (const [i, page] of served.entries()) {
        const res = await app.api(`/api/files/${fileId}/pages/${i + 1}`);
        expect(res.status).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(page.bytes), `chapter ${n}, page ${i + 1}`).toBe(true);
      }
    }
  });

  it("a chapter that appears at a source later arrives through the scheduled pass, with no request", async () => {
    const id = (await expectJson<{ id: number }[]>(await app.api("/api/manga"), 200))[0]!.id;
    workA.chapters.push(fakeChapter({ chapterNumber: 11, pages: await drawnChapter(6, 11) }));
    // No call to the service here: only reads until the chapter is on disk.
    const u = await until(
      "chapter 11 on disk",
      () => units(app, id),
      (x) => x.units.some((c) => c.kind === "chapter" && c.number === "11" && c.owned),
      60_000,
    );
    expect(u.units.find((c) => c.number === "11")).toMatchObject({ owned: true, monitored: true });
  });
});

describe("acquisition from the first link (GraphQL mutations)", () => {
  let fake: FakeSuwayomi;
  let app: TestApp;
  let work: FakeWork;
  beforeAll(async () => {
    work = fakeWork({
      id: 951,
      title: "Paper Lanterns",
      source: A,
      chapters: await Promise.all(
        [0, 1, 2, 3, 4].map(async (n) => fakeChapter({ chapterNumber: n, pages: await drawnChapter(5, 60 + n) })),
      ),
    });
    fake = await startFakeSuwayomi({ works: [work], sources: [A] });
    app = await appWithSchedule();
  });
  afterAll(async () => {
    await app?.dispose();
    await fake?.close();
  });

  const gql = async <T>(query: string, variables: Record<string, unknown>): Promise<T> => {
    const res = await app.gql<T>(query, variables);
    expect(res.errors).toBeUndefined();
    return res.data!;
  };

  it("settings, search and link as mutations: the missing chapters arrive, then a new one by the schedule", async () => {
    const id = await seriesFolder(app, "Paper Lanterns", [0, 1, 2]);
    await gql(
      `mutation($url: String!) { updateSourceSettings(input: { suwayomi: { enabled: true, url: $url, auth: NONE } }) { suwayomi { configured } } }`,
      { url: fake.url },
    );
    const found = await gql<{ searchSources: { works: { sourceId: string; title: string }[] } }>(
      `mutation($s: Int!, $p: String!) { searchSources(seriesId: $s, provider: $p) { works { sourceId title } } }`,
      { s: id, p: A.id },
    );
    const sourceId = found.searchSources.works.find((w) => w.title === "Paper Lanterns")!.sourceId;
    const linked = await gql<{ linkSource: { refresh: { offers: number } } }>(
      `mutation($s: Int!, $p: String!, $src: String!) { linkSource(seriesId: $s, provider: $p, sourceId: $src, language: "en") { refresh { offers } } }`,
      { s: id, p: A.id, src: sourceId },
    );
    expect(linked.linkSource.refresh.offers).toBe(5);
    const arrived = await until(
      "chapters 3 and 4 on disk",
      () => units(app, id),
      (u) => ["3", "4"].every((n) => u.units.some((x) => x.number === n && x.owned)),
      60_000,
    );
    expect(chapterRows(arrived)).toEqual(["1", "2", "3", "4", "0x"]);
    // The operator's own pass (GraphQL) has nothing left to queue.
    const pass = await gql<{ runWantedPass: { queued: number } }>(
      `mutation($s: Int!) { runWantedPass(seriesId: $s) { queued } }`,
      { s: id },
    );
    expect(pass.runWantedPass.queued).toBe(0);

    work.chapters.push(fakeChapter({ chapterNumber: 5, pages: await drawnChapter(5, 65) }));
    await until(
      "chapter 5 on disk through the scheduled pass",
      () => units(app, id),
      (u) => u.units.some((x) => x.number === "5" && x.owned),
      60_000,
    );
  });
});

describe("rejecting a linked source, from the first link (REST)", () => {
  let fake: FakeSuwayomi;
  let app: TestApp;
  beforeAll(async () => {
    const chapters = (numbers: number[], seed: number) =>
      Promise.all(numbers.map(async (n) => fakeChapter({ chapterNumber: n, pages: await drawnChapter(5, seed + n) })));
    // One source lists two works under the series' title: another edition with chapters 1–3,
    // the right one with chapters 4–5.
    const wrong = fakeWork({
      id: 971,
      title: "Lantern Quay (Fan Edit)",
      source: A,
      chapters: await chapters([1, 2, 3], 70),
    });
    const right = fakeWork({ id: 972, title: "Lantern Quay", source: A, chapters: await chapters([4, 5], 80) });
    fake = await startFakeSuwayomi({ works: [wrong, right], sources: [A] });
    app = await appWithSchedule();
  });
  afterAll(async () => {
    await app?.dispose();
    await fake?.close();
  });

  interface RestMappingRow {
    provider: string;
    source_id: string;
    state: string;
  }
  interface RestAuditFile {
    id: number;
    number: string | null;
    path: string;
  }

  it("previews and rejects one work: its files go to the bin, it is never fetched nor linked again; the other stays", async () => {
    const id = await seriesFolder(app, "Lantern Quay", [0]);
    await expectJson(
      await app.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { enabled: true, url: fake.url, auth: "none" } },
      }),
      200,
    );
    const search = async () =>
      (
        await expectJson<{ works: { source_id: string; title: string; rejected: boolean; linked: boolean }[] }>(
          await app.api(`/api/manga/${id}/sources/search`, { method: "POST", json: { provider: A.id } }),
          200,
        )
      ).works;
    const found = await search();
    expect(found.map((w) => w.title).sort()).toEqual(["Lantern Quay", "Lantern Quay (Fan Edit)"]);
    for (const w of found) {
      await expectJson(
        await app.api(`/api/manga/${id}/sources`, {
          method: "POST",
          json: { provider: A.id, source_id: w.source_id, language: "en" },
        }),
        201,
      );
    }
    const wrongId = found.find((w) => w.title.includes("Fan Edit"))!.source_id;
    await until(
      "chapters 1–5 on disk",
      () => units(app, id),
      (u) => ["1", "2", "3", "4", "5"].every((n) => u.units.some((x) => x.number === n && x.owned)),
      60_000,
    );
    await until("downloads settled", () => downloads(app, id), settled, 60_000);

    // The audit names the source of each downloaded file; the wrong work's are its three chapters.
    const mappings = await expectJson<RestMappingRow[]>(await app.api(`/api/manga/${id}/sources`), 200);
    const provider = mappings.find((m) => m.source_id === wrongId)!.provider;
    const audit = async (query: string) =>
      expectJson<{ total: number; files: RestAuditFile[] }>(await app.api(`/api/manga/${id}/audit${query}`), 200);
    const fromWrong = await audit(`?provider=${encodeURIComponent(provider)}&source_id=${encodeURIComponent(wrongId)}`);
    expect(fromWrong.files.map((f) => f.number)).toEqual(["1", "2", "3"]);

    const preview = await expectJson<{
      offers: number;
      files: { id: number }[];
      confirmation: string;
    }>(
      await app.api(`/api/manga/${id}/audit/reject-source/preview`, {
        method: "POST",
        json: { provider, source_id: wrongId, reason: "a fan edit, not the release" },
      }),
      200,
    );
    expect(preview.offers).toBe(3);
    expect(preview.files.map((f) => f.id).sort()).toEqual(fromWrong.files.map((f) => f.id).sort());
    const done = await expectJson<{ offers_removed: number; retired: { file_id: number }[] }>(
      await app.api(`/api/manga/${id}/audit/reject-source`, {
        method: "POST",
        json: { confirmation: preview.confirmation },
      }),
      200,
    );
    expect(done.offers_removed).toBe(3);
    expect(done.retired.map((r) => r.file_id).sort()).toEqual(fromWrong.files.map((f) => f.id).sort());

    // The files are in the recycle bin; the other work and its files stay.
    const bin = await expectJson<{ file_id: number; reason: string }[]>(await app.api("/api/recycle-bin"), 200);
    expect(bin.map((e) => e.file_id).sort()).toEqual(fromWrong.files.map((f) => f.id).sort());
    expect(bin.every((e) => e.reason.includes(wrongId))).toBe(true);
    const left = await expectJson<RestMappingRow[]>(await app.api(`/api/manga/${id}/sources`), 200);
    expect(left.map((m) => m.source_id)).toEqual([found.find((w) => w.title === "Lantern Quay")!.source_id]);
    expect((await audit("")).files.map((f) => f.number).sort()).toEqual(["0", "4", "5"]);

    // Chapters 1–3 are wanted again, with no offer left: nothing is fetched from the rejected work.
    await expectJson(await app.api(`/api/manga/${id}/sources/refresh`, { method: "POST" }), 200);
    const pass = await expectJson<{ queued: number; ledger: { entries: { number: string; reason: string }[] } }>(
      await app.api(`/api/manga/${id}/wanted/run`, { method: "POST" }),
      200,
    );
    expect(pass.queued).toBe(0);
    expect(pass.ledger.entries.map((e) => `${e.number} ${e.reason}`).sort()).toEqual([
      "1 no_offer",
      "2 no_offer",
      "3 no_offer",
    ]);
    expect(chapterRows(await units(app, id))).toEqual(["0", "1?", "2?", "3?", "4", "5"]);
    // The search marks it, and linking it again is refused with the reason.
    expect((await search()).find((w) => w.source_id === wrongId)).toMatchObject({ rejected: true, linked: false });
    const again = await expectProblem(
      await app.api(`/api/manga/${id}/sources`, {
        method: "POST",
        json: { provider: A.id, source_id: wrongId, language: "en" },
      }),
      409,
      "source_rejected",
    );
    expect(again.detail).toContain("a fan edit, not the release");
  });
});
