/**
 * The central directory parser against archives a real writer made (yazl), against an independent
 * reader of the same bytes (unzipper, which the service used before), and against every single
 * byte changed: a changed directory is parsed to the records it now says, or refused with the
 * archive error, never anything else. The whole directory read (end record, zip64 records, the
 * tail and the positioned read) gets the same treatment through files on disk.
 */
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { Open } from "unzipper";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZipFile } from "yazl";
import { DEFAULT_ARCHIVE_LIMITS } from "../../config.ts";
import { ArchiveError } from "./archive-error.ts";
import { CENTRAL_HEADER_LEN, parseCentralDirectory, type CentralRecord } from "./central-directory.ts";
import { isUnsafeName } from "./entry-names.ts";
import { readZipDirectory } from "./zip-directory.ts";

interface Entry {
  name: string;
  data: Buffer;
  compress: boolean;
  comment?: string;
}

const MTIME = new Date(Date.UTC(2024, 0, 2, 3, 4, 6));

function zipBuffer(entries: Entry[], options: { zip64?: boolean; comment?: string } = {}): Promise<Buffer> {
  const zip = new ZipFile();
  for (const e of entries) {
    zip.addBuffer(e.data, e.name, {
      compress: e.compress,
      mtime: MTIME,
      forceZip64Format: options.zip64 ?? false,
      ...(e.comment ? { fileComment: e.comment } : {}),
    });
  }
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    zip.outputStream.on("data", (c: Buffer) => chunks.push(c));
    zip.outputStream.on("end", () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on("error", reject);
  });
  zip.end({ forceZip64Format: options.zip64 ?? false, comment: options.comment ?? "" });
  return done;
}

/** The directory bytes and entry count of a plain (not zip64) archive, from its end record. */
function directoryOf(zip: Buffer): { cd: Buffer; entries: number } {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const entries = zip.readUInt16LE(end + 10);
  const size = zip.readUInt32LE(end + 12);
  const offset = zip.readUInt32LE(end + 16);
  return { cd: zip.subarray(offset, offset + size), entries };
}

/** Names from lowercase letters and digits: no zip signature ("PK") can hide in them. */
const nameArb = fc
  .array(fc.stringMatching(/^[a-z0-9]{1,12}$/), { minLength: 1, maxLength: 3 })
  .map((parts) => `${parts.join("/")}.png`);
const entriesArb = fc.uniqueArray(
  fc.record({
    name: nameArb,
    data: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
    compress: fc.boolean(),
    comment: fc.option(fc.stringMatching(/^[a-z ]{0,20}$/), { nil: undefined }),
  }),
  { minLength: 1, maxLength: 6, selector: (e) => e.name },
);

function expectArchiveError(e: unknown): void {
  expect(e).toBeInstanceOf(ArchiveError);
  expect((e as ArchiveError).code).toMatch(/^archive_/);
}

function parseOrError(cd: Buffer, entries: number): CentralRecord[] | ArchiveError {
  try {
    return parseCentralDirectory(cd, entries);
  } catch (e) {
    expectArchiveError(e);
    return e as ArchiveError;
  }
}

