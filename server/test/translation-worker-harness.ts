/**
 * Shared set-up of the worker tests: a real app, the fake processor and chat server on 127.0.0.1,
 * a series with translation enabled, and job rows written the way the jobs service writes them
 * (source archive in the attempt's staging dir, sha256 recorded).
 */
import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ZipFile } from "yazl";
import { formatJobId, jobKey } from "../src/domain/translation-jobs.ts";
import { drawnPages } from "../src/library/test-pages.ts";
import { putSetting } from "../src/services/acquisition/source-settings.ts";
import { translationStagingDir } from "../src/services/translation/translation-upload.ts";
import {
  AI_KEY_SECRET,
  PROCESSOR_TOKEN_SECRET,
  TRANSLATION_SETTING_KEY,
} from "../src/services/translation/translation-worker-settings.ts";
import { expectJson } from "./fixtures.ts";
import { until } from "./downloads-fixtures.ts";
import { afterAll, beforeAll } from "vitest";
import { startFakeChat, type FakeChat } from "./fakes/openai-chat-server.ts";
import { startFakeProcessor, type FakeProcessor } from "./fakes/processor-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

export const TOKEN = "processor-token-7c1d0e";
export const AI_KEY = "sk-ai-secret-4b9f2a";
export { until };

export async function sourceCbz(pages: number, seed = 11): Promise<Buffer> {
  const zip = new ZipFile();
  (await drawnPages(pages, seed, { width: 96, height: 136 })).forEach((p, i) =>
    zip.addBuffer(p, `${String(i + 1).padStart(3, "0")}.jpg`, {
      compress: false,
      mtime: new Date(Date.UTC(2024, 0, 1)),
    }),
  );
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

export async function configure(
  app: TestApp,
  o: { processorUrl: string; chatBaseUrl: string; enabled?: boolean },
): Promise<void> {
  await putSetting(app.ctx, TRANSLATION_SETTING_KEY, {
    enabled: o.enabled ?? true,
    source_languages: ["ja"],
    ai: { base_url: o.chatBaseUrl, model: "fake-model-1" },
    processor: { url: o.processorUrl },
  });
  await app.ctx.secrets.setIntegrationSecret(AI_KEY_SECRET, AI_KEY);
  await app.ctx.secrets.setIntegrationSecret(PROCESSOR_TOKEN_SECRET, TOKEN);
  // Fast cycles and a back-off of milliseconds instead of seconds.
  app.services.translationWorker.tune({ pollMs: 30, retryScale: 0.002 });
}

export async function translatedSeries(app: TestApp, title: string): Promise<number> {
  const s = await expectJson<{ id: number }>(await app.api("/api/manga", { method: "POST", json: { title } }), 201);
  await app.ctx.db.series.update({ where: { id: s.id }, data: { translationFallbackEnabled: true, language: "en" } });
  return s.id;
}

/** A queued job (external unless told) for book `volume`, its source in staging. */
export async function queueJob(
  app: TestApp,
  seriesId: number,
  volume: string,
  o: {
    pages?: number;
    attempt?: number;
    engine?: "external" | "local";
    source?: Buffer;
    sourceLanguage?: string;
    targetLanguage?: string;
  } = {},
) {
  const attempt = o.attempt ?? 0;
  const targetLanguage = o.targetLanguage ?? "en";
  const key = jobKey({ seriesId, kind: "volume", number: volume, destination: targetLanguage });
  const bytes = o.source ?? (await sourceCbz(o.pages ?? 3, Number(volume) * 7));
  const dir = translationStagingDir(app.config, key, attempt);
  await mkdir(dir, { recursive: true });
  const sourcePath = path.join(dir, "source.cbz");
  await writeFile(sourcePath, bytes);
  const row = await app.ctx.db.translationJob.create({
    data: {
      jobKey: key,
      attempt,
      seriesId,
      kind: "volume",
      number: volume,
      sourceLanguage: o.sourceLanguage ?? "ja",
      targetLanguage,
      engine: o.engine ?? "external",
      origin: "upload",
      sourcePath,
      sourceSha256: createHash("sha256").update(bytes).digest("hex"),
      state: "queued",
    },
  });
  // The jobs service wakes the worker when it creates a row; a row written here must do the same.
  app.services.translationWorker.kick();
  return { row, id: formatJobId(key, attempt), key, sourcePath };
}

export const jobRow = (app: TestApp, id: number) => app.ctx.db.translationJob.findUniqueOrThrow({ where: { id } });
/**
 * Waits for a job's state. The bound is generous: local jobs read pages with OCR and load the
 * language identifier on their first run, and the machines running the suite are shared and loaded.
 */
export const stateIs = (app: TestApp, id: number, ...states: string[]) =>
  until(
    `job ${id} in ${states.join("|")}`,
    () => jobRow(app, id),
    (r) => states.includes(r.state),
    50_000,
  );

export interface WorkerSuite {
  app: TestApp;
  fake: FakeProcessor;
  chat: FakeChat;
}

/**
 * One app, fake processor (each page taking `pageMs`) and fake chat server for a test file,
 * configured for the external engine; started before its tests and closed after them.
 */
export function workerSuite(pageMs: number, ready: (s: WorkerSuite) => void): void {
  let s: WorkerSuite | undefined;
  beforeAll(async () => {
    const app = await createTestApp();
    const fake = await startFakeProcessor({ token: TOKEN, faults: { pageMs } });
    const chat = await startFakeChat({ apiKey: AI_KEY });
    await configure(app, { processorUrl: fake.url, chatBaseUrl: chat.baseUrl });
    s = { app, fake, chat };
    ready(s);
  });
  afterAll(async () => {
    await s?.app.dispose();
    await s?.fake.close();
    await s?.chat.close();
  });
}
