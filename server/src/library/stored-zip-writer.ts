/**
 * A ZIP writer for stored (method 0) entries only, writing to one FileHandle at explicit
 * positions: per entry a local header whose CRC-32 and size are given up front (no data
 * descriptor), then the data in chunks the caller hands in, then the central directory and the end
 * record, with the ZIP64 records when an offset, a size, the directory or the entry count passes
 * what the 32/16-bit fields hold.
 *
 * Why it exists beside yazl (which the rest of the stack uses): the book builder copies pages
 * whose CRC and size the source archive's directory already declares. yazl takes a stream per
 * entry and computes the CRC itself, so every page had to become a fresh Buffer (or stream chunks)
 * that V8 frees only after tens of MB pile up; here the builder copies through one reused buffer,
 * and each write is awaited before the buffer is refilled (docs/benchmarks.md, "Assembly").
 *
 * The writer checks what it is given: the bytes written for an entry must add up to its declared
 * size. The CRC-32 is the caller's to check as it copies (it knows where the bytes come from);
 * `addBuffer` computes it.
 */
import type { FileHandle } from "node:fs/promises";
import { crc32 } from "node:zlib";

const LOCAL_HEADER_SIG = 0x04034b50;
const CENTRAL_HEADER_SIG = 0x02014b50;
const EOCD_SIG = 0x06054b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EXTRA_ID = 0x0001;
const U32_MAX = 0xffffffff;
const U16_MAX = 0xffff;
/** Bit 11: the name is UTF-8. */
const FLAG_UTF8 = 0x0800;
/** Made by: Unix (3), ZIP APPNOTE version 6.3 (as yazl writes), so `unzip` applies the mode below. */
const VERSION_MADE_BY = (3 << 8) | 63;
const VERSION_STORED = 10;
const VERSION_ZIP64 = 45;
/** A regular file, rw-rw-r-- (yazl's default). */
const EXTERNAL_ATTRS = (0o100664 << 16) >>> 0;

export interface StoredEntry {
  name: string;
  size: number;
  crc32: number;
  localHeaderOffset: number;
  dosTime: number;
  dosDate: number;
}

export interface StoredZipWriterOptions {
  /** Entry time (DOS time, local time of this process, like yazl). Default: 2024-01-01 UTC. */
  mtime?: Date;
  /**
   * Where in the file the first entry is written (default 0). Only tests use it: a large value
   * on a sparse file makes the ZIP64 records needed without writing gigabytes.
   */
  startOffset?: number;
}

export class StoredZipWriter {
  private readonly entries: StoredEntry[] = [];
  private position: number;
  private open: { entry: StoredEntry; written: number } | null = null;
  private finished = false;
  private readonly dosTime: number;
  private readonly dosDate: number;

  constructor(
    private readonly fh: FileHandle,
    options: StoredZipWriterOptions = {},
  ) {
    this.position = options.startOffset ?? 0;
    ({ time: this.dosTime, date: this.dosDate } = dosDateTime(options.mtime ?? new Date(Date.UTC(2024, 0, 1))));
  }

  /** Bytes written so far (the next write's position). */
  get offset(): number {
    return this.position;
  }

