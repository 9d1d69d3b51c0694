/**
 * A translation job a native release paused is never stuck, as an outside checker drives it: an
 * empty service, only REST and GraphQL, a Suwayomi-compatible server with a Japanese source (the
 * translation's) and an English one (the native release), the fake processor and chat server, all
 * on 127.0.0.1. The jobs run at the processor; an English chapter appears and pauses them. Where the
 * English download is judged degraded (nothing replaces it) or is cancelled and blocked, the pass
 * that follows resumes the job, which completes by itself; where it is published, the job stays
 * paused (the native release has priority; nothing is sent to the processor). A toggle switched
 * off never takes a native release's pause over; a native release gone while a toggle is off hands
 * the job to the toggle. REST and GraphQL agree on every job.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "./downloads-fixtures.ts";
import { expectJson, type RestUnits } from "./fixtures.ts";
import { AI_KEY, startWorld, TOKEN, type Job, type World } from "./fallback-conformance-fixtures.ts";
import {
  chapterWithBlackCards,
  drawnChapter,
  fakeChapter,
  fakeWork,
  heldPage,
  startFakeSuwayomi,
  type FakeChapter,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";

const JA: FakeSource = { id: "8901", name: "Kaizoku JP", lang: "ja" };
const EN: FakeSource = { id: "8902", name: "Harbor Scans", lang: "en" };

let w: World;
let suwayomi: FakeSuwayomi;
let release: () => void = () => {};
const held = new Promise<void>((r) => (release = r));

interface Download {
  id: number;
  chapter: string | null;
  language: string;
  state: string;
}

/** Long Japanese chapters: their jobs are still at the processor when the English ones appear. */
const longChapters = (seed: number): Promise<FakeChapter[]> =>
  Promise.all([1, 2, 3].map(async (n) => fakeChapter({ chapterNumber: n, pages: await drawnChapter(16, seed + n) })));

beforeAll(async () => {
  suwayomi = await startFakeSuwayomi({
    works: [
      fakeWork({ id: 901, title: "Ash Current", source: JA, chapters: await longChapters(900) }),
      fakeWork({ id: 902, title: "Ash Current", source: EN, chapters: [] }),
    ],
    sources: [JA, EN],
  });
  w = await startWorld({ pageMs: 500 });
  await w.json(
    w.app.api("/api/settings/sources", {
      method: "PUT",
      json: { suwayomi: { enabled: true, url: suwayomi.url, auth: "none" } },
    }),
  );
  await w.settings({
    enabled: true,
    source_languages: ["ja"],
    ai: { base_url: w.chat.baseUrl, model: "fake-model-1", api_key: AI_KEY },
    processor: { url: w.processor.url, token: TOKEN },
  });
}, 60_000);
afterAll(async () => {
  release();
  await w?.dispose();
  await suwayomi?.close();
});

async function gqlJobs(seriesId: number) {
  const r = await w.app.gql<{
    translationJobs: {
      id: string;
      status: string;
      state: string;
      pausedReason: string | null;
      cancelPending: boolean;
      error: { code: string; message: string } | null;
    }[];
  }>(
    `query($s: Int) { translationJobs(seriesId: $s) { id status state pausedReason cancelPending error { code message } } }`,
    { s: seriesId },
  );
  expect(r.errors).toBeUndefined();
  return r.data!.translationJobs;
}

/** REST and GraphQL answer the same state, status, pause reason and error for every job. */
async function agree(seriesId: number): Promise<Job[]> {
  const rest = await w.jobs(seriesId);
  const gql = await gqlJobs(seriesId);
  const shape = (j: {
    id: string;
    status: string;
    state: string;
    error: { code: string } | null;
  }): [string, string, string, string | null] => [j.id, j.status.toLowerCase(), j.state, j.error?.code ?? null];
  expect(gql.map(shape)).toEqual(rest.map(shape));
  expect(gql.map((j) => j.pausedReason)).toEqual(rest.map((j) => j.paused_reason));
  return rest;
}