/** Fields of a record as plain values (names as text), for comparing. */
const plain = (r: CentralRecord) => ({ ...r, rawName: r.rawName.toString("latin1") });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "central-directory-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("parseCentralDirectory", () => {
  it("reads what yazl wrote: names, methods, sizes, CRCs, offsets and Unix modes", async () => {
    const entries: Entry[] = [
      { name: "001.png", data: Buffer.alloc(500, 1), compress: true },
      { name: "sub/002.png", data: Buffer.from("abc"), compress: false, comment: "a comment" },
      { name: "ComicInfo.xml", data: Buffer.from("<ComicInfo/>"), compress: false },
    ];
    const zip = await zipBuffer(entries);
    const { cd, entries: count } = directoryOf(zip);
    const records = parseCentralDirectory(cd, count);
    expect(records.map((r) => r.rawName.toString())).toEqual(entries.map((e) => e.name));
    expect(records.map((r) => r.method)).toEqual([8, 0, 0]);
    expect(records.map((r) => r.uncompressedSize)).toEqual([500, 3, 12]);
    expect(records[0]!.compressedSize).toBeLessThan(500);
    expect(records[1]!.compressedSize).toBe(3);
    // Each local header is where the record says.
    for (const r of records) expect(zip.readUInt32LE(r.localHeaderOffset)).toBe(0x04034b50);
    expect(records[2]!.crc32).toBe(zip.readUInt32LE(records[2]!.localHeaderOffset + 14));
    expect(records.every((r) => r.externalAttributes >>> 16 === 0o100664)).toBe(true);
  });

  it("takes zip64 sizes and offsets from the zip64 extra field, and NaN when the field lacks them", async () => {
    const zip = await zipBuffer([{ name: "a.png", data: Buffer.from("hello"), compress: false }], { zip64: true });
    // The zip64 end record's figures: entries at 32, size at 40, offset at 48.
    const rec = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x06, 0x06]));
    const size = Number(zip.readBigUInt64LE(rec + 40));
    const offset = Number(zip.readBigUInt64LE(rec + 48));
    const cd = Buffer.from(zip.subarray(offset, offset + size));
    expect(cd.readUInt32LE(20)).toBe(0xffffffff);
    const [r] = parseCentralDirectory(cd, 1);
    expect(r).toMatchObject({ compressedSize: 5, uncompressedSize: 5, localHeaderOffset: 0 });
    // The extra field's id changed: no zip64 field, so the sizes are missing (the checks refuse them).
    let q = CENTRAL_HEADER_LEN + cd.readUInt16LE(28);
    while (cd.readUInt16LE(q) !== 0x0001) q += 4 + cd.readUInt16LE(q + 2);
    cd.writeUInt16LE(0x9999, q);
    const [missing] = parseCentralDirectory(cd, 1);
    expect(missing?.compressedSize).toBeNaN();
    expect(missing?.uncompressedSize).toBeNaN();
  });

  it("refuses a garbled record, a record running past the directory, and bytes left over", async () => {
    const { cd, entries } = directoryOf(
      await zipBuffer([
        { name: "1.png", data: Buffer.from("x"), compress: false },
        { name: "2.png", data: Buffer.from("y"), compress: false },
      ]),
    );
    const garbled = Buffer.from(cd);
    garbled.writeUInt32LE(0, cd.length / 2);
    expect(() => parseCentralDirectory(garbled, entries)).toThrow(/corrupt central directory record/);
    expect(() => parseCentralDirectory(cd.subarray(0, cd.length - 1), entries)).toThrow(/size does not match/);
    expect(() => parseCentralDirectory(Buffer.concat([cd, Buffer.alloc(1)]), entries)).toThrow(/size does not match/);
    expect(() => parseCentralDirectory(cd, entries + 1)).toThrow(ArchiveError);
    expect(() => parseCentralDirectory(cd, entries - 1)).toThrow(ArchiveError);
    expect(parseCentralDirectory(Buffer.alloc(0), 0)).toEqual([]);
  });

  it("agrees with an independent reader (unzipper) on every field, plain and zip64", async () => {
    await fc.assert(
      fc.asyncProperty(entriesArb, fc.boolean(), async (entries, zip64) => {
        const zip = await zipBuffer(entries, { zip64 });
        const theirs = (await Open.buffer(zip)).files;
        let cd: Buffer;
        if (zip64) {
          const rec = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x06, 0x06]));
          const offset = Number(zip.readBigUInt64LE(rec + 48));
          cd = zip.subarray(offset, offset + Number(zip.readBigUInt64LE(rec + 40)));
        } else {
          cd = directoryOf(zip).cd;
        }
        const ours = parseCentralDirectory(cd, entries.length);
        expect(ours.map(plain)).toEqual(
          theirs.map((f) => ({
            flags: f.flags,
            method: f.compressionMethod,
            crc32: f.crc32,
            compressedSize: f.compressedSize,
            uncompressedSize: f.uncompressedSize,
            localHeaderOffset: f.offsetToLocalFileHeader,
            externalAttributes: f.externalFileAttributes,
            rawName: f.pathBuffer.toString("latin1"),
          })),
        );
      }),
      { numRuns: 60 },
    );
  });

  /** What a byte at offset `at` of a record is, by the record's layout. */
  function fieldAt(at: number, nameLen: number, extraLen: number): "ignored" | "value" | "structure" {
    if (at < 4) return "structure"; // the signature
    if (at < 8) return "ignored"; // versions
    if (at < 12) return "value"; // flags, method
    if (at < 16) return "ignored"; // time and date
    if (at < 28) return "value"; // CRC, sizes
    if (at < 34) return "structure"; // name, extra and comment lengths
    if (at < 38) return "ignored"; // disk number, internal attributes
    if (at < CENTRAL_HEADER_LEN) return "value"; // external attributes, local header offset
    if (at < CENTRAL_HEADER_LEN + nameLen + extraLen) return "value"; // name, extra field
    return "ignored"; // the entry's comment
  }

  it("parses any directory with one byte changed to what it now says, or refuses it with the archive error", async () => {
    await fc.assert(
      fc.asyncProperty(
        entriesArb,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        async (entries, where, delta) => {
          const { cd, entries: count } = directoryOf(await zipBuffer(entries));
          const original = parseCentralDirectory(cd, count).map(plain);
          const at = where % cd.length;
          const changed = Buffer.from(cd);
          changed[at] = ((changed[at] as number) + delta) & 0xff;
          // Which record and field the byte belongs to.
          let start = 0;
          let index = 0;
          for (;;) {
            const len = CENTRAL_HEADER_LEN + cd.readUInt16LE(start + 28) + cd.readUInt16LE(start + 30) + cd.readUInt16LE(start + 32);
            if (at < start + len) break;
            start += len;
            index += 1;
          }
          const kind = fieldAt(at - start, cd.readUInt16LE(start + 28), cd.readUInt16LE(start + 30));
          const result = parseOrError(changed, count);
          if (kind === "structure") {
            expect(result).toBeInstanceOf(ArchiveError);
          } else if (kind === "ignored") {
            expect(result).not.toBeInstanceOf(ArchiveError);
            expect((result as CentralRecord[]).map(plain)).toEqual(original);
          } else if (!(result instanceof ArchiveError)) {
            // A value changed: that record may differ, every other one is as it was.
            const now = result.map(plain);
            expect(now.length).toBe(original.length);
            now.forEach((r, i) => {
              if (i !== index) expect(r).toEqual(original[i]);
            });
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it("never throws anything but the archive error on arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.integer({ min: 0, max: 20 }), (bytes, count) => {
        const cd = Buffer.from(bytes);
        // A plausible start makes the parser go further than the first signature.
        if (cd.length >= 4 && count > 0) cd.writeUInt32LE(0x02014b50, 0);
        parseOrError(cd, count);
      }),
      { numRuns: 500 },
    );
  });
});

