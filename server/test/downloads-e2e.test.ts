/**
 * End to end through the real provider registry (Suwayomi settings pointing at the fake server on
 * 127.0.0.1): a series linked to two sources → Wanted pass → downloads → the degraded chapter replaced
 * from the other source → the units show the chapters on disk → the book previews for assembly.
 * Recovery of a library file judged bad later, and a restart in the middle of a download.
 */
import { rmSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { stateDirs } from "../src/config.ts";
import { putSetting, SOURCES_SETTING_KEY } from "../src/services/acquisition/source-settings.ts";
import { SUWAYOMI_SOURCES_KEY } from "../src/providers/registry.ts";
import {
  chapterWithBlackCards,
  drawnChapter,
  fakeChapter,
  fakeWork,
  slowPage,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import { downloadsOf, linkWork, pipelineApp, seriesWithSlots, settled, until } from "./downloads-fixtures.ts";
import { expectJson, type RestUnits } from "./fixtures.ts";
import type { TestApp } from "./utils.ts";

const A: FakeSource = { id: "7001", name: "Source A", lang: "en" };
const B: FakeSource = { id: "7002", name: "Source B", lang: "en" };
let fake: FakeSuwayomi;

beforeAll(async () => {
  fake = await startFakeSuwayomi({ works: [], sources: [A, B] });
});
afterAll(() => fake.close());

/** Suwayomi enabled in the settings, the two sources known: the registry builds the real providers. */
async function configureSuwayomi(app: Pick<TestApp, "ctx">): Promise<void> {
  await putSetting(app.ctx, SOURCES_SETTING_KEY, {
    suwayomi: { enabled: true, url: fake.url, auth: "none", username: null },
  });
  await putSetting(app.ctx, SUWAYOMI_SOURCES_KEY, {
    [A.id]: { name: A.name, lang: A.lang },
    [B.id]: { name: B.name, lang: B.lang },
  });
}

describe("two sources, one degraded chapter", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await pipelineApp();
    await configureSuwayomi(app);
  });
  afterAll(() => app.dispose());

  it("Wanted pass → downloads → replacement from the other source → units on disk → the book assembles", async () => {
    const workA = fakeWork({
      id: 101,
      title: "Tide",
      source: A,
      chapters: [
        fakeChapter({ chapterNumber: 1, pages: await chapterWithBlackCards(25, 4, 1) }),
        fakeChapter({ chapterNumber: 2, pages: await chapterWithBlackCards(20, 3, 2) }),
        fakeChapter({ chapterNumber: 3, pages: await drawnChapter(9, 3) }),
      ],
    });
    const workB = fakeWork({
      id: 102,
      title: "Tide",
      source: B,
      chapters: [1, 2, 3].map((n) => fakeChapter({ chapterNumber: n, pages: [] })),
    });
    for (const c of workB.chapters) c.pages = await drawnChapter(8, 40 + c.chapterNumber);
    fake.works.push(workA, workB);
    const seriesId = await seriesWithSlots(app, "Tide", ["1", "2", "3"]);
    await expectJson(
      await app.api(`/api/manga/${seriesId}/chapter-map`, {
        method: "PUT",
        json: { revision: 0, entries: [{ volume: "1", chapters: ["1", "2", "3"] }] },
      }),
      200,
    );
    const a = await linkWork(app, seriesId, workA, { providerName: `suwayomi:${A.id}`, priority: 10 });
    const b = await linkWork(app, seriesId, workB, { providerName: `suwayomi:${B.id}`, priority: 0 });

    const first = await app.services.wanted.runPass(seriesId, { force: true });
    expect(first.queued).toBe(3);
    expect(first.entries.map((e) => [e.kind, e.number, e.reason])).toEqual([
      ["chapter", "1", "queued"],
      ["chapter", "2", "queued"],
      ["chapter", "3", "queued"],
      ["book", "1", "no_offer"],
    ]);
    const rows = await until(
      "all settled",
      () => downloadsOf(app, seriesId),
      (r) => r.length === 4 && settled(r),
    );
    expect(
      rows.map((r) => [r.chapter, r.sourceMappingId === a ? "A" : r.sourceMappingId === b ? "B" : "?", r.state]),
    ).toEqual([
      ["1", "A", "degraded"],
      ["2", "A", "published"],
      ["3", "A", "published"],
      ["1", "B", "published"],
    ]);
    const units = await expectJson<RestUnits>(await app.api(`/api/manga/${seriesId}/units`), 200);
    expect(units.units.map((u) => [u.kind, u.number, u.owned, u.coverage])).toEqual([
      ["chapter", "1", true, null],
      ["chapter", "2", true, null],
      ["chapter", "3", true, null],
      ["book", "1", false, "covered_by_chapters"],
    ]);
    const preview = await app.gql<{ previewBookAssembly: { chapters: { number: string; fileIds: number[] }[] } }>(
      `mutation($s:Int!){ previewBookAssembly(seriesId:$s, volume:"1"){ chapters { number fileIds } } }`,
      { s: seriesId },
    );
    expect(preview.errors).toBeUndefined();
    expect(preview.data!.previewBookAssembly.chapters.map((c) => c.number)).toEqual(["1", "2", "3"]);
    // The next pass: every chapter on disk, the book covered by them: nothing wanted, nothing queued.
    const next = await app.services.wanted.runPass(seriesId);
    expect([next.queued, next.entries]).toEqual([0, []]);
  });

  it("recovery: a published file judged bad later is replaced from another source and retired only after", async () => {
    const workA = fakeWork({
      id: 201,
      title: "Reef",
      source: A,
      chapters: [
        fakeChapter({ chapterNumber: 1, pages: await drawnChapter(8, 61) }),
        fakeChapter({ chapterNumber: 2, pages: await drawnChapter(8, 62) }),
      ],
    });
    const workB = fakeWork({
      id: 202,
      title: "Reef",
      source: B,
      chapters: [fakeChapter({ chapterNumber: 1, pages: await drawnChapter(9, 63) })],
    });
    fake.works.push(workA, workB);
    const seriesId = await seriesWithSlots(app, "Reef", ["1", "2"]);
    await linkWork(app, seriesId, workA, { providerName: `suwayomi:${A.id}` });
    await app.services.wanted.runPass(seriesId, { force: true });
    const done = await until(
      "published",
      () => downloadsOf(app, seriesId),
      (r) => r.length === 2 && settled(r),
    );
    const [d1, d2] = done;
    // Both later judged bad (e.g. a re-judgement); only chapter 1 has another source.
    await app.ctx.db.download.updateMany({ where: { id: { in: [d1!.id, d2!.id] } }, data: { needsReplacement: true } });
    const b = await linkWork(app, seriesId, workB, { providerName: `suwayomi:${B.id}` });
    const pass = await app.services.wanted.runPass(seriesId, { force: true });
    expect(pass.entries.map((e) => [e.number, e.reason, e.detail.replacesFileId])).toEqual([
      ["1", "replacing", d1!.fileId],
      ["2", "no_other_source", d2!.fileId],
    ]);
    const rows = await until(
      "replacement published",
      () => downloadsOf(app, seriesId),
      (r) => r.length === 3 && settled(r),
    );
    expect(rows[2]).toMatchObject({ sourceMappingId: b, state: "published", replacesFileId: d1!.fileId });
    const files = await app.ctx.db.libraryFile.findMany({ where: { seriesId } });
    const stateOf = new Map(files.map((f) => [f.id, `${f.chapter} ${f.state}`]));
    expect(files).toHaveLength(3);
    expect([d1!.fileId, d2!.fileId, rows[2]!.fileId].map((id) => stateOf.get(id!))).toEqual([
      "1 recycled",
      "2 active",
      "1 active",
    ]);
    const after = await app.services.wanted.runPass(seriesId, { force: true });
    expect(after.queued).toBe(0);
    expect(after.entries.map((e) => [e.number, e.reason])).toEqual([["2", "no_other_source"]]);
  });

  it("an active download makes the audit refuse a reviewed retirement (download_active)", async () => {
    const work = fakeWork({
      id: 301,
      title: "Dune",
      source: A,
      chapters: [fakeChapter({ chapterNumber: 1, pages: (await drawnChapter(6, 71)).map((p) => slowPage(p, 200)) })],
    });
    fake.works.push(work);
    const seriesId = await seriesWithSlots(app, "Dune", ["1"]);
    await linkWork(app, seriesId, work, { providerName: `suwayomi:${A.id}` });
    await app.services.wanted.runPass(seriesId, { force: true });
    const res = await app.api(`/api/manga/${seriesId}/audit/retire/preview`, {
      method: "POST",
      json: { file_ids: [1] },
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { code: string }).code).toBe("download_active");
    await until("settled", () => downloadsOf(app, seriesId), settled);
  });
});

