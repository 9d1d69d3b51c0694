import { createHash, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZipFile } from "yazl";
import {
  ArchiveError,
  naturalCompare,
  readArchiveIndex,
  sha256File,
  statFile,
  type ArchiveErrorCode,
} from "./archive-index.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "archive-index-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Entry {
  name: string;
  data?: Buffer | string;
  compress?: boolean;
  directory?: boolean;
}

async function zipBuffer(entries: Entry[], comment?: string): Promise<Buffer> {
  const zip = new ZipFile();
  for (const e of entries) {
    if (e.directory) zip.addEmptyDirectory(e.name);
    else zip.addBuffer(Buffer.from(e.data ?? randomBytes(64)), e.name, { compress: e.compress ?? false });
  }
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    zip.outputStream.on("data", (c: Buffer) => chunks.push(c));
    zip.outputStream.on("end", () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on("error", reject);
  });
  zip.end({ forceZip64Format: false, comment: comment ?? "" });
  return done;
}

let seq = 0;
async function writeZip(entries: Entry[], comment?: string): Promise<string> {
  const path = join(dir, `a${seq++}.cbz`);
  await writeFile(path, await zipBuffer(entries, comment));
  return path;
}

/** yazl refuses unsafe names, so archives are built with a same-length placeholder and patched. */
async function writePatchedZip(entries: Entry[], from: string, to: string): Promise<string> {
  expect(Buffer.byteLength(from)).toBe(Buffer.byteLength(to));
  const buf = await zipBuffer(entries);
  const a = Buffer.from(from);
  const b = Buffer.from(to);
  for (let i = buf.indexOf(a); i >= 0; i = buf.indexOf(a, i + 1)) b.copy(buf, i);
  const path = join(dir, `p${seq++}.cbz`);
  await writeFile(path, buf);
  return path;
}

async function expectArchiveError(p: Promise<unknown>, code: ArchiveErrorCode): Promise<ArchiveError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ArchiveError);
  expect((err as ArchiveError).code).toBe(code);
  return err as ArchiveError;
}

const COMIC_INFO = `<?xml version="1.0" encoding="utf-8"?>\n<ComicInfo><Series>Tide &amp; Stone</Series><Volume>2</Volume></ComicInfo>\n`;

