/**
 * The ComicInfo.xml writer (ComicInfo 2.1 draft, as described in server/test/comicinfo/format.ts):
 * elements in the format's order, integers checked, text escaped. Used by the demo library and by book
 * assembly (volume-level ComicInfo with a Pages list).
 */
export type ComicInfoYesNo = "Unknown" | "No" | "Yes";
export type ComicInfoManga = ComicInfoYesNo | "YesAndRightToLeft";
export type ComicInfoAgeRating =
  | "Unknown"
  | "Adults Only 18+"
  | "Early Childhood"
  | "Everyone"
  | "Everyone 10+"
  | "G"
  | "Kids to Adults"
  | "M"
  | "MA15+"
  | "Mature 17+"
  | "PG"
  | "R18+"
  | "Rating Pending"
  | "Teen"
  | "X18+";
export type ComicPageType =
  | "FrontCover"
  | "InnerCover"
  | "Roundup"
  | "Story"
  | "Advertisement"
  | "Editorial"
  | "Letters"
  | "Preview"
  | "BackCover"
  | "Other"
  | "Deleted";

export interface ComicInfoPage {
  Image: number;
  Type?: ComicPageType | ComicPageType[];
  DoublePage?: boolean;
  ImageSize?: number;
  Key?: string;
  Bookmark?: string;
  ImageWidth?: number;
  ImageHeight?: number;
}

/** ComicInfo v2.1 draft fields; Translator, Tags, StoryArcNumber and GTIN are v2.1-only. */
export interface ComicInfoFields {
  Title?: string;
  Series?: string;
  Number?: string;
  Count?: number;
  Volume?: number;
  AlternateSeries?: string;
  AlternateNumber?: string;
  AlternateCount?: number;
  Summary?: string;
  Notes?: string;
  Year?: number;
  Month?: number;
  Day?: number;
  Writer?: string;
  Penciller?: string;
  Inker?: string;
  Colorist?: string;
  Letterer?: string;
  CoverArtist?: string;
  Editor?: string;
  Translator?: string;
  Publisher?: string;
  Imprint?: string;
  Genre?: string;
  Tags?: string;
  Web?: string;
  PageCount?: number;
  LanguageISO?: string;
  Format?: string;
  BlackAndWhite?: ComicInfoYesNo;
  Manga?: ComicInfoManga;
  Characters?: string;
  Teams?: string;
  Locations?: string;
  ScanInformation?: string;
  StoryArc?: string;
  StoryArcNumber?: string;
  SeriesGroup?: string;
  AgeRating?: ComicInfoAgeRating;
  Pages?: ComicInfoPage[];
  CommunityRating?: number;
  MainCharacterOrTeam?: string;
  Review?: string;
  GTIN?: string;
}

/** The XSD's xs:sequence: readers validating the schema reject any other order. */
const COMIC_INFO_ORDER = [
  "Title",
  "Series",
  "Number",
  "Count",
  "Volume",
  "AlternateSeries",
  "AlternateNumber",
  "AlternateCount",
  "Summary",
  "Notes",
  "Year",
  "Month",
  "Day",
  "Writer",
  "Penciller",
  "Inker",
  "Colorist",
  "Letterer",
  "CoverArtist",
  "Editor",
  "Translator",
  "Publisher",
  "Imprint",
  "Genre",
  "Tags",
  "Web",
  "PageCount",
  "LanguageISO",
  "Format",
  "BlackAndWhite",
  "Manga",
  "Characters",
  "Teams",
  "Locations",
  "ScanInformation",
  "StoryArc",
  "StoryArcNumber",
  "SeriesGroup",
  "AgeRating",
  "Pages",
  "CommunityRating",
  "MainCharacterOrTeam",
  "Review",
  "GTIN",
] as const satisfies readonly (keyof ComicInfoFields)[];
// Compile-time guard: a field added to the interface but not to the order fails here.
const _allOrdered: Exclude<keyof ComicInfoFields, (typeof COMIC_INFO_ORDER)[number]> extends never ? true : never =
  true;

const INT_FIELDS = new Set<string>(["Count", "Volume", "AlternateCount", "Year", "Month", "Day", "PageCount"]);

/** Drops characters XML 1.0 cannot carry (control characters, lone surrogates), then escapes. */
export function escapeXml(text: string): string {
  return text
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

function xsInt(name: string, v: number, min = -2147483648, max = 2147483647): string {
  if (!Number.isInteger(v) || v < min || v > max)
    throw new RangeError(`ComicInfo ${name} must be an integer, got ${v}`);
  return String(v);
}

function pageXml(p: ComicInfoPage): string {
  const attrs: string[] = [`Image="${xsInt("Page Image", p.Image)}"`];
  if (p.Type !== undefined) attrs.push(`Type="${(Array.isArray(p.Type) ? p.Type : [p.Type]).join(" ")}"`);
  if (p.DoublePage !== undefined) attrs.push(`DoublePage="${p.DoublePage}"`);
  if (p.ImageSize !== undefined)
    attrs.push(`ImageSize="${xsInt("ImageSize", p.ImageSize, 0, Number.MAX_SAFE_INTEGER)}"`);
  if (p.Key !== undefined) attrs.push(`Key="${escapeXml(p.Key)}"`);
  if (p.Bookmark !== undefined) attrs.push(`Bookmark="${escapeXml(p.Bookmark)}"`);
  if (p.ImageWidth !== undefined) attrs.push(`ImageWidth="${xsInt("ImageWidth", p.ImageWidth)}"`);
  if (p.ImageHeight !== undefined) attrs.push(`ImageHeight="${xsInt("ImageHeight", p.ImageHeight)}"`);
  return `    <Page ${attrs.join(" ")} />`;
}

/** A ComicInfo.xml valid against the v2.1 draft (and v2.0 when no v2.1-only field is set). */
export function comicInfoXml(fields: ComicInfoFields): string {
  const lines = [
    `<?xml version="1.0" encoding="utf-8"?>`,
    `<ComicInfo xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`,
  ];
  for (const key of COMIC_INFO_ORDER) {
    const v = fields[key];
    if (v === undefined || v === null) continue;
    if (key === "Pages") {
      lines.push("  <Pages>", ...(v as ComicInfoPage[]).map(pageXml), "  </Pages>");
    } else if (key === "CommunityRating") {
      const r = v as number;
      if (!(r >= 0 && r <= 5) || Math.round(r * 10) !== r * 10)
        throw new RangeError(`CommunityRating ${r}: 0–5, one decimal`);
      lines.push(`  <${key}>${r.toFixed(1)}</${key}>`);
    } else {
      const text = INT_FIELDS.has(key) ? xsInt(key, v as number) : escapeXml(String(v));
      lines.push(`  <${key}>${text}</${key}>`);
    }
  }
  lines.push("</ComicInfo>", "");
  return lines.join("\n");
}
