/**
 * Shared set-up of the fallback conformance suites: an empty service driven only through REST and
 * GraphQL, with the fake processor and chat server (and, when a suite needs sources, a
 * Suwayomi-compatible server) on 127.0.0.1.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { drawnPages } from "../src/library/test-pages.ts";
import { expectJson, zipBuffer } from "./fixtures.ts";
import { startFakeChat, type FakeChat } from "./fakes/openai-chat-server.ts";
import { startFakeProcessor, type FakeProcessor, type ProcessorFaults } from "./fakes/processor-server.ts";
import type { FakeSource } from "./fakes/suwayomi-server.ts";
import { createTestApp, type TestApp } from "./utils.ts";

export const TOKEN = "fallback-processor-token-93ad";
export const AI_KEY = "sk-fallback-ai-key-51fe";

export interface Job {
  id: string;
  status: string;
  state: string;
  target: { kind: string; number: string };
  source_language: string;
  target_language: string;
  source_sha256: string | null;
  origin: string;
  paused_reason: string | null;
  cancel_pending: boolean;
  error: { code: string; message: string } | null;
}
export interface Search {
  created: Job[];
  skipped: { kind: string; number: string; reason: string }[];
  queued_downloads: number;
}

export interface World {
  app: TestApp;
  processor: FakeProcessor;
  chat: FakeChat;
  json<T>(res: Promise<Response>, status?: number): Promise<T>;
  jobs(seriesId: number): Promise<Job[]>;
  job(seriesId: number, id: string): Promise<Job>;
  search(seriesId: number): Promise<Search>;
  patch(seriesId: number, body: Record<string, unknown>): Promise<unknown>;
  settings(body: Record<string, unknown>): Promise<unknown>;
  /** A series (destination `en`) whose operator map makes chapter slots 1..n under book 1. */
  series(title: string, chapters: number): Promise<number>;
  /** Links the series to the work of that title at `source` (search, then link). */
  link(seriesId: number, source: FakeSource, title: string, language: string): Promise<void>;
  upload(seriesId: number, query: string, body: Buffer): Promise<Response>;
  dispose(): Promise<void>;
}

export async function startWorld(faults: Partial<ProcessorFaults> = {}): Promise<World> {
  const chat = await startFakeChat({ apiKey: AI_KEY });
  const processor = await startFakeProcessor({ token: TOKEN, faults });
  const app = await createTestApp();
  const json = <T>(res: Promise<Response>, status = 200) => res.then((r) => expectJson<T>(r, status));
  const jobs = (id: number) => json<Job[]>(app.api(`/api/translations?manga_id=${id}`));
  const w: World = {
    app,
    processor,
    chat,
    json,
    jobs,
    async job(seriesId, id) {
      const found = (await jobs(seriesId)).find((j) => j.id === id);
      expect(found, `job ${id} is listed`).toBeDefined();
      return found!;
    },
    search: (id) => json<Search>(app.api(`/api/manga/${id}/translations/search`, { method: "POST" })),
    patch: (id, body) => json(app.api(`/api/manga/${id}`, { method: "PATCH", json: body })),
    settings: (body) => json(app.api("/api/settings/translation", { method: "PUT", json: body })),
    async series(title, chapters) {
      const s = await json<{ id: number }>(
        app.api("/api/manga", { method: "POST", json: { title, language: "en" } }),
        201,
      );
      await json(
        app.api(`/api/manga/${s.id}/chapter-map`, {
          method: "PUT",
          json: {
            revision: 0,
            entries: [{ volume: "1", chapters: Array.from({ length: chapters }, (_, i) => String(i + 1)) }],
          },
        }),
      );
      return s.id;
    },
    async link(seriesId, source, title, language) {
      const found = await json<{ works: { source_id: string; title: string }[] }>(
        app.api(`/api/manga/${seriesId}/sources/search`, {
          method: "POST",
          json: { provider: source.id, query: title },
        }),
      );
      const work = found.works.find((x) => x.title === title);
      expect(work, `${source.name} lists ${title}`).toBeDefined();
      await json(
        app.api(`/api/manga/${seriesId}/sources`, {
          method: "POST",
          json: { provider: source.id, source_id: work!.source_id, language },
        }),
        201,
      );
    },
    upload: (id, query, body) =>
      app.api(`/api/manga/${id}/translations/upload?${query}`, {
        method: "POST",
        body: new Uint8Array(body),
        headers: { "content-type": "application/zip" },
      }),
    async dispose() {
      await app.dispose();
      await processor.close();
      await chat.close();
    },
  };
  return w;
}

/** A source CBZ of `pages` drawn JPEG pages. */
export async function sourceCbz(pages: number, seed: number): Promise<Buffer> {
  const drawn = await drawnPages(pages, seed, { width: 96, height: 136 });
  return zipBuffer(drawn.map((data, i) => ({ name: `${String(i + 1).padStart(3, "0")}.jpg`, data })));
}

/** Every file under `dir` (recursively) whose bytes contain `needle`, but the secrets store. */
export async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    if (path.basename(file) === "secrets.json") continue;
    if ((await readFile(file)).includes(needle)) out.push(file);
  }
  return out;
}
