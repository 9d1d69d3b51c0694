import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { Open } from "unzipper";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareLabels, label, type Label } from "../domain/labels.ts";
import { elementNames, type FormatVersion } from "../../test/comicinfo/format.ts";
import { assertValidXml, COMICINFO_XSD_20, COMICINFO_XSD_21 } from "../../test/xmllint.ts";
import { readArchiveIndex } from "./archive-index.ts";
import { comicInfoXml, generateDemoLibrary, type ComicInfoFields, type DemoPlan, type DemoSeries } from "./demo.ts";

const run = promisify(execFile);
const XSD_21 = COMICINFO_XSD_21;
const XSD_20 = COMICINFO_XSD_20;
const SERVER_DIR = join(import.meta.dirname, "..", "..");

let tmp: string;
let root: string;
let plan: DemoPlan;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "demo-library-"));
  root = join(tmp, "library");
  plan = await generateDemoLibrary(root);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Schema validation with libxml2 (xmllint-wasm: no system package needed). */
async function xmllint(xsd: FormatVersion, files: string[]): Promise<void> {
  await assertValidXml(
    xsd,
    await Promise.all(files.map(async (f) => ({ name: basename(f), xml: await readFile(f, "utf8") }))),
  );
}

let xmlSeq = 0;
async function validate(xml: string, xsd: FormatVersion = XSD_21): Promise<void> {
  const path = join(tmp, `ComicInfo-${xmlSeq++}.xml`);
  await writeFile(path, xml);
  await xmllint(xsd, [path]);
}

const find = (pred: (s: DemoSeries) => boolean): DemoSeries => {
  const s = plan.series.find(pred);
  if (!s) throw new Error("demo has no series of that shape");
  return s;
};
const books = (s: DemoSeries) => s.files.filter((f) => f.kind === "book");
const chapterFiles = (s: DemoSeries) => s.files.filter((f) => f.kind === "chapter");

/** Main chapters of a book in the operator map that are on disk (every part present). */
function bookProgress(s: DemoSeries, volume: Label): { onDisk: number; mapped: number } {
  const entry = s.operatorMap?.find((e) => e.volume === volume);
  const main = (entry?.chapters ?? []).filter((c) => !s.chapters.find((x) => x.number === c)?.extra);
  const onDisk = main.filter((c) => {
    const parts = s.chapters.find((x) => x.number === c)?.parts ?? 1;
    const present = chapterFiles(s).filter((f) => f.chapter === c);
    return parts === 1 ? present.length > 0 : new Set(present.map((f) => f.part)).size === parts;
  });
  return { onDisk: onDisk.length, mapped: main.length };
}