describe("progress while a slow page is fetched", () => {
  it("the downloads list shows every page done, not the count of the first write", async () => {
    const app = await pipelineApp();
    try {
      await configureSuwayomi(app);
      const pages = await drawnChapter(4, 91);
      const work = fakeWork({
        id: 501,
        title: "Quay",
        source: A,
        // Three pages at once (inside one write interval), then a last one that takes its time.
        chapters: [fakeChapter({ chapterNumber: 1, pages: [...pages.slice(0, -1), slowPage(pages.at(-1)!, 3_000)] })],
      });
      fake.works.push(work);
      const seriesId = await seriesWithSlots(app, "Quay", ["1"]);
      await linkWork(app, seriesId, work, { providerName: `suwayomi:${A.id}` });
      await app.services.wanted.runPass(seriesId, { force: true });
      const [row] = await until(
        "three pages done while the fourth is fetched",
        async () => expectJson<{ state: string; pages_done: number }[]>(await app.api("/api/downloads"), 200),
        (r) => r[0]?.state === "fetching" && r[0].pages_done === 3,
      );
      expect(row).toMatchObject({ pages_total: 4 });
      await until("settled", () => downloadsOf(app, seriesId), settled);
    } finally {
      await app.dispose();
    }
  });
});

describe("restart in the middle of a download", () => {
  it("nothing partial reaches the library; the job resumes and publishes on the next start", async () => {
    const first = await pipelineApp();
    await configureSuwayomi(first);
    const work = fakeWork({
      id: 401,
      title: "Ember",
      source: A,
      chapters: [fakeChapter({ chapterNumber: 1, pages: (await drawnChapter(10, 81)).map((p) => slowPage(p, 250)) })],
    });
    fake.works.push(work);
    const seriesId = await seriesWithSlots(first, "Ember", ["1"]);
    await linkWork(first, seriesId, work, { providerName: `suwayomi:${A.id}` });
    await first.services.wanted.runPass(seriesId, { force: true });
    await until(
      "mid-fetch",
      () => downloadsOf(first, seriesId),
      (r) => r[0]?.state === "fetching" && r[0].pagesDone >= 1,
    );
    const { folder } = await first.ctx.db.series.findUniqueOrThrow({ where: { id: seriesId } });
    await first.close();
    // Stopped mid-fetch: the series folder holds nothing (only publication writes there).
    expect(await readdir(path.join(first.config.libraryRoot, folder)).catch(() => [])).toEqual([]);

    const second = await createApp(first.config, { migrate: false, seedDemo: false });
    try {
      const [row] = await until(
        "published after restart",
        () => second.ctx.db.download.findMany({ where: { seriesId } }),
        (r) => r[0]?.state === "published",
      );
      expect(row).toMatchObject({ attempts: 2, pagesDone: 10 });
      const files = await second.ctx.db.libraryFile.findMany({ where: { seriesId } });
      expect(files.map((f) => [f.chapter, f.pageCount, f.state])).toEqual([["1", 10, "active"]]);
      expect(await readdir(path.join(stateDirs(first.config).staging, "downloads")).catch(() => [])).toEqual([]);
      expect(await readdir(path.join(first.config.libraryRoot, folder))).toEqual([path.basename(files[0]!.path)]);
    } finally {
      await second.close();
      rmSync(first.dir, { recursive: true, force: true });
    }
  });
});
