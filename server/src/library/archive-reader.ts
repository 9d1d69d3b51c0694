/**
 * The one archive reader every part of the service uses. Random access over one file handle: the
 * central directory is read and judged at open (names, links, duplicates, encryption, methods,
 * counts, declared sizes and ratios), and an entry is inflated in memory only when asked for, with
 * its real size and CRC checked. Nothing is ever extracted, by name or otherwise, and the file is
 * opened read-only, so a refused archive leaves every file as it was.
 */
import { open, type FileHandle } from "node:fs/promises";
import { DEFAULT_ARCHIVE_LIMITS, type ArchiveLimitsConfig } from "../config.ts";
import { AppError } from "../errors.ts";
import { ArchiveError, describeError } from "./archive/archive-error.ts";
import { locateEntryData, readEntryData } from "./archive/entry-data.ts";
import { entryRole, naturalComparePaths } from "./archive/entry-names.ts";
import { readFully, readZipDirectory, type ZipRecord } from "./archive/zip-directory.ts";

export { ArchiveError, type ArchiveErrorCode, type ArchiveErrorInit } from "./archive/archive-error.ts";
export { isUnsafeName, naturalCompare, naturalComparePaths } from "./archive/entry-names.ts";
export { RATIO_FLOOR_BYTES } from "./archive/zip-directory.ts";
export { DEFAULT_ARCHIVE_LIMITS };

/** The limits of config.ts (`ArchiveLimitsConfig`), under the reader's name. */
export type ArchiveLimits = ArchiveLimitsConfig;

export interface ArchiveOpenOptions extends Partial<ArchiveLimits> {
  /** Most bytes of ComicInfo.xml read, after decompression. */
  maxComicInfoBytes?: number;
}

export const DEFAULT_COMIC_INFO_MAX_BYTES = 1024 * 1024;

export interface ArchiveEntryInfo {
  name: string;
  size: number;
  compressedSize: number;
}

/**
 * Where one entry's raw data lies, its local header already checked exactly as `readEntry` checks
 * it. The bytes themselves are not checked: a caller that copies them must compute their CRC-32
 * and compare it with `crc32` (and, for a deflated entry, inflate them within `size`).
 */
export interface ArchiveEntrySpan {
  name: string;
  /** 0: stored (the data are the entry's bytes); 8: deflated. */
  method: 0 | 8;
  /** Bytes once inflated (the entry's size). */
  size: number;
  /** Bytes of raw data in the archive (equal to size when stored). */
  compressedSize: number;
  /** The CRC-32 the central directory declares, unsigned. */
  crc32: number;
  /**
   * Reads exactly `length` raw data bytes, starting `start` bytes into the entry's data, into
   * `buf[0 … length)`; refuses a range outside the entry's data (archive_truncated when the file
   * ends first).
   */
  read(buf: Buffer, start: number, length: number): Promise<void>;
}

export interface ArchiveHandle {
  path: string;
  /** Image entries in natural order (page2 before page10). */
  pages: ArchiveEntryInfo[];
  /** Text of the top-level ComicInfo.xml (any case), size-bounded; null when there is none. */
  comicInfoXml: string | null;
  /** File entries that are neither pages nor the ComicInfo, in directory order (directories are not listed). */
  ignored: string[];
  /** Inflates one entry in memory, checking its size bounds and CRC; never writes to disk. */
  readEntry(name: string): Promise<Buffer>;
  /** readEntry(pages[index].name), then the image header against maxPixels (no decoding). */
  readPage(index: number): Promise<Buffer>;
  /** Where an entry's raw data lies (no bytes read beyond its local header); see ArchiveEntrySpan. */
  entrySpan(name: string): Promise<ArchiveEntrySpan>;
  close(): Promise<void>;
}

let opens = 0;
/** How many archives were opened by this process: tests read it before and after to prove a path opens none. */
export function archiveOpenCount(): number {
  return opens;
}

