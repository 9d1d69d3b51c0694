/**
 * Building blocks of the hostile corpus: archives written with yazl, byte-level patches of their
 * local headers, central directory and end record (for what yazl refuses to write), and small
 * images. Everything is deterministic: the same corpus on every run.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { Readable } from "node:stream";
import { crc32, deflateSync } from "node:zlib";

// yazl and sharp are the server's dependencies; the root test folder has no node_modules of its own.
const serverRequire = createRequire(path.resolve(import.meta.dirname, "..", "..", "server", "package.json"));

interface YazlEntryOptions {
  compress?: boolean;
  mode?: number;
  mtime?: Date;
  forceZip64Format?: boolean;
}
interface YazlZipFile {
  outputStream: NodeJS.ReadableStream;
  addBuffer(data: Buffer, name: string, options?: YazlEntryOptions): void;
  addReadStream(stream: NodeJS.ReadableStream, name: string, options?: YazlEntryOptions): void;
  addEmptyDirectory(name: string, options?: { mtime?: Date }): void;
  end(options?: { forceZip64Format?: boolean; comment?: Buffer }): void;
}
const { ZipFile } = serverRequire("yazl") as { ZipFile: new () => YazlZipFile };

interface SharpPipeline {
  png(): SharpPipeline;
  jpeg(): SharpPipeline;
  toBuffer(): Promise<Buffer>;
}
const sharp = serverRequire("sharp") as (input: {
  create: { width: number; height: number; channels: 3; background: string };
}) => SharpPipeline;

/** A fixed timestamp: the same bytes on every run. */
const MTIME = new Date(Date.UTC(2024, 0, 2, 3, 4, 6));

export interface EntrySpec {
  name: string;
  data?: Buffer | string;
  /** Deflate instead of store. */
  compress?: boolean;
  /** Written from a stream: yazl then sets bit 3 and writes a data descriptor after the data. */
  stream?: boolean;
  directory?: boolean;
  /** Unix mode with file type (e.g. 0o120777, a symbolic link). */
  mode?: number;
}

export async function zip(entries: EntrySpec[], options: { comment?: Buffer; zip64?: boolean } = {}): Promise<Buffer> {
  const z = new ZipFile();
  for (const e of entries) {
    if (e.directory) {
      z.addEmptyDirectory(e.name, { mtime: MTIME });
      continue;
    }
    const data = Buffer.from(e.data ?? "");
    const opts: YazlEntryOptions = {
      compress: e.compress ?? false,
      mtime: MTIME,
      forceZip64Format: options.zip64 ?? false,
    };
    if (e.mode !== undefined) opts.mode = e.mode;
    if (e.stream) z.addReadStream(Readable.from([data]), e.name, opts);
    else z.addBuffer(data, e.name, opts);
  }
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    z.outputStream.on("data", (c: Buffer) => chunks.push(c));
    z.outputStream.on("end", () => resolve(Buffer.concat(chunks)));
    z.outputStream.on("error", reject);
  });
  z.end({ forceZip64Format: options.zip64 ?? false, ...(options.comment ? { comment: options.comment } : {}) });
  return done;
}

/* ------------------------------------------------------------------------------------------ */
/* Where things are                                                                            */
/* ------------------------------------------------------------------------------------------ */

export interface RecordPos {
  name: string;
  /** Offset of the central directory record. */
  central: number;
  /** Offset of the local file header. */
  local: number;
}

/** The end-of-central-directory record of a (non-zip64) archive written above. */
export function endRecord(buf: Buffer): number {
  const at = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (at < 0) throw new Error("no end record");
  return at;
}

/** Every entry's record positions, read from the central directory (names as UTF-8). */
export function records(buf: Buffer): RecordPos[] {
  const eocd = endRecord(buf);
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out: RecordPos[] = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`no central record at ${p}`);
    const nameLen = buf.readUInt16LE(p + 28);
    out.push({ name: buf.toString("utf8", p + 46, p + 46 + nameLen), central: p, local: buf.readUInt32LE(p + 42) });
    p += 46 + nameLen + buf.readUInt16LE(p + 30) + buf.readUInt16LE(p + 32);
  }
  return out;
}

export function recordOf(buf: Buffer, name: string): RecordPos {
  const r = records(buf).find((x) => x.name === name);
  if (!r) throw new Error(`no entry ${name}`);
  return r;
}

/* ------------------------------------------------------------------------------------------ */
/* Patches                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** [offset in the record, width in bytes] of the fields the corpus lies about. */
const CENTRAL_FIELDS = {
  flags: [8, 2],
  method: [10, 2],
  crc: [16, 4],
  compressedSize: [20, 4],
  uncompressedSize: [24, 4],
  externalAttributes: [38, 4],
  localOffset: [42, 4],
} as const;
const LOCAL_FIELDS = {
  signature: [0, 4],
  flags: [6, 2],
  method: [8, 2],
  crc: [14, 4],
  compressedSize: [18, 4],
  uncompressedSize: [22, 4],
} as const;

