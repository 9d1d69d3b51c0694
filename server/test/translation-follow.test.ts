/**
 * Translation jobs follow the settings the moment they change (docs/rules.md, "Translation fallback"
 * 7 and 8), not only at the next Wanted pass: the global or the series toggle off
 * pauses active jobs, on resumes those a toggle paused; a new series language cancels the old
 * language's active jobs and leaves imported ones alone.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { jobKey } from "../src/domain/translation-jobs.ts";
import { expectJson } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.dispose();
});

async function seriesWithJobs(title: string, states: string[]): Promise<{ id: number; jobIds: number[] }> {
  const s = await expectJson<{ id: number }>(
    await app.api("/api/manga", { method: "POST", json: { title, translation_fallback_enabled: true } }),
    201,
  );
  await expectJson(
    await app.api(`/api/manga/${s.id}`, { method: "PATCH", json: { translation_fallback_enabled: true } }),
    200,
  );
  const jobIds: number[] = [];
  for (const [i, state] of states.entries()) {
    const number = String(i + 1);
    const row = await app.ctx.db.translationJob.create({
      data: {
        jobKey: jobKey({ seriesId: s.id, kind: "volume", number, destination: "en" }),
        seriesId: s.id,
        kind: "volume",
        number,
        sourceLanguage: "ja",
        targetLanguage: "en",
        engine: "external",
        origin: "upload",
        state,
        fileId: null,
      },
    });
    jobIds.push(row.id);
  }
  return { id: s.id, jobIds };
}

const statesOf = async (ids: number[]) =>
  (await app.ctx.db.translationJob.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } })).map((r) => [
    r.state,
    r.pausedReason,
  ]);

describe("translation jobs follow the toggles and the destination language at once", () => {
  it("the series toggle off pauses its active jobs; on resumes them where they were (with the global toggle on)", async () => {
    // The worker is held: with no processor set, a queued job follows the local engine, which would
    // fail these rows (they have no source); what is tested here is the toggles alone.
    await app.services.translationWorker.stop();
    onTestFinished(() => app.services.translationWorker.start());
    await expectJson(await app.api("/api/settings/translation", { method: "PUT", json: { enabled: true } }), 200);
    const { id, jobIds } = await seriesWithJobs("Follow Toggle", ["running", "queued", "imported"]);
    await expectJson(
      await app.api(`/api/manga/${id}`, { method: "PATCH", json: { translation_fallback_enabled: false } }),
      200,
    );
    expect(await statesOf(jobIds)).toEqual([
      ["paused", "toggle_off"],
      ["paused", "toggle_off"],
      ["imported", null],
    ]);
    await expectJson(
      await app.api(`/api/manga/${id}`, { method: "PATCH", json: { translation_fallback_enabled: true } }),
      200,
    );
    expect(await statesOf(jobIds)).toEqual([
      ["running", null],
      ["queued", null],
      ["imported", null],
    ]);
    // With the global toggle off, the series toggle alone resumes nothing.
    await expectJson(await app.api("/api/settings/translation", { method: "PUT", json: { enabled: false } }), 200);
    expect((await statesOf(jobIds)).map((s) => s[0])).toEqual(["paused", "paused", "imported"]);
    await expectJson(
      await app.api(`/api/manga/${id}`, { method: "PATCH", json: { translation_fallback_enabled: false } }),
      200,
    );
    await expectJson(
      await app.api(`/api/manga/${id}`, { method: "PATCH", json: { translation_fallback_enabled: true } }),
      200,
    );
    expect((await statesOf(jobIds)).map((s) => s[0])).toEqual(["paused", "paused", "imported"]);
    // The global toggle on again resumes the series whose own toggle is on.
    await expectJson(await app.api("/api/settings/translation", { method: "PUT", json: { enabled: true } }), 200);
    expect((await statesOf(jobIds)).map((s) => s[0])).toEqual(["running", "queued", "imported"]);
  });

  it("the global toggle off pauses every series' active jobs", async () => {
    const { jobIds } = await seriesWithJobs("Follow Global", ["submitted"]);
    await expectJson(await app.api("/api/settings/translation", { method: "PUT", json: { enabled: true } }), 200);
    await expectJson(await app.api("/api/settings/translation", { method: "PUT", json: { enabled: false } }), 200);
    expect(await statesOf(jobIds)).toEqual([["paused", "toggle_off"]]);
  });

  it("a new series language cancels the old language's active jobs; imported ones stay", async () => {
    const { id, jobIds } = await seriesWithJobs("Follow Language", ["queued", "imported"]);
    await expectJson(await app.api(`/api/manga/${id}`, { method: "PATCH", json: { language: "fr" } }), 200);
    const [first, second] = await statesOf(jobIds);
    expect(first?.[0]).toBe("cancelled");
    expect(second?.[0]).toBe("imported");
  });

  it("an idle worker does not poll the database; a kick wakes it", async () => {
    // Let any cycle started by the previous tests' jobs settle, with no job left to work on.
    await app.ctx.db.translationJob.deleteMany({});
    app.services.translationWorker.kick();
    await new Promise((r) => setTimeout(r, 1_500));
    app.ctx.queries.reset();
    await new Promise((r) => setTimeout(r, 2_500));
    expect(app.ctx.queries.statements.filter((q) => q.includes("translation_job"))).toEqual([]);
    app.services.translationWorker.kick();
    await new Promise((r) => setTimeout(r, 300));
    expect(app.ctx.queries.statements.filter((q) => q.includes("translation_job")).length).toBeGreaterThan(0);
  });
});