export function resolveArchiveLimits(limits?: Partial<ArchiveLimits>): ArchiveLimits {
  return {
    maxEntries: limits?.maxEntries ?? DEFAULT_ARCHIVE_LIMITS.maxEntries,
    maxTotalBytes: limits?.maxTotalBytes ?? DEFAULT_ARCHIVE_LIMITS.maxTotalBytes,
    maxEntryBytes: limits?.maxEntryBytes ?? DEFAULT_ARCHIVE_LIMITS.maxEntryBytes,
    maxRatio: limits?.maxRatio ?? DEFAULT_ARCHIVE_LIMITS.maxRatio,
    maxPixels: limits?.maxPixels ?? DEFAULT_ARCHIVE_LIMITS.maxPixels,
  };
}

/** sharp input options every decoder must use, so a page over the pixel limit is refused from its header. */
export function sharpInputOptions(limits?: Partial<ArchiveLimits>): { limitInputPixels: number; failOn: "error" } {
  return { limitInputPixels: resolveArchiveLimits(limits).maxPixels, failOn: "error" };
}

export async function openArchive(absPath: string, limits?: ArchiveOpenOptions): Promise<ArchiveHandle> {
  const lim = resolveArchiveLimits(limits);
  const maxComicInfoBytes = limits?.maxComicInfoBytes ?? DEFAULT_COMIC_INFO_MAX_BYTES;
  opens += 1;
  let fh: FileHandle;
  try {
    fh = await open(absPath, "r");
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === "ENOENT";
    throw missing
      ? new ArchiveError({ code: "archive_not_found", detail: "the archive is not on disk", cause: e })
      : new ArchiveError({
          code: "archive_unreadable",
          detail: `the archive cannot be opened (${(e as NodeJS.ErrnoException).code ?? "error"})`,
          cause: e,
        });
  }
  // One descriptor for the handle's life: a file renamed or replaced meanwhile cannot mix two versions.
  try {
    const dir = await readZipDirectory(fh, lim);
    const files = new Map<string, ZipRecord>();
    const pages: ZipRecord[] = [];
    const ignored: string[] = [];
    let comicInfo: ZipRecord | null = null;
    for (const rec of dir.records) {
      if (rec.directory) continue;
      files.set(rec.name, rec);
      const role = entryRole(rec.name);
      if (role === "comicinfo" && comicInfo === null) comicInfo = rec;
      else if (role === "page") pages.push(rec);
      else ignored.push(rec.name);
    }
    pages.sort((a, b) => naturalComparePaths(a.name, b.name));
    const read = (rec: ZipRecord) => guard(() => readEntryData(fh, rec, dir.cdOffset));
    let comicInfoXml: string | null = null;
    if (comicInfo) {
      if (comicInfo.uncompressedSize > maxComicInfoBytes) {
        throw new ArchiveError({
          code: "archive_entry_too_large",
          detail: `${JSON.stringify(comicInfo.name)}: ${comicInfo.uncompressedSize} bytes (limit ${maxComicInfoBytes})`,
          entry: comicInfo.name,
        });
      }
      comicInfoXml = decodeXml(await read(comicInfo));
    }
    let closed = false;
    const live = () => {
      if (closed) throw new Error("the archive handle is closed");
    };
    const readEntry = async (name: string): Promise<Buffer> => {
      live();
      const rec = files.get(name);
      if (!rec) throw new AppError("not_found", `no entry ${JSON.stringify(name)} in the archive`);
      return read(rec);
    };
    const entrySpan = async (name: string): Promise<ArchiveEntrySpan> => {
      live();
      const rec = files.get(name);
      if (!rec) throw new AppError("not_found", `no entry ${JSON.stringify(name)} in the archive`);
      const dataStart = await guard(() => locateEntryData(fh, rec, dir.cdOffset));
      const { compressedSize } = rec;
      return {
        name: rec.name,
        method: rec.method === 0 ? 0 : 8,
        size: rec.uncompressedSize,
        compressedSize,
        crc32: rec.crc32 >>> 0,
        read: (buf, start, length) => {
          if (closed) return Promise.reject(new Error("the archive handle is closed"));
          if (!(
            Number.isSafeInteger(start) &&
            Number.isSafeInteger(length) &&
            start >= 0 &&
            length >= 0 &&
            start + length <= compressedSize &&
            length <= buf.length
          )) {
            return Promise.reject(
              new RangeError(
                `bytes ${start}+${length} are outside the ${compressedSize} bytes of ${JSON.stringify(rec.name)}`,
              ),
            );
          }
          return guard(() => readFully(fh, length === buf.length ? buf : buf.subarray(0, length), dataStart + start));
        },
      };
    };
    return {
      path: absPath,
      pages: pages.map((p) => ({ name: p.name, size: p.uncompressedSize, compressedSize: p.compressedSize })),
      comicInfoXml,
      ignored,
      readEntry,
      entrySpan,
      async readPage(index: number): Promise<Buffer> {
        live();
        const rec = pages[index];
        if (!rec) throw new AppError("not_found", `no page ${index} in the archive (it has ${pages.length})`);
        const data = await read(rec);
        await checkImageHeader(data, rec.name, lim.maxPixels);
        return data;
      },
      async close(): Promise<void> {
        if (closed) return;
        closed = true;
        await fh.close();
      },
    };
  } catch (e) {
    await fh.close();
    throw toArchiveError(e);
  }
}