describe("generateDemoLibrary", () => {
  it("writes exactly the planned files, one folder per series, no temp file left", async () => {
    expect((await readdir(root)).sort()).toEqual(plan.series.map((s) => s.folder).sort());
    for (const s of plan.series) {
      expect(s.folder).toBe(s.title);
      expect((await readdir(join(root, s.folder))).sort()).toEqual(s.files.map((f) => f.name).sort());
    }
  });

  it("writes valid zips of stored JPEG pages that decode, with the planned page counts", async () => {
    for (const s of plan.series) {
      const [w, h] = s.webtoon ? [800, 2400] : [600, 900];
      for (const f of s.files) {
        const path = join(root, s.folder, f.name);
        const index = await readArchiveIndex(path);
        expect(index.pageCount, f.name).toBe(f.pageCount);
        expect(f.pageCount).toBeGreaterThanOrEqual(s.webtoon ? 3 : 4);
        expect(index.ignoredEntries).toEqual([]);
        expect(index.comicInfoXml !== null, f.name).toBe(f.hasComicInfo);
        const dir = await Open.file(path);
        for (const entry of dir.files.filter((e) => e.path.endsWith(".jpg"))) {
          expect(entry.compressionMethod, `${f.name}/${entry.path} stored`).toBe(0);
          const data = await entry.buffer();
          expect((await sharp(data).metadata()).format).toBe("jpeg");
          const { info } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
          expect([info.width, info.height]).toEqual([w, h]);
        }
      }
    }
  });

  it("names files so that the plan can be read back from them", () => {
    const re = /^(.+?)(?: v(\d{2})| - c(\d{3}(?:\.\d+)?)(?: \(part (\d)\))?| - Episode (\d{2}))\.cbz$/;
    for (const s of plan.series) {
      for (const f of s.files) {
        const m = re.exec(f.name);
        expect(m, f.name).not.toBeNull();
        const [, title, vol, ch, part, ep] = m ?? [];
        expect(title).toBe(s.title);
        expect(f.kind).toBe(vol ? "book" : "chapter");
        expect(f.volume).toBe(vol ? label(vol) : null);
        expect(f.chapter).toBe(ch || ep ? label((ch ?? ep) as string) : null);
        expect(f.part).toBe(part ? Number(part) : null);
      }
    }
  });

  it("returns a plan consistent with the files", () => {
    expect(plan.series).toHaveLength(5);
    for (const s of plan.series) {
      expect(s.language).toBe("en");
      const chapterLabels = s.chapters.map((c) => c.number);
      for (const l of [...s.volumes, ...chapterLabels]) expect(label(l)).toBe(l);
      expect(new Set(chapterLabels).size).toBe(chapterLabels.length);
      expect([...chapterLabels].sort(compareLabels)).toEqual(chapterLabels);
      if (s.knownBookCount !== null) expect(s.volumes).toHaveLength(s.knownBookCount);
      for (const f of books(s)) expect(s.volumes).toContain(f.volume);
      for (const f of chapterFiles(s)) {
        const slot = s.chapters.find((c) => c.number === f.chapter);
        expect(slot, f.name).toBeDefined();
        if (f.part !== null) expect(f.part).toBeLessThanOrEqual(slot?.parts ?? 1);
        else expect(slot?.parts).toBe(1);
      }
      const mapped = (s.operatorMap ?? []).flatMap((e) => e.chapters);
      expect(new Set(mapped).size, "a chapter in two books").toBe(mapped.length);
      for (const e of s.operatorMap ?? []) {
        expect(s.volumes).toContain(e.volume);
        for (const c of e.chapters) expect(chapterLabels).toContain(c);
      }
    }
  });

  it("has a finished series owned as books", () => {
    const s = find((x) => x.status === "finished" && x.operatorMap === null);
    expect(chapterFiles(s)).toEqual([]);
    expect(books(s).map((f) => f.volume)).toEqual(s.volumes);
    expect(s.files.some((f) => f.hasComicInfo) && s.files.some((f) => !f.hasComicInfo)).toBe(true);
  });

  it("has a running series owned as chapters, with a chapter 0 and a 10.5", () => {
    const s = find((x) => x.status === "running" && !x.webtoon);
    expect(books(s)).toEqual([]);
    expect(s.volumes).toEqual([]);
    expect(chapterFiles(s).map((f) => f.chapter)).toEqual(expect.arrayContaining(["0", "10.5", "24"]));
    expect(chapterFiles(s)).toHaveLength(s.chapters.length);
    expect(s.files.map((f) => f.name)).toEqual(
      expect.arrayContaining([`${s.title} - c000.cbz`, `${s.title} - c010.5.cbz`]),
    );
  });

  it("has a mixed series with an exact operator map: one book partly on disk, one complete", () => {
    const s = find((x) => x.operatorMap !== null);
    expect(s.status).toBe("finished");
    expect(s.operatorMap?.map((e) => e.volume)).toEqual(s.volumes);
    const owned = new Set(books(s).map((f) => f.volume));
    expect(owned.size).toBeGreaterThan(0);
    const unowned = s.volumes.filter((v) => !owned.has(v)).map((v) => bookProgress(s, v));
    expect(
      unowned.some((p) => p.onDisk > 0 && p.onDisk < p.mapped),
      "a book with N of M chapters",
    ).toBe(true);
    expect(
      unowned.some((p) => p.onDisk === p.mapped && p.mapped > 0),
      "a book complete from chapters",
    ).toBe(true);
    const split = s.chapters.filter((c) => c.parts === 2);
    expect(split).toHaveLength(1);
    const parts = chapterFiles(s)
      .filter((f) => f.chapter === split[0]?.number)
      .map((f) => f.part);
    expect(parts.sort()).toEqual([1, 2]);
    const extra = s.chapters.filter((c) => c.extra);
    expect(extra.length).toBeGreaterThan(0);
    expect(
      extra.every((c) => mappedTo(s, c.number) !== null),
      "extras keep their book",
    ).toBe(true);
  });

  it("has a mixed series without a map: books plus later chapter files", () => {
    const s = find((x) => x.operatorMap === null && books(x).length > 0 && chapterFiles(x).length > 0);
    // Chapters before the first chapter file are presumably inside the books, but nothing says which.
    const firstFile = chapterFiles(s)
      .map((f) => f.chapter as Label)
      .sort(compareLabels)[0] as Label;
    expect(s.chapters.some((c) => compareLabels(c.number, firstFile) < 0)).toBe(true);
  });

  it("has a webtoon of tall strips, chapters only, named Episode NN", () => {
    const s = find((x) => x.webtoon);
    expect(books(s)).toEqual([]);
    expect(s.files.every((f) => / - Episode \d{2}\.cbz$/.test(f.name))).toBe(true);
  });

  it("writes ComicInfo valid against the v2.1 draft and v2.0, Volume without Number in books", async () => {
    const files: string[] = [];
    for (const s of plan.series) {
      for (const f of s.files.filter((x) => x.hasComicInfo)) {
        const xml = (await readArchiveIndex(join(root, s.folder, f.name))).comicInfoXml ?? "";
        expect(xml).toContain(`<PageCount>${f.pageCount}</PageCount>`);
        expect(xml).toContain("<Manga>YesAndRightToLeft</Manga>");
        if (f.kind === "book") {
          expect(xml).toContain(`<Volume>${f.volume}</Volume>`);
          expect(xml).not.toContain("<Number>");
          expect(xml).toContain(`<Series>${s.title.replace(/&/g, "&amp;")}</Series>`);
        } else {
          expect(xml).toContain(`<Number>${f.chapter}</Number>`);
        }
        const path = join(tmp, `demo-${files.length}.xml`);
        await writeFile(path, xml);
        files.push(path);
      }
    }
    expect(files.length).toBeGreaterThan(3);
    await xmllint(XSD_21, files);
    await xmllint(XSD_20, files);
  });

  it("refuses to write over an existing series folder", async () => {
    const other = join(tmp, "occupied");
    const taken = plan.series[2]?.folder as string;
    await mkdir(join(other, taken), { recursive: true });
    await writeFile(join(other, taken, "mine.cbz"), "operator's file");
    await expect(generateDemoLibrary(other)).rejects.toThrow(/already exists/);
    expect(await readdir(other)).toEqual([taken]);
    expect(await readFile(join(other, taken, "mine.cbz"), "utf8")).toBe("operator's file");
  });

  it("renders pages on a machine without any font", async () => {
    const conf = join(tmp, "no-fonts.conf");
    await writeFile(conf, `<?xml version="1.0"?>\n<fontconfig></fontconfig>\n`);
    const script = [
      `import { renderPage } from "./src/library/demo-pages.ts";`,
      `const palette = { bg: "#eee", paper: "#fff", ink: "#222", accent: "#c55", accent2: "#358" };`,
      `const page = await renderPage({ title: "No Font Title", heading: "Vol. 1", page: 2, pages: 5, width: 600, height: 900, palette, strip: false });`,
      `process.stdout.write(page.toString("base64"));`,
    ].join("\n");
    const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: SERVER_DIR,
      env: { ...process.env, FONTCONFIG_FILE: conf, XDG_CACHE_HOME: join(tmp, "cache"), HOME: tmp },
      maxBuffer: 16 * 1024 * 1024,
    });
    const meta = await sharp(Buffer.from(stdout, "base64")).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 600, 900]);
  });
});

