/**
 * The local translation path end to end, in the service: a Japanese CBZ rendered by the test goes in,
 * the worker runs the real region finder, tesseract.js with the Debian models, the OpenAI-compatible
 * fake chat server on 127.0.0.1 and the lettering, validates every page and imports a lettered CBZ
 * with its receipt. Then: one local job at a time, pause/restart/retry resuming from checkpoints,
 * cancel aborting a request in flight, every validation failure provoked on purpose, prerequisites.
 */
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { createWorker, OEM, PSM } from "tesseract.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatJobId } from "../src/domain/translation-jobs.ts";
import { withArchive } from "../src/library/archive-reader.ts";
import { localCheckpointDir } from "../src/services/translation/translation-local-runner.ts";
import { translationStagingDir } from "../src/services/translation/translation-upload.ts";
import { AI_KEY_SECRET } from "../src/services/translation/translation-worker-settings.ts";
import { startFakeChat, type ChatFault, type FakeChat } from "./fakes/openai-chat-server.ts";
import { makeCbz } from "./fakes/manga-pages.ts";
import { dictionaryTranslate, japaneseBook, PAGE_SIZE } from "./translation-local-fixtures.ts";
import { AI_KEY, configure, jobRow, queueJob, stateIs, translatedSeries, until } from "./translation-worker-harness.ts";
import { createTestApp, type TestApp } from "./utils.ts";

/** OCR of every page on a shared, loaded machine: a job may take minutes (waits are bounded by conditions). */
const OCR_TEST_TIMEOUT = 300_000;

let app: TestApp;
let chat: FakeChat;
let book: Awaited<ReturnType<typeof japaneseBook>>;
let onePage: Buffer;
/** Lines the fake translator answers in Japanese (a "model" that did not translate). */
const untranslatable = new Set<string>();
const logs: string[] = [];

beforeAll(async () => {
  app = await createTestApp();
  app.ctx.log = (m) => void logs.push(m);
  book = await japaneseBook();
  onePage = await makeCbz(book.pages.slice(0, 1));
  chat = await startFakeChat({
    apiKey: AI_KEY,
    translate: (text) => ([...untranslatable].some((u) => text.includes(u)) ? text : dictionaryTranslate(text)),
  });
  await configure(app, { processorUrl: "", chatBaseUrl: chat.baseUrl });
});
afterAll(async () => {
  await app?.dispose();
  await chat?.close();
});

const requestsSince = (n: number) => chat.requests.slice(n).filter((r) => r.url === "/v1/chat/completions");
const local = (seriesId: number, volume: string, o: Parameters<typeof queueJob>[3] = {}) =>
  queueJob(app, seriesId, volume, { engine: "local", source: book.cbz, ...o });