/** Opens, runs fn, and closes whatever happens. */
export async function withArchive<T>(
  absPath: string,
  limits: ArchiveOpenOptions | undefined,
  fn: (a: ArchiveHandle) => Promise<T>,
): Promise<T> {
  const archive = await openArchive(absPath, limits);
  try {
    return await fn(archive);
  } finally {
    await archive.close();
  }
}

/**
 * Width × height from the image header only (sharp's metadata does not decode pixels); sharp
 * itself also refuses past `limitInputPixels`.
 */
async function checkImageHeader(data: Buffer, name: string, maxPixels: number): Promise<void> {
  let width: number | undefined;
  let height: number | undefined;
  try {
    // Loaded on first use: readers that never look at pixels (scan, assembly) do not map libvips.
    const { default: sharp } = await import("sharp");
    ({ width, height } = await sharp(data, { limitInputPixels: maxPixels, failOn: "error" }).metadata());
  } catch (e) {
    if (/pixel limit/i.test(describeError(e))) throw tooLarge(name, maxPixels);
    throw new ArchiveError({
      code: "image_unreadable",
      detail: `${JSON.stringify(name)}: ${describeError(e)}`,
      entry: name,
      cause: e,
    });
  }
  if (!width || !height)
    throw new ArchiveError({
      code: "image_unreadable",
      detail: `${JSON.stringify(name)}: no image size in its header`,
      entry: name,
    });
  if (width * height > maxPixels) throw tooLarge(name, maxPixels, `${width}×${height}`);
}

function tooLarge(name: string, maxPixels: number, size?: string): ArchiveError {
  const what = size ? `${size} pixels are` : "the image is";
  return new ArchiveError({
    code: "image_too_large",
    detail: `${JSON.stringify(name)}: ${what} over the limit of ${maxPixels} pixels`,
    entry: name,
  });
}

async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toArchiveError(e);
  }
}

function toArchiveError(e: unknown): AppError {
  if (e instanceof AppError) return e;
  return new ArchiveError({
    code: "archive_unreadable",
    detail: `not a readable zip archive: ${describeError(e)}`,
    cause: e,
  });
}

/** UTF-8 with or without BOM; UTF-16 when a BOM says so (some Windows tools write it). */
function decodeXml(buf: Buffer): string {
  if (buf[0] === 0xff && buf[1] === 0xfe) return buf.subarray(2).toString("utf16le");
  if (buf[0] === 0xfe && buf[1] === 0xff) {
    const body = Buffer.from(buf.subarray(2, buf.length - (buf.length % 2)));
    return body.swap16().toString("utf16le");
  }
  return buf.toString("utf8").replace(/^\uFEFF/, "");
}
