/**
 * Hostile and broken archives: each must be refused with the problem code (and offending entry)
 * its manifest entry names, at open or when its entries are read.
 */
import { COMIC_INFO, pngPages, refusedAtOpen, refusedAtRead, type CaseBuilder } from "./manifest.ts";
import {
  dataOffset,
  endRecord,
  hugePng,
  jpeg,
  noise,
  patchEnd,
  patchEntry,
  recordOf,
  renameLocalOnly,
  replaceBytes,
  withJpegSize,
  zip,
} from "./zip-bytes.ts";

const MiB = 1024 * 1024;
const pages3 = () => pngPages(["001.png", "002.png", "003.png"]);

/** A page-named placeholder renamed, after writing, to a name yazl refuses. */
function unsafeName(file: string, about: string, placeholder: string, unsafe: string): CaseBuilder {
  return {
    file,
    about,
    expect: refusedAtOpen("archive_entry_unsafe", unsafe),
    build: async () =>
      replaceBytes(await zip(await pngPages(["001.png", placeholder])), placeholder, Buffer.from(unsafe, "latin1")),
  };
}

const NAME_CASES: CaseBuilder[] = [
  unsafeName("bad-dotdot.cbz", "an entry named ../evil.png (zip slip)", "xx/evil.png", "../evil.png"),
  unsafeName("bad-dotdot-nested.cbz", "a `..` segment deeper in the name", "a/b/xx/xx/evil.png", "a/b/../../evil.png"),
  unsafeName(
    "bad-dotdot-backslash.cbz",
    "a `..` segment with backslash separators",
    "x_xx_evil.png",
    "x\\..\\evil.png",
  ),
  unsafeName("bad-absolute.cbz", "an absolute path", "xetc/evil.png", "/etc/evil.png"),
  unsafeName(
    "bad-absolute-backslash.cbz",
    "an absolute Windows path without a drive",
    "xwin/evil.png",
    "\\win/evil.png",
  ),
  unsafeName("bad-drive-letter.cbz", "a drive letter", "xxWindows/evil.png", "C:Windows/evil.png"),
  unsafeName("bad-nul-name.cbz", "a NUL byte inside a name", "evilX.png", "evil\0.png"),
  {
    file: "bad-invalid-utf8-flagged.cbz",
    about: "the UTF-8 flag set on a name that is not UTF-8: it cannot be named safely",
    expect: refusedAtOpen("archive_entry_unsafe", "bad\ufffd.png"),
    build: async () =>
      replaceBytes(
        await zip(await pngPages(["001.png", "badX.png"])),
        "badX.png",
        Buffer.from([0x62, 0x61, 0x64, 0xff, 0x2e, 0x70, 0x6e, 0x67]),
      ),
  },
  {
    file: "bad-symlink.cbz",
    about: "an entry whose Unix mode is a symbolic link",
    expect: refusedAtOpen("archive_symlink", "002.png"),
    build: async () =>
      zip([...(await pngPages(["001.png"])), { name: "002.png", data: "../../../etc/passwd", mode: 0o120777 }]),
  },
  {
    file: "bad-duplicate.cbz",
    about: "two entries with the same name",
    expect: refusedAtOpen("archive_duplicate_entry", "002.png"),
    build: async () => zip(await pngPages(["001.png", "002.png", "002.png"])),
  },
  {
    file: "bad-duplicate-separators.cbz",
    about: "the same path once with a slash and once with a backslash",
    expect: refusedAtOpen("archive_duplicate_entry", "vol\\001.png"),
    build: async () =>
      replaceBytes(await zip(await pngPages(["vol/001.png", "volX001.png"])), "volX001.png", "vol\\001.png"),
  },
  {
    file: "bad-duplicate-dot-segment.cbz",
    about: "the same path once plain and once through a `.` segment",
    expect: refusedAtOpen("archive_duplicate_entry", "./001.png"),
    build: async () => zip(await pngPages(["001.png", "./001.png"])),
  },
  {
    file: "bad-duplicate-unicode-forms.cbz",
    about: "the same name composed (NFC) and decomposed (NFD, as macOS writes it)",
    expect: refusedAtOpen("archive_duplicate_entry", "e\u0301.png"),
    build: async () => zip(await pngPages(["\u00e9.png", "e\u0301.png"])),
  },
];

