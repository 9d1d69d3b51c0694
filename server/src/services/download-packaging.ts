/**
 * What a fetched page must be before it is kept, and how a judged chapter becomes a CBZ in staging:
 * pages stored (method 0: the images are compressed already) under natural names 001.jpg… whose
 * extension comes from the bytes' magic, never from the provider's content type, then a chapter-level
 * ComicInfo.xml (v2.1 draft). Only the publication module moves the result into the library.
 */
import { mkdir, open, rm } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors.ts";
import { comicInfoXml, type ComicInfoFields, type ComicInfoPage } from "../library/comicinfo-writer.ts";
import { StoredZipWriter } from "../library/stored-zip-writer.ts";
import { imageInfo, sniffImageType, type PageImageType } from "./image-header.ts";

const EXTENSIONS: Record<PageImageType, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
};
const ENTRY_MTIME = new Date(Date.UTC(2024, 0, 1));

/**
 * A page is kept only when its bytes are an image of a page format AND complete: a JPEG ends with its
 * EOI marker (trailing padding allowed), a PNG with IEND, a GIF with its trailer, a WebP/AVIF box is as
 * long as it says. A cut connection that still delivered a prefix fails here with image_unreadable,
 * before any judgement; the judgement's decode is the second check.
 */
export function checkPage(bytes: Buffer, index: number): PageImageType {
  const type = sniffImageType(bytes);
  const bad = (why: string) => new AppError("image_unreadable", `page ${index}: ${why}`, { page: index });
  if (type === null) throw bad("not an image of a page format");
  const tail = bytes.subarray(Math.max(0, bytes.length - 1024));
  if (type === "image/jpeg" && tail.lastIndexOf(Buffer.from([0xff, 0xd9])) < 0)
    throw bad("the JPEG is truncated (no end marker)");
  if (type === "image/png" && tail.lastIndexOf(Buffer.from("IEND", "latin1")) < 0)
    throw bad("the PNG is truncated (no IEND)");
  if (type === "image/gif" && bytes[bytes.length - 1] !== 0x3b) throw bad("the GIF is truncated (no trailer)");
  if (type === "image/webp" && bytes.readUInt32LE(4) + 8 > bytes.length) throw bad("the WebP is truncated");
  return type;
}

/** Natural page names: 001.jpg, 002.png … (wider when a chapter has 1,000 pages or more). */
export function pageNames(pages: readonly Buffer[]): string[] {
  const width = Math.max(3, String(pages.length).length);
  return pages.map((b, i) => `${String(i + 1).padStart(width, "0")}.${EXTENSIONS[sniffImageType(b) ?? "image/jpeg"]}`);
}

/** The ComicInfo.xml of a downloaded chapter (or volume) with its Pages list. */
export function chapterComicInfo(
  fields: Omit<ComicInfoFields, "Pages" | "PageCount">,
  pages: readonly Buffer[],
): string {
  const list: ComicInfoPage[] = pages.map((b, i) => {
    const info = imageInfo(b.subarray(0, 64 * 1024));
    const p: ComicInfoPage = { Image: i, ImageSize: b.length };
    if (i === 0) p.Type = "FrontCover";
    if (info?.width && info.height) Object.assign(p, { ImageWidth: info.width, ImageHeight: info.height });
    return p;
  });
  return comicInfoXml({ ...fields, PageCount: pages.length, Pages: list });
}

/** Writes the CBZ at `stagedPath` (created exclusively; removed again when anything fails). */
export async function writeChapterCbz(stagedPath: string, pages: readonly Buffer[], comicInfo: string): Promise<void> {
  await mkdir(path.dirname(stagedPath), { recursive: true });
  const out = await open(stagedPath, "wx");
  try {
    const zip = new StoredZipWriter(out, { mtime: ENTRY_MTIME });
    const names = pageNames(pages);
    for (const [i, page] of pages.entries()) await zip.addBuffer(names[i]!, page);
    await zip.addBuffer("ComicInfo.xml", Buffer.from(comicInfo, "utf8"));
    await zip.finish();
    await out.close();
  } catch (e) {
    await out.close().catch(() => undefined);
    await rm(stagedPath, { force: true });
    throw e;
  }
}

/** "004", "004.5": the chapter label with its whole part padded, as the file-name parser reads it back. */
export function paddedLabel(label: string, width = 3): string {
  const [whole = "0", frac] = label.split(".");
  return `${whole.padStart(width, "0")}${frac ? `.${frac}` : ""}`;
}
