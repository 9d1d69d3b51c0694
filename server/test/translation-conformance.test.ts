/**
 * Translation fallback as an outside checker sees it: an empty service driven only through REST and
 * GraphQL, the reference processor started as the README documents it (main.ts with
 * TRANSLATION_PROCESSOR_TOKEN, --state and --host) and an OpenAI-compatible chat server, all on
 * 127.0.0.1. Settings answer keys masked and keep them when the mask is sent back (the job then
 * authenticates at the processor and at the provider with the stored secrets); the upload refusals
 * (411, 415, 404, 400, 422); the job id and its retry numbering; retry only of a failed job; cancel;
 * a toggle off pausing; a new destination language cancelling the old one's jobs; a book without
 * text failing with no_text_found; and a Japanese book imported with its machine-translation
 * provenance in ComicInfo.
 */
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import unzipper from "unzipper";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCbz, renderMangaPage } from "./fakes/manga-pages.ts";
import { startFakeChat, type FakeChat } from "./fakes/openai-chat-server.ts";
import { until } from "./downloads-fixtures.ts";
import { expectJson, expectProblem, type RestUnits } from "./fixtures.ts";
import { dictionaryTranslate, japaneseBook, PAGE_SIZE } from "./translation-local-fixtures.ts";
import { createTestApp, TEST_API_KEY, type TestApp } from "./utils.ts";

const OCR_TEST_TIMEOUT = 300_000;
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const MAIN = path.join(ROOT, "server", "src", "processor", "main.ts");
const TOKEN = "conformance-processor-token-51c2";
const AI_KEY = "sk-conformance-ai-key-8e3f";
const ID = /^[0-9a-f]{32}-(0|[1-9][0-9]{0,8})$/;

interface Job {
  id: string;
  status: string;
  target: { kind: string; number: string };
  source_language: string;
  target_language: string;
  source_sha256: string | null;
  error: { code: string; message: string } | null;
  paused_reason: string | null;
}

let app: TestApp;
let chat: FakeChat;
let processor: ChildProcess;
let processorUrl: string;
let stateDir: string;

async function startDocumentedProcessor(): Promise<string> {
  const env = { ...process.env, TRANSLATION_PROCESSOR_TOKEN: TOKEN };
  processor = spawn(
    process.execPath,
    ["--import", "tsx", MAIN, "--state", path.join(stateDir, "state"), "--host", "127.0.0.1:0"],
    { cwd: ROOT, env, stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise<string>((resolve, reject) => {
    let out = "";
    processor.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    processor.on("exit", (code) => reject(new Error(`the processor exited early with ${code}`)));
  });
}

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(os.tmpdir(), "translation-conformance-"));
  chat = await startFakeChat({ apiKey: AI_KEY, translate: (t) => dictionaryTranslate(t) });
  processorUrl = await startDocumentedProcessor();
  app = await createTestApp();
}, 60_000);
afterAll(async () => {
  await app?.dispose();
  if (processor && processor.exitCode === null) {
    const exited = new Promise((r) => processor.once("exit", r));
    processor.kill("SIGTERM");
    await exited;
  }
  await chat?.close();
  await rm(stateDir, { recursive: true, force: true });
});

const json = <T>(res: Promise<Response>, status = 200) => res.then((r) => expectJson<T>(r, status));
const jobs = (seriesId: number) => json<Job[]>(app.api(`/api/translations?manga_id=${seriesId}`));
const jobOf = async (id: string, seriesId: number) => (await jobs(seriesId)).find((j) => j.id === id)!;
const waitJob = (id: string, seriesId: number, ...statuses: string[]) =>
  until(
    `job ${id} in ${statuses.join("|")}`,
    () => jobOf(id, seriesId),
    (j) => statuses.includes(j.status),
    240_000,
  );
const upload = (seriesId: number, query: string, body: Buffer, type = "application/zip") =>
  app.api(`/api/manga/${seriesId}/translations/upload?${query}`, {
    method: "POST",
    body: new Uint8Array(body),
    headers: { "content-type": type },
  });

async function newSeries(title: string, books: number, chapters: string[] = []): Promise<number> {
  const s = await json<{ id: number }>(
    app.api("/api/manga", { method: "POST", json: { title, known_book_count: books, language: "en" } }),
    201,
  );
  if (chapters.length > 0)
    await json(
      app.api(`/api/manga/${s.id}/chapter-map`, {
        method: "PUT",
        json: { revision: 0, entries: [{ volume: String(books), chapters }] },
      }),
    );
  await json(app.api(`/api/manga/${s.id}`, { method: "PATCH", json: { translation_fallback_enabled: true } }));
  return s.id;
}