const FLAG_CASES: CaseBuilder[] = [
  {
    file: "bad-encrypted.cbz",
    about: "traditional PKWARE encryption (flag bit 0) on one entry",
    expect: refusedAtOpen("archive_encrypted", "002.png"),
    build: async () =>
      patchEntry(await zip(await pages3()), "002.png", {
        central: { flags: (f) => f | 1 },
        local: { flags: (f) => f | 1 },
      }),
  },
  {
    file: "bad-encrypted-aes.cbz",
    about: "WinZip AES encryption (method 99)",
    expect: refusedAtOpen("archive_encrypted", "001.png"),
    build: async () =>
      patchEntry(await zip(await pages3()), "001.png", { central: { method: 99 }, local: { method: 99 } }),
  },
  {
    file: "bad-encrypted-local-only.cbz",
    about: "the encryption flag only in the local header: found when the entry is read",
    expect: refusedAtRead("archive_encrypted", "003.png"),
    build: async () => patchEntry(await zip(await pages3()), "003.png", { local: { flags: (f) => f | 1 } }),
  },
  {
    file: "bad-method-bzip2.cbz",
    about: "compression method 12 (bzip2): only stored and deflate are read",
    expect: refusedAtOpen("archive_unsupported", "002.png"),
    build: async () =>
      patchEntry(await zip(await pages3()), "002.png", { central: { method: 12 }, local: { method: 12 } }),
  },
  {
    file: "bad-multi-disk.cbz",
    about: "an end record of a spanned (multi-part) archive",
    expect: refusedAtOpen("archive_unsupported"),
    build: async () => patchEnd(await zip(await pages3()), [{ at: 4, width: 2, value: 1 }]),
  },
];

const LIMIT_CASES: CaseBuilder[] = [
  {
    file: "bad-10001-entries.cbz",
    about: "10,001 entries, one over the default limit",
    expect: refusedAtOpen("archive_too_many_entries"),
    build: () => zip(Array.from({ length: 10_001 }, (_, i) => ({ name: `${i}.txt`, data: "" }))),
  },
  {
    file: "bad-entries-over-configured-limit.cbz",
    about: "six entries against a configured limit of five",
    limits: { maxEntries: 5 },
    expect: refusedAtOpen("archive_too_many_entries"),
    build: async () => zip(await pngPages(["1.png", "2.png", "3.png", "4.png", "5.png", "6.png"])),
  },
  {
    file: "bad-bomb-ratio.cbz",
    about: "16 MiB of zeros deflated to about 16 KB (ratio ≈ 1000:1), sizes honest",
    expect: refusedAtOpen("archive_ratio_exceeded", "bomb.png"),
    build: async () =>
      zip([...(await pngPages(["001.png"])), { name: "bomb.png", data: Buffer.alloc(16 * MiB), compress: true }]),
  },
  {
    file: "bad-bomb-no-compressed-bytes.cbz",
    about: "an entry declaring 100 MiB from 0 compressed bytes",
    expect: refusedAtOpen("archive_ratio_exceeded", "void.bin"),
    build: async () =>
      patchEntry(
        await zip([...(await pngPages(["001.png"])), { name: "void.bin", data: "x", compress: true }]),
        "void.bin",
        {
          central: { compressedSize: 0, uncompressedSize: 100 * MiB },
        },
      ),
  },
  {
    file: "bad-bomb-lying-sizes-total.cbz",
    about: "20 entries whose directory claims 500 MiB each (ratio 166:1): more than the 8 GiB total",
    expect: refusedAtOpen("archive_too_large", "part-17.bin"),
    build: async () => {
      const names = Array.from({ length: 20 }, (_, i) => `part-${String(i + 1).padStart(2, "0")}.bin`);
      const buf = await zip(names.map((name) => ({ name, data: Buffer.alloc(1024), compress: true })));
      for (const name of names)
        patchEntry(buf, name, { central: { uncompressedSize: 500 * MiB, compressedSize: 3 * MiB } });
      return buf;
    },
  },
  {
    file: "bad-total-over-configured-limit.cbz",
    about: "three honest 400 KB entries against a configured total of 1,000,000 bytes",
    limits: { maxTotalBytes: 1_000_000 },
    expect: refusedAtOpen("archive_too_large", "c.bin"),
    build: () => zip(["a.bin", "b.bin", "c.bin"].map((name) => ({ name, data: noise(400 * 1024, name) }))),
  },
  {
    file: "bad-entry-declared-too-large.cbz",
    about: "an entry declaring 600 MiB, over the 512 MiB entry limit",
    expect: refusedAtOpen("archive_entry_too_large", "big.bin"),
    build: async () =>
      patchEntry(
        await zip([
          ...(await pngPages(["001.png"])),
          { name: "big.bin", data: Buffer.alloc(64 * 1024), compress: true },
        ]),
        "big.bin",
        {
          central: { uncompressedSize: 600 * MiB },
        },
      ),
  },
  {
    file: "bad-comicinfo-too-large.cbz",
    about: "a stored ComicInfo.xml of 1.1 MiB, over the 1 MiB ComicInfo bound",
    expect: refusedAtOpen("archive_entry_too_large", "ComicInfo.xml"),
    build: async () =>
      zip([
        ...(await pngPages(["001.png"])),
        {
          name: "ComicInfo.xml",
          data: `<ComicInfo><Summary>${noise(560 * 1024, "ci").toString("hex")}</Summary></ComicInfo>`,
        },
      ]),
  },
  {
    file: "bad-bomb-lying-uncompressed-size.cbz",
    about: "16 MiB of zeros whose headers claim 20,000 bytes: inflating stops past the claim",
    expect: refusedAtRead("archive_entry_too_large", "bomb.xml"),
    build: async () =>
      patchEntry(
        await zip([
          ...(await pngPages(["001.png"])),
          { name: "bomb.xml", data: Buffer.alloc(16 * MiB), compress: true },
        ]),
        "bomb.xml",
        {
          central: { uncompressedSize: 20_000 },
          local: { uncompressedSize: 20_000 },
        },
      ),
  },
  {
    file: "bad-overlapping-entries.cbz",
    about: "two directory records pointing at the same data (the overlapping-files zip bomb)",
    expect: refusedAtOpen("archive_unreadable", "002.png"),
    build: async () => {
      const buf = await zip(await pngPages(["001.png", "002.png"]));
      return patchEntry(buf, "002.png", { central: { localOffset: recordOf(buf, "001.png").local } });
    },
  },
];

