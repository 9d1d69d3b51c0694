import { describe, expect, it } from "vitest";
import {
  comicInfoLanguage,
  COMICINFO_MAX_CHARS,
  decodeXmlText,
  numberingFromSources,
  parseComicInfo,
  type ComicInfoFields,
} from "./comicinfo.ts";
import { parseFileName } from "./filename.ts";

const EMPTY: ComicInfoFields = {
  series: null,
  title: null,
  volume: null,
  number: null,
  count: null,
  pageCount: null,
  languageISO: null,
  manga: null,
  format: null,
  notes: null,
  web: null,
  scanInformation: null,
};
const doc = (body: string) =>
  `<?xml version="1.0" encoding="utf-8"?>\n<ComicInfo xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">\n${body}\n</ComicInfo>`;

describe("parseComicInfo", () => {
  it("reads a volume archive as the service writes it", () => {
    const xml = doc(`  <Series>Vinland Saga</Series>
  <Title>Volume 3</Title>
  <Volume>3</Volume>
  <Count>14</Count>
  <Notes>assembled from c017-c025
source: suwayomi</Notes>
  <Web>https://example.org/a https://example.org/b</Web>
  <PageCount>212</PageCount>
  <LanguageISO>en</LanguageISO>
  <Format>Digital</Format>
  <Manga>YesAndRightToLeft</Manga>
  <ScanInformation>Group A</ScanInformation>
  <Pages>
    <Page Image="0" Type="FrontCover" />
    <Page Image="1" />
  </Pages>`);
    expect(parseComicInfo(xml)).toEqual({
      series: "Vinland Saga",
      title: "Volume 3",
      volume: "3",
      number: null,
      count: 14,
      pageCount: 212,
      languageISO: "en",
      manga: "YesAndRightToLeft",
      format: "Digital",
      notes: "assembled from c017-c025\nsource: suwayomi",
      web: "https://example.org/a https://example.org/b",
      scanInformation: "Group A",
    } satisfies ComicInfoFields);
  });

  it("reads a chapter archive with decimal numbers and exact labels", () => {
    const r = parseComicInfo(doc("<Series>Title</Series><Number>010.50</Number><Volume>02</Volume>"));
    expect(r).toMatchObject({ number: "10.5", volume: "2" });
  });

  it.each([
    ["-1", null],
    ["", null],
    ["  7 ", "7"],
    ["0", "0"],
    ["1.5", "1.5"],
    ["1,5", null],
    ["1e3", null],
    ["abc", null],
    ["12a", null],
    ["½", null],
  ])("Number %j → %j", (text, expected) => {
    expect(parseComicInfo(doc(`<Number>${text}</Number>`))?.number).toBe(expected);
    expect(parseComicInfo(doc(`<Volume>${text}</Volume>`))?.volume).toBe(expected);
  });

  it.each([
    ["-1", null],
    ["0", null],
    ["12", 12],
    ["+12", 12],
    ["12.5", null],
    ["twelve", null],
    ["9999999999", null],
  ])("Count and PageCount %j → %j", (text, expected) => {
    expect(parseComicInfo(doc(`<Count>${text}</Count><PageCount>${text}</PageCount>`))).toMatchObject({
      count: expected,
      pageCount: expected,
    });
  });

  it("decodes the five entities and character references, once, and never expands others", () => {
    const r = parseComicInfo(
      doc(
        "<Series>Tom &amp; Jerry &lt;3 &quot;x&quot; &apos;y&apos; &gt;</Series><Title>&#65;&#x42;&#x1F600; &amp;lt; &foo; &#0; &#xD800;</Title>",
      ),
    );
    expect(r?.series).toBe(`Tom & Jerry <3 "x" 'y' >`);
    expect(r?.title).toBe("AB😀 &lt; &foo; &#0; &#xD800;");
    expect(decodeXmlText("&AMP;")).toBe("&AMP;");
  });

  it("tolerates whitespace, attribute order, comments, CDATA, prefixes and odd case", () => {
    const xml = `\uFEFF  <!-- written by hand -->
<?xml-stylesheet href="x"?>
<ComicInfo   xmlns:xsd='http://www.w3.org/2001/XMLSchema'
   xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" >
  <!-- <Series>commented out</Series> -->
  <Series >
     One   Piece
  </Series   >
  <ci:Number xmlns:ci="urn:x">1044</ci:Number>
  <Notes><![CDATA[a <b> & c]]> tail</Notes>
  <LANGUAGEISO>ja</LANGUAGEISO>
  <Manga>yes</Manga>
  <Title/>
  <Web></Web>
  <Series>second occurrence ignored</Series>
</ComicInfo>
<!-- trailing -->`;
    expect(parseComicInfo(xml)).toEqual({
      ...EMPTY,
      series: "One Piece",
      number: "1044",
      notes: "a <b> & c tail",
      languageISO: "ja",
      manga: "Yes",
    });
  });

  it("keeps attribute values with '>' and ignores unknown elements", () => {
    const xml = doc(`<Genre a="x>y" b='1'>Action</Genre><Series>S</Series><Manga>Sideways</Manga>`);
    expect(parseComicInfo(xml)).toEqual({ ...EMPTY, series: "S" });
  });

  it("returns an empty record for an empty root", () => {
    expect(parseComicInfo("<ComicInfo/>")).toEqual(EMPTY);
    expect(parseComicInfo("<ComicInfo></ComicInfo>")).toEqual(EMPTY);
  });

  it.each([
    ["empty text", ""],
    ["not XML", "Series: One Piece"],
    ["another root", "<Comic><Series>x</Series></Comic>"],
    [
      "a DOCTYPE (no DTD, no entity expansion)",
      `<!DOCTYPE ComicInfo [<!ENTITY x "boom">]><ComicInfo><Series>&x;</Series></ComicInfo>`,
    ],
    ["a DOCTYPE inside", "<ComicInfo><!DOCTYPE x><Series>x</Series></ComicInfo>"],
    ["an unclosed root", "<ComicInfo><Series>x</Series>"],
    ["mismatched tags", "<ComicInfo><Series>x</Title></ComicInfo>"],
    ["an unterminated comment", "<ComicInfo><!-- x </ComicInfo>"],
    ["an unterminated CDATA", "<ComicInfo><Notes><![CDATA[x</Notes></ComicInfo>"],
    ["a broken attribute", "<ComicInfo a=b><Series>x</Series></ComicInfo>"],
    ["text before the root", "junk<ComicInfo/>"],
    ["nesting too deep", `<ComicInfo>${"<a>".repeat(40)}${"</a>".repeat(40)}</ComicInfo>`],
  ])("rejects %s", (_what, xml) => {
    expect(parseComicInfo(xml)).toBeNull();
  });

  it("is size-bounded", () => {
    const big = doc(`<Notes>${"x".repeat(COMICINFO_MAX_CHARS)}</Notes>`);
    expect(parseComicInfo(big)).toBeNull();
    const pages = doc(`<Series>S</Series><Pages>${'<Page Image="1" ImageSize="123"/>'.repeat(20000)}</Pages>`);
    expect(parseComicInfo(pages)?.series).toBe("S");
    const lts = doc("<".repeat(100000));
    expect(parseComicInfo(lts)).toBeNull();
  });
});

