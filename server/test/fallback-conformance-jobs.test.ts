/**
 * Translation jobs' moves as an outside checker drives them (REST and GraphQL only, the fake
 * processor and chat server on 127.0.0.1): either toggle off pauses submissions, polling and
 * publication and a result finished meanwhile waits for re-enablement; cancel prevents publication
 * and its cancellation reaches the processor after a dropped connection even while fallback is
 * disabled; a cancelled id is never sent again; a failed job waits for an explicit retry (a new
 * number; the old attempt's late result never publishes); a new destination language cancels the old
 * language's jobs and imported files stay; no credential is written anywhere but the secrets store.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "./downloads-fixtures.ts";
import { expectJson, type RestUnits } from "./fixtures.ts";
import {
  AI_KEY,
  filesHolding,
  sourceCbz,
  startWorld,
  TOKEN,
  type Job,
  type World,
} from "./fallback-conformance-fixtures.ts";

let w: World;
let seriesId: number;
beforeAll(async () => {
  w = await startWorld({ pageMs: 700 });
  await w.settings({
    enabled: true,
    source_languages: ["ja"],
    ai: { base_url: w.chat.baseUrl, model: "fake-model-1", api_key: AI_KEY },
    processor: { url: w.processor.url, token: TOKEN },
  });
  seriesId = await w.series("Cedar Light", 8);
  await w.patch(seriesId, { translation_fallback_enabled: true });
}, 60_000);
afterAll(() => w?.dispose());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const uploadChapter = async (chapter: string, seed: number) =>
  expectJson<Job>(await w.upload(seriesId, `source_language=ja&chapter=${chapter}`, await sourceCbz(2, seed)), 201);
const waitFor = (id: string, what: string, ok: (j: Job) => boolean, ms = 30_000) =>
  until(`job ${id} ${what}`, () => w.job(seriesId, id), ok, ms);
const requestsFor = (id: string) => w.processor.requests.filter((r) => r.url.includes(id));
const ownedChapters = async () =>
  (await w.json<RestUnits>(w.app.api(`/api/manga/${seriesId}/units`))).units
    .filter((u) => u.kind === "chapter" && u.owned)
    .map((u) => u.number);

describe("translation job moves from the outside", () => {
  it("the series toggle off pauses polling and publication; the finished result waits, then imports once on", async () => {
    const job = await uploadChapter("1", 11);
    await waitFor(job.id, "submitted", () => requestsFor(job.id).some((r) => r.method === "POST"));
    await w.patch(seriesId, { translation_fallback_enabled: false });
    await waitFor(job.id, "paused", (j) => j.state === "paused" && j.paused_reason === "toggle_off");
    // The processor finishes its work meanwhile (it may be billed); the service asks it nothing.
    await sleep(1500);
    const asked = requestsFor(job.id).length;
    await sleep(2500);
    expect(requestsFor(job.id)).toHaveLength(asked);
    expect(w.processor.jobs.get(job.id)?.status).toBe("completed");
    expect(await ownedChapters()).toEqual([]);
    // An upload while off is recorded, never sent.
    const quiet = await uploadChapter("2", 12);
    await sleep(2500);
    expect(requestsFor(quiet.id)).toEqual([]);
    await w.patch(seriesId, { translation_fallback_enabled: true });
    await waitFor(job.id, "imported", (j) => j.status === "completed");
    await waitFor(quiet.id, "imported", (j) => j.status === "completed");
    expect(await ownedChapters()).toEqual(["1", "2"]);
  }, 60_000);

  it("the global toggle off pauses the same way", async () => {
    const job = await uploadChapter("3", 13);
    await waitFor(job.id, "submitted", () => requestsFor(job.id).some((r) => r.method === "POST"));
    await w.settings({ enabled: false });
    await waitFor(job.id, "paused", (j) => j.state === "paused");
    await sleep(1500);
    const asked = requestsFor(job.id).length;
    await sleep(2500);
    expect(requestsFor(job.id)).toHaveLength(asked);
    expect(await ownedChapters()).toEqual(["1", "2"]);
    await w.settings({ enabled: true });
    await waitFor(job.id, "imported", (j) => j.status === "completed");
  }, 60_000);

  it("cancel while disabled: nothing is published, the lost DELETE is sent again until acknowledged", async () => {
    const job = await uploadChapter("4", 14);
    await waitFor(job.id, "submitted", () => requestsFor(job.id).some((r) => r.method === "POST"));
    await w.settings({ enabled: false });
    await waitFor(job.id, "paused", (j) => j.state === "paused");
    w.processor.faults.dropDelete = 1;
    const c = await expectJson<Job>(await w.app.api(`/api/translations/${job.id}/cancel`, { method: "POST" }), 200);
    expect(c).toMatchObject({ status: "cancelling", cancel_pending: true });
    await waitFor(job.id, "cancelled", (j) => j.status === "cancelled" && !j.cancel_pending, 40_000);
    expect(w.processor.cancelled.has(job.id)).toBe(true);
    expect(requestsFor(job.id).filter((r) => r.method === "DELETE").length).toBeGreaterThanOrEqual(2);
    await w.settings({ enabled: true });
    // Never sent again, never published; a pass leaves the operator's cancel alone.
    const r = await w.search(seriesId);
    expect(r.created.filter((j) => j.target.number === "4")).toEqual([]);
    const before = requestsFor(job.id).length;
    await sleep(2500);
    expect(requestsFor(job.id)).toHaveLength(before);
    expect(requestsFor(job.id).some((r) => r.method === "GET" && r.url.endsWith("/result"))).toBe(false);
    expect(await ownedChapters()).not.toContain("4");
    // A new source for the chapter takes the next retry number.
    const again = await uploadChapter("4", 24);
    expect(again.id).toBe(`${job.id.slice(0, 32)}-1`);
    await waitFor(again.id, "imported", (j) => j.status === "completed");
  }, 90_000);

  it("a failed job waits for an explicit retry; the old attempt's late result never publishes", async () => {
    w.processor.faults.fail = { code: "engine_failed", message: "the engine stopped" };
    const job = await uploadChapter("5", 15);
    const failed = await waitFor(job.id, "failed", (j) => j.status === "failed");
    expect(failed.error).toMatchObject({ code: "engine_failed" });
    w.processor.faults.fail = null;
    const posts = requestsFor(job.id).filter((r) => r.method === "POST").length;
    await sleep(2500);
    expect(requestsFor(job.id).filter((r) => r.method === "POST")).toHaveLength(posts);
    expect((await w.search(seriesId)).skipped).toContainEqual({ kind: "chapter", number: "5", reason: "needs_retry" });
    expect((await w.jobs(seriesId)).filter((j) => j.target.number === "5")).toHaveLength(1);
    const gql = await w.app.gql<{ retryTranslation: { id: string; status: string } }>(
      `mutation($id: String!) { retryTranslation(id: $id) { id status } }`,
      { id: job.id },
    );
    expect(gql.data?.retryTranslation).toEqual({ id: `${job.id.slice(0, 32)}-1`, status: "QUEUED" });
    // The processor finishes the failed attempt late: the service never fetches or publishes it.
    await w.processor.completeNow(job.id);
    await waitFor(gql.data!.retryTranslation.id, "imported", (j) => j.status === "completed");
    expect(requestsFor(job.id).some((r) => r.method === "GET" && r.url.endsWith("/result"))).toBe(false);
    expect((await w.job(seriesId, job.id)).status).toBe("failed");
  }, 60_000);

  it("a new destination language cancels the old language's jobs; imported files stay", async () => {
    const job = await uploadChapter("6", 16);
    await waitFor(job.id, "submitted", () => requestsFor(job.id).some((r) => r.method === "POST"));
    const owned = await ownedChapters();
    await w.patch(seriesId, { language: "de" });
    await waitFor(job.id, "cancelled", (j) => j.status === "cancelled", 30_000);
    expect(w.processor.cancelled.has(job.id)).toBe(true);
    expect(await ownedChapters()).toEqual(owned);
    // A job for the new language is a new target: its own id, German as the destination.
    const de = await uploadChapter("6", 26);
    expect(de.id.slice(0, 32)).not.toBe(job.id.slice(0, 32));
    expect(de).toMatchObject({ target_language: "de", source_language: "ja" });
  }, 60_000);

  it("a cancelled job the processor is still stopping stays outstanding: no third job until it is cancelled", async () => {
    await w.patch(seriesId, { language: "en" });
    const dusk = await w.series("Cedar Dusk", 3);
    await w.patch(dusk, { translation_fallback_enabled: true });
    w.processor.faults.cancelMs = 4000;
    const up = async (n: string) =>
      expectJson<Job>(
        await w.upload(dusk, `source_language=ja&chapter=${n}`, await sourceCbz(12, 40 + Number(n))),
        201,
      );
    const posted = (id: string) => w.processor.requests.some((r) => r.method === "POST" && r.url.includes(id));
    const [a, b, c] = [await up("1"), await up("2"), await up("3")];
    await until("two submitted", async () => [a, b].every((j) => posted(j.id)), Boolean, 30_000);
    expect(posted(c.id)).toBe(false);
    await expectJson(await w.app.api(`/api/translations/${a.id}/cancel`, { method: "POST" }), 200);
    // The processor answers `cancelling` for four seconds: the job still counts against the two.
    await sleep(2500);
    expect(posted(c.id)).toBe(false);
    expect((await w.jobs(dusk)).find((j) => j.id === a.id)?.status).toBe("cancelling");
    await until("third submitted", async () => posted(c.id), Boolean, 30_000);
    expect((await w.jobs(dusk)).find((j) => j.id === a.id)?.status).toBe("cancelled");
    // (The fake's own high-water mark also counts the late completion of the failed attempt above,
    // which the service rightly never fetches: the processor's job of `a` is what matters here.)
    expect(w.processor.jobs.get(a.id)?.status).toBe("cancelled");
    w.processor.faults.cancelMs = 0;
  }, 60_000);

  it("keeps the AI key and the processor token in the secrets store only", async () => {
    for (const secret of [AI_KEY, TOKEN]) {
      expect(await filesHolding(w.app.dir, secret)).toEqual([]);
      expect(JSON.stringify(await w.jobs(seriesId))).not.toContain(secret);
    }
    const read = await w.json<{ ai: { api_key: string }; processor: { token: string } }>(
      w.app.api("/api/settings/translation"),
    );
    expect([read.ai.api_key, read.processor.token]).toEqual([`****${AI_KEY.slice(-4)}`, `****${TOKEN.slice(-4)}`]);
  });
});
