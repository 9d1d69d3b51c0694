/**
 * Shared set-up of the reviewed-operations conformance probes (review-conformance*.test.ts): an
 * empty service whose only source is the drop folder (a folder the test fills, as an operator
 * would), series made and linked through REST, and the small readers of the public answers.
 * Nothing here touches the database or calls a service directly.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { drawnPages } from "../src/library/test-pages.ts";
import { until } from "./downloads-fixtures.ts";
import { expectJson, zipBuffer } from "./fixtures.ts";
import type { TestApp } from "./utils.ts";

export interface AuditFile {
  id: number;
  path: string;
  size: number;
  sha256: string;
  page_count: number;
  kind: "book" | "chapter";
  number: string | null;
  language: string;
  state: string;
  origin: string;
  source: { provider: string; source_id: string | null } | null;
  flags: string[];
  thumbnails: { first: string; last: string } | null;
}
export interface AuditList {
  page: number;
  page_size: number;
  total: number;
  files: AuditFile[];
}
export interface Preview {
  files: AuditFile[];
  confirmation: string;
  expires_at: string;
}
export interface Retired {
  retired: { file_id: number; recycle_entry_id: number; from: string; bin_path: string }[];
}
export interface Mapping {
  id: number;
  provider: string;
  source_id: string;
  priority: number;
  offers: number;
}
export interface BinEntry {
  id: number;
  file_id: number;
  series_id: number;
  original_path: string;
  sha256: string;
  reason: string;
}

/** A CBZ of `pages` drawn JPEG pages (decodable: downloads are judged page by page). */
export async function drawnCbz(pages: number, seed: number): Promise<Buffer> {
  const images = await drawnPages(pages, seed, { width: 300, height: 430 });
  return zipBuffer(images.map((data, i) => ({ name: `${String(i + 1).padStart(3, "0")}.jpg`, data })));
}

/** The file name the scan and the drop folder read as chapter `n` of `title`. */
export const chapterName = (title: string, n: number) => `${title} - c${String(n).padStart(3, "0")}.cbz`;

export function reviewClient(app: TestApp) {
  const post = (url: string, json?: unknown) => app.api(url, { method: "POST", json: json ?? {} });
  const get = async <T>(url: string) => expectJson<T>(await app.api(url), 200);
  const downloads = (id: number) =>
    get<{ id: number; chapter: string | null; volume: string | null; state: string }[]>(`/api/manga/${id}/downloads`);
  const settledStates = ["published", "degraded", "failed", "cancelled"];

  const client = {
    post,
    get,
    downloads,
    /** Writes a release into the drop folder's work folder (a CBZ of drawn pages). */
    async drop(work: string, name: string, pages: number, seed: number): Promise<void> {
      const file = path.join(app.config.dropFolder, work, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, await drawnCbz(pages, seed));
    },
    async undrop(work: string, name: string): Promise<void> {
      await rm(path.join(app.config.dropFolder, work, name));
    },
    async createSeries(title: string, fields: Record<string, unknown> = {}): Promise<{ id: number; folder: string }> {
      return expectJson<{ id: number; folder: string }>(await post("/api/manga", { title, ...fields }), 201);
    },
    /**
     * Links a drop-folder work and waits until every download of the series has ended. The link
     * asks for a Wanted pass of its own; the explicit one runs after it, so once it answers every
     * download the link brings is queued (on a slower database too).
     */
    async link(id: number, work: string, priority = 0): Promise<void> {
      await expectJson(
        await post(`/api/manga/${id}/sources`, { provider: "drop-folder", source_id: work, language: "en", priority }),
        201,
      );
      await expectJson(await post(`/api/manga/${id}/wanted/run`), 200);
      await client.settle(id);
    },
    /** Refreshes the series' sources, runs the Wanted pass, and waits until every download has ended. */
    async refresh(id: number): Promise<void> {
      await expectJson(await post(`/api/manga/${id}/sources/refresh`), 200);
      await expectJson(await post(`/api/manga/${id}/wanted/run`), 200);
      await client.settle(id);
    },
    async settle(id: number): Promise<void> {
      await until(
        "downloads ended",
        () => downloads(id),
        (rows) => rows.every((r) => settledStates.includes(r.state)),
        60_000,
      );
    },
    audit: (id: number, query = "") => get<AuditList>(`/api/manga/${id}/audit${query}`),
    /** Every file of the audit, page by page. */
    async auditAll(id: number): Promise<AuditFile[]> {
      const out: AuditFile[] = [];
      for (let page = 1; ; page++) {
        const p = await client.audit(id, `?page=${page}`);
        out.push(...p.files);
        if (p.files.length === 0 || out.length >= p.total) return out;
      }
    },
    /** The audit entry whose path ends in `name`. */
    async fileNamed(id: number, name: string): Promise<AuditFile> {
      const f = (await client.auditAll(id)).find((x) => x.path.endsWith(`/${name}`));
      expect(f, name).toBeDefined();
      return f!;
    },
    /**
     * A running series (unless `fields` say otherwise) fed by drop-folder work `title` with
     * chapters `numbers` (8 pages each), linked and fetched; `file(n)` reads chapter n's audit entry.
     */
    async fedSeries(title: string, numbers: number[], fields: Record<string, unknown> = {}, seed = 0) {
      const s = await client.createSeries(title, fields);
      for (const n of numbers) await client.drop(title, chapterName(title, n), 8, seed + n);
      await client.link(s.id, title);
      const file = async (n: number) => client.fileNamed(s.id, chapterName(title, n));
      return { ...s, title, file };
    },
    mappings: (id: number) => get<Mapping[]>(`/api/manga/${id}/sources`),
    bin: () => get<BinEntry[]>("/api/recycle-bin"),
    abs: (rel: string) => path.join(app.config.libraryRoot, ...rel.split("/")),
  };
  return client;
}
