/**
 * Shared by the local-path conformance suites: a service reached only through its public API (REST,
 * GraphQL) and the files an operator can see (the library root, the data folder), the
 * OpenAI-compatible fake chat server on 127.0.0.1, and small Japanese books.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { createApp } from "../src/app.ts";
import type { Config } from "../src/config.ts";
import { until } from "./downloads-fixtures.ts";
import { makeCbz } from "./fakes/manga-pages.ts";
import { expectJson } from "./fixtures.ts";
import { japaneseBook } from "./translation-local-fixtures.ts";
import { TEST_API_KEY } from "./utils.ts";

export const AI_KEY = "sk-local-conformance-key-7d41";
/** OCR of every page on a shared, loaded machine: a job may take minutes (waits are bounded by conditions). */
export const OCR_TEST_TIMEOUT = 400_000;

export interface Job {
  id: string;
  status: string;
  state: string;
  engine: string;
  source_language: string;
  target_language: string;
  source_sha256: string | null;
  progress: { pages_done: number; pages_total: number } | null;
  error: { code: string; message: string } | null;
  paused_reason: string | null;
}

/** The public surface of one running service: its REST and GraphQL with the API key. */
export interface Api {
  api(pathname: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

export const json = <T>(res: Promise<Response>, status = 200) => res.then((r) => expectJson<T>(r, status));

export function client(baseUrl: string): Api {
  return {
    api(pathname, init = {}) {
      const headers = new Headers(init.headers);
      headers.set("x-api-key", TEST_API_KEY);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(init.json);
      }
      return fetch(`${baseUrl}${pathname}`, { ...init, headers, body });
    },
  };
}

/** The service started again on the same data folder and library (a restart). */
export async function restart(config: Config) {
  const app = await createApp(config, { migrate: false });
  const port = await app.listen();
  return { app, ...client(`http://127.0.0.1:${port}`) };
}

export const jobs = (s: Api, seriesId: number) => json<Job[]>(s.api(`/api/translations?manga_id=${seriesId}`));
export const jobOf = async (s: Api, seriesId: number, id: string) =>
  (await jobs(s, seriesId)).find((j) => j.id === id)!;
export const waitJob = (s: Api, seriesId: number, id: string, ok: (j: Job) => boolean, what: string) =>
  until(`job ${id}: ${what}`, () => jobOf(s, seriesId, id), ok, 300_000);
export const ended = (j: Job) => ["completed", "failed", "cancelled"].includes(j.status);

export async function settings(s: Api, body: Record<string, unknown>) {
  return json<{ engine: string; ai: { api_key: string; model: string } }>(
    s.api("/api/settings/translation", { method: "PUT", json: body }),
  );
}

/** A series with the fallback on, the given destination and `books` books. */
export async function newSeries(s: Api, title: string, language = "en", books = 4): Promise<number> {
  const created = await json<{ id: number }>(
    s.api("/api/manga", { method: "POST", json: { title, known_book_count: books, language } }),
    201,
  );
  await json(s.api(`/api/manga/${created.id}`, { method: "PATCH", json: { translation_fallback_enabled: true } }));
  return created.id;
}

export const upload = (s: Api, seriesId: number, query: string, body: Buffer) =>
  json<Job>(
    s.api(`/api/manga/${seriesId}/translations/upload?${query}`, {
      method: "POST",
      body: new Uint8Array(body),
      headers: { "content-type": "application/zip" },
    }),
    201,
  );

/** Books of the test's Japanese pages: one text page, or the two text pages (001 and 003). */
export async function books() {
  const book = await japaneseBook();
  const [p1, , p3] = book.pages;
  return {
    onePage: await makeCbz([p1!]),
    twoPages: await makeCbz([p1!, { ...p3!, name: "002.png" }]),
    pages: book.pages,
  };
}

/** Every file under a folder (recursive), for checks of what staging and the data folder hold. */
export async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true, recursive: true });
    return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  } catch {
    return [];
  }
}

/** Files under `dir` whose bytes contain `secret` (the secrets file excepted). */
export async function filesHolding(dir: string, secret: string): Promise<string[]> {
  const out: string[] = [];
  for (const f of await filesUnder(dir)) {
    if (path.basename(f).startsWith("secrets")) continue;
    if ((await readFile(f)).includes(Buffer.from(secret))) out.push(f);
  }
  return out;
}

/** The translation staging folders of a job id (`<key>-<attempt>`) and its checkpoints. */
export async function stagingOf(libraryRoot: string, id: string): Promise<string[]> {
  const root = path.join(libraryRoot, ".staging", "translations");
  const key = id.slice(0, 32);
  return (await filesUnder(root)).filter((f) => f.includes(key));
}
