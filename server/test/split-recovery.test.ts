/**
 * A degraded part of a split chapter through the real pipeline (fake Suwayomi on 127.0.0.1): the
 * replacement brings every part from one other source, and the old parts leave the library only
 * once every new part is published — never while a new part is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putSetting, SOURCES_SETTING_KEY } from "../src/services/acquisition/source-settings.ts";
import { SUWAYOMI_SOURCES_KEY } from "../src/providers/registry.ts";
import { downloadsOf, linkWork, pipelineApp, seriesWithSlots, settled, until } from "./downloads-fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  flakyPage,
  startFakeSuwayomi,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";
import type { TestApp } from "./utils.ts";

const A: FakeSource = { id: "7501", name: "Split A", lang: "en" };
const B: FakeSource = { id: "7502", name: "Split B", lang: "en" };
let fake: FakeSuwayomi;
let app: TestApp;

beforeAll(async () => {
  fake = await startFakeSuwayomi({ works: [], sources: [A, B] });
  app = await pipelineApp();
  await putSetting(app.ctx, SOURCES_SETTING_KEY, {
    suwayomi: { enabled: true, url: fake.url, auth: "none", username: null },
  });
  await putSetting(app.ctx, SUWAYOMI_SOURCES_KEY, {
    [A.id]: { name: A.name, lang: A.lang },
    [B.id]: { name: B.name, lang: B.lang },
  });
});
afterAll(async () => {
  await app.dispose();
  await fake.close();
});

/** Chapter 10 in two parts (10.1, 10.2) at both sources; B's part 2 answers 500 `failB2` times. */
async function scenario(id: number, title: string, failB2: number) {
  const split = async (seed: number) => [
    fakeChapter({ chapterNumber: 10.1, name: "Chapter 10.1", pages: await drawnChapter(5, seed) }),
    fakeChapter({ chapterNumber: 10.2, name: "Chapter 10.2", pages: await drawnChapter(5, seed + 1) }),
  ];
  const workA = fakeWork({ id, title, source: A, chapters: await split(id) });
  const workB = fakeWork({ id: id + 1, title, source: B, chapters: await split(id + 10) });
  workB.chapters[1]!.pages = workB.chapters[1]!.pages.map((p) => flakyPage(p, failB2));
  fake.works.push(workA, workB);
  const seriesId = await seriesWithSlots(app, title, []);
  await linkWork(app, seriesId, workA, { providerName: `suwayomi:${A.id}`, priority: 10 });
  await app.services.wanted.runPass(seriesId, { force: true });
  const first = await until(
    "parts from A",
    () => downloadsOf(app, seriesId),
    (r) => r.length === 2 && settled(r),
  );
  expect(first.map((r) => [r.chapter, r.part, r.state])).toEqual([
    ["10", 1, "published"],
    ["10", 2, "published"],
  ]);
  // Part 2 judged bad later (e.g. a re-judgement); B is linked; the next pass replaces the chapter.
  await app.ctx.db.download.update({ where: { id: first[1]!.id }, data: { needsReplacement: true } });
  await linkWork(app, seriesId, workB, { providerName: `suwayomi:${B.id}` });
  const pass = await app.services.wanted.runPass(seriesId, { force: true });
  expect(pass.entries.map((e) => [e.number, e.reason])).toEqual([["10", "replacing"]]);
  const all = await until(
    "replacement settled",
    () => downloadsOf(app, seriesId),
    (r) => r.length === 4 && settled(r),
  );
  const files = await app.ctx.db.libraryFile.findMany({ where: { seriesId }, orderBy: { id: "asc" } });
  return { old: first.map((r) => r.fileId!), all, files, workB };
}

describe("split chapter recovery through the pipeline", () => {
  it("every part from the other source, then the old parts retired together", async () => {
    const { old, all } = await scenario(601, "Fold", 0);
    const fresh = all.slice(2);
    // The last part's publication is followed by the retirement of the old parts.
    const files = await until(
      "old parts retired",
      () => app.ctx.db.libraryFile.findMany({ where: { id: { in: old } } }),
      (f) => f.every((x) => x.state === "recycled"),
    ).then(() => app.ctx.db.libraryFile.findMany({ where: { seriesId: fresh[0]!.seriesId } }));
    expect(fresh.map((r) => [r.part, r.state, r.replacementGroup !== null])).toEqual([
      [1, "published", true],
      [2, "published", true],
    ]);
    const state = new Map(files.map((f) => [f.id, f.state]));
    expect(old.map((id) => state.get(id))).toEqual(["recycled", "recycled"]);
    expect(fresh.map((r) => state.get(r.fileId!))).toEqual(["active", "active"]);
  });

  it("while a new part is missing (it failed), the old parts stay in the library", async () => {
    const { old, all, files } = await scenario(701, "Crease", 10);
    expect(all.slice(2).map((r) => [r.part, r.state])).toEqual([
      [1, "published"],
      [2, "failed"],
    ]);
    const state = new Map(files.map((f) => [f.id, f.state]));
    expect(old.map((id) => state.get(id))).toEqual(["active", "active"]);
    // The failure brings no pass forward: it could only fetch part 1 again beside the failed part 2.
    await new Promise((r) => setTimeout(r, 500));
    expect((await downloadsOf(app, all[0]!.seriesId)).length).toBe(4);
  });

  it("the part that failed comes alone with a later pass; the part already published stays, then the old parts retire", async () => {
    const { old, all, workB } = await scenario(801, "Pleat", 1e6);
    expect(all.slice(2).map((r) => [r.part, r.state])).toEqual([
      [1, "published"],
      [2, "failed"],
    ]);
    const [newPart1, failedPart2] = [all[2]!, all[3]!];
    // B answers again; the next pass (the operator's run here) fetches only part 2, into the same group.
    for (const page of workB.chapters[1]!.pages) page.failTimes = 0;
    const pass = await app.services.wanted.runPass(newPart1.seriesId, { force: true });
    expect(pass.entries.map((e) => [e.number, e.reason])).toEqual([["10", "replacing"]]);
    const rows = await until(
      "part 2 published",
      () => downloadsOf(app, newPart1.seriesId),
      (r) => r.length === 5 && settled(r),
    );
    expect([rows[4]!.part, rows[4]!.state, rows[4]!.replacementGroup]).toEqual([
      2,
      "published",
      failedPart2.replacementGroup,
    ]);
    const files = await until(
      "old parts retired",
      () => app.ctx.db.libraryFile.findMany({ where: { seriesId: newPart1.seriesId }, orderBy: { id: "asc" } }),
      (f) => old.every((id) => f.find((x) => x.id === id)?.state === "recycled"),
    );
    // The chapter is B's two parts: the part 1 published first, and the part 2 just fetched.
    expect(files.filter((f) => f.state === "active").map((f) => f.id)).toEqual([newPart1.fileId, rows[4]!.fileId]);
  });
});
