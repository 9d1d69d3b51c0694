/**
 * Ordinary short comics translate end to end, as a user meets it: an empty service, only its public
 * API (settings, series, chapter map, upload, job list), the OpenAI-compatible fake chat server and
 * the reference processor on 127.0.0.1. Books of three pages, one bubble of one or two short lines
 * a page — French and Spanish capitals, Japanese vertical — too short for a language check page by
 * page, so short pages wait for the book's pooled language. One French page is stored sideways
 * with an EXIF orientation tag and one has its bubble cut by the page border.
 *
 * Both paths: the local path (no processor URL) and the reference processor with its built-in
 * engine, reached by the service's own protocol client. Every book is imported; a book answered in
 * the wrong language, or with the source echoed, still fails with validation_failed and the reason.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { createWorker, OEM, PSM } from "tesseract.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withArchive } from "../src/library/archive-reader.ts";
import { builtInEngine } from "../src/processor/local.ts";
import { startProcessor, type RunningProcessor } from "../src/processor/processor.ts";
import { until } from "./downloads-fixtures.ts";
import { startFakeChat, type FakeChat } from "./fakes/openai-chat-server.ts";
import { makeCbz } from "./fakes/manga-pages.ts";
import { expectJson } from "./fixtures.ts";
import { shortBook, shortTranslate, type Answering, type ShortBook } from "./translation-short-fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

/** OCR of every page on a shared, loaded machine: a job may take minutes (waits are bounded by conditions). */
const OCR_TEST_TIMEOUT = 300_000;

const AI_KEY = "sk-short-pages-5d1c";
const TOKEN = "processor-token-short-9e2a";

let app: TestApp;
let chat: FakeChat;
let processor: RunningProcessor;
let stateDir: string;
let answering: Answering = "translate";
const books: Partial<Record<ShortBook["language"], ShortBook>> = {};

interface RestJob {
  id: string;
  state: string;
  source_language: string;
  target_language: string;
  error: { code: string; message: string } | null;
}

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(os.tmpdir(), "short-pages-processor-"));
  app = await createTestApp();
  chat = await startFakeChat({
    apiKey: AI_KEY,
    translate: (text, target) => shortTranslate(text, answering, target),
  });
  processor = await startProcessor({ stateDir, engine: builtInEngine(), token: TOKEN, port: 0 });
  for (const l of ["fr", "es", "ja"] as const) books[l] = await shortBook(l);
});
afterAll(async () => {
  await app?.dispose();
  await processor?.close();
  await chat?.close();
  await rm(stateDir, { recursive: true, force: true });
});

/** Translation settings through the API: the local path (no processor URL) or the reference processor. */
async function settings(processorUrl: string): Promise<void> {
  await expectJson(
    await app.api("/api/settings/translation", {
      method: "PUT",
      json: {
        enabled: true,
        source_languages: ["fr", "es", "ja"],
        ai: { base_url: chat.baseUrl, model: "fake-model-1", api_key: AI_KEY },
        processor: { url: processorUrl, token: TOKEN },
      },
    }),
    200,
  );
}

let seq = 0;
/** A series (English unless told) with translation fallback on and book 1 in its map, through the API. */
async function series(language = "en"): Promise<number> {
  const s = await expectJson<{ id: number }>(
    await app.api("/api/manga", { method: "POST", json: { title: `Short Pages ${++seq}` } }),
    201,
  );
  await expectJson(
    await app.api(`/api/manga/${s.id}`, {
      method: "PATCH",
      json: { language, translation_fallback_enabled: true },
    }),
    200,
  );
  await expectJson(
    await app.api(`/api/manga/${s.id}/chapter-map`, {
      method: "PUT",
      json: { revision: 0, entries: [{ volume: "1", chapters: ["1", "2", "3"] }] },
    }),
    200,
  );
  return s.id;
}

/** Uploads a source for book 1 and waits for the job to end (imported or failed). */
async function translate(
  cbz: Buffer,
  sourceLanguage: string,
  targetLanguage = "en",
): Promise<{ seriesId: number; job: RestJob }> {
  const seriesId = await series(targetLanguage);
  const job = await expectJson<RestJob>(
    await app.api(`/api/manga/${seriesId}/translations/upload?source_language=${sourceLanguage}&volume=1`, {
      method: "POST",
      body: new Uint8Array(cbz),
      headers: { "content-type": "application/zip" },
    }),
    201,
  );
  const done = await until(
    `translation ${job.id} ended`,
    // A poll that meets a connection reset (a busy machine) is asked again, as a client would.
    async () => {
      const r = await app.api(`/api/translations?manga_id=${seriesId}`).catch(() => null);
      return r ? (await expectJson<RestJob[]>(r, 200)).find((j) => j.id === job.id)! : job;
    },
    (j) => j.state === "imported" || j.state === "failed",
    240_000,
  );
  return { seriesId, job: done };
}

/** The books the library holds (series folders; staging and other dot folders left out). */
async function libraryBook(): Promise<{ names: string[]; pages: Buffer[]; xml: string }[]> {
  const root = app.config.libraryRoot;
  const files: string[] = [];
  for (const dir of await readdir(root, { withFileTypes: true }))
    if (dir.isDirectory() && !dir.name.startsWith("."))
      for (const f of await readdir(path.join(root, dir.name)))
        if (f.endsWith(".cbz")) files.push(path.join(root, dir.name, f));
  return Promise.all(
    files.map((f) =>
      withArchive(f, undefined, async (a) => ({
        names: a.pages.map((p) => p.name),
        pages: await Promise.all(a.pages.map((_, i) => a.readPage(i))),
        xml: a.comicInfoXml ?? "",
      })),
    ),
  );
}

