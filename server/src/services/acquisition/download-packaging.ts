/**
 * What a fetched page must be before it is kept, and how a judged chapter becomes a CBZ in staging:
 * pages stored (method 0: the images are compressed already) under natural names 001.jpg… whose
 * extension comes from the bytes' magic, never from the provider's content type, then a chapter-level
 * ComicInfo.xml (v2.1 draft). Only the publication module moves the result into the library.
 */
import { open, rm } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../../errors.ts";
import { comicInfoXml, type ComicInfoFields, type ComicInfoPage } from "../../library/comicinfo-writer.ts";
import { StoredZipWriter } from "../../library/stored-zip-writer.ts";
import { imageInfo, sniffImageType, type PageImageType } from "../../library/image-header.ts";
import { mkdirStaging } from "../../library/library-root.ts";

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

/** The natural name of page `index` (1-based) of `count`: 001.jpg, 002.png … (wider from 1,000 pages). */
export function pageName(index: number, count: number, type: PageImageType | null): string {
  const width = Math.max(3, String(count).length);
  return `${String(index).padStart(width, "0")}.${EXTENSIONS[type ?? "image/jpeg"]}`;
}

/** Natural page names: 001.jpg, 002.png … (wider when a chapter has 1,000 pages or more). */
export function pageNames(pages: readonly Buffer[]): string[] {
  return pages.map((b, i) => pageName(i + 1, pages.length, sniffImageType(b)));
}

/** What ComicInfo's Pages list says of one page, kept while the page's bytes are not. */
export interface PageMeta {
  size: number;
  width: number | null;
  height: number | null;
}

export function pageMeta(bytes: Buffer): PageMeta {
  const info = imageInfo(bytes.subarray(0, 64 * 1024));
  return { size: bytes.length, width: info?.width ?? null, height: info?.height ?? null };
}

/** The ComicInfo.xml of a downloaded chapter (or volume) with its Pages list. */
export function chapterComicInfo(
  fields: Omit<ComicInfoFields, "Pages" | "PageCount">,
  pages: readonly (Buffer | PageMeta)[],
): string {
  const list: ComicInfoPage[] = pages.map((b, i) => {
    const m = Buffer.isBuffer(b) ? pageMeta(b) : b;
    const p: ComicInfoPage = { Image: i, ImageSize: m.size };
    if (i === 0) p.Type = "FrontCover";
    if (m.width && m.height) Object.assign(p, { ImageWidth: m.width, ImageHeight: m.height });
    return p;
  });
  return comicInfoXml({ ...fields, PageCount: pages.length, Pages: list });
}

/**
 * A chapter CBZ written page by page as the pages arrive in any order: each page is written as
 * soon as every page before it is, so what waits in memory is at most the pages fetched ahead of a
 * slow one. ComicInfo.xml goes last, once the judgement passed.
 */
export class StreamingCbz {
  private next = 1;
  private readonly waiting = new Map<
    number,
    { bytes: Buffer; type: PageImageType; written(): void; failed(e: unknown): void }
  >();
  private chain: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;
  private closed = false;

  private constructor(
    private readonly file: Awaited<ReturnType<typeof open>>,
    private readonly zip: StoredZipWriter,
    private readonly count: number,
  ) {}

  static async create(stagedPath: string, count: number): Promise<StreamingCbz> {
    await mkdirStaging(path.dirname(stagedPath));
    const file = await open(stagedPath, "wx");
    return new StreamingCbz(file, new StoredZipWriter(file, { mtime: ENTRY_MTIME }), count);
  }

  /**
   * Hands page `index` over; resolves once this page is written (after every page before it), so
   * the caller may reuse `bytes` then, and not before. A failed write rejects it and every page
   * still waiting.
   */
  put(index: number, bytes: Buffer, type: PageImageType): Promise<void> {
    if (this.failure) return Promise.reject(this.failure.error);
    const written = new Promise<void>((resolve, reject) =>
      this.waiting.set(index, { bytes, type, written: resolve, failed: reject }),
    );
    this.chain = this.chain
      .then(() => this.writeReady())
      .catch((error: unknown) => {
        this.failure ??= { error };
        for (const p of this.waiting.values()) p.failed(error);
        this.waiting.clear();
      });
    return written;
  }

  /** Writes the pages that follow the last one written, in order, as far as they arrived. */
  private async writeReady(): Promise<void> {
    if (this.failure) throw this.failure.error;
    for (let p = this.waiting.get(this.next); p; p = this.waiting.get(this.next)) {
      this.waiting.delete(this.next);
      try {
        await this.zip.addBuffer(pageName(this.next, this.count, p.type), p.bytes);
      } catch (e) {
        p.failed(e);
        throw e;
      }
      this.next += 1;
      p.written();
    }
  }

  /** Every page written? */
  get complete(): boolean {
    return this.next === this.count + 1;
  }

  /** Adds ComicInfo.xml, ends the archive and closes the file. */
  async finish(comicInfo: string): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure.error;
    if (!this.complete) throw new Error(`only ${this.next - 1} of ${this.count} pages were written`);
    await this.zip.addBuffer("ComicInfo.xml", Buffer.from(comicInfo, "utf8"));
    await this.zip.finish();
    await this.close();
  }

  /** Closes the file (idempotent); the caller removes what is left in staging. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.chain;
    // A page that waited for one that never came is not written: its caller may have the bytes back.
    const closed = new Error("the archive was closed before this page was written");
    for (const p of this.waiting.values()) p.failed(closed);
    this.waiting.clear();
    await this.file.close();
  }
}

/** Writes the CBZ at `stagedPath` (created exclusively; removed again when anything fails). */
export async function writeChapterCbz(stagedPath: string, pages: readonly Buffer[], comicInfo: string): Promise<void> {
  await mkdirStaging(path.dirname(stagedPath));
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
