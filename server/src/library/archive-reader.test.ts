import { mkdtemp, rename, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32, inflateRawSync } from "node:zlib";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZipFile } from "yazl";
import { DEFAULT_ARCHIVE_LIMITS } from "../config.ts";
import { AppError, ERRORS } from "../errors.ts";
import { toProblem } from "../http/problem.ts";
import { decodeEntryName, duplicateKey, entryRole, isUnsafeName } from "./archive/entry-names.ts";
import {
  ArchiveError,
  archiveOpenCount,
  openArchive,
  RATIO_FLOOR_BYTES,
  resolveArchiveLimits,
  sharpInputOptions,
  withArchive,
  type ArchiveErrorCode,
  type ArchiveHandle,
} from "./archive-reader.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "archive-reader-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Entry {
  name: string;
  data: Buffer | string;
  compress?: boolean;
}

async function zipBuffer(entries: Entry[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const e of entries) zip.addBuffer(Buffer.from(e.data), e.name, { compress: e.compress ?? false });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    zip.outputStream.on("data", (c: Buffer) => chunks.push(c));
    zip.outputStream.on("end", () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on("error", reject);
  });
  zip.end();
  return done;
}

let seq = 0;
async function writeZip(entries: Entry[]): Promise<string> {
  const path = join(dir, `r${seq++}.cbz`);
  await writeFile(path, await zipBuffer(entries));
  return path;
}

const page = (colour: string, width = 5, height = 7) =>
  sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();

async function refusal(p: Promise<unknown>): Promise<ArchiveError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ArchiveError);
  return err as ArchiveError;
}

async function expectCode(p: Promise<unknown>, code: ArchiveErrorCode, entry: string | null = null): Promise<void> {
  const err = await refusal(p);
  expect({ code: err.code, entry: err.entry }).toEqual({ code, entry });
}

