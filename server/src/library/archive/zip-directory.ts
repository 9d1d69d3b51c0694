/**
 * The central directory, read and judged before any entry is touched: the end record is located by
 * us (so the entry limit holds before unzipper builds one record per entry), the records come from
 * unzipper's random-access reader over our one file handle, and every record is checked.
 */
import type { FileHandle } from "node:fs/promises";
import { PassThrough, type Readable } from "node:stream";
import { Open, type CentralDirectory, type File as UnzipperRecord } from "unzipper";
import type { ArchiveLimitsConfig } from "../../config.ts";
import { ArchiveError } from "./archive-error.ts";
import { decodeEntryName, duplicateKey, isDirectoryName, isUnsafeName } from "./entry-names.ts";

const EOCD_SIG = 0x06054b50;
const EOCD_SIG_BYTES = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
/** How far back a misplaced end record is looked for, only to name the problem right. */
const WIDER_SEARCH_BYTES = 1024 * 1024;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_HEADER_SIG = 0x02014b50;
const LOCAL_HEADER_SIG = 0x04034b50;
export const LOCAL_HEADER_LEN = 30;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
/** Below this size a high ratio is harmless (a blank 20 KB XML compresses 200:1); bombs are far bigger. */
export const RATIO_FLOOR_BYTES = 1024 * 1024;

export interface ZipRecord {
  name: string;
  rawName: Buffer;
  flags: number;
  method: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
  directory: boolean;
}

export interface ZipDirectory {
  /** Where the central directory starts: no entry's data may reach past it. */
  cdOffset: number;
  records: ZipRecord[];
}

interface EndRecord {
  offset: number;
  entries: number;
  cdOffset: number;
  cdSize: number;
  /** Where the directory must end: the zip64 end record when there is one, else the end record. */
  cdLimit: number;
}

export async function readZipDirectory(fh: FileHandle, limits: ArchiveLimitsConfig): Promise<ZipDirectory> {
  const { size } = await fh.stat();
  const end = await findEndRecord(fh, size);
  if (end.entries > limits.maxEntries) {
    throw new ArchiveError({
      code: "archive_too_many_entries",
      detail: `${end.entries} entries (limit ${limits.maxEntries})`,
    });
  }
  if (end.cdOffset + end.cdSize > end.cdLimit) {
    throw new ArchiveError({
      code: "archive_truncated",
      detail: "the central directory lies beyond the data that is there",
    });
  }
  if (end.cdSize < end.entries * 46) throw corrupt("the central directory is smaller than its entry count");
  let dir: CentralDirectory;
  try {
    dir = await openDirectory(fh, size, size - end.offset);
  } catch (e) {
    throw corrupt("the central directory cannot be parsed", e);
  }
  let recordBytes = 0;
  for (const f of dir.files) {
    // unzipper does not check record signatures; a garbled directory must not index as entries.
    if (f.signature !== CENTRAL_HEADER_SIG) throw corrupt("corrupt central directory record");
    recordBytes += 46 + f.fileNameLength + f.extraFieldLength + f.fileCommentLength;
  }
  if (recordBytes !== end.cdSize) throw corrupt("the central directory's size does not match its records");
  const records = checkRecords(dir.files, limits);
  checkExtents(records, end.cdOffset);
  return { cdOffset: end.cdOffset, records };
}

/**
 * Per entry, in directory order (the first offending entry decides): name, link, duplicate,
 * encryption, method, then declared sizes and the running total. Where the data lies is checked
 * after every entry passed, so a bomb whose declared sizes lie is reported as the bomb it is.
 */
