/**
 * The central directory, read and judged before any entry is touched: the end record is located
 * (so the entry limit holds before one record is built per entry), the directory is read with one
 * positioned read over our one file handle — none at all when the tail read to find the end
 * record already holds it, as it does for most comic archives — and parsed from that buffer
 * (central-directory.ts), and every record is checked.
 */
import type { FileHandle } from "node:fs/promises";
import type { ArchiveLimitsConfig } from "../../config.ts";
import { ArchiveError } from "./archive-error.ts";
import { CENTRAL_HEADER_LEN, MAX_RECORD_LEN, parseCentralDirectory, type CentralRecord } from "./central-directory.ts";
import { decodeEntryName, duplicateKey, isDirectoryName, isUnsafeName } from "./entry-names.ts";

const EOCD_SIG = 0x06054b50;
const EOCD_SIG_BYTES = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const EOCD_LEN = 22;
/** The largest tail that can hold the end record: the record and the longest comment. */
const MAX_TAIL_BYTES = EOCD_LEN + 0xffff;
/**
 * The first tail read: an archive without a comment has its end record at the very end, and a
 * comic's directory (a few hundred records) usually fits with it, so one read finds both. The
 * full 64 KiB tail is read only when no end record ends the file within this one.
 */
const FIRST_TAIL_BYTES = 16 * 1024;
/** How far back a misplaced end record is looked for, only to name the problem right. */
const WIDER_SEARCH_BYTES = 1024 * 1024;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const LOCAL_HEADER_SIG = 0x04034b50;
export const LOCAL_HEADER_LEN = 30;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
/** Below this size a high ratio is harmless (a blank 20 KB XML compresses 200:1); bombs are far bigger. */
export const RATIO_FLOOR_BYTES = 1024 * 1024;

/** A checked central directory record: its decoded name, and whether it names a folder. */
export interface ZipRecord extends Omit<CentralRecord, "externalAttributes"> {
  name: string;
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

/** Bytes read from the end of the file, and where they start. */
interface Tail {
  buf: Buffer;
  start: number;
}

export async function readZipDirectory(fh: FileHandle, limits: ArchiveLimitsConfig): Promise<ZipDirectory> {
  const { size } = await fh.stat();
  const { end, tail } = await findEndRecord(fh, size);
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
  if (end.cdSize < end.entries * CENTRAL_HEADER_LEN)
    throw corrupt("the central directory is smaller than its entry count");
  // Nor can it be larger than its records at their longest (name, extra field and comment of 64 KiB each).
  if (end.cdSize > end.entries * MAX_RECORD_LEN) throw corrupt("the central directory is larger than its records");
  // cdOffset + cdSize ≤ cdLimit < size: the buffer is bounded by the file.
  let cd: Buffer;
  if (end.cdOffset >= tail.start) {
    cd = tail.buf.subarray(end.cdOffset - tail.start, end.cdOffset - tail.start + end.cdSize);
  } else {
    cd = Buffer.allocUnsafe(end.cdSize);
    await readFully(fh, cd, end.cdOffset);
  }
  const records = checkRecords(parseCentralDirectory(cd, end.entries), limits);
  checkExtents(records, end.cdOffset);
  return { cdOffset: end.cdOffset, records };
}

/**
 * Per entry, in directory order (the first offending entry decides): name, link, duplicate,
 * encryption, method, then declared sizes and the running total. Where the data lies is checked
 * after every entry passed, so a bomb whose declared sizes lie is reported as the bomb it is.
 */
function checkRecords(files: CentralRecord[], limits: ArchiveLimitsConfig): ZipRecord[] {
  const seen = new Set<string>();
  const records: ZipRecord[] = [];
  let total = 0;
  for (const f of files) {
    const name = decodeEntryName(f.rawName, f.flags);
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
    if (((f.externalAttributes >>> 16) & S_IFMT) === S_IFLNK)
      fail({ code: "archive_symlink", detail: "a symbolic link" });
    const key = duplicateKey(name);
    if (seen.has(key)) fail({ code: "archive_duplicate_entry", detail: "a second entry with this name" });
    seen.add(key);
    // Bit 0: traditional encryption; bit 6: strong encryption; method 99: AES (WinZip).
    if (f.flags & 0x41 || f.method === 99) fail({ code: "archive_encrypted", detail: "an encrypted entry" });
    if (f.method !== 0 && f.method !== 8) {
      fail({
        code: "archive_unsupported",
        detail: `compression method ${f.method} (only stored and deflate are read)`,
      });
    }
    const sizes = [f.compressedSize, f.uncompressedSize, f.localHeaderOffset];
    if (!sizes.every((n) => Number.isSafeInteger(n) && n >= 0))
      fail({ code: "archive_unreadable", detail: "sizes missing from its zip64 field" });
    if (f.method === 0 && f.compressedSize !== f.uncompressedSize) {
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
      rawName: f.rawName,
      flags: f.flags,
      method: f.method,
      crc32: f.crc32,
      compressedSize: f.compressedSize,
      uncompressedSize: f.uncompressedSize,
      localHeaderOffset: f.localHeaderOffset,
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

async function findEndRecord(fh: FileHandle, size: number): Promise<{ end: EndRecord; tail: Tail }> {
  // Backwards, preferring a record whose comment ends exactly at the end of the file: a fake end
  // record hidden inside a comment is then not taken for the real one. The first, shorter tail
  // holds the last positions of the full one, so a record found there is the one the full
  // search finds first.
  const first = await readTail(fh, size, Math.min(size, FIRST_TAIL_BYTES));
  const exact = exactEndRecord(first.buf);
  if (exact >= 0) return { end: await parseEndRecord(fh, first.buf, exact, first.start + exact), tail: first };
  const tail = size > first.buf.length ? await readTail(fh, size, Math.min(size, MAX_TAIL_BYTES)) : first;
  const tailLen = tail.buf.length;
  // Else the last record whose comment ends before the file does (bytes were appended after it).
  let at = tail === first ? -1 : exactEndRecord(tail.buf);
  for (let i = tailLen - EOCD_LEN; at < 0 && i >= 0; i--) {
    if (tail.buf.readUInt32LE(i) === EOCD_SIG && i + EOCD_LEN + tail.buf.readUInt16LE(i + 20) < tailLen) at = i;
  }
  if (at >= 0) return { end: await parseEndRecord(fh, tail.buf, at, tail.start + at), tail };
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

async function readTail(fh: FileHandle, size: number, length: number): Promise<Tail> {
  const buf = Buffer.allocUnsafe(length);
  await readFully(fh, buf, size - length);
  return { buf, start: size - length };
}

/** The last end record in `tail` whose comment ends exactly where the tail (the file) ends, or -1. */
function exactEndRecord(tail: Buffer): number {
  for (let i = tail.length - EOCD_LEN; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD_SIG && i + EOCD_LEN + tail.readUInt16LE(i + 20) === tail.length) return i;
  }
  return -1;
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

function corrupt(detail: string): ArchiveError {
  return new ArchiveError({ code: "archive_unreadable", detail });
}
