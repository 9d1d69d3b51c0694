/**
 * The download pipeline against a real Suwayomi-compatible server on 127.0.0.1 (test/fakes): the
 * Wanted pass queues, the workers fetch, judge, package and publish; degraded chapters are replaced
 * from another source; truncated pages fail; 500s retry; concurrency holds; cancel works.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stateDirs } from "../src/config.ts";
import { openArchive } from "../src/library/archive-reader.ts";
import { parseFileName } from "../src/domain/filename.ts";
import {
  chapterWithBlackCards,
  drawnChapter,
  fakeChapter,
  fakeWork,
  flakyPage,
  heldPage,
  slowPage,
  startFakeSuwayomi,
  stripFragmentChapter,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import {
  downloadsOf,
  fakeLookup,
  linkWork,
  pipelineApp,
  seriesWithSlots,
  settled,
  until,
  type Counting,
} from "./downloads-fixtures.ts";
import { expectJson, expectProblem } from "./fixtures.ts";
import { COMICINFO_XSD_21, assertValidXml } from "./xmllint.ts";
import type { TestApp } from "./utils.ts";

let app: TestApp;
let fake: FakeSuwayomi;
let counting: Counting;

beforeAll(async () => {
  fake = await startFakeSuwayomi({ works: [] });
  app = await pipelineApp();
  counting = fakeLookup(app, fake);
  app.services.downloadPipeline.useLookup(counting.lookup);
});
afterAll(async () => {
  await app.dispose();
  await fake.close();
});

const libraryFiles = (seriesId: number) =>
  app.ctx.db.libraryFile.findMany({ where: { seriesId, state: "active" }, orderBy: { id: "asc" } });

describe("judged downloads", () => {
  it("16 % black cards are degraded and replaced from the other source at once; 15 % pass", async () => {
    const bad = fakeWork({
      id: 11,
      title: "Harbor (A)",
      chapters: [
        fakeChapter({ chapterNumber: 1, pages: await chapterWithBlackCards(25, 4) }),
        fakeChapter({ chapterNumber: 2, pages: await chapterWithBlackCards(20, 3) }),
      ],
    });
    const good = fakeWork({
      id: 12,
      title: "Harbor (B)",
      chapters: [fakeChapter({ chapterNumber: 1, scanlator: "Team B", pages: await drawnChapter(10, 7) })],
    });
    fake.works.push(bad, good);
    const seriesId = await seriesWithSlots(app, "Harbor", ["1", "2"]);
    const a = await linkWork(app, seriesId, bad, { providerName: "suwayomi:A", priority: 5 });
    const b = await linkWork(app, seriesId, good, { providerName: "suwayomi:B", priority: 1 });

    const pass = await expectJson<{ queued: number; ledger: { entries: { number: string; reason: string }[] } }>(
      await app.api(`/api/manga/${seriesId}/wanted/run`, { method: "POST" }),
      200,
    );
    expect(pass.queued).toBe(2);
    expect(pass.ledger.entries.map((e) => [e.number, e.reason])).toEqual([
      ["1", "queued"],
      ["2", "queued"],
    ]);

    const rows = await until(
      "the degraded chapter replaced",
      () => downloadsOf(app, seriesId),
      (r) => r.length === 3 && settled(r),
    );
    expect(rows.map((r) => [r.chapter, r.sourceMappingId, r.state])).toEqual([
      ["1", a, "degraded"],
      ["2", a, "published"],
      ["1", b, "published"],
    ]);
    expect(rows[0]!.needsReplacement).toBe(true);
    const files = await libraryFiles(seriesId);
    expect(files.map((f) => [f.chapter, f.origin, f.pageCount])).toEqual([
      ["2", "download", 20],
      ["1", "download", 10],
    ]);
    const releases = await app.ctx.db.chapterRelease.findMany({ where: { seriesId }, orderBy: { id: "asc" } });
    expect(releases.map((r) => [r.chapter, r.sourceMappingId, r.externalId, r.fileId])).toEqual([
      ["2", a, String(bad.chapters[1]!.id), files[0]!.id],
      ["1", b, String(good.chapters[0]!.id), files[1]!.id],
    ]);
    expect(releases[1]!.scanlator).toBe("Team B");

    // The next pass: nothing wanted, the degraded release stays blocked.
    const again = await expectJson<{ queued: number }>(
      await app.api(`/api/manga/${seriesId}/wanted/run`, { method: "POST" }),
      200,
    );
    expect(again.queued).toBe(0);
    const units = await expectJson<{ units: { kind: string; number: string; owned: boolean }[] }>(
      await app.api(`/api/manga/${seriesId}/units`),
      200,
    );
    expect(units.units.filter((u) => u.kind === "chapter").map((u) => [u.number, u.owned])).toEqual([
      ["1", true],
      ["2", true],
    ]);
  });

  it("packages a CBZ with natural page names and a chapter ComicInfo valid against the v2.1 XSD; the name reads back", async () => {
    const work = fakeWork({
      id: 21,
      title: "Lantern",
      chapters: [fakeChapter({ chapterNumber: 4.5, scanlator: "Night Owls", pages: await drawnChapter(12, 3) })],
    });
    fake.works.push(work);
    const seriesId = await seriesWithSlots(app, "Lantern", ["4.5"]);
    await linkWork(app, seriesId, work, { providerName: "suwayomi:L" });
    await app.services.wanted.runPass(seriesId, { force: true });
    await until("published", () => downloadsOf(app, seriesId), settled);
    const [file] = await libraryFiles(seriesId);
    expect(file).toMatchObject({ chapter: "4.5", pageCount: 12, origin: "download" });
    expect(parseFileName(path.basename(file!.path))).toMatchObject({ chapter: "4.5" });
    const archive = await openArchive(path.join(app.config.libraryRoot, file!.path));
    try {
      expect(archive.pages.map((e) => e.name)).toEqual(
        Array.from({ length: 12 }, (_, i) => `${String(i + 1).padStart(3, "0")}.jpg`),
      );
      expect(archive.ignored).toEqual([]);
      const xml = archive.comicInfoXml ?? "";
      await assertValidXml(COMICINFO_XSD_21, [{ name: "ComicInfo.xml", xml }]);
      expect(xml).toContain("<Number>4.5</Number>");
      expect(xml).toContain("<ScanInformation>Night Owls</ScanInformation>");
      expect(xml).toContain("<PageCount>12</PageCount>");
    } finally {
      await archive.close();
    }
    // Nothing left in staging.
    expect(readdirSync(path.join(stateDirs(app.config).staging, "downloads"))).toEqual([]);
  });

  it("strip fragments in a paged series are degraded; with no other source the chapter stays wanted (all_offers_blocked)", async () => {
    const work = fakeWork({
      id: 31,
      title: "Paged",
      chapters: [fakeChapter({ chapterNumber: 1, pages: await stripFragmentChapter(4, 9) })],
    });
    fake.works.push(work);
    const seriesId = await seriesWithSlots(app, "Paged", ["1"]);
    await linkWork(app, seriesId, work, { providerName: "suwayomi:P" });
    await app.services.wanted.runPass(seriesId, { force: true });
    const [row] = await until("judged", () => downloadsOf(app, seriesId), settled);
    expect(row).toMatchObject({ state: "degraded" });
    expect(JSON.parse(row!.verdict!).reasons).toEqual(["strip_slices"]);
    expect(await libraryFiles(seriesId)).toEqual([]);
    // The replacement pass runs right after the verdict.
    const ledger = await until(
      "the replacement pass",
      () => app.services.wanted.ledger(seriesId),
      (l) => l.entries[0]?.reason !== "queued",
    );
    expect(ledger.entries.map((e) => [e.number, e.reason])).toEqual([["1", "all_offers_blocked"]]);
    expect(await downloadsOf(app, seriesId)).toHaveLength(1);
  });

  it("a truncated image fails the download with image_unreadable; nothing reaches the library", async () => {
    const pages = await drawnChapter(6, 9);
    pages[3] = { ...pages[3]!, bytes: pages[3]!.bytes.subarray(0, Math.floor(pages[3]!.bytes.length / 2)) };
    const work = fakeWork({ id: 41, title: "Cut", chapters: [fakeChapter({ chapterNumber: 1, pages })] });
    fake.works.push(work);
    const seriesId = await seriesWithSlots(app, "Cut", ["1"]);
    await linkWork(app, seriesId, work, { providerName: "suwayomi:C" });
    await app.services.wanted.runPass(seriesId, { force: true });
    const [row] = await until("failed", () => downloadsOf(app, seriesId), settled);
    expect(row).toMatchObject({ state: "failed", attempts: 1 });
    expect(row!.error).toMatch(/^image_unreadable: page 4/);
    expect(await libraryFiles(seriesId)).toEqual([]);
  });

  it("500s retry with back-off (waiting) and then succeed", async () => {
    const pages = await drawnChapter(5, 11);
    pages[1] = flakyPage(pages[1]!, 2, 500);
    const work = fakeWork({ id: 51, title: "Flaky", chapters: [fakeChapter({ chapterNumber: 1, pages })] });
    fake.works.push(work);
    const seriesId = await seriesWithSlots(app, "Flaky", ["1"]);
    await linkWork(app, seriesId, work, { providerName: "suwayomi:F" });
    const states: string[] = [];
    const sub = app.ctx.events.downloads.subscribe();
    const collect = (async () => {
      for await (const e of sub)
        if (e.seriesId === seriesId) {
          states.push(e.state);
          if (e.state === "published" || e.state === "failed") break;
        }
    })();
    await app.services.wanted.runPass(seriesId, { force: true });
    const [row] = await until("published", () => downloadsOf(app, seriesId), settled);
    await collect;
    expect(row).toMatchObject({ state: "published", attempts: 3, pagesDone: 5, pagesTotal: 5 });
    expect(states.filter((s) => s === "waiting")).toHaveLength(2);
    expect(states.at(-1)).toBe("published");
  });

  it("slow pages: at most 4 pages in flight per download, 2 downloads fetching per provider, 4 running", async () => {
    const chapters = await Promise.all(
      [1, 2, 3].map(async (n) =>
        fakeChapter({ chapterNumber: n, pages: (await drawnChapter(10, 20 + n)).map((p) => slowPage(p, 60)) }),
      ),
    );
    const work = fakeWork({ id: 61, title: "Slow", chapters });
    fake.works.push(work);
    const seriesId = await seriesWithSlots(app, "Slow", ["1", "2", "3"]);
    await linkWork(app, seriesId, work, { providerName: "suwayomi:S" });
    counting.peak.perDownload = 0;
    counting.peak.overall = 0;
    counting.peak.downloads = 0;
    let maxRunning = 0;
    await app.services.wanted.runPass(seriesId, { force: true });
    await until(
      "published",
      async () => {
        maxRunning = Math.max(maxRunning, app.services.downloadPipeline.runningIds().length);
        return downloadsOf(app, seriesId);
      },
      settled,
    );
    expect(counting.peak.perDownload).toBe(4);
    // A download that judges or publishes leaves its provider place to the next one (DOWNLOADS_TOTAL
    // still bounds the running ones): at most 2 fetch from the provider at once.
    expect(counting.peak.downloads).toBe(2);
    expect(maxRunning).toBeGreaterThanOrEqual(2);
    expect(maxRunning).toBeLessThanOrEqual(4);
    expect(counting.peak.overall).toBeLessThanOrEqual(8);
    expect((await libraryFiles(seriesId)).length).toBe(3);
  });

  it("a first page that is late: the pages after it wait (at most 8 held), and each published page is the served one byte for byte", async () => {
    // The pages are read into reused buffers, given back once written; a page written only after
    // the late one must keep its own bytes until then.
    let letGo!: () => void;
    const late = new Promise<void>((r) => (letGo = r));
    const served = await drawnChapter(20, 77);
    const work = fakeWork({
      id: 63,
      title: "Late First Page",
      chapters: [fakeChapter({ chapterNumber: 1, pages: [heldPage(served[0]!, late), ...served.slice(1)] })],
    });
    fake.works.push(work);
    const seriesId = await seriesWithSlots(app, "Late First Page", ["1"]);
    await linkWork(app, seriesId, work, { providerName: "suwayomi:LF" });
    const heldBefore = counting.held();
    counting.peak.held = heldBefore;
    const before = counting.fetched();
    await app.services.wanted.runPass(seriesId, { force: true });
    // Page 1 holds one of the 8 places; 7 later pages are fetched and wait for it.
    await until(
      "7 pages fetched",
      async () => counting.fetched() - before,
      (n) => n >= 7,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(counting.fetched() - before).toBe(7);
    letGo();
    await until("published", () => downloadsOf(app, seriesId), settled);
    expect(counting.peak.held - heldBefore).toBeLessThanOrEqual(8);
    expect(counting.held()).toBe(heldBefore);
    const [file] = await libraryFiles(seriesId);
    expect(file).toMatchObject({ chapter: "1", pageCount: 20 });
    const archive = await openArchive(path.join(app.config.libraryRoot, file!.path));
    try {
      for (const [i, page] of served.entries()) expect((await archive.readPage(i)).equals(page.bytes)).toBe(true);
    } finally {
      await archive.close();
    }
  });
});

describe("cancel and the queue API", () => {
  it("cancels a running download between pages: cancelled, staging removed, nothing published; REST == GraphQL", async () => {
    const work = fakeWork({
      id: 71,
      title: "Stop",
      chapters: [fakeChapter({ chapterNumber: 1, pages: (await drawnChapter(12, 31)).map((p) => slowPage(p, 150)) })],
    });
    fake.works.push(work);
    const seriesId = await seriesWithSlots(app, "Stop", ["1"]);
    await linkWork(app, seriesId, work, { providerName: "suwayomi:X" });
    await app.services.wanted.runPass(seriesId, { force: true });
    const [running] = await until(
      "fetching",
      () => downloadsOf(app, seriesId),
      (r) => r[0]?.state === "fetching" && r[0].pagesDone >= 1,
    );
    const cancelled = await expectJson<{ state: string; cancel_requested: boolean }>(
      await app.api(`/api/downloads/${running!.id}/cancel`, { method: "POST" }),
      200,
    );
    expect(cancelled).toMatchObject({ state: "cancelled", cancel_requested: true });
    expect(await libraryFiles(seriesId)).toEqual([]);
    await expectProblem(
      await app.api(`/api/downloads/${running!.id}/cancel`, { method: "POST" }),
      409,
      "download_not_cancellable",
    );

    const rest = await expectJson<Record<string, unknown>[]>(await app.api("/api/downloads?state=cancelled"), 200);
    const gql = await app.gql<{ downloadQueue: Record<string, unknown>[] }>(
      `{ downloadQueue(states: [CANCELLED]) { id seriesId state attempts pagesDone pagesTotal providerName cancelRequested nextAttemptAt } }`,
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data!.downloadQueue.map((d) => ({ ...d, state: String(d.state).toLowerCase() }))).toEqual(
      rest.map((d) => ({
        id: d.id,
        seriesId: d.series_id,
        state: d.state,
        attempts: d.attempts,
        pagesDone: d.pages_done,
        pagesTotal: d.pages_total,
        providerName: d.provider_name,
        cancelRequested: d.cancel_requested,
        nextAttemptAt: d.next_attempt_at,
      })),
    );
    expect(rest.some((d) => d.id === running!.id && d.provider_name === "suwayomi:X")).toBe(true);

    const wantedRest = await expectJson<{ entries: { number: string; reason: string }[] }>(
      await app.api(`/api/manga/${seriesId}/wanted`),
      200,
    );
    const wantedGql = await app.gql<{ wanted: { entries: { number: string; reason: string }[] } }>(
      `query($id: Int!) { wanted(seriesId: $id) { entries { number reason } } }`,
      { id: seriesId },
    );
    expect(wantedGql.data!.wanted.entries.map((e) => [e.number, e.reason.toLowerCase()])).toEqual(
      wantedRest.entries.map((e) => [e.number, e.reason]),
    );
  });

  it("an unknown state is refused; an unknown download is 404", async () => {
    await expectProblem(await app.api("/api/downloads?state=nope"), 400, "invalid_field");
    await expectProblem(await app.api("/api/downloads/999999/cancel", { method: "POST" }), 404, "download_not_found");
  });
});
