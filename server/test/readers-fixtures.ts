/** Library fixtures of the reader-app tests: CBZ files of real (decodable) JPEG pages, series built through the public API. */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { expectJson, scanLibrary, zipBuffer, type RestUnits } from "./fixtures.ts";
import { TEST_API_KEY, TEST_PASSWORD, type TestApp } from "./utils.ts";

/** A small JPEG whose colour encodes (seed, page): every page of every file differs. */
export async function jpegPage(seed: number, page: number): Promise<Buffer> {
  return sharp({
    create: { width: 48, height: 64, channels: 3, background: { r: (seed * 37) % 256, g: (page * 53) % 256, b: 128 } },
  })
    .jpeg({ quality: 80 })
    .toBuffer();
}

/** A CBZ of `pages` real JPEG pages (001.jpg…). */
export async function imageCbz(pages: number, seed: number): Promise<Buffer> {
  const entries = [];
  for (let i = 1; i <= pages; i++)
    entries.push({ name: `${String(i).padStart(3, "0")}.jpg`, data: await jpegPage(seed, i) });
  return zipBuffer(entries);
}

export interface LibraryFileSpec {
  /** File name in the series folder. */
  name: string;
  pages: number;
}

let seed = 1;

/** Creates a series through POST /api/manga, writes its files (real pages) and scans the library. */
export async function readerSeries(
  app: TestApp,
  title: string,
  files: LibraryFileSpec[],
): Promise<{ id: number; folder: string; dir: string }> {
  const s = await expectJson<{ id: number; folder: string }>(
    await app.api("/api/manga", { method: "POST", json: { title } }),
    201,
  );
  const dir = path.join(app.config.libraryRoot, s.folder);
  await mkdir(dir, { recursive: true });
  for (const f of files) await writeFile(path.join(dir, f.name), await imageCbz(f.pages, seed++));
  await scanLibrary(app);
  return { ...s, dir };
}

/** The file ids of a unit ("book"/"chapter" with its number) through GET /api/manga/{id}/units. */
export async function unitFileIds(
  app: TestApp,
  seriesId: number,
  kind: "book" | "chapter",
  number: string,
): Promise<number[]> {
  const u = await expectJson<RestUnits>(await app.api(`/api/manga/${seriesId}/units`), 200);
  const unit = u.units.find((x) => x.kind === kind && x.number === number);
  if (!unit) throw new Error(`series ${seriesId} has no ${kind} ${number}`);
  return unit.file_ids;
}

export const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
export const ADMIN_BASIC = basic("admin", TEST_PASSWORD);
export const API_KEY_BASIC = basic("anyone", TEST_API_KEY);

/** A request to the app with HTTP Basic (admin and the web password) and nothing else. */
export function asReader(
  app: TestApp,
  pathname: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has("authorization")) headers.set("authorization", ADMIN_BASIC);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  return fetch(`${app.baseUrl}${pathname}`, { ...init, headers, body });
}
