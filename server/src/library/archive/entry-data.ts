/**
 * One entry's bytes, in memory: its local header checked against the central directory, the data
 * inflated with the output capped at the declared size (a lying size stops the inflater there),
 * then size and CRC-32 compared. Nothing is written anywhere.
 */
import type { FileHandle } from "node:fs/promises";
import { promisify } from "node:util";
import { crc32, inflateRaw } from "node:zlib";
import { ArchiveError, describeError } from "./archive-error.ts";
import { LOCAL_HEADER_LEN, readFully, type ZipRecord } from "./zip-directory.ts";

const LOCAL_HEADER_SIG = 0x04034b50;
const inflateRawAsync = promisify(inflateRaw) as (buf: Buffer, options: { maxOutputLength: number }) => Promise<Buffer>;

/**
 * Where an entry's (stored or compressed) data starts: its local header read and checked against
 * the central directory (signature, encryption, method, name), and the data bounded by the
 * central directory. Every reader of entry bytes goes through here.
 */
export async function locateEntryData(fh: FileHandle, rec: ZipRecord, cdOffset: number): Promise<number> {
  const name = rec.name;
  const header = Buffer.alloc(LOCAL_HEADER_LEN);
  await readFully(fh, header, rec.localHeaderOffset);
  if (header.readUInt32LE(0) !== LOCAL_HEADER_SIG) {
    throw new ArchiveError({
      code: "archive_unreadable",
      detail: `${JSON.stringify(name)}: its local header is missing`,
      entry: name,
    });
  }
  const flags = header.readUInt16LE(6);
  if (flags & 0x41)
    throw new ArchiveError({
      code: "archive_encrypted",
      detail: `${JSON.stringify(name)}: an encrypted entry`,
      entry: name,
    });
  const nameLen = header.readUInt16LE(26);
  const extraLen = header.readUInt16LE(28);
  const localName = Buffer.alloc(nameLen);
  await readFully(fh, localName, rec.localHeaderOffset + LOCAL_HEADER_LEN);
  // Tools that read local headers would see another entry than the directory lists: refuse the ambiguity.
  if (header.readUInt16LE(8) !== rec.method || !localName.equals(rec.rawName)) {
    throw new ArchiveError({
      code: "archive_unreadable",
      detail: `${JSON.stringify(name)}: its local header disagrees with the directory`,
      entry: name,
    });
  }
  const dataStart = rec.localHeaderOffset + LOCAL_HEADER_LEN + nameLen + extraLen;
  if (dataStart + rec.compressedSize > cdOffset) {
    throw new ArchiveError({
      code: "archive_unreadable",
      detail: `${JSON.stringify(name)}: its data runs into the central directory`,
      entry: name,
    });
  }
  return dataStart;
}

/** Why unzipper's own entry stream is not used: it checks no CRC, trusts the local header and inflates any method. */
export async function readEntryData(fh: FileHandle, rec: ZipRecord, cdOffset: number): Promise<Buffer> {
  const name = rec.name;
  const dataStart = await locateEntryData(fh, rec, cdOffset);
  const compressed = Buffer.alloc(rec.compressedSize);
  await readFully(fh, compressed, dataStart);
  const data = rec.method === 0 ? compressed : await inflate(compressed, rec);
  if (data.length !== rec.uncompressedSize) {
    throw new ArchiveError({
      code: "archive_crc_mismatch",
      detail: `${JSON.stringify(name)}: holds ${data.length} bytes, its header says ${rec.uncompressedSize}`,
      entry: name,
    });
  }
  if (crc32(data) >>> 0 !== rec.crc32 >>> 0) {
    throw new ArchiveError({
      code: "archive_crc_mismatch",
      detail: `${JSON.stringify(name)}: the data does not match its CRC-32`,
      entry: name,
    });
  }
  return data;
}

async function inflate(compressed: Buffer, rec: ZipRecord): Promise<Buffer> {
  const name = rec.name;
  try {
    // One byte over the declared size is enough to know the header lies; zlib stops there.
    return await inflateRawAsync(compressed, { maxOutputLength: rec.uncompressedSize + 1 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      throw new ArchiveError({
        code: "archive_entry_too_large",
        detail: `${JSON.stringify(name)}: expands beyond the ${rec.uncompressedSize} bytes it declares`,
        entry: name,
      });
    }
    throw new ArchiveError({
      code: "archive_crc_mismatch",
      detail: `${JSON.stringify(name)}: corrupt data (${describeError(e)})`,
      entry: name,
      cause: e,
    });
  }
}