type Fields<T> = Partial<Record<keyof T, number | ((old: number) => number)>>;

function write(
  buf: Buffer,
  at: number,
  [offset, width]: readonly [number, number],
  value: number | ((old: number) => number),
): void {
  const old = width === 2 ? buf.readUInt16LE(at + offset) : buf.readUInt32LE(at + offset);
  const v = (typeof value === "function" ? value(old) : value) >>> 0;
  if (width === 2) buf.writeUInt16LE(v & 0xffff, at + offset);
  else buf.writeUInt32LE(v, at + offset);
}

/** Overwrites fields of one entry's central record and/or local header, in place. */
export function patchEntry(
  buf: Buffer,
  name: string,
  patch: { central?: Fields<typeof CENTRAL_FIELDS>; local?: Fields<typeof LOCAL_FIELDS> },
): Buffer {
  const r = recordOf(buf, name);
  for (const [k, v] of Object.entries(patch.central ?? {}))
    if (v !== undefined) write(buf, r.central, CENTRAL_FIELDS[k as keyof typeof CENTRAL_FIELDS], v);
  for (const [k, v] of Object.entries(patch.local ?? {}))
    if (v !== undefined) write(buf, r.local, LOCAL_FIELDS[k as keyof typeof LOCAL_FIELDS], v);
  return buf;
}

/** Overwrites fields of the end-of-central-directory record (offsets as in the record). */
export function patchEnd(buf: Buffer, fields: { at: number; width: 2 | 4; value: number }[]): Buffer {
  const eocd = endRecord(buf);
  for (const f of fields) write(buf, eocd, [f.at, f.width], f.value);
  return buf;
}

/**
 * Every occurrence of a same-length byte string replaced (names live in both the local header and
 * the central record). yazl refuses unsafe names, so they are written as placeholders first.
 */
export function replaceBytes(buf: Buffer, from: string | Buffer, to: string | Buffer): Buffer {
  const a = Buffer.from(from);
  const b = Buffer.from(to);
  if (a.length !== b.length) throw new Error(`replacement ${JSON.stringify(String(to))} is not ${a.length} bytes`);
  let n = 0;
  for (let i = buf.indexOf(a); i >= 0; i = buf.indexOf(a, i + 1)) {
    b.copy(buf, i);
    n++;
  }
  if (n === 0) throw new Error(`${JSON.stringify(String(from))} not found`);
  return buf;
}

/** Replaces bytes of one entry's name in its local header only (the directory keeps the old name). */
export function renameLocalOnly(buf: Buffer, name: string, to: string): Buffer {
  const r = recordOf(buf, name);
  const b = Buffer.from(to);
  if (b.length !== buf.readUInt16LE(r.local + 26)) throw new Error("local rename must keep the length");
  b.copy(buf, r.local + 30);
  return buf;
}

/** Offset of an entry's data (after its local header). */
export function dataOffset(buf: Buffer, name: string): number {
  const r = recordOf(buf, name);
  return r.local + 30 + buf.readUInt16LE(r.local + 26) + buf.readUInt16LE(r.local + 28);
}

/* ------------------------------------------------------------------------------------------ */
/* Contents                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/** Deterministic incompressible bytes. */
export function noise(length: number, seed: string): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < length; i++) blocks.push(createHash("sha256").update(`${seed}:${i}`).digest());
  return Buffer.concat(blocks).subarray(0, length);
}

const COLOURS = ["#c33", "#3c3", "#33c", "#cc3", "#3cc", "#c3c", "#888", "#222"];
export async function png(i: number): Promise<Buffer> {
  return sharp({ create: { width: 4, height: 6, channels: 3, background: COLOURS[i % COLOURS.length] ?? "#fff" } })
    .png()
    .toBuffer();
}
export async function jpeg(i: number): Promise<Buffer> {
  return sharp({ create: { width: 8, height: 12, channels: 3, background: COLOURS[i % COLOURS.length] ?? "#fff" } })
    .jpeg()
    .toBuffer();
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/**
 * A valid PNG header of width × height with only a few rows of data: tiny on disk, but decoding
 * it would allocate width × height pixels. It must be refused from its header.
 */
export function hugePng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = deflateSync(Buffer.alloc(4 * (width + 1)));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, pngChunk("IHDR", ihdr), pngChunk("IDAT", rows), pngChunk("IEND", Buffer.alloc(0))]);
}

/** A real JPEG whose frame header (SOF0) claims width × height. */
export function withJpegSize(jpegBytes: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(jpegBytes);
  const sof = out.indexOf(Buffer.from([0xff, 0xc0]));
  if (sof < 0) throw new Error("no SOF0 marker");
  out.writeUInt16BE(height, sof + 5);
  out.writeUInt16BE(width, sof + 7);
  return out;
}
