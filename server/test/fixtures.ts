/**
 * Helpers shared by the end-to-end tests: the REST payload shapes they read, assertions on JSON and
 * RFC 9457 problem responses, CBZ files written with yazl, series made through the API and
 * recorded by a library scan, and what the publication tests stage and publish.
 */
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { ZipFile } from "yazl";
import { stateDirs, type Config } from "../src/config.ts";
import { AppError } from "../src/errors.ts";
import type { Problem } from "../src/http/problem.ts";
import { comicInfoXml, type ComicInfoFields } from "../src/library/demo.ts";
import type { PublishInput } from "../src/library/publication.ts";
import type { TestApp } from "./utils.ts";
import { expectJson } from "./expect-json.ts";

export type { Problem };

/* ------------------------------------------------------------------------------------------ */
/* REST payloads                                                                               */
/* ------------------------------------------------------------------------------------------ */

export interface RestUnit {
  kind: "book" | "chapter";
  number: string;
  book: string | null;
  owned: boolean;
  monitored: boolean;
  coverage: string | null;
  plan: string | null;
  estimated_book: string | null;
  page_count: number | null;
  file_ids: number[];
  duplicate_file_ids: number[];
  problems: string[];
  extra: boolean;
}
export interface RestUnits {
  series_id: number;
  form: string;
  map: string;
  status: string | null;
  plan_wording: string;
  units: RestUnit[];
}
export interface MapEntry {
  volume: string;
  chapters: string[];
}
/** A series' chapter map. State, kinds and statuses are plain strings: GraphQL gives the same shape with its enum names. */
export interface RestMap {
  series_id: number;
  revision: number;
  state: string;
  entries: MapEntry[];
  readings: MapEntry[];
  suggestions: {
    source: string;
    kind: string;
    revision: number;
    entries: {
      volume: string;
      chapters: string[];
      status: string;
      conflicts: { chapter: string; volumes: string[]; scope: string }[];
      adoptable: string[];
    }[];
  }[];
  conflicts: { chapter: string; books: string[] }[];
}
export interface ScanBody {
  added: number;
  changed: number;
  moved: number;
  removed: number;
  unchanged: number;
  series_created: number;
  errors: { path: string; code: string; message: string }[];
}

/* ------------------------------------------------------------------------------------------ */
/* Responses                                                                                   */
/* ------------------------------------------------------------------------------------------ */

export { expectJson };

