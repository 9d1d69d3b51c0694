/**
 * Real page images for the page-evidence tests: chapter pages drawn by the demo renderer (distinct
 * scenes per page), and the ways a book scanned from them differs — re-encoded, resized, trimmed by
 * a small crop — plus CBZ files of stored JPEG pages written into the library.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { renderPage, type DemoPalette } from "../src/library/demo-pages.ts";
import { zipBuffer } from "./fixtures.ts";

const PALETTE: DemoPalette = { bg: "#d8e2dc", paper: "#fffaf5", ink: "#22223b", accent: "#e76f51", accent2: "#2a9d8f" };
export const PAGE_W = 300;
export const PAGE_H = 450;

/** Page `page` of `pages` of a chapter of `title`: the same bytes every time. */
export function chapterPage(title: string, chapter: string, page: number, pages: number): Promise<Buffer> {
  return renderPage({
    title,
    heading: `Ch. ${chapter}`,
    page,
    pages,
    width: PAGE_W,
    height: PAGE_H,
    palette: PALETTE,
    strip: false,
  });
}

/** A page of a book that is in no chapter (a cover, a credits page, another edition's story). */
export function otherPage(title: string, key: string): Promise<Buffer> {
  return chapterPage(`${title} (${key})`, "0", 1 + (key.length % 3), 5);
}

/** The same page as a book scanned from it holds it: a 2 % crop a side, resized to 90 %, re-encoded. */
export async function rescanned(page: Buffer): Promise<Buffer> {
  const dx = Math.round(PAGE_W * 0.02);
  const dy = Math.round(PAGE_H * 0.02);
  return sharp(page)
    .extract({ left: dx, top: dy, width: PAGE_W - 2 * dx, height: PAGE_H - 2 * dy })
    .resize(Math.round(PAGE_W * 0.9))
    .jpeg({ quality: 50 })
    .toBuffer();
}

/** A plain white page (blank: never evidence). */
export function blankPage(color = "#ffffff"): Promise<Buffer> {
  return sharp({ create: { width: PAGE_W, height: PAGE_H, channels: 3, background: color } })
    .jpeg()
    .toBuffer();
}

/** A CBZ of these page images (001.jpg…), stored. */
export async function writePagesCbz(file: string, pages: Buffer[]): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(
    file,
    await zipBuffer(pages.map((data, i) => ({ name: `${String(i + 1).padStart(3, "0")}.jpg`, data }))),
  );
}

/** The pages of chapter `n` (`count` pages). */
export async function chapterPages(title: string, n: number, count: number): Promise<Buffer[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => chapterPage(title, String(n), i + 1, count)));
}

/** Polls `read` until `done` holds (the worker computes in the background); no fixed sleep decides. */
export async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
