/**
 * The translation fallback's rules as an outside checker drives them: an empty service, only REST
 * and GraphQL, a Suwayomi-compatible server with a Japanese and an English source of the same work,
 * the fake processor and chat server, all on 127.0.0.1. Off by default (globally and per series);
 * the series' source-language override (empty inherits, `original` skipped while unknown); native
 * releases first, foreign ones never ordinary downloads; ten jobs per series per pass and two
 * outstanding at the processor with more missing slots than that; a native release appearing pauses
 * the job of its slot; the list's query parameter and REST agreeing with GraphQL.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "./downloads-fixtures.ts";
import { expectProblem, type RestUnits } from "./fixtures.ts";
import { AI_KEY, sourceCbz, startWorld, TOKEN, type World } from "./fallback-conformance-fixtures.ts";
import {
  drawnChapter,
  fakeChapter,
  fakeWork,
  startFakeSuwayomi,
  type FakeChapter,
  type FakeSource,
  type FakeSuwayomi,
} from "./fakes/suwayomi-server.ts";

const JA: FakeSource = { id: "8801", name: "Kaizoku JP", lang: "ja" };
const EN: FakeSource = { id: "8802", name: "Harbor Scans", lang: "en" };
const FR: FakeSource = { id: "8803", name: "Scans Brume", lang: "fr" };

let w: World;
let suwayomi: FakeSuwayomi;
const chaptersOf = async (n: number, seed: number): Promise<FakeChapter[]> =>
  Promise.all(
    Array.from({ length: n }, async (_, i) =>
      fakeChapter({ chapterNumber: i + 1, pages: await drawnChapter(2, seed + i) }),
    ),
  );

/** A series with chapter slots 1..n linked to the works of that title at the sources given. */
async function series(title: string, chapters: number, sources: [FakeSource, string][]): Promise<number> {
  const id = await w.series(title, chapters);
  for (const [source, language] of sources) await w.link(id, source, title, language);
  return id;
}

beforeAll(async () => {
  suwayomi = await startFakeSuwayomi({
    works: [
      fakeWork({ id: 601, title: "Tide Beacon", source: JA, chapters: await chaptersOf(14, 100) }),
      fakeWork({ id: 602, title: "Tide Beacon", source: EN, chapters: await chaptersOf(2, 200) }),
      fakeWork({ id: 603, title: "Salt Lantern", source: JA, chapters: await chaptersOf(3, 300) }),
      fakeWork({ id: 605, title: "Salt Lantern", source: FR, chapters: await chaptersOf(1, 500) }),
      fakeWork({ id: 604, title: "Moss Harbor", source: JA, chapters: await chaptersOf(2, 400) }),
      fakeWork({ id: 606, title: "Reed Quiet", source: JA, chapters: await chaptersOf(2, 600) }),
      fakeWork({ id: 608, title: "Still Current", source: JA, chapters: await chaptersOf(2, 800) }),
      // Long chapters: their jobs are still at work when the test adds a native file.
      fakeWork({
        id: 607,
        title: "Quiet Ember",
        source: JA,
        chapters: await Promise.all(
          [1, 2].map(async (n) => fakeChapter({ chapterNumber: n, pages: await drawnChapter(20, 700 + n) })),
        ),
      }),
    ],
    sources: [JA, EN, FR],
  });
  w = await startWorld({ pageMs: 400 });
  await w.json(
    w.app.api("/api/settings/sources", {
      method: "PUT",
      json: { suwayomi: { enabled: true, url: suwayomi.url, auth: "none" } },
    }),
  );
}, 60_000);
afterAll(async () => {
  await w?.dispose();
  await suwayomi?.close();
});

