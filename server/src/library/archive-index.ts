/**
 * What a library scan needs from a CBZ: page names in reading order, the ComicInfo.xml text and
 * what was skipped. Reads the central directory and the ComicInfo entry only: no image is
 * decoded and nothing is extracted to disk. A fuller hardened reader (import limits, CRC checks)
 * is separate; this one refuses only what would be unsafe or unbounded to index.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import { PassThrough, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Open, type CentralDirectory, type File as ZipEntry } from "unzipper";
import { naturalCompare } from "../domain/scan-diff.ts";

export interface ArchiveIndex {
  pageCount: number;
  /** Image entry paths as stored in the archive, in natural order (page2 before page10). */
  pageNames: string[];
  /** Text of the root ComicInfo.xml; null when the archive has none. */
  comicInfoXml: string | null;
  /** File entries that are neither pages nor the ComicInfo (directories are not listed). */
  ignoredEntries: string[];
}

export interface ArchiveLimits {
  /** Most entries (files and directories) an archive may declare. */
  maxEntries: number;
  /** Most bytes of ComicInfo.xml read, after decompression. */
  maxComicInfoBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: Readonly<ArchiveLimits> = Object.freeze({
  maxEntries: 10_000,
  maxComicInfoBytes: 1024 * 1024,
});

export type ArchiveErrorCode =
  | "archive_not_found"
  | "archive_unreadable"
  | "archive_entry_unsafe"
  | "archive_too_many_entries"
  | "archive_entry_too_large";

export class ArchiveError extends Error {
  override readonly name = "ArchiveError";
  constructor(
    readonly code: ArchiveErrorCode,
    message: string,
    /** The offending entry, when one entry is the reason. */
    readonly entry: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const IMAGE_RE = /\.(jpe?g|png|webp|gif|avif)$/i;
const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_HEADER_SIG = 0x02014b50;

export async function readArchiveIndex(absPath: string, limits?: Partial<ArchiveLimits>): Promise<ArchiveIndex> {
  const lim: ArchiveLimits = {
    maxEntries: limits?.maxEntries ?? DEFAULT_ARCHIVE_LIMITS.maxEntries,
    maxComicInfoBytes: limits?.maxComicInfoBytes ?? DEFAULT_ARCHIVE_LIMITS.maxComicInfoBytes,
  };
  let fh: FileHandle;
  try {
    fh = await open(absPath, "r");
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === "ENOENT";
    throw new ArchiveError(missing ? "archive_not_found" : "archive_unreadable", `cannot open ${absPath}`, null, { cause: e });
  }
  // One descriptor for the whole read: a file renamed or replaced mid-scan cannot mix two versions.
  try {
    const { size } = await fh.stat();
    const end = await findEndOfCentralDirectory(fh, size);
    if (end.entries > lim.maxEntries) {
      throw new ArchiveError("archive_too_many_entries", `${end.entries} entries (limit ${lim.maxEntries})`);
    }
    const dir = await openDirectory(fh, size, size - end.offset);
    return await indexEntries(dir.files, lim);
  } catch (e) {
    if (e instanceof ArchiveError) throw e;
    throw new ArchiveError("archive_unreadable", `not a readable zip archive: ${describe(e)}`, null, { cause: e });
  } finally {
    await fh.close();
  }
}

async function indexEntries(files: ZipEntry[], lim: ArchiveLimits): Promise<ArchiveIndex> {
  const pages: string[] = [];
  const ignored: string[] = [];
  let comicInfo: ZipEntry | null = null;
  for (const f of files) {
    // unzipper does not check record signatures; a garbled directory must not index as entries.
    if (f.signature !== CENTRAL_HEADER_SIG) throw new ArchiveError("archive_unreadable", "corrupt central directory");
    if (isUnsafeName(f.path)) throw new ArchiveError("archive_entry_unsafe", `unsafe entry name ${JSON.stringify(f.path)}`, f.path);
  }
  for (const f of files) {
    const segments = f.path.replace(/\\/g, "/").split("/").filter((s) => s !== "");
    if (f.type === "Directory" || /[/\\]$/.test(f.path)) continue;
    const hidden = segments.some((s) => s.startsWith(".") || s === "__MACOSX");
    if (!hidden && segments.length === 1 && segments[0]?.toLowerCase() === "comicinfo.xml" && comicInfo === null) {
      comicInfo = f;
    } else if (!hidden && IMAGE_RE.test(f.path)) {
      pages.push(f.path);
    } else {
      ignored.push(f.path);
    }
  }
  pages.sort(naturalComparePaths);
  const comicInfoXml = comicInfo ? decodeXml(await readEntryBounded(comicInfo, lim.maxComicInfoBytes)) : null;
  return { pageCount: pages.length, pageNames: pages, comicInfoXml, ignoredEntries: ignored };
}

/** `..` segments, absolute paths, drive letters and NUL would escape or confuse any later extraction. */
export function isUnsafeName(name: string): boolean {
  if (name === "" || name.includes("\0")) return true;
  if (/^[/\\]/.test(name) || /^[a-zA-Z]:/.test(name)) return true;
  return name.split(/[/\\]/).some((s) => s === "..");
}

/** Natural page order lives in the rule core; re-exported for this module's callers. */
export { naturalCompare };

/** Folder by folder, so "ch1/…" comes before "ch1 extra/…" whatever the separator's code point. */
export function naturalComparePaths(a: string, b: string): number {
  const sa = a.split(/[/\\]/);
  const sb = b.split(/[/\\]/);
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const c = naturalCompare(sa[i] ?? "", sb[i] ?? "");
    if (c !== 0) return c;
  }
  return sa.length - sb.length || (a === b ? 0 : a < b ? -1 : 1);
}

/** Lowercase hex SHA-256 of a file, streamed. */
export async function sha256File(absPath: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(absPath), hash);
  return hash.digest("hex");
}

export async function statFile(absPath: string): Promise<{ size: number; mtimeMs: number }> {
  const s = await stat(absPath);
  return { size: s.size, mtimeMs: Math.trunc(s.mtimeMs) };
}

/* ---------------------------------------------------------------------------------------- */

/**
 * Locates the end-of-central-directory record ourselves so the entry limit holds before unzipper
 * allocates a record per entry, and so archives with a zip comment longer than unzipper's default
 * 80-byte tail still open.
 */
async function findEndOfCentralDirectory(fh: FileHandle, size: number): Promise<{ offset: number; entries: number }> {
  const tailLen = Math.min(size, 22 + 0xffff);
  const tail = Buffer.alloc(tailLen);
  await fh.read(tail, 0, tailLen, size - tailLen);
  for (let i = tailLen - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== EOCD_SIG || i + 22 + tail.readUInt16LE(i + 20) > tailLen) continue;
    const offset = size - tailLen + i;
    const entries = tail.readUInt16LE(i + 10);
    const cdOffset = tail.readUInt32LE(i + 16);
    if (entries !== 0xffff && cdOffset !== 0xffffffff) return { offset, entries };
    // Zip64: the real count is in the zip64 record the locator (20 bytes before) points to.
    const loc = Buffer.alloc(20);
    if (offset < 20) break;
    await fh.read(loc, 0, 20, offset - 20);
    if (loc.readUInt32LE(0) !== ZIP64_LOCATOR_SIG) break;
    const rec = Buffer.alloc(56);
    const recOffset = loc.readBigUInt64LE(8);
    if (recOffset > BigInt(size - 56)) break;
    await fh.read(rec, 0, 56, Number(recOffset));
    if (rec.readUInt32LE(0) !== ZIP64_EOCD_SIG) break;
    const count = rec.readBigUInt64LE(32);
    return { offset, entries: count > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(count) };
  }
  throw new ArchiveError("archive_unreadable", "no zip end-of-central-directory record");
}