describe("readArchiveIndex", () => {
  it("orders pages naturally and case-insensitively", async () => {
    const names = ["page10.jpg", "Page2.JPG", "page1.png", "page002b.webp", "page3.avif", "PAGE20.gif", "page11.jpeg"];
    const path = await writeZip(names.map((name) => ({ name })));
    const idx = await readArchiveIndex(path);
    expect(idx.pageNames).toEqual([
      "page1.png",
      "Page2.JPG",
      "page002b.webp",
      "page3.avif",
      "page10.jpg",
      "page11.jpeg",
      "PAGE20.gif",
    ]);
    expect(idx.pageCount).toBe(7);
    expect(idx.comicInfoXml).toBeNull();
    expect(idx.ignoredEntries).toEqual([]);
  });

  it("orders pages folder by folder", async () => {
    const path = await writeZip([
      { name: "ch10/01.jpg" },
      { name: "ch1 extra/01.jpg" },
      { name: "ch2/01.jpg" },
      { name: "ch1/02.jpg" },
    ]);
    expect((await readArchiveIndex(path)).pageNames).toEqual([
      "ch1/02.jpg",
      "ch1 extra/01.jpg",
      "ch2/01.jpg",
      "ch10/01.jpg",
    ]);
  });

  it("natural compare is a total order with zero padding and large numbers", () => {
    const xs = ["p10", "p2", "p02", "p1", "p99999999999999999999", "P2", "p"];
    expect([...xs].sort(naturalCompare)).toEqual(["p", "p1", "P2", "p2", "p02", "p10", "p99999999999999999999"]);
  });

  it("reads ComicInfo.xml, stored or deflated, with a BOM stripped", async () => {
    const stored = await writeZip([{ name: "001.jpg" }, { name: "ComicInfo.xml", data: COMIC_INFO }]);
    expect((await readArchiveIndex(stored)).comicInfoXml).toBe(COMIC_INFO);
    const deflated = await writeZip([
      { name: "comicinfo.XML", data: `\uFEFF${COMIC_INFO}`, compress: true },
      { name: "001.jpg" },
    ]);
    const idx = await readArchiveIndex(deflated);
    expect(idx.comicInfoXml).toBe(COMIC_INFO);
    expect(idx.pageCount).toBe(1);
  });

  it("only a root ComicInfo.xml counts; a nested one is ignored", async () => {
    const path = await writeZip([{ name: "extra/ComicInfo.xml", data: COMIC_INFO }, { name: "001.jpg" }]);
    const idx = await readArchiveIndex(path);
    expect(idx.comicInfoXml).toBeNull();
    expect(idx.ignoredEntries).toEqual(["extra/ComicInfo.xml"]);
  });

  it("ignores directories, __MACOSX, dot-files and non-images", async () => {
    const path = await writeZip([
      { name: "vol/", directory: true },
      { name: "vol/001.jpg" },
      { name: "__MACOSX/vol/._001.jpg" },
      { name: "vol/.DS_Store" },
      { name: ".hidden/002.jpg" },
      { name: "vol/._003.jpg" },
      { name: "Thumbs.db" },
      { name: "credits.txt", data: "thanks" },
      { name: "vol/002.jpg" },
    ]);
    const idx = await readArchiveIndex(path);
    expect(idx.pageNames).toEqual(["vol/001.jpg", "vol/002.jpg"]);
    expect(idx.pageCount).toBe(2);
    expect([...idx.ignoredEntries].sort()).toEqual(
      [
        "__MACOSX/vol/._001.jpg",
        "vol/.DS_Store",
        ".hidden/002.jpg",
        "vol/._003.jpg",
        "Thumbs.db",
        "credits.txt",
      ].sort(),
    );
  });

  it("never decodes or even reads image entries", async () => {
    // Random bytes named as images, and every image's local header destroyed: only the central
    // directory and ComicInfo are read, so the archive still indexes.
    const entries: Entry[] = Array.from({ length: 12 }, (_, i) => ({ name: `${i + 1}.jpg`, data: randomBytes(4096) }));
    entries.push({ name: "ComicInfo.xml", data: COMIC_INFO, compress: true });
    const buf = await zipBuffer(entries);
    const sig = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
    let broken = 0;
    for (let i = buf.indexOf(sig); i >= 0; i = buf.indexOf(sig, i + 1)) {
      const name = buf.toString("utf8", i + 30, i + 30 + buf.readUInt16LE(i + 26));
      if (name.endsWith(".jpg")) {
        buf.fill(0, i, i + 4);
        broken++;
      }
    }
    expect(broken).toBe(12);
    const path = join(dir, "undecodable.cbz");
    await writeFile(path, buf);
    const idx = await readArchiveIndex(path);
    expect(idx.pageCount).toBe(12);
    expect(idx.pageNames[9]).toBe("10.jpg");
    expect(idx.comicInfoXml).toBe(COMIC_INFO);
  });

  it.each([
    ["xx/evil.jpg", "../evil.jpg"],
    ["a/xx/b.jpg", "a/../b.jpg"],
    ["x_xx_b.jpg", "x\\..\\b.jpg"],
    ["xetc/p.jpg", "/etc/p.jpg"],
    ["xxwin/p.jpg", "C:win/p.jpg"],
  ])("refuses the unsafe entry name %s → %s", async (placeholder, unsafe) => {
    const path = await writePatchedZip([{ name: "001.jpg" }, { name: placeholder }], placeholder, unsafe);
    const err = await expectArchiveError(readArchiveIndex(path), "archive_entry_unsafe");
    expect(err.entry).toBe(unsafe);
  });

  it("refuses more entries than the limit, before reading them", async () => {
    const entries = Array.from({ length: 12 }, (_, i) => ({ name: `${i}.jpg`, data: "x" }));
    const path = await writeZip(entries);
    await expectArchiveError(readArchiveIndex(path, { maxEntries: 11 }), "archive_too_many_entries");
    expect((await readArchiveIndex(path, { maxEntries: 12 })).pageCount).toBe(12);
  });

  it("applies a default limit of 10,000 entries", async () => {
    const entries = Array.from({ length: 10_001 }, (_, i) => ({ name: `${i}.txt`, data: "" }));
    const path = await writeZip(entries);
    await expectArchiveError(readArchiveIndex(path), "archive_too_many_entries");
  });

  it("refuses a ComicInfo.xml above the size bound", async () => {
    const big = `<ComicInfo><Summary>${"x".repeat(500)}</Summary></ComicInfo>`;
    const path = await writeZip([{ name: "ComicInfo.xml", data: big, compress: true }]);
    await expectArchiveError(readArchiveIndex(path, { maxComicInfoBytes: 100 }), "archive_entry_too_large");
    expect((await readArchiveIndex(path)).comicInfoXml).toBe(big);
  });

  it("opens an archive with a long zip comment", async () => {
    const path = await writeZip([{ name: "1.jpg" }, { name: "2.jpg" }], "c".repeat(300));
    expect((await readArchiveIndex(path)).pageNames).toEqual(["1.jpg", "2.jpg"]);
  });

  it("indexes an empty archive as zero pages", async () => {
    const path = await writeZip([]);
    expect(await readArchiveIndex(path)).toEqual({
      pageCount: 0,
      pageNames: [],
      comicInfoXml: null,
      ignoredEntries: [],
    });
  });

  it("refuses a file that is not a zip", async () => {
    const text = join(dir, "notes.cbz");
    await writeFile(text, "this is not a zip archive\n".repeat(20));
    await expectArchiveError(readArchiveIndex(text), "archive_unreadable");
    const empty = join(dir, "empty.cbz");
    await writeFile(empty, "");
    await expectArchiveError(readArchiveIndex(empty), "archive_unreadable");
    const jpeg = join(dir, "image.cbz");
    await writeFile(jpeg, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(2000)]));
    await expectArchiveError(readArchiveIndex(jpeg), "archive_unreadable");
  });

  it("refuses a truncated archive", async () => {
    // The hardened reader tells a cut-short zip (archive_truncated) from a file that is no zip at all.
    const full = await zipBuffer([
      { name: "1.jpg", data: randomBytes(5000) },
      { name: "ComicInfo.xml", data: COMIC_INFO },
    ]);
    const headless = join(dir, "headless.cbz");
    await writeFile(headless, full.subarray(0, 3000));
    await expectArchiveError(readArchiveIndex(headless), "archive_truncated");
    // End record intact but the central directory it points to cut away.
    const eocd = full.subarray(full.length - 22);
    const gutted = join(dir, "gutted.cbz");
    await writeFile(gutted, Buffer.concat([full.subarray(0, 100), eocd]));
    await expectArchiveError(readArchiveIndex(gutted), "archive_truncated");
  });

  it("reports a missing file as archive_not_found", async () => {
    await expectArchiveError(readArchiveIndex(join(dir, "nope.cbz")), "archive_not_found");
  });
});

describe("sha256File and statFile", () => {
  it("hashes as lowercase hex, streaming", async () => {
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const path = join(dir, "blob.bin");
    await writeFile(path, data);
    const expected = createHash("sha256").update(data).digest("hex");
    expect(await sha256File(path)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it("hashes an empty file", async () => {
    const path = join(dir, "zero.bin");
    await pipeline(async function* () {}, createWriteStream(path));
    expect(await sha256File(path)).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("stats size and integral mtime", async () => {
    const path = join(dir, "stat.bin");
    await writeFile(path, Buffer.alloc(1234));
    await utimes(path, 1_700_000_000.789, 1_700_000_000.789);
    const s = await statFile(path);
    expect(s.size).toBe(1234);
    expect(Number.isInteger(s.mtimeMs)).toBe(true);
    expect(s.mtimeMs).toBe(1_700_000_000_789);
    expect((await readFile(path)).length).toBe(1234);
  });
});
