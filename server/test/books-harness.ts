/**
 * Helpers of the books conformance suites (books-conformance*.test.ts): an empty service, series
 * made through POST /api/manga with files written into their folders and scanned, and readings of
 * what an outside checker can see: the units, the verified-books listing, the recycle bin, the
 * series folder on disk and the archive the service wrote.
 */
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { openArchive } from "../src/library/archive-reader.ts";
import { cbz, expectJson, scanLibrary, zipBuffer, type MapEntry, type RestUnits } from "./fixtures.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

export let app: TestApp;
let seq = 0;

/** The app shared by the tests of the calling file (an empty service). */
export function useBooksApp(): void {
  shareTestApp((a) => (app = a));
}

export interface VerifiedRow {
  volume: string;
  file_id: number;
  digest: string;
  chapters: string[];
  suspect_reason: string | null;
  verified: boolean;
  proof: {
    file_id: number;
    digest: string;
    chapters: string[];
    source_url: string | null;
    note: string;
    status: string;
  } | null;
}
export interface AssemblyPreview {
  volume: string;
  file_name: string;
  path: string;
  chapters: { number: string; file_ids: number[] }[];
  files: { id: number; path: string; sha256: string; size: number }[];
  confirmation: string;
}
export interface AssemblyResult {
  volume: string;
  file_id: number;
  path: string;
  sha256: string;
  page_count: number;
  retired: { file_id: number; recycle_entry_id: number; from: string; bin_path: string }[];
}
export interface BookOutcome {
  volume: string;
  status: string;
  code: string | null;
  result: AssemblyResult | null;
}

export interface Series {
  id: number;
  title: string;
  folder: string;
  dir: string;
  /** Absolute path of a file of the series' folder. */
  file(name: string): string;
}

/** A series made through POST /api/manga (with these fields), its folder holding these CBZs (name → pages), scanned. */
export async function seriesWith(
  fields: Record<string, unknown>,
  files: Record<string, number | Buffer> = {},
): Promise<Series> {
  const title = `Books ${++seq}`;
  const s = await expectJson<{ id: number; folder: string }>(
    await app.api("/api/manga", { method: "POST", json: { title, ...fields } }),
    201,
  );
  const dir = path.join(app.config.libraryRoot, s.folder);
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(files))
    await writeFile(path.join(dir, name), typeof content === "number" ? await cbz(content) : content);
  expect((await scanLibrary(app)).errors).toEqual([]);
  return { id: s.id, title, folder: s.folder, dir, file: (name) => path.join(dir, name) };
}

/** `c001.cbz` … for these chapters, `pages` pages each. */
export const chapterFiles = (pages: number, ...n: number[]): Record<string, number> =>
  Object.fromEntries(n.map((c) => [`c${String(c).padStart(3, "0")}.cbz`, pages]));

export const post = (url: string, json: unknown = {}) => app.api(url, { method: "POST", json });
export const bookUrl = (id: number, volume: string, dry: boolean) =>
  `/api/manga/${id}/volumes/${volume}/assemble?dry_run=${dry}`;
export const seriesUrl = (id: number, dry: boolean) => `/api/manga/${id}/assemble?dry_run=${dry}`;

export const units = async (id: number) => expectJson<RestUnits>(await app.api(`/api/manga/${id}/units`), 200);
export const verifiedBooks = async (id: number) =>
  expectJson<VerifiedRow[]>(await app.api(`/api/manga/${id}/verified-books`), 200);
export const mapRevision = async (id: number) =>
  (await expectJson<{ revision: number }>(await app.api(`/api/manga/${id}/chapter-map`), 200)).revision;

/** Replaces the operator map (bound to its current revision). */
export async function saveMap(id: number, entries: MapEntry[]): Promise<void> {
  const revision = await mapRevision(id);
  await expectJson(await app.api(`/api/manga/${id}/chapter-map`, { method: "PUT", json: { revision, entries } }), 200);
}

/** The recycle bin's entries of one series (GET /api/recycle-bin). */
export async function binOf(id: number): Promise<{ file_id: number; reason: string; original_path: string }[]> {
  const all = await expectJson<{ series_id: number; file_id: number; reason: string; original_path: string }[]>(
    await app.api("/api/recycle-bin"),
    200,
  );
  return all.filter((e) => e.series_id === id).sort((a, b) => a.file_id - b.file_id);
}

/** The names in the series' folder, sorted. */
export const folderOf = async (s: Series) => (await readdir(s.dir)).sort();

/** Everything an outside checker sees of a series: a refused or dry operation must leave it equal. */
export async function observe(s: Series): Promise<unknown> {
  return {
    units: await units(s.id),
    books: await verifiedBooks(s.id),
    bin: await binOf(s.id),
    folder: await folderOf(s),
    map: await expectJson(await app.api(`/api/manga/${s.id}/chapter-map`), 200),
  };
}

/** "sha256:<hex>" of a file on disk, computed here as a checker would. */
export async function digestOfFile(file: string): Promise<string> {
  return `sha256:${createHash("sha256")
    .update(await readFile(file))
    .digest("hex")}`;
}

/** A CBZ whose entries are exactly these (name → bytes), in this order. */
export const rawCbz = (entries: [string, Buffer | string][]) =>
  zipBuffer(entries.map(([name, data]) => ({ name, data: Buffer.isBuffer(data) ? data : Buffer.from(data) })));

/** The entry names, page bytes and ComicInfo.xml of an archive in the library. */
export async function readBook(relPath: string): Promise<{ names: string[]; pages: Buffer[]; comicInfo: string }> {
  const a = await openArchive(path.join(app.config.libraryRoot, ...relPath.split("/")));
  try {
    const pages: Buffer[] = [];
    for (const p of a.pages) pages.push(await a.readEntry(p.name));
    return { names: a.pages.map((p) => p.name), pages, comicInfo: a.comicInfoXml ?? "" };
  } finally {
    await a.close();
  }
}

/** Previews one book and confirms it; both must succeed. */
export async function assembleBook(id: number, volume: string): Promise<AssemblyResult> {
  const p = await expectJson<AssemblyPreview>(await post(bookUrl(id, volume, true)), 200);
  return expectJson<AssemblyResult>(await post(bookUrl(id, volume, false), { confirmation: p.confirmation }), 200);
}
