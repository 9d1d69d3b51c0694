import { execFile } from "node:child_process";
import { mkdtemp, open, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { crc32 } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openArchive } from "./archive-reader.ts";
import { encodeCentralHeader, encodeEnd, StoredZipWriter } from "./stored-zip-writer.ts";

const run = promisify(execFile);
let dir: string;
let seq = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "stored-zip-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes entries through the chunked path (3-byte chunks) and the buffer path alternately. */
async function writeArchive(entries: { name: string; data: Buffer }[], startOffset = 0): Promise<string> {
  const p = join(dir, `w${seq++}.zip`);
  const fh = await open(p, "wx");
  try {
    const zip = new StoredZipWriter(fh, { startOffset });
    for (const [i, e] of entries.entries()) {
      if (i % 2 === 0) {
        await zip.addBuffer(e.name, e.data);
        continue;
      }
      await zip.beginEntry(e.name, e.data.length, crc32(e.data));
      const chunk = Buffer.alloc(3);
      for (let at = 0; at < e.data.length; at += 3) {
        const n = e.data.copy(chunk, 0, at, at + 3);
        await zip.write(chunk.subarray(0, n));
      }
      zip.endEntry();
    }
    await zip.finish();
  } finally {
    await fh.close();
  }
  return p;
}

const sample = [
  { name: "p001.jpg", data: Buffer.from("first page bytes") },
  { name: "p002.jpg", data: Buffer.from("second page, a little longer than the first") },
  { name: "p003.png", data: Buffer.alloc(0) },
  { name: "dossier/p004 ü.jpg", data: Buffer.from([0, 1, 2, 3, 255, 254]) },
  { name: "ComicInfo.xml", data: Buffer.from('<?xml version="1.0"?><ComicInfo/>') },
];

describe("StoredZipWriter", () => {
  it("writes an archive our reader and `unzip -t` accept, entries in order, stored, with their CRCs", async () => {
    const p = await writeArchive(sample);
    const a = await openArchive(p);
    try {
      expect(a.pages.map((x) => x.name)).toEqual(
        ["dossier/p004 ü.jpg", "p001.jpg", "p002.jpg", "p003.png"].sort((x, y) => x.localeCompare(y)),
      );
      expect(a.comicInfoXml).toBe('<?xml version="1.0"?><ComicInfo/>');
      for (const e of sample) {
        expect((await a.readEntry(e.name)).equals(e.data)).toBe(true);
        const span = await a.entrySpan(e.name);
        expect({ method: span.method, crc: span.crc32, size: span.compressedSize }).toEqual({
          method: 0,
          crc: crc32(e.data) >>> 0,
          size: e.data.length,
        });
      }
    } finally {
      await a.close();
    }
    const { stdout } = await run("unzip", ["-t", p]);
    expect(stdout).toMatch(/No errors detected/);
    const { stdout: listing } = await run("unzip", ["-Z1", p]);
    expect(listing.trim().split("\n")).toEqual(sample.map((e) => e.name));
  });

  it("refuses a wrong byte count and misuse", async () => {
    const fh = await open(join(dir, `w${seq++}.zip`), "wx");
    try {
      const zip = new StoredZipWriter(fh);
      await zip.beginEntry("a.jpg", 4, 0);
      await expect(zip.beginEntry("b.jpg", 1, 0)).rejects.toThrow(/not ended/);
      await zip.write(Buffer.from("abc"));
      expect(() => zip.endEntry()).toThrow(/3 bytes written, 4 declared/);
      await expect(zip.write(Buffer.from("de"))).rejects.toThrow(/more than its 4/);
      await zip.write(Buffer.from("d"));
      zip.endEntry();
      await zip.finish();
      await expect(zip.addBuffer("c.jpg", Buffer.from("x"))).rejects.toThrow(/finished/);
    } finally {
      await fh.close();
    }
  });

  it("writes ZIP64 records when offsets pass 4 GiB (a sparse file: the first entry starts past 4 GiB)", async () => {
    const start = 2 ** 32 + 1000;
    const p = await writeArchive(sample, start);
    expect((await stat(p)).size).toBeGreaterThan(start);
    const a = await openArchive(p);
    try {
      for (const e of sample) expect((await a.readEntry(e.name)).equals(e.data)).toBe(true);
    } finally {
      await a.close();
    }
    // The tail: zip64 end record, locator, end record with the directory offset set to 0xFFFFFFFF.
    const fh = await open(p, "r");
    try {
      const size = (await fh.stat()).size;
      const tail = Buffer.alloc(98);
      await fh.read(tail, 0, 98, size - 98);
      expect(tail.readUInt32LE(0)).toBe(0x06064b50);
      expect(Number(tail.readBigUInt64LE(48))).toBeGreaterThan(start);
      expect(tail.readUInt32LE(56)).toBe(0x07064b50);
      expect(tail.readUInt32LE(76)).toBe(0x06054b50);
      expect(tail.readUInt32LE(76 + 16)).toBe(0xffffffff);
    } finally {
      await fh.close();
    }
    const { stdout } = await run("unzip", ["-t", p], { maxBuffer: 1 << 20 }).catch(
      (e: { stdout: string; code: number }) => {
        // unzip may warn (exit 1) about the 4 GiB of zeros before the first entry; the entries must test OK.
        expect(e.code).toBe(1);
        return e;
      },
    );
    for (const e of sample) expect(stdout).toContain(`testing: ${e.name}`);
    expect(stdout).toMatch(/No errors detected/);
    expect(stdout).not.toMatch(/bad CRC/i);
  });

  it("encodes ZIP64 fields for a large size, a large offset and a large entry count", () => {
    const big = encodeCentralHeader({
      name: "x.jpg",
      size: 2 ** 32 + 5,
      crc32: 7,
      localHeaderOffset: 2 ** 33,
      dosTime: 0,
      dosDate: 0,
    });
    expect(big.readUInt32LE(20)).toBe(0xffffffff);
    expect(big.readUInt32LE(24)).toBe(0xffffffff);
    expect(big.readUInt32LE(42)).toBe(0xffffffff);
    const extra = big.subarray(46 + 5);
    expect(extra.readUInt16LE(0)).toBe(1);
    expect(extra.readUInt16LE(2)).toBe(24);
    expect([extra.readBigUInt64LE(4), extra.readBigUInt64LE(12), extra.readBigUInt64LE(20)]).toEqual([
      2n ** 32n + 5n,
      2n ** 32n + 5n,
      2n ** 33n,
    ]);
    const small = encodeCentralHeader({
      name: "x.jpg",
      size: 5,
      crc32: 7,
      localHeaderOffset: 10,
      dosTime: 0,
      dosDate: 0,
    });
    expect(small.length).toBe(46 + 5);

    const many = encodeEnd({ entries: 70_000, cdOffset: 100, cdSize: 200, endOffset: 300 });
    expect(many.length).toBe(56 + 20 + 22);
    expect(many.readBigUInt64LE(32)).toBe(70_000n);
    expect(many.readBigUInt64LE(56 + 8)).toBe(300n);
    expect(many.readUInt16LE(76 + 10)).toBe(0xffff);
    expect(many.readUInt32LE(76 + 16)).toBe(100);
    expect(encodeEnd({ entries: 3, cdOffset: 100, cdSize: 200, endOffset: 300 }).length).toBe(22);
  });

  it("gives the same bytes for the same entries", async () => {
    const [a, b] = await Promise.all([writeArchive(sample), writeArchive(sample)]);
    expect((await readFile(a)).equals(await readFile(b))).toBe(true);
  });
});