  /** Writes the local header of a stored entry whose size and CRC-32 are known; its data follow with `write`. */
  async beginEntry(name: string, size: number, crc: number): Promise<void> {
    this.usable();
    if (this.open) throw new Error(`entry ${JSON.stringify(this.open.entry.name)} is not ended`);
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`bad size ${size} for ${JSON.stringify(name)}`);
    const entry: StoredEntry = {
      name,
      size,
      crc32: crc >>> 0,
      localHeaderOffset: this.position,
      dosTime: this.dosTime,
      dosDate: this.dosDate,
    };
    const header = encodeLocalHeader(entry);
    this.open = { entry, written: 0 };
    await this.writeAll(header);
  }

  /** Appends data of the open entry; the buffer may be reused once the promise settles. */
  async write(data: Buffer): Promise<void> {
    this.usable();
    const open = this.open;
    if (!open) throw new Error("no entry is open");
    if (open.written + data.length > open.entry.size) {
      throw new RangeError(`${JSON.stringify(open.entry.name)}: more than its ${open.entry.size} declared bytes`);
    }
    open.written += data.length;
    await this.writeAll(data);
  }

  /** Closes the open entry; its bytes must add up to the declared size. */
  endEntry(): void {
    this.usable();
    const open = this.open;
    if (!open) throw new Error("no entry is open");
    if (open.written !== open.entry.size) {
      throw new RangeError(
        `${JSON.stringify(open.entry.name)}: ${open.written} bytes written, ${open.entry.size} declared`,
      );
    }
    this.entries.push(open.entry);
    this.open = null;
  }

  /** A whole entry from memory (its CRC-32 computed here). */
  async addBuffer(name: string, data: Buffer): Promise<void> {
    await this.beginEntry(name, data.length, crc32(data));
    await this.write(data);
    this.endEntry();
  }

  /** Writes the central directory and the end records. The file handle stays open (the caller's). */
  async finish(): Promise<void> {
    this.usable();
    if (this.open) throw new Error(`entry ${JSON.stringify(this.open.entry.name)} is not ended`);
    this.finished = true;
    const cdOffset = this.position;
    const records = this.entries.map(encodeCentralHeader);
    const cd = Buffer.concat(records);
    await this.writeAll(cd);
    await this.writeAll(
      encodeEnd({ entries: this.entries.length, cdOffset, cdSize: cd.length, endOffset: this.position }),
    );
  }

  private usable(): void {
    if (this.finished) throw new Error("the archive is finished");
  }

  private async writeAll(data: Buffer): Promise<void> {
    let done = 0;
    while (done < data.length) {
      const { bytesWritten } = await this.fh.write(data, done, data.length - done, this.position + done);
      done += bytesWritten;
    }
    this.position += data.length;
  }
}

/** DOS date and time fields of a date in this process's local time (as yazl and zip write them). */
export function dosDateTime(d: Date): { date: number; time: number } {
  const year = Math.min(Math.max(d.getFullYear(), 1980), 2107);
  const date = ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate();
  const time = (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2);
  return { date, time };
}

function nameBytes(name: string): Buffer {
  const raw = Buffer.from(name, "utf8");
  if (raw.length > U16_MAX) throw new RangeError(`entry name too long: ${raw.length} bytes`);
  return raw;
}

/** Local header; sizes past 4 GiB go in a ZIP64 extra field (both sizes, as the ZIP APPNOTE requires there). */
export function encodeLocalHeader(e: StoredEntry): Buffer {
  const raw = nameBytes(e.name);
  const zip64 = e.size >= U32_MAX;
  const extra = zip64 ? Buffer.alloc(20) : Buffer.alloc(0);
  if (zip64) {
    extra.writeUInt16LE(ZIP64_EXTRA_ID, 0);
    extra.writeUInt16LE(16, 2);
    extra.writeBigUInt64LE(BigInt(e.size), 4);
    extra.writeBigUInt64LE(BigInt(e.size), 12);
  }
  const h = Buffer.alloc(30);
  h.writeUInt32LE(LOCAL_HEADER_SIG, 0);
  h.writeUInt16LE(zip64 ? VERSION_ZIP64 : VERSION_STORED, 4);
  h.writeUInt16LE(FLAG_UTF8, 6);
  h.writeUInt16LE(0, 8);
  h.writeUInt16LE(e.dosTime, 10);
  h.writeUInt16LE(e.dosDate, 12);
  h.writeUInt32LE(e.crc32 >>> 0, 14);
  h.writeUInt32LE(zip64 ? U32_MAX : e.size, 18);
  h.writeUInt32LE(zip64 ? U32_MAX : e.size, 22);
  h.writeUInt16LE(raw.length, 26);
  h.writeUInt16LE(extra.length, 28);
  return Buffer.concat([h, raw, extra]);
}

/**
 * Central directory record; a size or offset past 32 bits goes in the ZIP64 extra field, in the ZIP APPNOTE's
 * order.
 */