/** A POST without Content-Length (chunked), which fetch never sends. */
function chunkedUpload(pathname: string, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(app.baseUrl + pathname);
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: "POST",
        headers: { "x-api-key": TEST_API_KEY, "content-type": "application/zip", "transfer-encoding": "chunked" },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe(
  "translation fallback through the public API, with the reference processor",
  { timeout: OCR_TEST_TIMEOUT },
  () => {
    it("answers keys masked, keeps them when the mask comes back, and agrees with GraphQL", async () => {
      const put = await json<{ ai: { api_key: string }; processor: { token: string }; engine: string }>(
        app.api("/api/settings/translation", {
          method: "PUT",
          json: {
            enabled: true,
            source_languages: ["original", "ja"],
            ai: { base_url: chat.baseUrl, model: "conformance-model", api_key: AI_KEY },
            processor: { url: processorUrl, token: TOKEN },
          },
        }),
      );
      expect(put.ai.api_key).toBe(`****${AI_KEY.slice(-4)}`);
      expect(put.processor.token).toBe(`****${TOKEN.slice(-4)}`);
      expect(put.engine).toBe("external");
      // The masked values sent back (as a settings form does) keep the stored secrets.
      const again = await json<{ ai: { api_key: string }; processor: { token: string } }>(
        app.api("/api/settings/translation", {
          method: "PUT",
          json: { ai: { api_key: put.ai.api_key }, processor: { token: put.processor.token } },
        }),
      );
      expect([again.ai.api_key, again.processor.token]).toEqual([put.ai.api_key, put.processor.token]);
      const text = JSON.stringify(await json(app.api("/api/settings/translation")));
      expect(text).not.toContain(AI_KEY);
      expect(text).not.toContain(TOKEN);
      const gql = await app.gql<{ translationSettings: { ai: { apiKey: string }; processor: { token: string } } }>(
        "{ translationSettings { ai { apiKey } processor { token } } }",
      );
      expect(gql.data?.translationSettings).toEqual({
        ai: { apiKey: put.ai.api_key },
        processor: { token: put.processor.token },
      });
    });

    it("refuses uploads by the rules: 411, 415, 404, 400, 422; nothing is created", async () => {
      const seriesId = await newSeries("Conformance Refusals", 2, ["1"]);
      const { cbz } = await japaneseBook();
      const chunked = await chunkedUpload(
        `/api/manga/${seriesId}/translations/upload?source_language=ja&volume=1`,
        cbz,
      );
      expect([chunked.status, (JSON.parse(chunked.body) as { code: string }).code]).toEqual([411, "length_required"]);
      await expectProblem(
        await upload(seriesId, "source_language=ja&volume=1", cbz, "text/plain"),
        415,
        "unsupported_media_type",
      );
      await expectProblem(await upload(987654, "source_language=ja&volume=1", cbz), 404, "series_not_found");
      await expectProblem(await upload(seriesId, "source_language=ja&volume=1&chapter=1", cbz), 400, "bad_request");
      await expectProblem(await upload(seriesId, "source_language=ja", cbz), 400, "bad_request");
      await expectProblem(
        await upload(seriesId, "source_language=ja&volume=3", cbz),
        422,
        "translation_target_unknown",
      );
      await expectProblem(
        await upload(seriesId, "source_language=ja&chapter=2", cbz),
        422,
        "translation_target_unknown",
      );
      await expectProblem(await upload(seriesId, "source_language=en&volume=1", cbz), 400, "invalid_field");
      expect(await jobs(seriesId)).toEqual([]);
    });

    it("translates an uploaded book through the processor and imports it with its provenance", async () => {
      const seriesId = await newSeries("Conformance Harbor", 2);
      const { cbz } = await japaneseBook();
      const created = await json<Job>(upload(seriesId, "source_language=ja&volume=1", cbz), 201);
      expect(created.id).toMatch(ID);
      expect(created.id.endsWith("-0")).toBe(true);
      expect(created).toMatchObject({
        target: { kind: "volume", number: "1" },
        source_language: "ja",
        target_language: "en",
      });
      // Only a failed (or cancelled) job is retried.
      await expectProblem(
        await app.api(`/api/translations/${created.id}/retry`, { method: "POST" }),
        409,
        "translation_not_retryable",
      );
      const done = await waitJob(created.id, seriesId, "completed", "failed");
      expect(done.error).toBeNull();
      expect(done.status).toBe("completed");
      const units = await json<RestUnits>(app.api(`/api/manga/${seriesId}/units`));
      const book = units.units.find((u) => u.kind === "book" && u.number === "1")!;
      expect(book.owned).toBe(true);
      expect(book.page_count).toBe(3);
      // The book as a reader app downloads it: the three pages and a ComicInfo with the provenance.
      const file = await app.api(`/komga/api/v1/books/${book.file_ids[0]}/file`);
      expect(file.status).toBe(200);
      const zip = await unzipper.Open.buffer(Buffer.from(await file.arrayBuffer()));
      expect(zip.files.map((f) => f.path).sort()).toEqual(["001.png", "002.png", "003.png", "ComicInfo.xml"]);
      const xml = (await zip.files.find((f) => f.path === "ComicInfo.xml")!.buffer()).toString("utf8");
      expect(xml).toContain("machine translation");
      expect(xml).toContain(done.source_sha256!);
      expect(xml).toContain("<LanguageISO>en</LanguageISO>");
      expect(xml).not.toContain(AI_KEY);
      // Two pages had text: one provider call each, with the stored key (the mask kept it).
      expect(chat.requests.map((r) => r.authorization)).toEqual([`Bearer ${AI_KEY}`, `Bearer ${AI_KEY}`]);
      const gql = await app.gql<{ translationJobs: { id: string; status: string }[] }>(
        "query($s: Int) { translationJobs(seriesId: $s) { id status } }",
        { s: seriesId },
      );
      expect(gql.data?.translationJobs).toEqual([{ id: created.id, status: "COMPLETED" }]);
    });

    it("a chapter without text fails with no_text_found; the explicit retry is the next number; cancel ends it", async () => {
      const seriesId = await newSeries("Conformance Blank", 1, ["1", "2"]);
      const blank = await makeCbz([{ name: "001.png", data: await renderMangaPage({ ...PAGE_SIZE }) }]);
      const first = await json<Job>(upload(seriesId, "source_language=ja&chapter=2", blank), 201);
      expect(first.target).toEqual({ kind: "chapter", number: "2" });
      const failed = await waitJob(first.id, seriesId, "completed", "failed");
      expect(failed.status).toBe("failed");
      expect(failed.error?.code).toBe("no_text_found");
      // Switch the series toggle off first: the retry waits, paused, and is cancelled from there.
      await json(app.api(`/api/manga/${seriesId}`, { method: "PATCH", json: { translation_fallback_enabled: false } }));
      const retry = await json<Job>(app.api(`/api/translations/${first.id}/retry`, { method: "POST" }), 201);
      expect(retry.id).toBe(`${first.id.slice(0, 32)}-1`);
      await expectProblem(
        await app.api(`/api/translations/${first.id}/retry`, { method: "POST" }),
        409,
        "translation_not_retryable",
      );
      const paused = await until(
        `job ${retry.id} paused`,
        () => jobOf(retry.id, seriesId),
        (j) => j.paused_reason === "toggle_off",
      );
      expect(paused.status).toBe("queued");
      const cancelled = await json<Job>(app.api(`/api/translations/${retry.id}/cancel`, { method: "POST" }));
      expect(cancelled.status).toBe("cancelled");
      await expectProblem(
        await app.api(`/api/translations/${retry.id}/cancel`, { method: "POST" }),
        409,
        "translation_not_cancellable",
      );
      await expectProblem(
        await app.api(`/api/translations/${"f".repeat(32)}-0/cancel`, { method: "POST" }),
        404,
        "translation_job_not_found",
      );
      await expectProblem(
        await app.api(`/api/translations/not-a-job-id/retry`, { method: "POST" }),
        400,
        "translation_job_id_invalid",
      );
    });

    it("a new destination language cancels the old language's jobs", async () => {
      const seriesId = await newSeries("Conformance Language", 2);
      await json(app.api(`/api/manga/${seriesId}`, { method: "PATCH", json: { translation_fallback_enabled: false } }));
      const { cbz } = await japaneseBook();
      const job = await json<Job>(upload(seriesId, "source_language=ja&volume=2", cbz), 201);
      await json(app.api(`/api/manga/${seriesId}`, { method: "PATCH", json: { language: "fr" } }));
      const after = await waitJob(job.id, seriesId, "cancelled");
      expect(after.target_language).toBe("en");
      // The new language's job for the same book has another stable key.
      const fr = await json<Job>(upload(seriesId, "source_language=ja&volume=2", cbz), 201);
      expect(fr.id.slice(0, 32)).not.toBe(job.id.slice(0, 32));
      expect(fr.target_language).toBe("fr");
    });
  },
);