/**
 * unzipper's Open.file re-opens the path per read and pipes some streams without an error
 * listener (an I/O error there would crash the process). Open.custom over our one handle, with
 * errors turned into an early end, makes unzipper's pending reads fail with FILE_ENDED instead.
 */
function openDirectory(fh: FileHandle, size: number, tailSize: number): Promise<CentralDirectory> {
  const source = {
    size: () => Promise.resolve(size),
    stream: (start: number, length?: number): Readable => {
      const out = new PassThrough();
      const end = length ? Math.min(size, start + length) - 1 : size - 1;
      if (end < start) {
        out.end();
        return out;
      }
      const input = fh.createReadStream({ start, end, autoClose: false });
      input.on("error", () => out.end());
      return input.pipe(out);
    },
  };
  const custom = Open.custom as (src: typeof source, options: { tailSize: number }) => Promise<CentralDirectory>;
  return custom(source, { tailSize });
}

async function readEntryBounded(entry: ZipEntry, max: number): Promise<Buffer> {
  const tooLarge = () => new ArchiveError("archive_entry_too_large", `${entry.path} exceeds ${max} bytes`, entry.path);
  if (entry.uncompressedSize > max) throw tooLarge();
  const stream = entry.stream();
  const chunks: Buffer[] = [];
  let total = 0;
  // The declared size may lie (deflate bomb): count what actually comes out.
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > max) {
      stream.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
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

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