describe("local translation path (OCR, chat AI, lettering) in the service", { timeout: OCR_TEST_TIMEOUT }, () => {
  it("translates a Japanese book into a lettered, validated CBZ, one local job at a time", async () => {
    const seriesId = await translatedSeries(app, "Local Happy Path");
    const before = chat.requests.length;
    const first = await local(seriesId, "1");
    const second = await local(seriesId, "2");
    // While the first runs, the second waits its turn.
    await stateIs(app, first.row.id, "running");
    expect((await jobRow(app, second.row.id)).state).toBe("queued");
    const done = await stateIs(app, first.row.id, "imported", "failed");
    expect(done.errorCode, done.errorMessage ?? "").toBeNull();
    expect(done).toMatchObject({ state: "imported", pagesDone: 3, pagesTotal: 3 });
    // One request per page with text (the art page has none); the key only in the header.
    const sent = requestsSince(before).slice(0, 2);
    expect(sent).toHaveLength(2);
    for (const r of sent) expect(r.authorization).toBe(`Bearer ${AI_KEY}`);

    const file = await app.ctx.db.libraryFile.findUniqueOrThrow({ where: { id: done.fileId! } });
    expect(file).toMatchObject({ kind: "book", volume: "1", origin: "translation", language: "en" });
    const out = await withArchive(path.join(app.config.libraryRoot, file.path), undefined, async (a) => ({
      names: a.pages.map((p) => p.name),
      pages: await Promise.all(a.pages.map((_, i) => a.readPage(i))),
      xml: a.comicInfoXml ?? "",
    }));
    expect(out.pages).toHaveLength(3);
    for (const p of out.pages) expect(await sharp(p).metadata()).toMatchObject(PAGE_SIZE);
    expect(out.xml).toContain("<Translator>Machine translation (fake-model-1)</Translator>");
    expect(out.xml).toContain(done.sourceSha256!);
    // The art page is untouched; the text pages are lettered in English, legibly.
    expect(Buffer.compare(out.pages[1]!, book.pages[1]!.data)).toBe(0);
    const eng = await createWorker("eng", OEM.LSTM_ONLY, {
      langPath: "/usr/share/tesseract-ocr/5/tessdata",
      gzip: false,
      cacheMethod: "none",
    });
    try {
      await eng.setParameters({ tessedit_pageseg_mode: PSM.SPARSE_TEXT, user_defined_dpi: "300" });
      const bubble = await sharp(out.pages[0])
        .extract({ left: 430, top: 60, width: 220, height: 330 })
        .png()
        .toBuffer();
      const text = (await eng.recognize(bubble)).data.text.replace(/\s+/g, " ");
      expect(text).toMatch(/going/i);
    } finally {
      await eng.terminate();
    }
    // Sources, output and checkpoints leave staging after the import.
    await expect(stat(localCheckpointDir(app.config, first.key))).rejects.toThrow();
    await expect(stat(translationStagingDir(app.config, first.key, 0))).rejects.toThrow();

    expect((await stateIs(app, second.row.id, "imported", "failed")).state).toBe("imported");
    expect(logs.join("\n")).not.toContain(AI_KEY);
  });

  it("resumes from checkpoints after a pause and after a restart: finished pages are not sent again", async () => {
    const seriesId = await translatedSeries(app, "Local Resume");
    const before = chat.requests.length;
    const job = await local(seriesId, "1");
    await until(
      "first page done",
      () => jobRow(app, job.row.id),
      (r) => (r.pagesDone ?? 0) >= 1,
      120_000,
    );
    await app.ctx.db.series.update({ where: { id: seriesId }, data: { translationFallbackEnabled: false } });
    await stateIs(app, job.row.id, "paused");
    // A restart of the worker while paused, then the toggle back on.
    await app.services.translationWorker.stop();
    app.services.translationWorker.start();
    await app.ctx.db.series.update({ where: { id: seriesId }, data: { translationFallbackEnabled: true } });
    app.services.translationWorker.kick();
    const done = await stateIs(app, job.row.id, "imported", "failed");
    expect(done.errorCode, done.errorMessage ?? "").toBeNull();
    const texts = requestsSince(before).map((r) => r.content);
    // Page 1 was checkpointed before the pause: it is never asked again (page 3 may repeat once).
    expect(texts.filter((t) => t.includes("どこ") || t.includes("行く")).length).toBe(1);
  });

  it("a service stop in the middle of a job leaves it running; the next start resumes it from its checkpoints", async () => {
    const seriesId = await translatedSeries(app, "Local Restart");
    const before = chat.requests.length;
    const job = await local(seriesId, "1");
    await until(
      "first page done",
      () => jobRow(app, job.row.id),
      (r) => (r.pagesDone ?? 0) >= 1,
      120_000,
    );
    await app.services.translationWorker.stop();
    expect((await jobRow(app, job.row.id)).state).toBe("running");
    app.services.translationWorker.start();
    const done = await stateIs(app, job.row.id, "imported", "failed");
    expect(done.errorCode, done.errorMessage ?? "").toBeNull();
    const page1 = requestsSince(before).filter((r) => r.content.includes("どこ") || r.content.includes("行く"));
    expect(page1).toHaveLength(1);
  });

  it("an explicit retry reuses the checkpoints of the failed attempt", async () => {
    const seriesId = await translatedSeries(app, "Local Retry");
    untranslatable.add("あり");
    const before = chat.requests.length;
    const job = await local(seriesId, "1");
    const failed = await stateIs(app, job.row.id, "failed", "imported");
    expect(failed).toMatchObject({ state: "failed", errorCode: "validation_failed" });
    expect(failed.errorMessage).toContain("003.png");
    expect(await app.ctx.db.libraryFile.count({ where: { seriesId } })).toBe(0);
    // The failed attempt's output is not left in staging; its checkpoints are kept for the retry.
    expect(await readdir(translationStagingDir(app.config, job.key, 0))).not.toContain("result.zip");
    untranslatable.clear();
    const retried = await app.services.translations.retry(job.id);
    expect(retried.id).toBe(formatJobId(job.key, 1));
    const row = await app.ctx.db.translationJob.findFirstOrThrow({ where: { jobKey: job.key, attempt: 1 } });
    const done = await stateIs(app, row.id, "imported", "failed");
    expect(done.errorCode, done.errorMessage ?? "").toBeNull();
    const page1 = requestsSince(before).filter((r) => r.content.includes("どこ") || r.content.includes("行く"));
    expect(page1).toHaveLength(1);
  });

  it("cancel aborts the provider request in flight and imports nothing", async () => {
    const seriesId = await translatedSeries(app, "Local Cancel");
    chat.setFault("hang");
    try {
      const job = await local(seriesId, "1", { source: onePage });
      const before = chat.requests.length;
      await until(
        "the request sent",
        () => Promise.resolve(chat.requests.length),
        (n) => n > before,
        120_000,
      );
      const t0 = Date.now();
      await app.services.translations.cancel(job.id);
      const done = await stateIs(app, job.row.id, "cancelled");
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(done.fileId).toBeNull();
    } finally {
      chat.setFault(undefined);
    }
  });

  const faults: [ChatFault, string][] = [
    ["leftover_marker", "validation_failed"],
    ["echo", "validation_failed"],
    ["wrong_language", "validation_failed"],
    ["empty", "validation_failed"],
    ["source_script", "validation_failed"],
    ["missing_index", "ai_answer_malformed"],
    ["extra_index", "ai_answer_malformed"],
    ["duplicate_index", "ai_answer_malformed"],
    ["http_401", "ai_request_failed"],
  ];
  it.each(faults)(
    "a provider answer with %s fails the job (%s) and nothing reaches the library",
    async (fault, code) => {
      const seriesId = await translatedSeries(app, `Local Fault ${fault}`);
      chat.setFault(fault);
      try {
        const job = await local(seriesId, "1", { source: onePage });
        const done = await stateIs(app, job.row.id, "failed", "imported");
        expect(done).toMatchObject({ state: "failed", errorCode: code, fileId: null });
        expect(done.errorMessage).not.toContain(AI_KEY);
        expect(await app.ctx.db.libraryFile.count({ where: { seriesId } })).toBe(0);
        expect(await readdir(translationStagingDir(app.config, job.key, 0))).not.toContain("result.zip");
      } finally {
        chat.setFault(undefined);
      }
    },
  );

  it("strips a reasoning model's think-tags and imports the translation", async () => {
    const seriesId = await translatedSeries(app, "Local Think Tags");
    chat.setFault("think_tags");
    try {
      const job = await local(seriesId, "1", { source: onePage });
      const done = await stateIs(app, job.row.id, "failed", "imported");
      expect(done.errorCode, done.errorMessage ?? "").toBeNull();
      expect(done.state).toBe("imported");
    } finally {
      chat.setFault(undefined);
    }
  });

  it("checks prerequisites before a job starts, each with what to install or set", async () => {
    const seriesId = await translatedSeries(app, "Local Prerequisites");
    const korean = await local(seriesId, "1", { sourceLanguage: "ko" });
    expect(await stateIs(app, korean.row.id, "failed")).toMatchObject({
      errorCode: "ocr_model_missing",
      errorMessage: expect.stringContaining("tesseract-ocr-kor"),
    });
    // Swahili: the language identifier cannot confirm it, so no page of it could ever pass.
    const swahiliOut = await local(seriesId, "2", { targetLanguage: "sw" });
    expect(await stateIs(app, swahiliOut.row.id, "failed")).toMatchObject({
      errorCode: "target_script_unsupported",
      errorMessage: expect.stringContaining("sw needs an external processor"),
    });
    const key = app.ctx.secrets.getIntegrationSecret(AI_KEY_SECRET)!;
    await app.ctx.secrets.setIntegrationSecret(AI_KEY_SECRET, "");
    try {
      const noAi = await local(seriesId, "3");
      expect(await stateIs(app, noAi.row.id, "failed")).toMatchObject({ errorCode: "ai_not_configured" });
    } finally {
      await app.ctx.secrets.setIntegrationSecret(AI_KEY_SECRET, key);
    }
  });
});
