/**
 * The whole external path with real parts: the service's worker (engine "external") speaks protocol
 * v1 to the reference processor, which runs the built-in local engine (region finder, tesseract.js
 * with the Debian models, lettering) against the OpenAI-compatible fake chat server; the service
 * imports the lettered book. A second job for the same source, languages, endpoint and model under
 * another id is answered from the processor's cache without a provider call.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtInEngine } from "../src/processor/local.ts";
import { startProcessor, type RunningProcessor } from "../src/processor/processor.ts";
import { startFakeChat, type FakeChat } from "./fakes/openai-chat-server.ts";
import { dictionaryTranslate, japaneseBook } from "./translation-local-fixtures.ts";
import { AI_KEY, TOKEN, configure, queueJob, stateIs, translatedSeries } from "./translation-worker-harness.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let chat: FakeChat;
let processor: RunningProcessor;
let stateDir: string;

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(os.tmpdir(), "processor-e2e-"));
  app = await createTestApp();
  chat = await startFakeChat({ apiKey: AI_KEY, translate: (t) => dictionaryTranslate(t) });
  processor = await startProcessor({ stateDir, engine: builtInEngine(), token: TOKEN, port: 0 });
  await configure(app, { processorUrl: processor.url, chatBaseUrl: chat.baseUrl });
});
afterAll(async () => {
  await app?.dispose();
  await processor?.close();
  await chat?.close();
  await rm(stateDir, { recursive: true, force: true });
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out.push(path.join(e.parentPath, e.name));
  return out;
}

describe("service → reference processor (built-in local engine) → chat provider", () => {
  it("imports a lettered book, answers an identical request from its cache, and stores no credential", async () => {
    const { cbz } = await japaneseBook();
    const seriesId = await translatedSeries(app, "Processor End To End");
    const first = await queueJob(app, seriesId, "1", { source: cbz });
    const done = await stateIs(app, first.row.id, "imported", "failed");
    expect(done.errorCode, done.errorMessage ?? "").toBeNull();
    expect(done).toMatchObject({ state: "imported", pagesDone: 3, pagesTotal: 3 });
    const requests = chat.requests.length;
    expect(requests).toBe(2); // two pages with text

    // Same source, languages, endpoint and model for another book slot: a new job id, no provider call.
    const again = await queueJob(app, seriesId, "2", { source: cbz });
    expect((await stateIs(app, again.row.id, "imported", "failed")).errorCode).toBeNull();
    expect(chat.requests.length).toBe(requests);

    for (const file of await filesUnder(stateDir)) {
      const text = (await readFile(file)).toString("latin1");
      expect(text.includes(AI_KEY), file).toBe(false);
      expect(text.includes(TOKEN), file).toBe(false);
    }
  });
});