describe("translation fallback rules from an empty service", () => {
  it("is off globally and for every series by default, the same through REST and GraphQL", async () => {
    const g = await w.json<{ enabled: boolean; source_languages: string[] }>(w.app.api("/api/settings/translation"));
    expect(g).toMatchObject({ enabled: false, source_languages: [] });
    const s = await w.json<{
      id: number;
      translation_fallback_enabled: boolean;
      translation_source_languages: string[];
    }>(w.app.api("/api/manga", { method: "POST", json: { title: "Plain Default" } }), 201);
    expect(s).toMatchObject({ translation_fallback_enabled: false, translation_source_languages: [] });
    const gql = await w.app.gql<{
      translationSettings: { enabled: boolean; sourceLanguages: string[] };
      series: { translationFallbackEnabled: boolean; translationSourceLanguages: string[] };
    }>(
      `query($id: Int!) { translationSettings { enabled sourceLanguages } series(id: $id) { translationFallbackEnabled translationSourceLanguages } }`,
      { id: s.id },
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data).toEqual({
      translationSettings: { enabled: false, sourceLanguages: [] },
      series: { translationFallbackEnabled: false, translationSourceLanguages: [] },
    });
  });

  it("reads manga_id strictly: a malformed one is 400, an unknown series 404", async () => {
    for (const bad of ["abc", "1.5", "-3", "0"])
      await expectProblem(await w.app.api(`/api/translations?manga_id=${bad}`), 400, "bad_request");
    await expectProblem(await w.app.api(`/api/translations?manga_id=424242`), 404, "series_not_found");
    await expectProblem(
      await w.app.api(`/api/manga/424242/translations/search`, { method: "POST" }),
      404,
      "series_not_found",
    );
  });

  let beacon: number;
  it("creates nothing while either toggle is off, and says which one", async () => {
    await w.settings({
      source_languages: ["ja"],
      ai: { base_url: w.chat.baseUrl, model: "fake-model-1", api_key: AI_KEY },
      processor: { url: w.processor.url, token: TOKEN },
    });
    beacon = await series("Tide Beacon", 14, [
      [JA, "ja"],
      [EN, "en"],
    ]);
    let r = await w.search(beacon);
    expect(r.created).toEqual([]);
    expect(r.skipped).toContainEqual({ kind: "series", number: String(beacon), reason: "fallback_off" });
    await w.settings({ enabled: true });
    r = await w.search(beacon);
    expect(r.created).toEqual([]);
    expect(r.skipped).toContainEqual({ kind: "series", number: String(beacon), reason: "series_fallback_off" });
    expect(await w.jobs(beacon)).toEqual([]);
    expect(w.processor.requests).toEqual([]);
  });

  it("with both on: native chapters download first, at most ten jobs per pass, two outstanding, no foreign download", async () => {
    await w.patch(beacon, { translation_fallback_enabled: true });
    const r = await w.search(beacon);
    // Chapters 1 and 2 have an English release: they are downloaded, never translated.
    expect(r.created.map((j) => j.target.number)).toEqual(["3", "4", "5", "6", "7", "8", "9", "10", "11", "12"]);
    expect(r.created.every((j) => j.source_language === "ja" && j.target_language === "en")).toBe(true);
    expect(r.created.every((j) => j.origin === "source" && /^[0-9a-f]{32}-0$/.test(j.id))).toBe(true);
    expect(r.skipped.filter((s) => s.reason === "limit").map((s) => s.number)).toEqual(["13", "14"]);
    expect(r.skipped.filter((s) => s.kind === "chapter" && ["1", "2"].includes(s.number))).toEqual(
      ["1", "2"].map((number) => ({ kind: "chapter", number, reason: "native_obtainable" })),
    );
    const downloads = await w.json<{ chapter: string | null; language: string }[]>(
      w.app.api(`/api/manga/${beacon}/downloads`),
    );
    expect(downloads.map((d) => [d.chapter, d.language]).sort()).toEqual([
      ["1", "en"],
      ["2", "en"],
    ]);
    // Never more than two jobs outstanding at the processor while ten wait.
    await until(
      "first jobs submitted",
      () => w.jobs(beacon),
      (js) => js.some((j) => j.state === "running" || j.state === "submitted"),
      30_000,
    );
    await new Promise((r) => setTimeout(r, 3000));
    expect(w.processor.maxOutstanding).toBeGreaterThan(0);
    expect(w.processor.maxOutstanding).toBeLessThanOrEqual(2);
    // The next pass queues the remaining two and leaves the ten alone.
    const next = await w.search(beacon);
    expect(next.created.map((j) => j.target.number)).toEqual(["13", "14"]);
    expect(await w.jobs(beacon)).toHaveLength(12);
    // Foreign chapters never become library files or ordinary downloads.
    const after = await w.json<{ chapter: string | null; language: string }[]>(
      w.app.api(`/api/manga/${beacon}/downloads`),
    );
    expect(after.every((d) => d.language === "en")).toBe(true);
    const scan = await w.json<{ added: number }>(w.app.api("/api/library/scan", { method: "POST" }));
    expect(scan.added).toBe(0);
  }, 60_000);

  it("a native release appearing pauses the job of its slot; the native download has priority", async () => {
    const before = (await w.jobs(beacon)).find((j) => j.target.number === "14")!;
    expect(["queued", "running"]).toContain(before.status);
    suwayomi.works[1]!.chapters.push(fakeChapter({ chapterNumber: 14, pages: await drawnChapter(2, 214) }));
    // A refresh of the series' sources, then the pass.
    await w.json(w.app.api(`/api/manga/${beacon}/sources/refresh`, { method: "POST" }));
    const r = await w.search(beacon);
    // The refresh's own pass or this one queues the English chapter; either way the slot is native now.
    expect(r.skipped).toContainEqual({ kind: "chapter", number: "14", reason: "native_obtainable" });
    const job = (await w.jobs(beacon)).find((j) => j.id === before.id)!;
    expect(job).toMatchObject({ state: "paused", paused_reason: "native_release" });
    const downloads = await w.json<{ chapter: string | null; language: string }[]>(
      w.app.api(`/api/manga/${beacon}/downloads`),
    );
    expect(downloads.some((d) => d.chapter === "14" && d.language === "en")).toBe(true);
    // The native chapter is published before the next test scans the library (else that scan may
    // meet its file between the move into place and the record, and count it as its own).
    await until(
      "the native chapter 14's download to end",
      () => w.json<{ chapter: string | null; state: string }[]>(w.app.api(`/api/manga/${beacon}/downloads`)),
      (ds) => ds.some((d) => d.chapter === "14" && ["published", "degraded", "failed", "cancelled"].includes(d.state)),
      60_000,
    );
  });

  it("a native file the library gains meanwhile (a scan) pauses the fallback's job of its slot", async () => {
    const ember = await series("Quiet Ember", 2, [[JA, "ja"]]);
    await w.patch(ember, { translation_fallback_enabled: true });
    expect((await w.search(ember)).created.map((j) => j.target.number)).toEqual(["1", "2"]);
    // The operator copies a native chapter 1 into the series folder and scans.
    await writeFile(
      path.join(w.app.config.libraryRoot, "Quiet Ember", "Quiet Ember - c001.cbz"),
      await sourceCbz(3, 901),
    );
    expect((await w.json<{ added: number }>(w.app.api("/api/library/scan", { method: "POST" }))).added).toBe(1);
    await w.search(ember);
    const jobs = await w.jobs(ember);
    expect(jobs.find((j) => j.target.number === "1")).toMatchObject({
      state: "paused",
      paused_reason: "native_release",
    });
    expect(jobs.find((j) => j.target.number === "2")?.paused_reason).toBeNull();
  });

  it("a search while a pass is under way answers with the jobs that pass created", async () => {
    const id = await series("Still Current", 2, [[JA, "ja"]]);
    // The series' passes wait while the test holds their lock: one is under way when the search asks.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let acquired!: () => void;
    const taken = new Promise<void>((r) => (acquired = r));
    const holding = w.app.ctx.cluster.keyedLock("wanted").run([String(id)], async () => {
      acquired();
      await held;
    });
    await taken;
    await w.patch(id, { translation_fallback_enabled: true });
    const first = w.app.services.wanted.runPass(id, { force: true });
    const search = w.search(id);
    await new Promise((r) => setTimeout(r, 300));
    release();
    await holding;
    await first;
    expect((await search).created.map((j) => j.target.number)).toEqual(["1", "2"]);
    expect((await w.jobs(id)).map((j) => j.target.number).sort()).toEqual(["1", "2"]);
  });

  it("the series' own source languages: its order wins, `original` is skipped while unknown, empty inherits", async () => {
    const salt = await series("Salt Lantern", 3, [
      [JA, "ja"],
      [FR, "fr"],
    ]);
    await w.patch(salt, { translation_fallback_enabled: true, translation_source_languages: ["de"] });
    let r = await w.search(salt);
    expect(r.created).toEqual([]);
    expect(r.skipped.filter((s) => s.kind === "chapter").map((s) => s.reason)).toEqual(
      Array(3).fill("no_foreign_source"),
    );
    await w.patch(salt, { translation_source_languages: ["original"] });
    r = await w.search(salt);
    expect(r.created).toEqual([]);
    // French first; the original language is not known yet: chapters only the Japanese source has wait.
    await w.patch(salt, { translation_source_languages: ["fr", "original"] });
    r = await w.search(salt);
    expect(r.created.map((j) => [j.target.number, j.source_language])).toEqual([["1", "fr"]]);
    expect(r.skipped.filter((s) => s.kind === "chapter")).toEqual([
      { kind: "chapter", number: "2", reason: "no_foreign_source" },
      { kind: "chapter", number: "3", reason: "no_foreign_source" },
    ]);
    await w.patch(salt, { original_language: "ja" });
    r = await w.search(salt);
    expect(r.created.map((j) => [j.target.number, j.source_language])).toEqual([
      ["2", "ja"],
      ["3", "ja"],
    ]);
    // An empty list inherits the global one (["ja"]).
    const moss = await series("Moss Harbor", 2, [[JA, "ja"]]);
    await w.patch(moss, { translation_fallback_enabled: true, translation_source_languages: [] });
    r = await w.search(moss);
    expect(r.created.map((j) => [j.target.number, j.source_language])).toEqual([
      ["1", "ja"],
      ["2", "ja"],
    ]);
  });

  it("translates only monitored missing slots", async () => {
    const reed = await series("Reed Quiet", 2, [[JA, "ja"]]);
    await w.patch(reed, { translation_fallback_enabled: true, monitored: false });
    expect((await w.search(reed)).created).toEqual([]);
    expect(await w.jobs(reed)).toEqual([]);
    await w.patch(reed, { monitored: true });
    expect((await w.search(reed)).created.map((j) => j.target.number)).toEqual(["1", "2"]);
  });

  it("lists the same jobs through REST and GraphQL", async () => {
    interface GqlJob {
      id: string;
      status: string;
      state: string;
      target: { kind: string; number: string };
      sourceLanguage: string;
      targetLanguage: string;
      sourceSha256: string | null;
      pausedReason: string | null;
    }
    const restRows = async () =>
      (await w.jobs(beacon)).map((j) => [
        j.id,
        j.status,
        j.state,
        j.target.kind,
        j.target.number,
        j.source_language,
        j.target_language,
        j.source_sha256,
        j.paused_reason,
      ]);
    const gqlRows = async () => {
      const gql = await w.app.gql<{ translationJobs: GqlJob[] }>(
        `query($s: Int) { translationJobs(seriesId: $s) { id status state target { kind number } sourceLanguage targetLanguage sourceSha256 pausedReason } }`,
        { s: beacon },
      );
      expect(gql.errors).toBeUndefined();
      return gql.data!.translationJobs.map((j) => [
        j.id,
        j.status.toLowerCase(),
        j.state,
        j.target.kind,
        j.target.number,
        j.sourceLanguage,
        j.targetLanguage,
        j.sourceSha256,
        j.pausedReason,
      ]);
    };
    // The processor keeps working through the series' jobs: GraphQL's list is compared with REST's
    // read just before it, at a moment REST reads the same right after too (nothing moved between).
    const seen = await until(
      "the jobs holding still across the reads",
      async () => ({ before: await restRows(), gql: await gqlRows(), after: await restRows() }),
      (r) => JSON.stringify(r.before) === JSON.stringify(r.after),
      30_000,
    );
    expect(seen.before.length).toBeGreaterThan(0);
    expect(seen.gql).toEqual(seen.before);
    const units = await w.json<RestUnits>(w.app.api(`/api/manga/${beacon}/units`));
    expect(units.units.filter((u) => u.kind === "chapter")).toHaveLength(14);
  });
});