const DAMAGE_CASES: CaseBuilder[] = [
  {
    file: "bad-crc-page.cbz",
    about: "a page whose CRC-32 does not match its bytes",
    expect: refusedAtRead("archive_crc_mismatch", "002.png"),
    build: async () =>
      patchEntry(await zip(await pages3()), "002.png", {
        central: { crc: (c) => c ^ 1 },
        local: { crc: (c) => c ^ 1 },
      }),
  },
  {
    file: "bad-crc-comicinfo.cbz",
    about: "a ComicInfo.xml whose CRC-32 does not match (read at open)",
    expect: refusedAtOpen("archive_crc_mismatch", "ComicInfo.xml"),
    build: async () =>
      patchEntry(await zip([...(await pages3()), { name: "ComicInfo.xml", data: COMIC_INFO }]), "ComicInfo.xml", {
        central: { crc: (c) => c ^ 0x100 },
      }),
  },
  {
    file: "bad-corrupt-deflate.cbz",
    about: "deflated text with bytes overwritten in the middle of its compressed data",
    expect: refusedAtRead("archive_crc_mismatch", "notes.txt"),
    build: async () => {
      const text = Array.from({ length: 2000 }, (_, i) => `line ${i}: the tide keeps the stone\n`).join("");
      const buf = await zip([...(await pages3()), { name: "notes.txt", data: text, compress: true }]);
      buf.fill(0xaa, dataOffset(buf, "notes.txt") + 200, dataOffset(buf, "notes.txt") + 216);
      return buf;
    },
  },
  {
    file: "bad-local-header-missing.cbz",
    about: "a page whose local header signature was destroyed",
    expect: refusedAtRead("archive_unreadable", "002.png"),
    build: async () => patchEntry(await zip(await pages3()), "002.png", { local: { signature: 0 } }),
  },
  {
    file: "bad-local-name-differs.cbz",
    about: "a local header naming another file than the central directory does",
    expect: refusedAtRead("archive_unreadable", "003.png"),
    build: async () => renameLocalOnly(await zip(await pages3()), "003.png", "004.png"),
  },
  {
    file: "bad-truncated-tail.cbz",
    about: "the last 100 bytes cut off (end record gone)",
    expect: refusedAtOpen("archive_truncated"),
    build: async () => (await zip(await pages3())).subarray(0, -100),
  },
  {
    file: "bad-truncated-half.cbz",
    about: "cut in the middle of its pages",
    expect: refusedAtOpen("archive_truncated"),
    build: async () => {
      const buf = await zip(await pages3());
      return buf.subarray(0, Math.floor(buf.length / 2));
    },
  },
  {
    file: "bad-truncated-directory-gone.cbz",
    about: "the end record intact, the central directory it points to cut away",
    expect: refusedAtOpen("archive_truncated"),
    build: async () => {
      const buf = await zip(await pages3());
      return Buffer.concat([buf.subarray(0, 100), buf.subarray(endRecord(buf))]);
    },
  },
  {
    file: "bad-directory-garbled.cbz",
    about: "a central directory record whose signature is destroyed",
    expect: refusedAtOpen("archive_unreadable"),
    build: async () => {
      const buf = await zip(await pages3());
      buf.writeUInt32LE(0x12345678, recordOf(buf, "002.png").central);
      return buf;
    },
  },
  {
    file: "bad-zip64-without-locator.cbz",
    about: "an end record with zip64 markers (0xFFFF entries) but no zip64 locator",
    expect: refusedAtOpen("archive_unreadable"),
    build: async () =>
      patchEnd(await zip(await pages3()), [
        { at: 8, width: 2, value: 0xffff },
        { at: 10, width: 2, value: 0xffff },
      ]),
  },
  {
    file: "bad-comment-over-64k.cbz",
    about: "70,000 bytes after the end record, more than a zip comment can hold",
    expect: refusedAtOpen("archive_unreadable"),
    build: async () => Buffer.concat([await zip(await pages3()), Buffer.alloc(70_000, "c")]),
  },
  {
    file: "bad-not-a-zip.cbz",
    about: "a text file with a .cbz name",
    expect: refusedAtOpen("archive_unreadable"),
    build: async () => Buffer.from("this is not a zip archive\n".repeat(40)),
  },
  {
    file: "bad-jpeg-named-cbz.cbz",
    about: "a JPEG image with a .cbz name",
    expect: refusedAtOpen("archive_unreadable"),
    build: () => jpeg(5),
  },
  {
    file: "bad-empty-file.cbz",
    about: "a zero-byte file",
    expect: refusedAtOpen("archive_unreadable"),
    build: async () => Buffer.alloc(0),
  },
];