/** An RFC 9457 problem with this status and stable code: problem+json, `type` about:blank#code. */
export async function expectProblem(res: Response, status: number, code: string): Promise<Problem> {
  const body = await expectJson<Problem>(res, status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(body.code).toBe(code);
  expect(body.status).toBe(status);
  expect(body.type).toBe(`about:blank#${code}`);
  return body;
}

/** Status, content type and parsed body of a response, to compare a whole problem at once. */
export async function problemOf(res: Response): Promise<{ status: number; contentType: string | null; body: unknown }> {
  return { status: res.status, contentType: res.headers.get("content-type"), body: await res.json() };
}

/** The AppError a promise must reject with (a unit test or a service call, no HTTP in between). */
export async function appErrorOf(p: Promise<unknown>): Promise<AppError> {
  const e: unknown = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

/** The one unit of this kind and number in a units view. */
export function unitOf<U extends { kind: string; number: string }>(
  view: { units: U[] },
  kind: U["kind"],
  number: string,
): U {
  const found = view.units.filter((u) => u.kind === kind && u.number === number);
  expect(found, `${kind} ${number}`).toHaveLength(1);
  return found[0] as U;
}

/* ------------------------------------------------------------------------------------------ */
/* CBZ files                                                                                   */
/* ------------------------------------------------------------------------------------------ */

const ZIP_MTIME = new Date(Date.UTC(2024, 0, 1));

/** A zip archive in memory: entries stored uncompressed with one fixed mtime. */
export async function zipBuffer(entries: { name: string; data: Buffer }[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const e of entries) zip.addBuffer(e.data, e.name, { mtime: ZIP_MTIME, compress: false });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * A CBZ of `pages` random-byte "images" named 001.jpg… (never decodable: the scan reads the zip
 * central directory and ComicInfo.xml only), optionally with ComicInfo and other entries.
 */
export function cbz(pages: number, options: { comicInfo?: ComicInfoFields; other?: string[] } = {}): Promise<Buffer> {
  const entries: { name: string; data: Buffer }[] = [];
  if (options.comicInfo) entries.push({ name: "ComicInfo.xml", data: Buffer.from(comicInfoXml(options.comicInfo)) });
  for (let i = 1; i <= pages; i++)
    entries.push({ name: `${String(i).padStart(3, "0")}.jpg`, data: randomBytes(100 + i) });
  for (const name of options.other ?? []) entries.push({ name, data: randomBytes(20) });
  return zipBuffer(entries);
}

/** Writes a CBZ of `pages` pages at `file`, creating its folder. */
export async function writeCbz(file: string, pages: number): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, await cbz(pages));
}

/** File names the scan reads as book `n` and chapter `n` of a series titled `title`. */
export const bookFileName = (title: string, n: number) => `${title} v${String(n).padStart(2, "0")}.cbz`;
export const chapterFileName = (title: string, n: number) => `${title} - c${String(n).padStart(3, "0")}.cbz`;

/* ------------------------------------------------------------------------------------------ */
/* Series through the API                                                                      */
/* ------------------------------------------------------------------------------------------ */

/**
 * A series created through POST /api/manga, with one CBZ per book and per chapter written into its
 * folder (12 and 4 pages unless told). The files are not scanned yet: see scanLibrary.
 */
export async function createSeriesWithFiles(
  app: TestApp,
  title: string,
  files: { books: number[]; chapters: number[]; bookPages?: number; chapterPages?: number },
): Promise<{ id: number; folder: string }> {
  const s = await expectJson<{ id: number; folder: string }>(
    await app.api("/api/manga", { method: "POST", json: { title } }),
    201,
  );
  const dir = path.join(app.config.libraryRoot, s.folder);
  for (const b of files.books) await writeCbz(path.join(dir, bookFileName(title, b)), files.bookPages ?? 12);
  for (const c of files.chapters) await writeCbz(path.join(dir, chapterFileName(title, c)), files.chapterPages ?? 4);
  return s;
}

/**
 * Prepared state for tests of what a sound book does: these book files become books the service
 * downloaded. A book the scan finds is a hand import (suspect, it covers nothing until verified);
 * the book channel's own end-to-end tests publish downloaded books through the API.
 */
export async function markDownloaded(app: TestApp, fileIds: number[]): Promise<void> {
  await app.ctx.db.libraryFile.updateMany({
    where: { id: { in: fileIds }, kind: "book" },
    data: { origin: "download" },
  });
}

/** The ids of the active book files of a series (to prepare them with markDownloaded). */
export async function bookFileIds(app: TestApp, seriesId: number): Promise<number[]> {
  const rows = await app.ctx.db.libraryFile.findMany({
    where: { seriesId, kind: "book", state: "active" },
    select: { id: true },
    orderBy: { id: "asc" },
  });
  return rows.map((r) => r.id);
}

/** POST /api/library/scan, which must answer 200. */
export async function scanLibrary(app: TestApp): Promise<ScanBody> {
  return expectJson<ScanBody>(await app.api("/api/library/scan", { method: "POST" }), 200);
}

/* ------------------------------------------------------------------------------------------ */
/* Publication                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/** A CBZ of `pages` pages written into the staging folder, as a downloader or the assembler leaves it. */
export async function stageCbz(config: Config, name: string, pages: number): Promise<{ path: string; bytes: Buffer }> {
  const bytes = await cbz(pages);
  const p = path.join(stateDirs(config).staging, name);
  await mkdir(path.dirname(p), { recursive: true });
  await writeFile(p, bytes);
  return { path: p, bytes };
}

/** The record of a downloaded chapter file of `pageCount` pages, as the publication takes it. */
export const downloadedChapter = (chapter: string, pageCount: number): PublishInput["file"] => ({
  kind: "chapter",
  volume: null,
  chapter,
  chapterEnd: chapter,
  part: null,
  pageCount,
  language: "en",
  origin: "download",
  tagSource: "filename",
});

/** Suwayomi enabled through the public settings API, pointing at a fake server. */
export async function useSuwayomi(app: Pick<TestApp, "api">, url: string): Promise<void> {
  await expectJson(
    await app.api("/api/settings/sources", { method: "PUT", json: { suwayomi: { enabled: true, url } } }),
    200,
  );
}

/** A series made through the public API (`monitored: false` for one that fetches only on request). */
export async function createSeries(
  app: Pick<TestApp, "api">,
  title: string,
  opts: { monitored?: boolean } = {},
): Promise<number> {
  const { id } = await expectJson<{ id: number }>(
    await app.api("/api/manga", { method: "POST", json: { title } }),
    201,
  );
  if (opts.monitored === false)
    await expectJson(await app.api(`/api/manga/${id}`, { method: "PATCH", json: { monitored: false } }), 200);
  return id;
}

/** Source works linked to a series through the public API: [provider, work id, priority, language]. */
export async function linkSources(
  app: Pick<TestApp, "api">,
  seriesId: number,
  links: readonly (readonly [provider: string, sourceId: number | string, priority: number, language: string])[],
): Promise<void> {
  for (const [provider, work, priority, language] of links)
    await expectJson(
      await app.api(`/api/manga/${seriesId}/sources`, {
        method: "POST",
        json: { provider, source_id: String(work), language, priority },
      }),
      201,
    );
}

/**
 * Prowlarr and qBittorrent enabled through the public settings API, pointing at fakes: qBittorrent
 * saves under /downloads/manga, which this machine reads at `diskRoot`.
 */
export async function useIndexer(
  app: Pick<TestApp, "api">,
  opts: {
    prowlarrUrl: string;
    apiKey: string;
    qbittorrentUrl: string;
    password: string;
    diskRoot: string;
    retention: "keep_seeding" | "remove_after_import";
    qbittorrent?: Record<string, unknown>;
  },
): Promise<void> {
  await expectJson(
    await app.api("/api/settings/indexer", {
      method: "PUT",
      json: {
        prowlarr: { enabled: true, url: opts.prowlarrUrl, api_key: opts.apiKey },
        qbittorrent: {
          enabled: true,
          url: opts.qbittorrentUrl,
          username: "admin",
          password: opts.password,
          save_path: "/downloads/manga",
          mount: { client_path: "/downloads", local_path: opts.diskRoot },
          retention: opts.retention,
          ...opts.qbittorrent,
        },
      },
    }),
    200,
  );
}
