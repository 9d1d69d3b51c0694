/**
 * Odd but acceptable archives: each must open and read, with the pages, ignored entries and
 * ComicInfo its manifest entry names.
 */
import { COMIC_INFO, ok, pngPages, type CaseBuilder } from "./manifest.ts";
import { jpeg, noise, patchEntry, png, replaceBytes, zip } from "./zip-bytes.ts";

export const ODD_CASES: CaseBuilder[] = [
  {
    file: "ok-basic.cbz",
    about: "three stored PNG pages and a root ComicInfo.xml",
    expect: ok(["001.png", "002.png", "003.png"], [], COMIC_INFO),
    build: async () =>
      zip([...(await pngPages(["001.png", "002.png", "003.png"])), { name: "ComicInfo.xml", data: COMIC_INFO }]),
  },
  {
    file: "ok-natural-order.cbz",
    about: "page2 before page10, any case, zero padding",
    expect: ok(["page1.png", "page2.png", "Page3.PNG", "page10.png", "page11.png"]),
    build: async () => zip(await pngPages(["page10.png", "page2.png", "page11.png", "Page3.PNG", "page1.png"])),
  },
  {
    file: "ok-nested-folders.cbz",
    about: "pages in nested folders with directory entries, ordered folder by folder",
    expect: ok(["vol/ch1/001.png", "vol/ch1 extra/001.png", "vol/ch2/001.png", "vol/ch10/001.png"]),
    build: async () =>
      zip([
        { name: "vol/", directory: true },
        { name: "vol/ch10/", directory: true },
        ...(await pngPages(["vol/ch10/001.png", "vol/ch2/001.png", "vol/ch1 extra/001.png", "vol/ch1/001.png"])),
      ]),
  },
  {
    file: "ok-macosx-dotfiles.cbz",
    about: "__MACOSX resource forks, .DS_Store, AppleDouble and hidden folders are ignored and reported",
    expect: ok(
      ["001.png", "002.png"],
      ["__MACOSX/._001.png", ".DS_Store", "._002.png", ".hidden/003.png", "vol/.thumb.png"],
    ),
    build: async () =>
      zip([
        ...(await pngPages(["001.png"])),
        { name: "__MACOSX/._001.png", data: "resource fork" },
        { name: ".DS_Store", data: "Bud1" },
        { name: "._002.png", data: "apple double" },
        ...(await pngPages([".hidden/003.png", "vol/.thumb.png", "002.png"])),
      ]),
  },
  {
    file: "ok-comicinfo-subfolder.cbz",
    about: "a ComicInfo.xml in a subfolder is not the archive's: ignored",
    expect: ok(["001.png"], ["extra/ComicInfo.xml"]),
    build: async () => zip([{ name: "extra/ComicInfo.xml", data: COMIC_INFO }, ...(await pngPages(["001.png"]))]),
  },
  {
    file: "ok-non-image.cbz",
    about: "text, Thumbs.db and other non-images are ignored and reported",
    expect: ok(["001.png", "002.png"], ["credits.txt", "Thumbs.db", "cover.psd", "readme"]),
    build: async () =>
      zip([
        { name: "credits.txt", data: "scanned by nobody" },
        ...(await pngPages(["001.png"])),
        { name: "Thumbs.db", data: noise(64, "thumbs") },
        { name: "cover.psd", data: noise(200, "psd") },
        { name: "readme", data: "no extension" },
        ...(await pngPages(["002.png"])),
      ]),
  },
  { file: "ok-empty.cbz", about: "an archive without entries: zero pages", expect: ok([]), build: () => zip([]) },
  {
    file: "ok-directory-only.cbz",
    about: "only a directory entry: zero pages, nothing reported",
    expect: ok([]),
    build: () => zip([{ name: "chapter 1/", directory: true }]),
  },
  {
    file: "ok-zero-byte-entry.cbz",
    about: "a zero-byte non-image entry reads as an empty buffer",
    expect: ok(["001.png"], ["empty.txt"]),
    build: async () => zip([...(await pngPages(["001.png"])), { name: "empty.txt", data: "" }]),
  },
  {
    file: "ok-comment-max.cbz",
    about: "a zip comment of 65,535 bytes (the most the format holds)",
    expect: ok(["001.png"]),
    build: async () => zip(await pngPages(["001.png"]), { comment: Buffer.alloc(0xffff, "c") }),
  },
  {
    file: "ok-comment-fake-end-record.cbz",
    about: "a comment that holds a fake end-of-central-directory record: the real one is found",
    expect: ok(["001.png", "002.png"]),
    build: async () => {
      const buf = await zip(await pngPages(["001.png", "002.png"]), { comment: Buffer.alloc(300, "c") });
      const fake = Buffer.alloc(22);
      fake.writeUInt32LE(0x06054b50, 0);
      fake.writeUInt16LE(7, 8);
      fake.writeUInt16LE(7, 10);
      fake.writeUInt32LE(0x7fff, 16);
      fake.copy(buf, buf.length - 200);
      return buf;
    },
  },
  {
    file: "ok-data-descriptor.cbz",
    about: "entries written from streams: bit 3 set, sizes and CRC in data descriptors",
    expect: ok(["001.png", "002.png"], [], COMIC_INFO),
    build: async () =>
      zip([
        ...(await pngPages(["001.png", "002.png"])).map((e) => ({ ...e, stream: true, compress: true })),
        { name: "ComicInfo.xml", data: COMIC_INFO, stream: true, compress: true },
      ]),
  },
  {
    file: "ok-stored-and-deflated.cbz",
    about: "stored and deflated pages mixed, a deflated ComicInfo",
    expect: ok(["001.png", "002.jpg", "003.png", "004.jpg"], [], COMIC_INFO),
    build: async () =>
      zip([
        { name: "001.png", data: await png(1), compress: true },
        { name: "002.jpg", data: await jpeg(2), compress: false },
        { name: "003.png", data: await png(3), compress: false },
        { name: "004.jpg", data: await jpeg(4), compress: true },
        { name: "ComicInfo.xml", data: COMIC_INFO, compress: true },
      ]),
  },
  {
    file: "ok-unicode-names.cbz",
    about: "Japanese, accented and emoji names (UTF-8 flag set)",
    expect: ok(["café/é 1.png", "第1話/ページ2.png", "第1話/ページ10.png", "🎌.png"]),
    build: async () => zip(await pngPages(["第1話/ページ10.png", "🎌.png", "第1話/ページ2.png", "café/é 1.png"])),
  },
  {
    file: "ok-case-only-names.cbz",
    about:
      "names that differ only in case are two entries (nothing is extracted by name); the first root ComicInfo counts",
    expect: ok(["Page1.png", "page1.png"], ["comicinfo.xml"], COMIC_INFO),
    build: async () =>
      zip([
        ...(await pngPages(["Page1.png", "page1.png"])),
        { name: "ComicInfo.xml", data: COMIC_INFO },
        { name: "comicinfo.xml", data: "<other/>" },
      ]),
  },
  {
    file: "ok-zip64.cbz",
    about: "zip64 end records and zip64 extra fields on every entry",
    expect: ok(["001.png", "002.png"], [], COMIC_INFO),
    build: async () =>
      zip([...(await pngPages(["001.png", "002.png"])), { name: "ComicInfo.xml", data: COMIC_INFO, compress: true }], {
        zip64: true,
      }),
  },
  {
    file: "ok-backslash-names.cbz",
    about: "backslashes as folder separators (Windows tools): ordered folder by folder",
    expect: ok(["ch1\\001.png", "ch1\\002.png", "ch2\\001.png"]),
    build: async () => {
      const names = ["ch2_001.png", "ch1_002.png", "ch1_001.png"];
      const buf = await zip(await pngPages(names));
      for (const n of names) replaceBytes(buf, n, n.replace("_", "\\"));
      return buf;
    },
  },
  {
    file: "ok-cp437-names.cbz",
    about: "a name without the UTF-8 flag and not valid UTF-8 is decoded as CP437",
    expect: ok(["café.png", "naïve.png"]),
    build: async () => {
      const buf = await zip(await pngPages(["cafX.png", "naYve.png"]));
      for (const name of ["cafX.png", "naYve.png"])
        patchEntry(buf, name, { central: { flags: (f) => f & ~0x800 }, local: { flags: (f) => f & ~0x800 } });
      replaceBytes(buf, "cafX.png", Buffer.from([0x63, 0x61, 0x66, 0x82, 0x2e, 0x70, 0x6e, 0x67]));
      return replaceBytes(buf, "naYve.png", Buffer.from([0x6e, 0x61, 0x8b, 0x76, 0x65, 0x2e, 0x70, 0x6e, 0x67]));
    },
  },
  {
    file: "ok-comicinfo-utf16.cbz",
    about: "a ComicInfo.xml in UTF-16LE with its byte-order mark",
    expect: ok(["001.png"], [], COMIC_INFO),
    build: async () =>
      zip([
        ...(await pngPages(["001.png"])),
        { name: "ComicInfo.xml", data: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(COMIC_INFO, "utf16le")]) },
      ]),
  },
  {
    file: "ok-compressible-below-floor.cbz",
    about: "900 KB of spaces deflated (ratio ≈ 1000:1) is below the ratio floor of 1 MiB: not a bomb",
    expect: ok(["001.png"], ["notes.txt"]),
    build: async () =>
      zip([
        ...(await pngPages(["001.png"])),
        { name: "notes.txt", data: Buffer.alloc(900 * 1024, " "), compress: true },
      ]),
  },
  {
    file: "ok-10000-entries.cbz",
    about: "exactly the default entry limit (10,000 entries)",
    expect: ok(
      ["001.png", "002.png"],
      Array.from({ length: 9998 }, (_, i) => `e${String(i).padStart(5, "0")}.txt`),
    ),
    build: async () =>
      zip([
        ...(await pngPages(["001.png", "002.png"])),
        ...Array.from({ length: 9998 }, (_, i) => ({ name: `e${String(i).padStart(5, "0")}.txt`, data: "" })),
      ]),
  },
  {
    file: "ok-deflated-bomb-within-ratio.cbz",
    about: "4 MiB of zeros deflated, allowed by a configured ratio limit of 2000:1",
    limits: { maxRatio: 2000 },
    expect: ok(["001.png"], ["zeros.bin"]),
    build: async () =>
      zip([
        ...(await pngPages(["001.png"])),
        { name: "zeros.bin", data: Buffer.alloc(4 * 1024 * 1024), compress: true },
      ]),
  },
];
