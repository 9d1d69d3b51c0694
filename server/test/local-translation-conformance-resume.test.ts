/**
 * Local processing's checkpoints and interruptions from outside: completed pages are checkpointed and
 * a restart of the whole service resumes from them (the finished page is not asked again); a changed
 * model invalidates them; pausing (either toggle off) and cancelling abort the provider request in
 * flight; a cancelled job leaves no output behind. Only the public API, the files an operator sees
 * and the fake chat server on 127.0.0.1.
 */
import { rmSync } from "node:fs";
import unzipper from "unzipper";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../src/app.ts";
import { until } from "./downloads-fixtures.ts";
import { startFakeChat, type FakeChat } from "./fakes/openai-chat-server.ts";
import { dictionaryTranslate } from "./translation-local-fixtures.ts";
import {
  AI_KEY,
  books,
  ended,
  filesHolding,
  json,
  newSeries,
  OCR_TEST_TIMEOUT,
  restart,
  settings,
  stagingOf,
  upload,
  waitJob,
  type Api,
  type Job,
} from "./local-translation-conformance-fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let first: TestApp;
/** The running service: the first one, then the restarted one. */
let service: Api & { app: App };
let chat: FakeChat;
let pages: Awaited<ReturnType<typeof books>>;
/** Source lines the fake provider answers unchanged (a model that did not translate). */
const echoed = new Set<string>();

beforeAll(async () => {
  first = await createTestApp();
  service = { app: first, api: first.api };
  chat = await startFakeChat({
    apiKey: AI_KEY,
    translate: (t) => ([...echoed].some((e) => t.includes(e)) ? t : dictionaryTranslate(t)),
  });
  pages = await books();
  await settings(service, {
    enabled: true,
    source_languages: ["ja"],
    ai: { base_url: chat.baseUrl, model: "resume-model-1", api_key: AI_KEY },
  });
}, 60_000);
afterAll(async () => {
  await service?.app.close();
  await chat?.close();
  if (first) rmSync(first.dir, { recursive: true, force: true });
});

/** Provider requests since `n` for the first page's text (OCR may read a character differently). */
const firstPageAsks = (n: number) =>
  chat.requests.slice(n).filter((r) => r.url === "/v1/chat/completions" && /どこ|行く|大丈|です/.test(r.content));

const pageDone = (seriesId: number, id: string) =>
  waitJob(service, seriesId, id, (j) => (j.progress?.pages_done ?? 0) >= 1 || ended(j), "a page done");

async function comicInfo(seriesId: number): Promise<string> {
  const units = await json<{ units: { kind: string; file_ids: number[] }[] }>(
    service.api(`/api/manga/${seriesId}/units`),
  );
  const id = units.units.find((u) => u.kind === "book" && u.file_ids.length > 0)!.file_ids[0]!;
  const res = await service.api(`/komga/api/v1/books/${id}/file`);
  const zip = await unzipper.Open.buffer(Buffer.from(await res.arrayBuffer()));
  return (await zip.files.find((f) => f.path === "ComicInfo.xml")!.buffer()).toString("utf8");
}