const IMAGE_CASES: CaseBuilder[] = [
  {
    file: "bad-huge-png.cbz",
    about: "a 20000×20000 PNG header (400 megapixels) in a few hundred bytes: refused from its header",
    expect: refusedAtRead("image_too_large", "002.png"),
    build: async () =>
      zip([
        ...(await pngPages(["001.png"])),
        { name: "002.png", data: hugePng(20_000, 20_000) },
        ...(await pngPages(["003.png"])),
      ]),
  },
  {
    file: "bad-huge-jpeg.cbz",
    about: "a JPEG whose frame header claims 20000×20000",
    expect: refusedAtRead("image_too_large", "002.jpg"),
    build: async () =>
      zip([...(await pngPages(["001.png"])), { name: "002.jpg", data: withJpegSize(await jpeg(2), 20_000, 20_000) }]),
  },
  {
    file: "bad-pixels-over-configured-limit.cbz",
    about: "a 4×6 page against a configured limit of 20 pixels",
    limits: { maxPixels: 20 },
    expect: refusedAtRead("image_too_large", "001.png"),
    build: async () => zip(await pngPages(["001.png"])),
  },
  {
    file: "bad-zero-byte-page.cbz",
    about: "a page of zero bytes",
    expect: refusedAtRead("image_unreadable", "002.png"),
    build: async () => zip([...(await pngPages(["001.png"])), { name: "002.png", data: "" }]),
  },
  {
    file: "bad-page-not-an-image.cbz",
    about: "a page named .jpg holding text",
    expect: refusedAtRead("image_unreadable", "002.jpg"),
    build: async () => zip([...(await pngPages(["001.png"])), { name: "002.jpg", data: "<html>not a picture</html>" }]),
  },
];

export const HOSTILE_CASES: CaseBuilder[] = [
  ...NAME_CASES,
  ...FLAG_CASES,
  ...LIMIT_CASES,
  ...DAMAGE_CASES,
  ...IMAGE_CASES,
];