describe("readZipDirectory over a file", () => {
  let seq = 0;
  async function directoryOfFile(bytes: Buffer): Promise<Awaited<ReturnType<typeof readZipDirectory>>> {
    const path = join(dir, `d${seq++}.cbz`);
    await writeFile(path, bytes);
    const fh = await open(path, "r");
    try {
      return await readZipDirectory(fh, DEFAULT_ARCHIVE_LIMITS);
    } finally {
      await fh.close();
    }
  }

  it("reads a directory that does not fit the first tail read, and one behind a 64 KiB comment", async () => {
    const many: Entry[] = Array.from({ length: 400 }, (_, i) => ({
      name: `chapter/page-${String(i).padStart(4, "0")}-with-a-long-name.png`,
      data: Buffer.from([i & 0xff]),
      compress: false,
    }));
    const big = await directoryOfFile(await zipBuffer(many));
    expect(big.records.map((r) => r.name)).toEqual(many.map((e) => e.name));
    const commented = await directoryOfFile(
      await zipBuffer(many.slice(0, 3), { comment: "c".repeat(0xffff) }),
    );
    expect(commented.records.map((r) => r.name)).toEqual(many.slice(0, 3).map((e) => e.name));
  });

  it("refuses a directory larger than its records could ever be without reading it", async () => {
    const zip = await zipBuffer([{ name: "1.png", data: Buffer.from("x"), compress: false }]);
    const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    // Pretend the directory starts at 0 and is the whole file but 1 record long: no record reaches 200 KB.
    const padded = Buffer.concat([Buffer.alloc(200_000), zip]);
    const changed = Buffer.from(padded);
    const at = 200_000 + end;
    changed.writeUInt32LE(0, at + 16);
    changed.writeUInt32LE(at, at + 12);
    await expect(directoryOfFile(changed)).rejects.toThrow(/larger than its records/);
  });

  it("reads any archive with bytes changed in its directory or end record to valid records, or refuses it", async () => {
    await fc.assert(
      fc.asyncProperty(
        entriesArb,
        fc.boolean(),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
        async (entries, zip64, changes) => {
          const zip = await zipBuffer(entries, { zip64 });
          const first = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
          const changed = Buffer.from(zip);
          for (const [where, delta] of changes) {
            const at = first + (where % (zip.length - first));
            changed[at] = ((changed[at] as number) + delta) & 0xff;
          }
          let read: Awaited<ReturnType<typeof directoryOfFile>>;
          try {
            read = await directoryOfFile(changed);
          } catch (e) {
            expectArchiveError(e);
            return;
          }
          // Accepted: every record passed the checks the reader relies on.
          expect(read.cdOffset).toBeLessThanOrEqual(changed.length);
          for (const r of read.records) {
            expect(isUnsafeName(r.name)).toBe(false);
            expect([0, 8]).toContain(r.method);
            for (const n of [r.compressedSize, r.uncompressedSize, r.localHeaderOffset])
              expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
            expect(r.localHeaderOffset + 30 + r.rawName.length + r.compressedSize).toBeLessThanOrEqual(read.cdOffset);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