describe("local processing: checkpoints and interruptions", { timeout: OCR_TEST_TIMEOUT }, () => {
  it("a restart of the service resumes from the checkpointed pages", async () => {
    const seriesId = await newSeries(service, "Local Resume Restart");
    const before = chat.requests.length;
    const aborted = chat.aborted();
    const job = await upload(service, seriesId, "source_language=ja&volume=1", pages.twoPages);
    const half = await pageDone(seriesId, job.id);
    // The second page's request hangs until the service stops (OCR of that page comes first).
    chat.setFault("hang");
    try {
      expect(half.status).toBe("running");
      // The checkpoint of the finished page lies in staging and holds no credential.
      expect((await stagingOf(first.config.libraryRoot, job.id)).some((f) => f.includes("checkpoints"))).toBe(true);
      expect(await filesHolding(first.config.libraryRoot, AI_KEY)).toEqual([]);
      await until(
        "the second page asked",
        () => Promise.resolve(chat.requests.length),
        (n) => n >= before + 2,
        300_000,
      );
      await service.app.close();
      // The stop aborted the request in flight.
      await until(
        "the request aborted",
        () => Promise.resolve(chat.aborted()),
        (n) => n > aborted,
        10_000,
      );
    } finally {
      chat.setFault(undefined);
      service = await restart(first.config);
    }
    const done = await waitJob(service, seriesId, job.id, ended, "ended");
    expect(done.error).toBeNull();
    expect(done).toMatchObject({ status: "completed", progress: { pages_done: 2, pages_total: 2 } });
    expect(firstPageAsks(before)).toHaveLength(1);
    // Sources and checkpoints leave staging with the import.
    await until(
      "staging emptied",
      () => stagingOf(first.config.libraryRoot, job.id),
      (files) => files.length === 0,
      10_000,
    );
  });

  it("a changed model invalidates the checkpoints: the finished page is asked again on retry", async () => {
    const seriesId = await newSeries(service, "Local Resume Model");
    const before = chat.requests.length;
    // The second page is answered untranslated: the job fails after the first page was checkpointed.
    echoed.add("あり");
    let failed;
    try {
      const job = await upload(service, seriesId, "source_language=ja&volume=1", pages.twoPages);
      failed = await waitJob(service, seriesId, job.id, ended, "ended");
    } finally {
      echoed.clear();
    }
    expect(failed).toMatchObject({ status: "failed", error: { code: "validation_failed" } });
    expect(failed.progress?.pages_done).toBe(1);
    expect(firstPageAsks(before).map((r) => r.model)).toEqual(["resume-model-1"]);
    await settings(service, { ai: { model: "resume-model-2" } });
    try {
      const retry = await json<Job>(service.api(`/api/translations/${failed.id}/retry`, { method: "POST" }), 201);
      const done = await waitJob(service, seriesId, retry.id, ended, "ended");
      expect(done.error).toBeNull();
      expect(done.status).toBe("completed");
      // Asked again with the new model (with the old one it would have come from the checkpoint).
      expect(firstPageAsks(before).map((r) => r.model)).toEqual(["resume-model-1", "resume-model-2"]);
      const xml = await comicInfo(seriesId);
      expect(xml).toContain("resume-model-2");
      expect(xml).not.toContain("resume-model-1");
    } finally {
      await settings(service, { ai: { model: "resume-model-1" } });
    }
  });

  it("switching the global toggle off aborts the provider request in flight; cancel leaves no output", async () => {
    const seriesId = await newSeries(service, "Local Resume Pause");
    chat.setFault("hang");
    try {
      const before = chat.requests.length;
      const aborted = chat.aborted();
      const job = await upload(service, seriesId, "source_language=ja&volume=1", pages.onePage);
      await until(
        "the request sent",
        () => Promise.resolve(chat.requests.length),
        (n) => n > before,
        300_000,
      );
      await settings(service, { enabled: false });
      const paused = await waitJob(service, seriesId, job.id, (j) => j.paused_reason !== null || ended(j), "paused");
      expect(paused.paused_reason).toBe("toggle_off");
      await until(
        "the request aborted",
        () => Promise.resolve(chat.aborted()),
        (n) => n > aborted,
        10_000,
      );
      await settings(service, { enabled: true });
      await until(
        "asked again",
        () => Promise.resolve(chat.requests.length),
        (n) => n > before + 1,
        300_000,
      );
      const t0 = Date.now();
      await json(service.api(`/api/translations/${job.id}/cancel`, { method: "POST" }));
      const done = await waitJob(service, seriesId, job.id, ended, "cancelled");
      expect(done.status).toBe("cancelled");
      expect(Date.now() - t0).toBeLessThan(10_000);
      await until(
        "the second request aborted",
        () => Promise.resolve(chat.aborted()),
        (n) => n > aborted + 1,
        10_000,
      );
      const left = await stagingOf(first.config.libraryRoot, job.id);
      expect(left.filter((f) => /result\.zip$|translated\.cbz$/.test(f))).toEqual([]);
    } finally {
      chat.setFault(undefined);
    }
  });
});