function mappedTo(s: DemoSeries, c: Label): Label | null {
  return s.operatorMap?.find((e) => e.chapters.includes(c))?.volume ?? null;
}

describe("comicInfoXml", () => {
  const everything: Required<ComicInfoFields> = {
    Title: `Chapter <1> & "the" 'start'`,
    Series: "Tide & Stone",
    Number: "10.5",
    Count: 12,
    Volume: 3,
    AlternateSeries: "Alt",
    AlternateNumber: "2",
    AlternateCount: 4,
    Summary: "Line one\nline two \u0007bell",
    Notes: "n",
    Year: 2024,
    Month: 5,
    Day: 31,
    Writer: "W",
    Penciller: "P",
    Inker: "I",
    Colorist: "C",
    Letterer: "L",
    CoverArtist: "CA",
    Editor: "E",
    Translator: "T",
    Publisher: "Pub",
    Imprint: "Imp",
    Genre: "Drama",
    Tags: "a,b",
    Web: "https://example.org/?a=1&b=2",
    PageCount: 2,
    LanguageISO: "en",
    Format: "TPB",
    BlackAndWhite: "Yes",
    Manga: "YesAndRightToLeft",
    Characters: "x",
    Teams: "y",
    Locations: "z",
    ScanInformation: "s",
    StoryArc: "arc",
    StoryArcNumber: "1",
    SeriesGroup: "g",
    AgeRating: "Teen",
    Pages: [
      {
        Image: 0,
        Type: "FrontCover",
        DoublePage: false,
        ImageSize: 1234,
        Key: "k<&>",
        Bookmark: "b",
        ImageWidth: 600,
        ImageHeight: 900,
      },
      { Image: 1, Type: ["Story", "Preview"] },
    ],
    CommunityRating: 4.5,
    MainCharacterOrTeam: "m",
    Review: "r",
    GTIN: "9780000000000",
  };

  it("writes every field in the XSD's sequence order and validates against the v2.1 draft", async () => {
    const xml = comicInfoXml(everything);
    const sequence = elementNames("2.1");
    const written = [...xml.matchAll(/^ {2}<(\w+)[ >]/gm)].map((m) => m[1]);
    expect(sequence).toHaveLength(44);
    expect(written).toEqual(sequence);
    await validate(xml, XSD_21);
  });

  it("escapes markup and drops characters XML cannot carry", async () => {
    const xml = comicInfoXml({ Title: everything.Title, Summary: everything.Summary, Web: everything.Web });
    expect(xml).toContain("<Title>Chapter &lt;1&gt; &amp; &quot;the&quot; &apos;start&apos;</Title>");
    expect(xml).toContain("<Summary>Line one\nline two bell</Summary>");
    expect(xml).toContain("a=1&amp;b=2");
    await validate(xml, XSD_20);
  });

  it("omits unset fields and validates against v2.0 without v2.1 fields", async () => {
    const xml = comicInfoXml({ Series: "S", Volume: 1, Manga: "YesAndRightToLeft" });
    expect(xml).not.toContain("<Number>");
    expect(xml).not.toContain("<Title>");
    await validate(xml, XSD_20);
  });

  it("refuses values the schema would reject", () => {
    expect(() => comicInfoXml({ Volume: 1.5 })).toThrow(RangeError);
    expect(() => comicInfoXml({ Count: 2 ** 31 })).toThrow(RangeError);
    expect(() => comicInfoXml({ CommunityRating: 4.25 })).toThrow(RangeError);
    expect(() => comicInfoXml({ CommunityRating: 6 })).toThrow(RangeError);
    expect(() => comicInfoXml({ Pages: [{ Image: -0.5 }] })).toThrow(RangeError);
  });
});