/** Reads the text lettered in a region of an upright page (English, or Japanese with "jpn"). */
async function readBack(
  page: Buffer,
  box: { left: number; top: number; width: number; height: number },
  model: "eng" | "jpn" = "eng",
) {
  const eng = await createWorker(model, OEM.LSTM_ONLY, {
    langPath: "/usr/share/tesseract-ocr/5/tessdata",
    gzip: false,
    cacheMethod: "none",
  });
  try {
    await eng.setParameters({ tessedit_pageseg_mode: PSM.SPARSE_TEXT, user_defined_dpi: "300" });
    const crop = await sharp(page).autoOrient().extract(box).png().toBuffer();
    return (await eng.recognize(crop)).data.text.replace(/\s+/g, " ");
  } finally {
    await eng.terminate();
  }
}

/** The first two pages only: another source (the processor caches results by source). */
const twoPages = async (book: ShortBook) => makeCbz(book.pages.slice(0, 2));

function pathTests() {
  it.each(["fr", "es", "ja"] as const)(
    `translates a short %s book (a bubble or two of short lines a page) and imports it`,
    async (language) => {
      const book = books[language]!;
      const before = (await libraryBook()).length;
      const { job } = await translate(book.cbz, language);
      expect(job.error, JSON.stringify(job.error)).toBeNull();
      expect(job).toMatchObject({ state: "imported", source_language: language, target_language: "en" });
      const after = await libraryBook();
      expect(after).toHaveLength(before + 1);
      const out = after.find((b) => b.xml.includes(`from ${language} to en`))!;
      expect(out.names).toEqual(book.pages.map((p) => p.name));
      for (const [i, p] of out.pages.entries()) {
        const [src, got] = await Promise.all([sharp(book.pages[i]!.data).metadata(), sharp(p).metadata()]);
        // Stored size, format and orientation tag as the source's; the bubble lettered anew.
        expect(got).toMatchObject({ width: src.width, height: src.height, format: src.format });
        expect(got.orientation).toBe(src.orientation);
        expect(Buffer.compare(p, book.pages[i]!.data)).not.toBe(0);
      }
      if (language === "fr") {
        // The sideways page reads upright, in English, where its bubble is.
        const text = await readBack(out.pages[1]!, { left: 160, top: 400, width: 400, height: 220 });
        expect(text).toMatch(/late|wait|here/i);
      }
    },
  );

  it("a book answered in the wrong language still fails with validation_failed (wrong_language)", async () => {
    answering = "german";
    try {
      const before = (await libraryBook()).length;
      const { job } = await translate(await twoPages(books.fr!), "fr");
      expect((await libraryBook()).length).toBe(before);
      expect(job).toMatchObject({ state: "failed", error: { code: "validation_failed" } });
      expect(job.error?.message).toContain("wrong_language");
      expect(job.error?.message).not.toContain(AI_KEY);
    } finally {
      answering = "translate";
    }
  });

  it("a book whose answers echo the source still fails with validation_failed (echo)", async () => {
    answering = "echo";
    try {
      const before = (await libraryBook()).length;
      const { job } = await translate(await twoPages(books.es!), "es");
      expect((await libraryBook()).length).toBe(before);
      expect(job).toMatchObject({ state: "failed", error: { code: "validation_failed" } });
      expect(job.error?.message).toContain("echo");
    } finally {
      answering = "translate";
    }
  });
}

describe("the local path (OCR, chat AI, lettering in the service)", { timeout: OCR_TEST_TIMEOUT }, () => {
  beforeAll(async () => {
    await settings("");
  });
  pathTests();
});

describe(
  "a destination in another script (Japanese, lettered with the CJK font by the processor's built-in engine)",
  { timeout: OCR_TEST_TIMEOUT },
  () => {
    // The service's own local path letters Latin, Greek and Cyrillic only (local-translation-conformance.test.ts).
    beforeAll(async () => {
      await settings(processor.url);
    });
    it("translates the short French book into Japanese through the processor and letters it legibly", async () => {
      const book = books.fr!;
      const { job } = await translate(book.cbz, "fr", "ja");
      expect(job.error, JSON.stringify(job.error)).toBeNull();
      expect(job).toMatchObject({ state: "imported", source_language: "fr", target_language: "ja" });
      const out = (await libraryBook()).find((b) => b.xml.includes("from fr to ja"))!;
      expect(out.names).toEqual(book.pages.map((p) => p.name));
      // Page 1's bubble (top) reads back as Japanese: real glyphs, not empty boxes.
      const text = (await readBack(out.pages[0]!, { left: 170, top: 130, width: 380, height: 200 }, "jpn")).replace(
        / /g,
        "",
      );
      expect(text).toMatch(/[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]{3,}/u);
    });
  },
);

describe(
  "the reference processor (built-in engine) through the service's protocol client",
  { timeout: OCR_TEST_TIMEOUT },
  () => {
    beforeAll(async () => {
      await settings(processor.url);
      answering = "translate";
    });
    pathTests();
  },
);