export function encodeCentralHeader(e: StoredEntry): Buffer {
  const raw = nameBytes(e.name);
  const bigSize = e.size >= U32_MAX;
  const bigOffset = e.localHeaderOffset >= U32_MAX;
  const values: number[] = [];
  if (bigSize) values.push(e.size, e.size);
  if (bigOffset) values.push(e.localHeaderOffset);
  const extra = Buffer.alloc(values.length ? 4 + 8 * values.length : 0);
  if (values.length) {
    extra.writeUInt16LE(ZIP64_EXTRA_ID, 0);
    extra.writeUInt16LE(8 * values.length, 2);
    values.forEach((v, i) => extra.writeBigUInt64LE(BigInt(v), 4 + 8 * i));
  }
  const h = Buffer.alloc(46);
  h.writeUInt32LE(CENTRAL_HEADER_SIG, 0);
  h.writeUInt16LE(VERSION_MADE_BY, 4);
  h.writeUInt16LE(values.length ? VERSION_ZIP64 : VERSION_STORED, 6);
  h.writeUInt16LE(FLAG_UTF8, 8);
  h.writeUInt16LE(0, 10);
  h.writeUInt16LE(e.dosTime, 12);
  h.writeUInt16LE(e.dosDate, 14);
  h.writeUInt32LE(e.crc32 >>> 0, 16);
  h.writeUInt32LE(bigSize ? U32_MAX : e.size, 20);
  h.writeUInt32LE(bigSize ? U32_MAX : e.size, 24);
  h.writeUInt16LE(raw.length, 28);
  h.writeUInt16LE(extra.length, 30);
  h.writeUInt16LE(0, 32); // comment length
  h.writeUInt16LE(0, 34); // disk number start
  h.writeUInt16LE(0, 36); // internal attributes
  h.writeUInt32LE(EXTERNAL_ATTRS, 38);
  h.writeUInt32LE(bigOffset ? U32_MAX : e.localHeaderOffset, 42);
  return Buffer.concat([h, raw, extra]);
}

/**
 * The end record, preceded by the ZIP64 end record and its locator when the entry count, the
 * directory's offset or its size do not fit (`endOffset`: where these records start).
 */
export function encodeEnd(d: { entries: number; cdOffset: number; cdSize: number; endOffset: number }): Buffer {
  const zip64 = d.entries >= U16_MAX || d.cdOffset >= U32_MAX || d.cdSize >= U32_MAX;
  const parts: Buffer[] = [];
  if (zip64) {
    const rec = Buffer.alloc(56);
    rec.writeUInt32LE(ZIP64_EOCD_SIG, 0);
    rec.writeBigUInt64LE(44n, 4); // size of the rest of this record
    rec.writeUInt16LE(VERSION_MADE_BY, 12);
    rec.writeUInt16LE(VERSION_ZIP64, 14);
    rec.writeUInt32LE(0, 16); // this disk
    rec.writeUInt32LE(0, 20); // the directory's disk
    rec.writeBigUInt64LE(BigInt(d.entries), 24);
    rec.writeBigUInt64LE(BigInt(d.entries), 32);
    rec.writeBigUInt64LE(BigInt(d.cdSize), 40);
    rec.writeBigUInt64LE(BigInt(d.cdOffset), 48);
    const loc = Buffer.alloc(20);
    loc.writeUInt32LE(ZIP64_LOCATOR_SIG, 0);
    loc.writeUInt32LE(0, 4);
    loc.writeBigUInt64LE(BigInt(d.endOffset), 8);
    loc.writeUInt32LE(1, 16); // total disks
    parts.push(rec, loc);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(EOCD_SIG, 0);
  const count = zip64 && d.entries >= U16_MAX ? U16_MAX : d.entries;
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(zip64 && d.cdSize >= U32_MAX ? U32_MAX : d.cdSize, 12);
  end.writeUInt32LE(zip64 && d.cdOffset >= U32_MAX ? U32_MAX : d.cdOffset, 16);
  parts.push(end);
  return Buffer.concat(parts);
}
