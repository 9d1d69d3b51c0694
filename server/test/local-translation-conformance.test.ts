/**
 * Local processing (the default) as an outside checker sees it: an empty service, only its public API
 * (settings, series, upload, job list, GraphQL), the files an operator can look at, and the
 * OpenAI-compatible fake chat server on 127.0.0.1. With only the AI provider's base URL, model and key
 * set, a job runs in the service (tesseract.js with Debian's models, white boxes with the answer) and
 * the imported book carries its provenance in ComicInfo; a processor URL selects the processor and
 * clearing it returns to local processing; missing prerequisites and destinations outside Latin,
 * Greek and Cyrillic fail with what to do; the provider's refusals and garbage are job errors naming
 * the provider; a failed job keeps nothing in the library and no output in staging; the key is
 * masked and never in the job list, the database or staging.
 */
import path from "node:path";
import sharp from "sharp";
import unzipper from "unzipper";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "./downloads-fixtures.ts";
import { startFakeChat, type ChatFault, type FakeChat } from "./fakes/openai-chat-server.ts";
import { expectProblem } from "./fixtures.ts";
import { dictionaryTranslate } from "./translation-local-fixtures.ts";
import {
  AI_KEY,
  books,
  ended,
  filesHolding,
  jobOf,
  jobs,
  json,
  newSeries,
  OCR_TEST_TIMEOUT,
  settings,
  stagingOf,
  upload,
  waitJob,
  type Job,
} from "./local-translation-conformance-fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
let chat: FakeChat;
let pages: Awaited<ReturnType<typeof books>>;

beforeAll(async () => {
  app = await createTestApp();
  chat = await startFakeChat({ apiKey: AI_KEY, translate: (t) => dictionaryTranslate(t) });
  pages = await books();
}, 60_000);
afterAll(async () => {
  await app?.dispose();
  await chat?.close();
});

const localSettings = () =>
  settings(app, {
    enabled: true,
    source_languages: ["ja"],
    ai: { base_url: chat.baseUrl, model: "conformance-model-1", api_key: AI_KEY },
  });

const finished = (seriesId: number, j: Job) => waitJob(app, seriesId, j.id, ended, "ended");

/** The translated book of a series as it lies in the library: its page bytes and ComicInfo. */
async function libraryBook(seriesId: number) {
  const units = await json<{ units: { kind: string; number: string; file_ids: number[] }[] }>(
    app.api(`/api/manga/${seriesId}/units`),
  );
  const id = units.units.find((u) => u.kind === "book" && u.file_ids.length > 0)!.file_ids[0]!;
  const res = await app.api(`/komga/api/v1/books/${id}/file`);
  expect(res.status).toBe(200);
  const zip = await unzipper.Open.buffer(Buffer.from(await res.arrayBuffer()));
  const entry = (name: string) => zip.files.find((f) => f.path === name)!.buffer();
  return { names: zip.files.map((f) => f.path).sort(), entry };
}

/** Of the source's dark pixels in a rectangle, the share still dark at the same place in the output. */
async function darkKept(src: Buffer, out: Buffer, box: { left: number; top: number; width: number; height: number }) {
  const grey = (b: Buffer) => sharp(b).extract(box).greyscale().raw().toBuffer();
  const [a, b] = await Promise.all([grey(src), grey(out)]);
  let dark = 0;
  let kept = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i]! > 80) continue;
    dark++;
    if (b[i]! <= 80) kept++;
  }
  return kept / Math.max(1, dark);
}

