/**
 * Writes sample ComicInfo.xml files through the service's own code, for CI to validate against
 * the published ComicInfo schemas with xmllint:
 *   node --import tsx server/test/comicinfo/samples.ts <out-dir>
 * Every sample goes to <out-dir>/2.1/ (the 2.1 draft applies to every file the service writes);
 * those without a 2.1-only element go to <out-dir>/2.0/ as well. The samples: every element the
 * writer knows, each ComicInfo of the demo library, a downloaded chapter, an assembled book and a
 * machine-translated chapter (with the fields each of those paths sets).
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { comicInfoProvenance } from "../../src/domain/translation-receipt.ts";
import { readArchiveIndex } from "../../src/library/archive-index.ts";
import { comicInfoXml } from "../../src/library/comicinfo-writer.ts";
import { generateDemoLibrary } from "../../src/library/demo.ts";
import { assemblyComicInfo } from "../../src/services/assembly/assembly-service.ts";
import { chapterComicInfo } from "../../src/services/acquisition/download-packaging.ts";
import { COMICINFO_ELEMENTS } from "./format.ts";

type Args<F extends (...a: never[]) => unknown> = Parameters<F>;

const V21_ONLY = COMICINFO_ELEMENTS.filter((e) => e.since === "2.1").map((e) => e.name);

async function main(out: string): Promise<void> {
  await rm(out, { recursive: true, force: true });
  await mkdir(path.join(out, "2.1"), { recursive: true });
  await mkdir(path.join(out, "2.0"), { recursive: true });
  let written = 0;
  const sample = async (name: string, xml: string) => {
    await writeFile(path.join(out, "2.1", `${name}.xml`), xml);
    if (!V21_ONLY.some((e) => xml.includes(`<${e}>`))) await writeFile(path.join(out, "2.0", `${name}.xml`), xml);
    written += 1;
  };

  await sample(
    "every-element",
    comicInfoXml({
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
          ImageWidth: 600,
          ImageHeight: 900,
        },
        { Image: 1, Type: ["Story", "Preview"], Bookmark: "b" },
      ],
      CommunityRating: 4.5,
      MainCharacterOrTeam: "m",
      Review: "r",
      GTIN: "9780000000000",
    }),
  );

  // The demo library, as the first start writes it.
  const tmp = await mkdtemp(path.join(tmpdir(), "comicinfo-samples-"));
  try {
    const root = path.join(tmp, "library");
    await generateDemoLibrary(root);
    for (const series of (await readdir(root)).sort()) {
      for (const file of (await readdir(path.join(root, series))).sort()) {
        if (!file.endsWith(".cbz")) continue;
        const { comicInfoXml: xml } = await readArchiveIndex(path.join(root, series, file));
        if (xml !== null) await sample(`demo-${series}-${file}`.replace(/[^\w.-]+/g, "_"), xml);
      }
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }

  // Pages as a download or a translation brings them (real JPEG headers: sizes come from the bytes).
  const page = (width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background: "#fff" } })
      .jpeg()
      .toBuffer();
  const pages = [await page(800, 1200), await page(800, 1200), await page(1600, 1200)];

  // A downloaded chapter: the fields the download pipeline sets.
  await sample(
    "downloaded-chapter",
    chapterComicInfo(
      {
        Series: "Tide & Stone",
        Number: "12.5",
        Notes: "Downloaded from Suwayomi (work 42, release 7), part 1.",
        LanguageISO: "en",
        ScanInformation: "Group <A>",
      },
      pages,
    ),
  );

  // An assembled book: the assembly's fields, then what the assembler adds.
  const bookFields = assemblyComicInfo(
    {
      series: { title: "Tide & Stone", editionBookCount: 12, knownBookCount: null, webtoon: false },
    } as unknown as Args<typeof assemblyComicInfo>[0],
    {
      volume: "3",
      chapters: ["10", "11", "12"].map((number) => ({
        number,
        sources: [{ path: `Tide & Stone/Tide & Stone - c0${number}.cbz` }],
      })),
      fileIds: [4, 5, 6],
    } as unknown as Args<typeof assemblyComicInfo>[1],
    { providers: ["local files"], languages: ["en"] },
  );
  await sample(
    "assembled-book",
    comicInfoXml({
      ...bookFields,
      PageCount: pages.length,
      LanguageISO: "en",
      Pages: pages.map((b, i) => ({
        Image: i,
        ImageSize: b.length,
        ...(i === 0 ? { Type: "FrontCover" as const } : {}),
      })),
    }),
  );

  // A machine-translated chapter: the provenance fields of an imported translation.
  await sample(
    "translated-chapter",
    chapterComicInfo(
      {
        Series: "Tide & Stone",
        Number: "13",
        ...comicInfoProvenance(
          {
            model: "local-model",
            sourceSha256: "0".repeat(64),
            translatedRegions: 12,
            detectedSourceLanguage: "ja",
            detectedTargetLanguage: "en",
          } as unknown as Args<typeof comicInfoProvenance>[0],
          { sourceLanguage: "ja", targetLanguage: "en" } as unknown as Args<typeof comicInfoProvenance>[1],
        ),
      },
      pages,
    ),
  );

  console.log(`${written} ComicInfo samples in ${out}`);
}

const out = process.argv[2];
if (!out) {
  console.error("usage: node --import tsx server/test/comicinfo/samples.ts <out-dir>");
  process.exit(2);
}
await main(path.resolve(out));
