/**
 * A 2,000-chapter series for the series page's performance check, made the way a user's library
 * grows: CBZ files in a folder, a scan, an exact operator map (200 books of 10 chapters), so the
 * page renders its heaviest layout (every chapter nested under its book).
 */
import { copyFile, mkdir, open } from "node:fs/promises";
import path from "node:path";
import { StoredZipWriter } from "../../server/src/library/stored-zip-writer.ts";
import type { Service } from "./harness.ts";

export const LONG_TITLE = "Long Runner";
export const LONG_CHAPTERS = 2000;
export const LONG_BOOKS = 200;
/** Books on disk: the first 20. Chapters missing: every 37th (holes for the Missing filter). */
const OWNED_BOOKS = 20;
const isMissing = (c: number) => c % 37 === 0;

export async function seedLongSeries(service: Service): Promise<number> {
  const res = await service.api("POST", "/api/manga", { title: LONG_TITLE, status: "running" });
  if (res.status !== 201) throw new Error(`creating ${LONG_TITLE}: ${res.status} ${await res.text()}`);
  const series = (await res.json()) as { id: number; folder: string };
  const dir = path.join(service.libraryRoot, series.folder);
  await mkdir(dir, { recursive: true });
  // Tiny "pages": the scan reads the central directory only.
  const chapter = path.join(service.dir, "chapter.cbz");
  const book = path.join(service.dir, "book.cbz");
  await tinyCbz(chapter, 3);
  await tinyCbz(book, 30);
  const copies: Promise<void>[] = [];
  for (let c = 1; c <= LONG_CHAPTERS; c++) {
    if (!isMissing(c))
      copies.push(copyFile(chapter, path.join(dir, `${LONG_TITLE} - c${String(c).padStart(4, "0")}.cbz`)));
  }
  for (let b = 1; b <= OWNED_BOOKS; b++)
    copies.push(copyFile(book, path.join(dir, `${LONG_TITLE} v${String(b).padStart(3, "0")}.cbz`)));
  await Promise.all(copies);
  const scan = await service.api("POST", "/api/library/scan");
  if (scan.status !== 200) throw new Error(`scan: ${scan.status} ${await scan.text()}`);

  const map = (await (await service.api("GET", `/api/manga/${series.id}/chapter-map`)).json()) as { revision: number };
  const entries = Array.from({ length: LONG_BOOKS }, (_, i) => ({
    volume: String(i + 1),
    chapters: Array.from({ length: LONG_CHAPTERS / LONG_BOOKS }, (_, j) =>
      String(i * (LONG_CHAPTERS / LONG_BOOKS) + j + 1),
    ),
  }));
  const put = await service.api("PUT", `/api/manga/${series.id}/chapter-map`, { revision: map.revision, entries });
  if (put.status !== 200) throw new Error(`map: ${put.status} ${await put.text()}`);
  return series.id;
}

async function tinyCbz(file: string, pages: number): Promise<void> {
  const fh = await open(file, "w");
  try {
    const zip = new StoredZipWriter(fh);
    for (let i = 1; i <= pages; i++) await zip.addBuffer(`${String(i).padStart(3, "0")}.jpg`, Buffer.alloc(64, i));
    await zip.finish();
  } finally {
    await fh.close();
  }
}