describe("local processing through the public API", { timeout: OCR_TEST_TIMEOUT }, () => {
  it("with only the AI provider's URL, model and key, a book is translated locally and imported with its provenance", async () => {
    const view = await localSettings();
    expect(view.engine).toBe("local");
    expect(view.ai.api_key).toBe(`****${AI_KEY.slice(-4)}`);
    const gql = await app.gql<{ translationSettings: { engine: string; ai: { apiKey: string } } }>(
      "{ translationSettings { engine ai { apiKey } } }",
    );
    expect(gql.data?.translationSettings).toEqual({ engine: "LOCAL", ai: { apiKey: view.ai.api_key } });

    const seriesId = await newSeries(app, "Local Conformance Harbor");
    const before = chat.requests.length;
    const job = await upload(app, seriesId, "source_language=ja&volume=1", pages.onePage);
    expect(job).toMatchObject({ engine: "local", source_language: "ja", target_language: "en" });
    const done = await finished(seriesId, job);
    expect(done.error).toBeNull();
    expect(done).toMatchObject({ status: "completed", progress: { pages_done: 1, pages_total: 1 } });
    // The provider was asked in the chat-completions shape, with the key only in the header.
    const sent = chat.requests.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    for (const r of sent) {
      expect(r).toMatchObject({ method: "POST", url: "/v1/chat/completions", model: "conformance-model-1" });
      expect(r.authorization).toBe(`Bearer ${AI_KEY}`);
      expect(r.content).not.toContain(AI_KEY);
    }

    const book = await libraryBook(seriesId);
    expect(book.names).toEqual(["001.png", "ComicInfo.xml"]);
    const xml = (await book.entry("ComicInfo.xml")).toString("utf8");
    expect(xml).toContain(done.source_sha256!);
    expect(xml).toContain("conformance-model-1");
    expect(xml.toLowerCase()).toContain("machine translation");
    expect(xml).not.toContain(AI_KEY);
    // The text of the first bubble is covered by a white box with the English answer: most strokes
    // of the kana columns are gone from where they were, and the page keeps its size.
    const out = await book.entry("001.png");
    const src = pages.pages[0]!.data;
    expect(await sharp(out).metadata()).toMatchObject({ width: 720, height: 1000 });
    expect(await darkKept(src, out, { left: 470, top: 100, width: 140, height: 250 })).toBeLessThan(0.5);

    // Sources, checkpoints and output leave staging after the import; nothing holds the key.
    await until(
      "staging emptied",
      () => stagingOf(app.config.libraryRoot, done.id),
      (files) => files.length === 0,
      10_000,
    );
    expect(await filesHolding(app.dir, AI_KEY)).toEqual([]);
    expect(JSON.stringify(await jobs(app, seriesId))).not.toContain(AI_KEY);
  });

  it("a processor URL selects the processor for new jobs; clearing it returns them to local processing", async () => {
    const seriesId = await newSeries(app, "Local Conformance Switch");
    // A processor nobody listens on: an external job can only wait for it.
    const external = await settings(app, { processor: { url: "http://127.0.0.1:9/", token: "processor-token-3f0a9" } });
    expect(external.engine).toBe("external");
    const viaProcessor = await upload(app, seriesId, "source_language=ja&volume=1", pages.onePage);
    expect(viaProcessor.engine).toBe("external");
    const back = await settings(app, { processor: { url: "" } });
    expect(back.engine).toBe("local");
    const gql = await app.gql<{ translationSettings: { engine: string } }>("{ translationSettings { engine } }");
    expect(gql.data?.translationSettings.engine).toBe("LOCAL");
    // The job that was never sent anywhere runs locally now.
    const done = await finished(seriesId, viaProcessor);
    expect(done.error).toBeNull();
    expect(done.status).toBe("completed");
    const local = await upload(app, seriesId, "source_language=ja&volume=2", pages.onePage);
    expect(local.engine).toBe("local");
    expect((await finished(seriesId, local)).status).toBe("completed");
  });

  it("a missing OCR model for the source language is a job error naming what to install", async () => {
    const seriesId = await newSeries(app, "Local Conformance Korean");
    const job = await upload(app, seriesId, "source_language=ko&volume=1", pages.onePage);
    const done = await finished(seriesId, job);
    expect(done).toMatchObject({ status: "failed", error: { code: "ocr_model_missing" } });
    expect(done.error?.message).toContain("tesseract-ocr-kor");
    expect(await stagingOf(app.config.libraryRoot, done.id)).not.toContain(
      expect.stringMatching(/result\.zip$|translated\.cbz$/),
    );
  });

  it.each(["ja", "ar", "zh"])(
    "a destination outside Latin, Greek and Cyrillic (%s) fails with a message saying what to use",
    async (language) => {
      const seriesId = await newSeries(app, `Local Conformance Script ${language}`, language);
      const before = chat.requests.length;
      const job = await upload(app, seriesId, "source_language=fr&volume=1", pages.onePage);
      const done = await finished(seriesId, job);
      expect(done).toMatchObject({ status: "failed", error: { code: "target_script_unsupported" } });
      expect(done.error?.message).toMatch(/Latin, Greek (and|or) Cyrillic/);
      expect(done.error?.message).toContain("processor");
      expect(chat.requests.length).toBe(before);
    },
  );

  it("one local job runs at a time: the second waits queued", async () => {
    const seriesId = await newSeries(app, "Local Conformance One At A Time");
    const first = await upload(app, seriesId, "source_language=ja&volume=1", pages.onePage);
    const second = await upload(app, seriesId, "source_language=ja&volume=2", pages.onePage);
    await waitJob(app, seriesId, first.id, (j) => j.status === "running" || ended(j), "running");
    const seen: string[] = [];
    for (;;) {
      const [a, b] = [await jobOf(app, seriesId, first.id), await jobOf(app, seriesId, second.id)];
      if (a.status === "running") seen.push(b.status);
      if (ended(a)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(["queued"]));
    expect((await finished(seriesId, second)).status).toBe("completed");
  });

  const providerFaults: [ChatFault, RegExp][] = [
    ["http_401", /AI provider.*401/],
    ["http_429", /AI provider.*429/],
    ["http_500", /AI provider.*500/],
    ["garbage", /AI provider.*not JSON/],
  ];
  it.each(providerFaults)(
    "a provider answering %s is a job error naming the provider's problem",
    async (fault, message) => {
      const seriesId = await newSeries(app, `Local Conformance Provider ${fault}`);
      chat.setFault(fault);
      try {
        const job = await upload(app, seriesId, "source_language=ja&volume=1", pages.onePage);
        const erred = await waitJob(app, seriesId, job.id, (j) => j.error !== null || ended(j), "an error");
        expect(erred.error?.code).toBe("ai_request_failed");
        expect(erred.error?.message).toMatch(message);
        expect(erred.error?.message).not.toContain(AI_KEY);
        expect(JSON.stringify(await jobs(app, seriesId))).not.toContain(AI_KEY);
        const units = await json<{ units: { owned: boolean }[] }>(app.api(`/api/manga/${seriesId}/units`));
        expect(units.units.some((u) => u.owned)).toBe(false);
        if (erred.status !== "failed") {
          // A temporary refusal is retried with the same id; the operator can still cancel.
          await json(app.api(`/api/translations/${job.id}/cancel`, { method: "POST" }));
          await waitJob(app, seriesId, job.id, ended, "cancelled");
        }
      } finally {
        chat.setFault(undefined);
      }
    },
  );

  it("an answer failing the checks fails the job: nothing in the library, no output in staging, retry needed", async () => {
    const seriesId = await newSeries(app, "Local Conformance Echo");
    chat.setFault("echo");
    try {
      const job = await upload(app, seriesId, "source_language=ja&volume=1", pages.onePage);
      const done = await finished(seriesId, job);
      expect(done).toMatchObject({ status: "failed", error: { code: "validation_failed" } });
      expect(done.error?.message).toContain("echo");
      const left = await stagingOf(app.config.libraryRoot, done.id);
      expect(left.filter((f) => /result\.zip$|translated\.cbz$/.test(f))).toEqual([]);
      expect(left.some((f) => path.basename(f) === "source.cbz")).toBe(true);
      // It stays failed until the operator retries.
      await new Promise((r) => setTimeout(r, 1500));
      expect((await jobOf(app, seriesId, job.id)).status).toBe("failed");
    } finally {
      chat.setFault(undefined);
    }
    const failedId = (await jobs(app, seriesId))[0]!.id;
    const retried = await json<Job>(app.api(`/api/translations/${failedId}/retry`, { method: "POST" }), 201);
    expect((await finished(seriesId, retried)).status).toBe("completed");
  });

  it("refuses the service's own API key as the AI key and never shows the key in the job list", async () => {
    await expectProblem(
      await app.api("/api/settings/translation", {
        method: "PUT",
        json: { ai: { api_key: "test-api-key-0123456789" } },
      }),
      422,
      "secret_is_service_login",
    );
    const view = await json<{ ai: { api_key: string } }>(app.api("/api/settings/translation"));
    expect(view.ai.api_key).toBe(`****${AI_KEY.slice(-4)}`);
    expect(JSON.stringify(await json(app.api("/api/translations")))).not.toContain(AI_KEY);
  });
});