describe("numberingFromSources", () => {
  const ci = (fields: Partial<ComicInfoFields>): ComicInfoFields => ({ ...EMPTY, ...fields });

  it.each([
    // [case, comicinfo, file name, expected]
    [
      "no ComicInfo → the name",
      null,
      "Title v03 c012.cbz",
      {
        kind: "chapter",
        volume: "3",
        chapter: "12",
        chapterEnd: null,
        part: null,
        extra: false,
        tagSource: "filename",
      },
    ],
    [
      "ComicInfo without numbers → the name",
      ci({ series: "Title" }),
      "Title v03.cbz",
      { kind: "book", volume: "3", chapter: null, chapterEnd: null, part: null, extra: false, tagSource: "filename" },
    ],
    [
      "Volume without Number → a book",
      ci({ volume: "3" }),
      "Title - assembled.cbz",
      { kind: "book", volume: "3", chapter: null, chapterEnd: null, part: null, extra: false, tagSource: "comicinfo" },
    ],
    [
      "Volume without Number beats a volume name",
      ci({ volume: "4" }),
      "Title v03.cbz",
      { kind: "book", volume: "4", chapter: null, chapterEnd: null, part: null, extra: false, tagSource: "comicinfo" },
    ],
    [
      "Number → a chapter, with ComicInfo's volume",
      ci({ volume: "2", number: "10.5" }),
      "whatever.cbz",
      {
        kind: "chapter",
        volume: "2",
        chapter: "10.5",
        chapterEnd: null,
        part: null,
        extra: false,
        tagSource: "comicinfo",
      },
    ],
    [
      "Number beats the name's chapter",
      ci({ number: "13" }),
      "Title c012.cbz",
      {
        kind: "chapter",
        volume: null,
        chapter: "13",
        chapterEnd: null,
        part: null,
        extra: false,
        tagSource: "comicinfo",
      },
    ],
    [
      "the name fills range, part and volume when it agrees",
      ci({ number: "1" }),
      "Title v01 c001-003 (part 2).cbz",
      { kind: "chapter", volume: "1", chapter: "1", chapterEnd: "3", part: 2, extra: false, tagSource: "comicinfo" },
    ],
    [
      "extra kept from an agreeing name",
      ci({ number: "45.5" }),
      "Title c045.5 - Extra.cbz",
      {
        kind: "chapter",
        volume: null,
        chapter: "45.5",
        chapterEnd: null,
        part: null,
        extra: true,
        tagSource: "comicinfo",
      },
    ],
    [
      "Number that repeats the name's volume is a book",
      ci({ number: "3" }),
      "Title v03.cbz",
      { kind: "book", volume: "3", chapter: null, chapterEnd: null, part: null, extra: false, tagSource: "filename" },
    ],
    [
      "… also when Volume says the same",
      ci({ number: "3", volume: "3" }),
      "Title Vol. 3.cbz",
      { kind: "book", volume: "3", chapter: null, chapterEnd: null, part: null, extra: false, tagSource: "filename" },
    ],
    [
      "a Number different from the name's volume stays a chapter",
      ci({ number: "25" }),
      "Title v03.cbz",
      {
        kind: "chapter",
        volume: "3",
        chapter: "25",
        chapterEnd: null,
        part: null,
        extra: false,
        tagSource: "comicinfo",
      },
    ],
    [
      "a volume tag never turns a chapter file into a book",
      ci({ volume: "3" }),
      "Title c012.cbz",
      {
        kind: "chapter",
        volume: "3",
        chapter: "12",
        chapterEnd: null,
        part: null,
        extra: false,
        tagSource: "filename",
      },
    ],
    [
      "… and the name's own volume wins then",
      ci({ volume: "3" }),
      "Title v04 c030.cbz",
      {
        kind: "chapter",
        volume: "4",
        chapter: "30",
        chapterEnd: null,
        part: null,
        extra: false,
        tagSource: "filename",
      },
    ],
    [
      "a year in Volume (ComicTagger) is no volume",
      ci({ volume: "2019" }),
      "Title v02.cbz",
      { kind: "book", volume: "2", chapter: null, chapterEnd: null, part: null, extra: false, tagSource: "filename" },
    ],
    [
      "a year in Volume beside a Number",
      ci({ volume: "2016", number: "7" }),
      "Title 007.cbz",
      {
        kind: "chapter",
        volume: null,
        chapter: "7",
        chapterEnd: null,
        part: null,
        extra: false,
        tagSource: "comicinfo",
      },
    ],
    [
      "chapter zero is a chapter",
      ci({ number: "0" }),
      "Title - Prologue.cbz",
      {
        kind: "chapter",
        volume: null,
        chapter: "0",
        chapterEnd: null,
        part: null,
        extra: true,
        tagSource: "comicinfo",
      },
    ],
    [
      "nothing anywhere",
      ci({}),
      "Title.cbz",
      { kind: null, volume: null, chapter: null, chapterEnd: null, part: null, extra: false, tagSource: "filename" },
    ],
  ] as const)("%s", (_case, info, name, expected) => {
    const { partsTotal: _total, ...numbering } = numberingFromSources(info, parseFileName(name));
    expect(numbering).toEqual(expected);
  });

  it("works end to end from XML", () => {
    const info = parseComicInfo(doc("<Series>Title</Series><Volume>5</Volume><Number>-1</Number>"));
    expect(numberingFromSources(info, parseFileName("Title v05 [Group].cbz"))).toMatchObject({
      kind: "book",
      volume: "5",
      tagSource: "comicinfo",
    });
  });
});

describe("comicInfoLanguage", () => {
  it.each<[string | null, string | null]>([
    ["en", "en"],
    ["EN", "en"],
    ["en-US", "en-US"],
    ["pt_BR", "pt-BR"],
    ["jpn", "jpn"],
    [" fr ", "fr"],
    ["und", null],
    ["English", null],
    ["", null],
    [null, null],
  ])("%s → %s", (languageISO, expected) => {
    expect(comicInfoLanguage({ languageISO })).toBe(expected);
  });
});