describe("openArchive", () => {
  it("lists pages with their sizes and reads them byte for byte, stored or deflated", async () => {
    const p1 = await page("#f00");
    const p2 = await page("#0f0");
    const notes = "thanks for reading\n".repeat(50);
    const path = await writeZip([
      { name: "p10.png", data: p2, compress: true },
      { name: "notes.txt", data: notes, compress: true },
      { name: "p2.png", data: p1 },
    ]);
    await withArchive(path, undefined, async (a) => {
      expect(a.path).toBe(path);
      expect(a.pages.map((p) => p.name)).toEqual(["p2.png", "p10.png"]);
      expect(a.pages[0]).toEqual({ name: "p2.png", size: p1.length, compressedSize: p1.length });
      expect(a.pages[1]?.size).toBe(p2.length);
      expect(a.ignored).toEqual(["notes.txt"]);
      expect(await a.readPage(0)).toEqual(p1);
      expect(await a.readPage(1)).toEqual(p2);
      expect((await a.readEntry("notes.txt")).toString()).toBe(notes);
      expect(await a.readEntry("p10.png")).toEqual(p2);
    });
  });

  it("serves concurrent reads from its one handle", async () => {
    const pages = await Promise.all(["#100", "#200", "#300", "#400", "#500", "#600"].map((c) => page(c)));
    const path = await writeZip(pages.map((data, i) => ({ name: `${i + 1}.png`, data, compress: i % 2 === 0 })));
    await withArchive(path, undefined, async (a) => {
      const read = await Promise.all([5, 0, 3, 1, 4, 2, 0].map((i) => a.readPage(i)));
      expect(read).toEqual([5, 0, 3, 1, 4, 2, 0].map((i) => pages[i]));
    });
  });

  it("answers not_found for an entry or page it does not have", async () => {
    const path = await writeZip([{ name: "1.png", data: await page("#fff") }]);
    await withArchive(path, undefined, async (a) => {
      for (const p of [a.readEntry("2.png"), a.readEntry("1.PNG"), a.readPage(1), a.readPage(-1)]) {
        const err = await p.then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe("not_found");
      }
    });
  });

  it("reads the version it opened: a file replaced afterwards does not mix in", async () => {
    const first = await page("#abc");
    const path = await writeZip([{ name: "1.png", data: first }]);
    const a = await openArchive(path);
    try {
      const replacement = join(dir, "replacement.cbz");
      await writeFile(replacement, await zipBuffer([{ name: "1.png", data: await page("#def", 9, 9) }]));
      await rename(replacement, path);
      expect(await a.readPage(0)).toEqual(first);
    } finally {
      await a.close();
    }
    await withArchive(path, undefined, async (b) => expect(await b.readPage(0)).not.toEqual(first));
  });

  it("refuses to read past the end of a file truncated after it was opened", async () => {
    const path = await writeZip([
      { name: "1.png", data: await page("#111") },
      { name: "2.png", data: await page("#222") },
    ]);
    const a = await openArchive(path);
    try {
      await truncate(path, 40);
      await expectCode(a.readPage(1), "archive_truncated");
    } finally {
      await a.close();
    }
  });

  it("is closed after close() and after withArchive, also when the callback throws", async () => {
    const path = await writeZip([{ name: "1.png", data: await page("#123") }]);
    const a = await openArchive(path);
    await a.close();
    await a.close();
    await expect(a.readPage(0)).rejects.toThrow(/closed/);
    let kept: ArchiveHandle | null = null;
    await expect(
      withArchive(path, undefined, async (b) => {
        kept = b;
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    await expect((kept as unknown as ArchiveHandle).readEntry("1.png")).rejects.toThrow(/closed/);
  });

  it("counts every open, refused or not, so a test can prove a path opens no archive", async () => {
    const path = await writeZip([{ name: "1.png", data: await page("#321") }]);
    const before = archiveOpenCount();
    await withArchive(path, undefined, async () => undefined);
    await refusal(openArchive(join(dir, "missing.cbz")));
    await refusal(openArchive(path, { maxEntries: 0 }));
    expect(archiveOpenCount()).toBe(before + 3);
  });

  it("turns a missing file, a directory and I/O errors into archive codes without paths in the detail", async () => {
    const missing = await refusal(openArchive(join(dir, "missing.cbz")));
    expect(missing.code).toBe("archive_not_found");
    expect(missing.message).not.toContain(dir);
    const folder = await refusal(openArchive(dir));
    expect(folder.code).toBe("archive_unreadable");
    expect(folder.message).not.toContain(dir);
  });

  it("applies the ratio limit above the 1 MiB floor only", async () => {
    const path = await writeZip([
      { name: "at-floor.bin", data: Buffer.alloc(RATIO_FLOOR_BYTES), compress: true },
      { name: "1.png", data: await page("#999") },
    ]);
    await withArchive(path, undefined, async (a) =>
      expect((await a.readEntry("at-floor.bin")).length).toBe(RATIO_FLOOR_BYTES),
    );
    const over = await writeZip([{ name: "over.bin", data: Buffer.alloc(RATIO_FLOOR_BYTES + 1), compress: true }]);
    await expectCode(openArchive(over), "archive_ratio_exceeded", "over.bin");
    await withArchive(over, { maxRatio: 5000 }, async (a) =>
      expect((await a.readEntry("over.bin")).length).toBe(RATIO_FLOOR_BYTES + 1),
    );
  });

  it("applies configured entry-size, total and pixel limits", async () => {
    const big = await page("#777", 40, 30);
    const path = await writeZip([
      { name: "1.png", data: big },
      { name: "2.png", data: big },
    ]);
    await expectCode(openArchive(path, { maxEntryBytes: big.length - 1 }), "archive_entry_too_large", "1.png");
    await expectCode(openArchive(path, { maxTotalBytes: 2 * big.length - 1 }), "archive_too_large", "2.png");
    await withArchive(path, { maxTotalBytes: 2 * big.length, maxEntryBytes: big.length }, async (a) =>
      expect(a.pages.length).toBe(2),
    );
    await withArchive(path, { maxPixels: 1199 }, async (a) => expectCode(a.readPage(0), "image_too_large", "1.png"));
    await withArchive(path, { maxPixels: 1200 }, async (a) => expect(await a.readPage(1)).toEqual(big));
  });
});

describe("ArchiveError", () => {
  it("is an AppError whose problem carries the code, status and offending entry", async () => {
    const path = await writeZip([{ name: "1.png", data: "not a png" }]);
    const err = await refusal(withArchive(path, undefined, (a) => a.readPage(0)));
    expect(err).toBeInstanceOf(AppError);
    expect(err.status).toBe(ERRORS.image_unreadable.status);
    expect(err.extra).toEqual({ entry: "1.png" });
    const problem = toProblem(err);
    expect(problem).toMatchObject({
      code: "image_unreadable",
      status: 422,
      entry: "1.png",
      title: ERRORS.image_unreadable.title,
    });
  });
});

describe("limits and sharp options", () => {
  it("fills missing limits from the configuration defaults", () => {
    expect(resolveArchiveLimits()).toEqual(DEFAULT_ARCHIVE_LIMITS);
    expect(resolveArchiveLimits({ maxRatio: 10 })).toEqual({ ...DEFAULT_ARCHIVE_LIMITS, maxRatio: 10 });
  });

  it("gives every decoder the pixel limit and failOn: error", async () => {
    expect(sharpInputOptions()).toEqual({ limitInputPixels: DEFAULT_ARCHIVE_LIMITS.maxPixels, failOn: "error" });
    expect(sharpInputOptions({ maxPixels: 34 })).toEqual({ limitInputPixels: 34, failOn: "error" });
    // The options really stop sharp: a 5×7 page is over a 34-pixel limit.
    await expect(
      sharp(await page("#000"), sharpInputOptions({ maxPixels: 34 }))
        .raw()
        .toBuffer(),
    ).rejects.toThrow(/pixel limit/);
  });
});

describe("entry names", () => {
  it.each([
    ["001.png", false],
    ["vol 1/ch..1/001.png", false],
    ["..hidden.png", false],
    ["", true],
    ["a\0.png", true],
    ["bad\ufffd.png", true],
    ["/etc/x.png", true],
    ["\\x.png", true],
    ["c:x.png", true],
    ["../x.png", true],
    ["a\\..\\x.png", true],
    ["a/b/..", true],
  ])("%j is unsafe: %s", (name, unsafe) => {
    expect(isUnsafeName(name)).toBe(unsafe);
  });

  it("collide after unifying separators, dropping `.` segments and Unicode composition, but not case", () => {
    expect(duplicateKey("vol\\001.png")).toBe(duplicateKey("vol/001.png"));
    expect(duplicateKey("./vol//001.png")).toBe(duplicateKey("vol/001.png"));
    expect(duplicateKey("e\u0301.png")).toBe(duplicateKey("\u00e9.png"));
    expect(duplicateKey("Page1.png")).not.toBe(duplicateKey("page1.png"));
    expect(duplicateKey("vol/")).not.toBe(duplicateKey("vol"));
  });

  it("decode as UTF-8 when flagged or valid, otherwise as CP437", () => {
    expect(decodeEntryName(Buffer.from("ページ.png"), 0)).toBe("ページ.png");
    expect(decodeEntryName(Buffer.from([0x63, 0x61, 0x66, 0x82]), 0)).toBe("café");
    expect(decodeEntryName(Buffer.from([0x80, 0x9b, 0xe1, 0xff]), 0)).toBe("Ç¢ß\u00a0");
    expect(decodeEntryName(Buffer.from([0x61, 0xff]), 0x800)).toBe("a\ufffd");
  });

  it.each([
    ["001.jpg", "page"],
    ["ch 1/002.WEBP", "page"],
    ["a.avif", "page"],
    ["b.gif", "page"],
    ["ComicInfo.xml", "comicinfo"],
    ["COMICINFO.XML", "comicinfo"],
    ["./ComicInfo.xml", "comicinfo"],
    ["sub/ComicInfo.xml", "ignored"],
    [".cover.jpg", "ignored"],
    ["__MACOSX/001.jpg", "ignored"],
    [".git/x.png", "ignored"],
    ["notes.txt", "ignored"],
    ["001.jpg.txt", "ignored"],
  ])("%s is a %s entry", (name, role) => {
    expect(entryRole(name)).toBe(role);
  });
});

describe("entrySpan", () => {
  it("gives method, sizes, CRC and a bounded raw reader, for stored and deflated entries", async () => {
    const stored = Buffer.from("stored bytes ".repeat(100));
    const deflated = Buffer.from("deflated bytes ".repeat(400));
    const p = await writeZip([
      { name: "a.png", data: await page("#123") },
      { name: "notes.txt", data: stored },
      { name: "big.txt", data: deflated, compress: true },
    ]);
    await withArchive(p, undefined, async (a) => {
      const s = await a.entrySpan("notes.txt");
      expect({ method: s.method, size: s.size, compressedSize: s.compressedSize, crc32: s.crc32 }).toEqual({
        method: 0,
        size: stored.length,
        compressedSize: stored.length,
        crc32: crc32(stored) >>> 0,
      });
      const buf = Buffer.alloc(64);
      const out: Buffer[] = [];
      for (let at = 0; at < s.size; at += buf.length) {
        const n = Math.min(buf.length, s.size - at);
        await s.read(buf, at, n);
        out.push(Buffer.from(buf.subarray(0, n)));
      }
      expect(Buffer.concat(out).equals(stored)).toBe(true);
      await expect(s.read(buf, s.size - 10, 11)).rejects.toThrow(RangeError);
      await expect(s.read(buf, -1, 1)).rejects.toThrow(RangeError);

      const d = await a.entrySpan("big.txt");
      expect(d.method).toBe(8);
      expect(d.size).toBe(deflated.length);
      expect(d.compressedSize).toBeLessThan(deflated.length);
      expect(d.crc32).toBe(crc32(deflated) >>> 0);
      const raw = Buffer.alloc(d.compressedSize);
      await d.read(raw, 0, raw.length);
      expect(inflateRawSync(raw).equals(deflated)).toBe(true);

      const pageSpan = await a.entrySpan(a.pages[0]!.name);
      const pageBytes = Buffer.alloc(pageSpan.size);
      await pageSpan.read(pageBytes, 0, pageSpan.size);
      expect(pageBytes.equals(await a.readEntry(a.pages[0]!.name))).toBe(true);
      await expect(a.entrySpan("missing.png")).rejects.toMatchObject({ code: "not_found" });
    });
  });

  it("checks the local header like readEntry does", async () => {
    const zip = await zipBuffer([{ name: "1.png", data: await page("#456") }]);
    // The local header's name differs from the directory's: both refuse it.
    const renamed = Buffer.from(zip);
    renamed.write("2", 30, "latin1");
    const p1 = join(dir, `span${seq++}.cbz`);
    await writeFile(p1, renamed);
    await withArchive(p1, undefined, async (a) => {
      await expectCode(a.entrySpan("1.png"), "archive_unreadable", "1.png");
      await expectCode(a.readEntry("1.png"), "archive_unreadable", "1.png");
    });
    // The local header's signature is gone.
    const unsigned = Buffer.from(zip);
    unsigned.writeUInt32LE(0, 0);
    const p2 = join(dir, `span${seq++}.cbz`);
    await writeFile(p2, unsigned);
    await withArchive(p2, undefined, async (a) => {
      const err = await refusal(a.entrySpan("1.png"));
      expect(err.code).toBe("archive_unreadable");
      expect(err.message).toMatch(/local header is missing/);
    });
  });

  it("refuses to read after the handle is closed", async () => {
    const p = await writeZip([{ name: "1.png", data: await page("#789") }]);
    const a = await openArchive(p);
    const s = await a.entrySpan("1.png");
    await a.close();
    await expect(a.entrySpan("1.png")).rejects.toThrow(/closed/);
    await expect(s.read(Buffer.alloc(4), 0, 4)).rejects.toThrow(/closed/);
  });
});
