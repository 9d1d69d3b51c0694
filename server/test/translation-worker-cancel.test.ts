/**
 * Cancel, durable cancel across a restart, toggles pausing every request, and late answers of an
 * older attempt, against the fake processor on 127.0.0.1.
 */
import { formatJobId } from "../src/domain/translation-jobs.ts";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import type { FakeChat } from "./fakes/openai-chat-server.ts";
import type { FakeProcessor } from "./fakes/processor-server.ts";
import { jobRow, queueJob, stateIs, translatedSeries, until, workerSuite } from "./translation-worker-harness.ts";
import type { TestApp } from "./utils.ts";
import { putSetting } from "../src/services/acquisition/source-settings.ts";
import { TRANSLATION_SETTING_KEY } from "../src/services/translation/translation-worker-settings.ts";

let app: TestApp;
let fake: FakeProcessor;
let chat: FakeChat;

workerSuite(40, (s) => {
  ({ app, fake, chat } = s);
});

/** Cancel through the jobs service (the pure move, a guarded write, the worker woken). */
async function cancelRow(rowId: number): Promise<void> {
  const row = await jobRow(app, rowId);
  const view = await app.services.translations.cancel(formatJobId(row.jobKey, row.attempt));
  expect(view.state).toBe("cancelling");
}

const deletesOf = (id: string) => fake.requests.filter((r) => r.method === "DELETE" && r.url === `/jobs/${id}`);

describe("translation worker: cancel, restart, toggles, late answers", () => {
  it("cancel sends DELETE until acknowledged (dropped twice), publishes nothing", async () => {
    const seriesId = await translatedSeries(app, "Cancel");
    const job = await queueJob(app, seriesId, "2", { pages: 20 });
    await stateIs(app, job.row.id, "running");
    fake.faults.dropDelete = 2;
    await cancelRow(job.row.id);
    const done = await stateIs(app, job.row.id, "cancelled");
    expect(done.cancelPending).toBe(false);
    expect(deletesOf(job.id).map((r) => r.status)).toEqual(["dropped", "dropped", 202]);
    expect(fake.requests.some((r) => r.url === `/jobs/${job.id}/result`)).toBe(false);
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId } })).toBe(0);
  });

  it("ignores a late 'completed' of an attempt cancelled while the answer was on its way", async () => {
    const seriesId = await translatedSeries(app, "Late cancel");
    const job = await queueJob(app, seriesId, "4", { pages: 30 });
    await stateIs(app, job.row.id, "running");
    fake.faults.delayStatusMs.set(job.id, 600);
    await new Promise((r) => setTimeout(r, 100)); // a poll is now held by the fake
    await fake.completeNow(job.id);
    await cancelRow(job.row.id);
    await stateIs(app, job.row.id, "cancelled");
    fake.faults.delayStatusMs.delete(job.id);
    await new Promise((r) => setTimeout(r, 800));
    expect((await jobRow(app, job.row.id)).state).toBe("cancelled");
    expect(fake.requests.some((r) => r.url === `/jobs/${job.id}/result`)).toBe(false);
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId } })).toBe(0);
  });

  it("a failed attempt's late result never publishes; the explicit retry (attempt 1, own staging) does", async () => {
    const seriesId = await translatedSeries(app, "Retry");
    fake.faults.fail = { code: "engine_crashed", message: "the engine stopped" };
    const first = await queueJob(app, seriesId, "6");
    const failed = await stateIs(app, first.row.id, "failed");
    fake.faults.fail = null;
    expect(failed.errorCode).toBe("engine_crashed");
    // The explicit retry: a new row, attempt + 1, its own staging dir (what the jobs service writes).
    const second = await queueJob(app, seriesId, "6", { attempt: 1 });
    expect(second.sourcePath).not.toBe(first.sourcePath);
    fake.faults.pageMs = 150;
    await stateIs(app, second.row.id, "running");
    await fake.completeNow(first.id); // the processor finishes attempt 0 late
    fake.faults.pageMs = 40;
    const done = await stateIs(app, second.row.id, "imported", "failed");
    expect(done.state).toBe("imported");
    expect((await jobRow(app, first.row.id)).state).toBe("failed");
    expect(fake.requests.some((r) => r.url === `/jobs/${first.id}/result`)).toBe(false);
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId, state: "active" } })).toBe(1);
  });

  it("either toggle off pauses: no request is sent while paused; back on, the job finishes", async () => {
    const seriesId = await translatedSeries(app, "Toggle");
    await putSetting(app.ctx, TRANSLATION_SETTING_KEY, {
      enabled: false,
      ai: { base_url: chat.baseUrl, model: "fake-model-1" },
      processor: { url: fake.url },
    });
    const job = await queueJob(app, seriesId, "8");
    await stateIs(app, job.row.id, "paused");
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.requests.filter((r) => r.url.startsWith(`/jobs/${job.id}`))).toHaveLength(0);
    await putSetting(app.ctx, TRANSLATION_SETTING_KEY, {
      enabled: true,
      ai: { base_url: chat.baseUrl, model: "fake-model-1" },
      processor: { url: fake.url },
    });
    // The series toggle alone also pauses.
    await app.ctx.db.series.update({ where: { id: seriesId }, data: { translationFallbackEnabled: false } });
    await new Promise((r) => setTimeout(r, 300));
    expect((await jobRow(app, job.row.id)).state).toBe("paused");
    expect(fake.requests.filter((r) => r.url.startsWith(`/jobs/${job.id}`))).toHaveLength(0);
    await app.ctx.db.series.update({ where: { id: seriesId }, data: { translationFallbackEnabled: true } });
    expect((await stateIs(app, job.row.id, "imported", "failed")).state).toBe("imported");
  });

  it("durable cancel: DELETE failing at stop, a new app on the same data dir sends it until acknowledged (also while disabled)", async () => {
    const seriesId = await translatedSeries(app, "Restart");
    const job = await queueJob(app, seriesId, "9", { pages: 40 });
    await stateIs(app, job.row.id, "running");
    fake.faults.dropDelete = 1000;
    await cancelRow(job.row.id);
    await until(
      "a dropped DELETE",
      async () => deletesOf(job.id).length,
      (n) => n >= 2,
    );
    await app.close();
    const before = deletesOf(job.id).length;
    fake.faults.dropDelete = 1;
    // Fallback disabled meanwhile: the durable DELETE is still sent.
    const next = await createApp(app.config, { migrate: false });
    await putSetting(next.ctx, TRANSLATION_SETTING_KEY, {
      enabled: false,
      ai: { base_url: chat.baseUrl, model: "fake-model-1" },
      processor: { url: fake.url },
    });
    next.services.translationWorker.tune({ pollMs: 30, retryScale: 0 });
    try {
      const done = await until(
        "cancelled after restart",
        () => next.ctx.db.translationJob.findUniqueOrThrow({ where: { id: job.row.id } }),
        (r) => r.state === "cancelled",
        20_000,
      );
      expect(done.cancelPending).toBe(false);
      const after = deletesOf(job.id).slice(before);
      expect(after.at(-1)?.status).toBe(202);
      expect(after.length).toBeGreaterThanOrEqual(2);
      expect(fake.cancelled.has(job.id)).toBe(true);
    } finally {
      await next.close();
      // dispose() closes the first app again: give it a fresh one on the same dir to close.
      app = Object.assign(app, { close: async () => {} });
    }
  });
});