describe("a translation job a native release paused", () => {
  let seriesId: number;
  let jobs: Record<string, Job> = {};
  const byChapter = async () =>
    Object.fromEntries((await w.jobs(seriesId)).map((j) => [j.target.number, j])) as Record<string, Job>;
  const downloads = () => w.json<Download[]>(w.app.api(`/api/manga/${seriesId}/downloads`));
  const requestsFor = (id: string) => w.processor.requests.filter((r) => r.url.includes(id));
  const ownedChapters = async () =>
    (await w.json<RestUnits>(w.app.api(`/api/manga/${seriesId}/units`))).units
      .filter((u) => u.kind === "chapter" && u.owned)
      .map((u) => u.number);

  it("runs at the processor, then pauses when English chapters appear", async () => {
    seriesId = await w.series("Ash Current", 3);
    await w.link(seriesId, JA, "Ash Current", "ja");
    await w.link(seriesId, EN, "Ash Current", "en");
    await w.patch(seriesId, { translation_fallback_enabled: true });
    expect((await w.search(seriesId)).created.map((j) => j.target.number)).toEqual(["1", "2", "3"]);
    // Two are outstanding at the processor (the third waits its turn).
    jobs = await until(
      "jobs 1 and 2 running at the processor",
      byChapter,
      (js) => ["1", "2"].every((n) => js[n]?.state === "running"),
      30_000,
    );
    // English chapter 1 will be judged degraded (4 of 25 pages are black cards), chapter 2 is sound,
    // chapter 3's download is held at its first page until the operator cancels it.
    const en = suwayomi.works[1]!.chapters;
    en.push(fakeChapter({ chapterNumber: 1, pages: await chapterWithBlackCards(25, 4, 31) }));
    en.push(fakeChapter({ chapterNumber: 2, pages: await drawnChapter(3, 32) }));
    const three = await drawnChapter(2, 33);
    en.push(fakeChapter({ chapterNumber: 3, pages: [heldPage(three[0]!, held), three[1]!] }));
    await w.json(w.app.api(`/api/manga/${seriesId}/sources/refresh`, { method: "POST" }));
    const r = await w.search(seriesId);
    expect(r.skipped.filter((s) => s.reason === "native_obtainable").map((s) => s.number)).toEqual(["1", "2", "3"]);
    const paused = await agree(seriesId);
    for (const j of paused) expect(j).toMatchObject({ state: "paused", paused_reason: "native_release" });
    expect(paused.map((j) => j.status).sort()).toEqual(["queued", "running", "running"]);
  }, 60_000);

  it("(a) the English download is judged degraded and nothing replaces it: the job resumes by itself and completes", async () => {
    await until(
      "English chapter 1 judged degraded",
      downloads,
      (ds) => ds.some((d) => d.chapter === "1" && d.language === "en" && d.state === "degraded"),
      60_000,
    );
    // The degraded download's own pass (no other English release: all blocked) resumes the job.
    const done = await until(
      "job 1 imported",
      () => w.job(seriesId, jobs["1"]!.id),
      (j) => j.status === "completed",
      60_000,
    );
    expect(done).toMatchObject({ state: "imported", paused_reason: null, error: null });
    expect(requestsFor(done.id).some((q) => q.method === "DELETE")).toBe(false);
    expect(await ownedChapters()).toContain("1");
    await agree(seriesId);
  }, 120_000);

  it("(b) the English chapter is published: the job stays paused by the native release, pass after pass", async () => {
    await until(
      "English chapter 2 published",
      downloads,
      (ds) => ds.some((d) => d.chapter === "2" && d.language === "en" && d.state === "published"),
      60_000,
    );
    // The next Wanted pass (here the operator's search) sees the slot held by a sound native file.
    await w.search(seriesId);
    const held = await w.job(seriesId, jobs["2"]!.id);
    expect(held).toMatchObject({ state: "paused", paused_reason: "native_release", error: null });
    expect(requestsFor(held.id).some((q) => q.method === "DELETE")).toBe(false);
    // The native file holds the slot.
    expect(await ownedChapters()).toContain("2");
    await agree(seriesId);
    // Another pass changes nothing: the job is neither resumed nor published beside the native file.
    await w.search(seriesId);
    expect(await w.job(seriesId, held.id)).toMatchObject({ state: "paused", paused_reason: "native_release" });
  }, 120_000);

  it("a toggle switched off keeps it paused by the native release; the release blocked meanwhile hands it to the toggle, which resumes it", async () => {
    const dl = (await downloads()).find((d) => d.chapter === "3" && d.language === "en");
    expect(dl).toBeDefined();
    const id = jobs["3"]!.id;
    expect((await w.job(seriesId, id)).paused_reason).toBe("native_release");
    // Off and a pass: the native release still outranks the toggle (switching it on alone resumes nothing).
    await w.patch(seriesId, { translation_fallback_enabled: false });
    await w.search(seriesId);
    expect(await w.job(seriesId, id)).toMatchObject({ state: "paused", paused_reason: "native_release" });
    await w.patch(seriesId, { translation_fallback_enabled: true });
    expect(await w.job(seriesId, id)).toMatchObject({ state: "paused", paused_reason: "native_release" });
    // Off again; the operator cancels the held English download with block: the pass it runs finds
    // no native release any more, and the job waits for the toggle.
    await w.patch(seriesId, { translation_fallback_enabled: false });
    const cancel = w.app.api(`/api/downloads/${dl!.id}/cancel?blocklist=true`, { method: "POST" });
    await new Promise((r) => setTimeout(r, 300));
    release();
    await expectJson(await cancel, 200);
    await until(
      "job 3 paused by the toggle",
      () => w.job(seriesId, id),
      (j) => j.paused_reason === "toggle_off",
      30_000,
    );
    expect(await agree(seriesId)).toContainEqual(expect.objectContaining({ id, state: "paused" }));
    await w.patch(seriesId, { translation_fallback_enabled: true });
    const done = await until(
      "job 3 imported",
      () => w.job(seriesId, id),
      (j) => j.status === "completed",
      90_000,
    );
    expect(done).toMatchObject({ state: "imported", paused_reason: null, error: null });
    expect((await ownedChapters()).sort()).toEqual(["1", "2", "3"]);
    await agree(seriesId);
  }, 120_000);
});