function checkRecords(files: UnzipperRecord[], limits: ArchiveLimitsConfig): ZipRecord[] {
  const seen = new Set<string>();
  const records: ZipRecord[] = [];
  let total = 0;
  for (const f of files) {
    const name = decodeEntryName(f.pathBuffer, f.flags);
    // The codes are spelled at each check (`code: "…"`), where the architecture test finds them.
    const fail = (e: { code: ArchiveError["code"]; detail: string }): never => {
      throw new ArchiveError({ code: e.code, detail: `${JSON.stringify(name)}: ${e.detail}`, entry: name });
    };
    if (isUnsafeName(name)) {
      // This detail predates the reader (the scan reports it verbatim): kept as it was.
      throw new ArchiveError({
        code: "archive_entry_unsafe",
        detail: `unsafe entry name ${JSON.stringify(name)}`,
        entry: name,
      });
    }
    if (((f.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK)
      fail({ code: "archive_symlink", detail: "a symbolic link" });
    const key = duplicateKey(name);
    if (seen.has(key)) fail({ code: "archive_duplicate_entry", detail: "a second entry with this name" });
    seen.add(key);
    // Bit 0: traditional encryption; bit 6: strong encryption; method 99: AES (WinZip).
    if (f.flags & 0x41 || f.compressionMethod === 99) fail({ code: "archive_encrypted", detail: "an encrypted entry" });
    if (f.compressionMethod !== 0 && f.compressionMethod !== 8) {
      fail({
        code: "archive_unsupported",
        detail: `compression method ${f.compressionMethod} (only stored and deflate are read)`,
      });
    }
    const sizes = [f.compressedSize, f.uncompressedSize, f.offsetToLocalFileHeader];
    if (!sizes.every((n) => Number.isSafeInteger(n) && n >= 0))
      fail({ code: "archive_unreadable", detail: "sizes missing from its zip64 field" });
    if (f.compressionMethod === 0 && f.compressedSize !== f.uncompressedSize) {
      fail({ code: "archive_unreadable", detail: "a stored entry whose two sizes differ" });
    }
    if (f.uncompressedSize > limits.maxEntryBytes) {
      fail({
        code: "archive_entry_too_large",
        detail: `declares ${f.uncompressedSize} bytes (limit ${limits.maxEntryBytes})`,
      });
    }
    if (f.uncompressedSize > RATIO_FLOOR_BYTES && f.uncompressedSize > f.compressedSize * limits.maxRatio) {
      const ratio = f.compressedSize === 0 ? "unbounded" : `${Math.round(f.uncompressedSize / f.compressedSize)}:1`;
      fail({ code: "archive_ratio_exceeded", detail: `expands ${ratio} (limit ${limits.maxRatio}:1)` });
    }
    total += f.uncompressedSize;
    if (total > limits.maxTotalBytes)
      fail({ code: "archive_too_large", detail: `the entries expand to more than ${limits.maxTotalBytes} bytes` });
    records.push({
      name,
      rawName: f.pathBuffer,
      flags: f.flags,
      method: f.compressionMethod,
      crc32: f.crc32,
      compressedSize: f.compressedSize,
      uncompressedSize: f.uncompressedSize,
      localHeaderOffset: f.offsetToLocalFileHeader,
      directory: isDirectoryName(name),
    });
  }
  return records;
}

/**
 * Every entry's data must lie before the central directory, and no two entries may share bytes:
 * overlapping entries are the overlapping-files zip bomb (no real tool writes them). The extent
 * is a lower bound (the local extra field is not read yet), so an overlap found here is real.
 */
function checkExtents(records: ZipRecord[], cdOffset: number): void {
  const extentEnd = (r: ZipRecord) => r.localHeaderOffset + LOCAL_HEADER_LEN + r.rawName.length + r.compressedSize;
  for (const r of records) {
    if (extentEnd(r) > cdOffset) {
      throw new ArchiveError({
        code: "archive_unreadable",
        detail: `${JSON.stringify(r.name)}: its data would run into the central directory`,
        entry: r.name,
      });
    }
  }
  const byOffset = [...records].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  for (let i = 1; i < byOffset.length; i++) {
    const prev = byOffset[i - 1] as ZipRecord;
    const next = byOffset[i] as ZipRecord;
    if (extentEnd(prev) > next.localHeaderOffset) {
      throw new ArchiveError({
        code: "archive_unreadable",
        detail: `entries ${JSON.stringify(prev.name)} and ${JSON.stringify(next.name)} share their data`,
        entry: next.name,
      });
    }
  }
}

async function findEndRecord(fh: FileHandle, size: number): Promise<EndRecord> {
  const tailLen = Math.min(size, 22 + 0xffff);
  const tail = Buffer.alloc(tailLen);
  await readFully(fh, tail, size - tailLen);
  // Backwards, preferring a record whose comment ends exactly at the end of the file: a fake end
  // record hidden inside a comment is then not taken for the real one.
  let loose = -1;
  for (let i = tailLen - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== EOCD_SIG) continue;
    const reach = i + 22 + tail.readUInt16LE(i + 20);
    if (reach === tailLen) return parseEndRecord(fh, tail, i, size - tailLen + i);
    if (reach < tailLen && loose < 0) loose = i;
  }
  if (loose >= 0) return parseEndRecord(fh, tail, loose, size - tailLen + loose);
  // An end record further back than a comment can reach: data was appended, the zip is not cut short.
  if (size > tailLen) {
    const wider = Buffer.alloc(Math.min(size, WIDER_SEARCH_BYTES));
    await readFully(fh, wider, size - wider.length);
    if (wider.includes(EOCD_SIG_BYTES))
      throw corrupt("more than 64 KiB of data follow the end-of-central-directory record");
  }
  const head = Buffer.alloc(4);
  if (size >= 4) await readFully(fh, head, 0);
  if (size >= 4 && head.readUInt32LE(0) === LOCAL_HEADER_SIG) {
    throw new ArchiveError({
      code: "archive_truncated",
      detail: "the archive's end (its central directory) is missing",
    });
  }
  throw corrupt("no zip end-of-central-directory record");
}

async function parseEndRecord(fh: FileHandle, tail: Buffer, i: number, offset: number): Promise<EndRecord> {
  const disk = tail.readUInt16LE(i + 4);
  const cdDisk = tail.readUInt16LE(i + 6);
  const entriesOnDisk = tail.readUInt16LE(i + 8);
  const entries = tail.readUInt16LE(i + 10);
  const cdSize = tail.readUInt32LE(i + 12);
  const cdOffset = tail.readUInt32LE(i + 16);
  const zip64 = entries === 0xffff || cdOffset === 0xffffffff || cdSize === 0xffffffff || disk === 0xffff;
  if (!zip64) {
    if (disk !== 0 || cdDisk !== 0 || entriesOnDisk !== entries) {
      throw new ArchiveError({ code: "archive_unsupported", detail: "a multi-part (spanned) archive" });
    }
    return { offset, entries, cdOffset, cdSize, cdLimit: offset };
  }
  // Zip64: the real figures are in the zip64 end record the locator (20 bytes before) points to.
  if (offset < 20) throw corrupt("a zip64 end record without its locator");
  const loc = Buffer.alloc(20);
  await readFully(fh, loc, offset - 20);
  if (loc.readUInt32LE(0) !== ZIP64_LOCATOR_SIG) throw corrupt("a zip64 end record without its locator");
  const recOffset = toSafe(loc.readBigUInt64LE(8));
  if (recOffset > offset - 20 - 56) throw corrupt("the zip64 end record lies outside the archive");
  const rec = Buffer.alloc(56);
  await readFully(fh, rec, recOffset);
  if (rec.readUInt32LE(0) !== ZIP64_EOCD_SIG) throw corrupt("the zip64 end record is missing");
  if (rec.readUInt32LE(16) !== 0 || rec.readUInt32LE(20) !== 0 || rec.readBigUInt64LE(24) !== rec.readBigUInt64LE(32)) {
    throw new ArchiveError({ code: "archive_unsupported", detail: "a multi-part (spanned) archive" });
  }
  return {
    offset,
    entries: toSafe(rec.readBigUInt64LE(32)),
    cdSize: toSafe(rec.readBigUInt64LE(40)),
    cdOffset: toSafe(rec.readBigUInt64LE(48)),
    cdLimit: recOffset,
  };
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

/** Reads exactly buf.length bytes at position, or fails as truncated. */
export async function readFully(fh: FileHandle, buf: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await fh.read(buf, done, buf.length - done, position + done);
    if (bytesRead === 0)
      throw new ArchiveError({ code: "archive_truncated", detail: "the archive ends before its data does" });
    done += bytesRead;
  }
}

function toSafe(n: bigint): number {
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}

function corrupt(detail: string, cause?: unknown): ArchiveError {
  return new ArchiveError({ code: "archive_unreadable", detail, cause });
}
