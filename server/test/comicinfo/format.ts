/**
 * The ComicInfo.xml format as this service writes it, described in our own terms for the tests:
 * the root element, its child elements in the order the format fixes (a sequence: each element at
 * most once, in this order), each element's value type, and the page list's attributes. These are
 * facts of the published format (ComicInfo 2.0 and its 2.1 draft, which adds four elements);
 * CI also validates sample files against the published schemas themselves with xmllint.
 *
 * `schemaFor(version)` renders the description as an XML Schema document, so libxml2 (xmllint-wasm
 * in the tests) checks every file the service writes against it.
 */

/** Value types of the format's elements and attributes. */
export type ValueType =
  | { kind: "text" }
  | { kind: "integer" }
  | { kind: "long" }
  | { kind: "boolean" }
  /** A decimal number within [min, max] with at most `digits` digits after the point. */
  | { kind: "decimal"; min: number; max: number; digits: Record<FormatVersion, number> }
  | { kind: "choice"; of: readonly string[] }
  /** Space-separated words, each one of `of`. */
  | { kind: "words"; of: readonly string[] }
  | { kind: "pages" };

export type FormatVersion = "2.0" | "2.1";

export interface ElementFact {
  name: string;
  type: ValueType;
  /** The first version of the format with this element. */
  since: FormatVersion;
}

const text = { kind: "text" } as const;
const integer = { kind: "integer" } as const;

export const YES_NO = ["Unknown", "No", "Yes"] as const;
export const MANGA = ["Unknown", "No", "Yes", "YesAndRightToLeft"] as const;
export const AGE_RATINGS = [
  "Unknown",
  "Adults Only 18+",
  "Early Childhood",
  "Everyone",
  "Everyone 10+",
  "G",
  "Kids to Adults",
  "M",
  "MA15+",
  "Mature 17+",
  "PG",
  "R18+",
  "Rating Pending",
  "Teen",
  "X18+",
] as const;
export const PAGE_TYPES = [
  "FrontCover",
  "InnerCover",
  "Roundup",
  "Story",
  "Advertisement",
  "Editorial",
  "Letters",
  "Preview",
  "BackCover",
  "Other",
  "Deleted",
] as const;

/** Children of the root element `ComicInfo`, in the format's order. */
export const COMICINFO_ELEMENTS: readonly ElementFact[] = [
  { name: "Title", type: text, since: "2.0" },
  { name: "Series", type: text, since: "2.0" },
  { name: "Number", type: text, since: "2.0" },
  { name: "Count", type: integer, since: "2.0" },
  { name: "Volume", type: integer, since: "2.0" },
  { name: "AlternateSeries", type: text, since: "2.0" },
  { name: "AlternateNumber", type: text, since: "2.0" },
  { name: "AlternateCount", type: integer, since: "2.0" },
  { name: "Summary", type: text, since: "2.0" },
  { name: "Notes", type: text, since: "2.0" },
  { name: "Year", type: integer, since: "2.0" },
  { name: "Month", type: integer, since: "2.0" },
  { name: "Day", type: integer, since: "2.0" },
  { name: "Writer", type: text, since: "2.0" },
  { name: "Penciller", type: text, since: "2.0" },
  { name: "Inker", type: text, since: "2.0" },
  { name: "Colorist", type: text, since: "2.0" },
  { name: "Letterer", type: text, since: "2.0" },
  { name: "CoverArtist", type: text, since: "2.0" },
  { name: "Editor", type: text, since: "2.0" },
  { name: "Translator", type: text, since: "2.1" },
  { name: "Publisher", type: text, since: "2.0" },
  { name: "Imprint", type: text, since: "2.0" },
  { name: "Genre", type: text, since: "2.0" },
  { name: "Tags", type: text, since: "2.1" },
  { name: "Web", type: text, since: "2.0" },
  { name: "PageCount", type: integer, since: "2.0" },
  { name: "LanguageISO", type: text, since: "2.0" },
  { name: "Format", type: text, since: "2.0" },
  { name: "BlackAndWhite", type: { kind: "choice", of: YES_NO }, since: "2.0" },
  { name: "Manga", type: { kind: "choice", of: MANGA }, since: "2.0" },
  { name: "Characters", type: text, since: "2.0" },
  { name: "Teams", type: text, since: "2.0" },
  { name: "Locations", type: text, since: "2.0" },
  { name: "ScanInformation", type: text, since: "2.0" },
  { name: "StoryArc", type: text, since: "2.0" },
  { name: "StoryArcNumber", type: text, since: "2.1" },
  { name: "SeriesGroup", type: text, since: "2.0" },
  { name: "AgeRating", type: { kind: "choice", of: AGE_RATINGS }, since: "2.0" },
  { name: "Pages", type: { kind: "pages" }, since: "2.0" },
  // 0 to 5; 2.0 allows two decimal places, the 2.1 draft one.
  { name: "CommunityRating", type: { kind: "decimal", min: 0, max: 5, digits: { "2.0": 2, "2.1": 1 } }, since: "2.0" },
  { name: "MainCharacterOrTeam", type: text, since: "2.0" },
  { name: "Review", type: text, since: "2.0" },
  { name: "GTIN", type: text, since: "2.1" },
];

/** Attributes of each `Page` inside `Pages` (any number of pages; `Image` is required). */
export const PAGE_ATTRIBUTES: readonly { name: string; type: ValueType; required?: true }[] = [
  { name: "Image", type: integer, required: true },
  { name: "Type", type: { kind: "words", of: PAGE_TYPES } },
  { name: "DoublePage", type: { kind: "boolean" } },
  { name: "ImageSize", type: { kind: "long" } },
  { name: "Key", type: text },
  { name: "Bookmark", type: text },
  { name: "ImageWidth", type: integer },
  { name: "ImageHeight", type: integer },
];

/** The element names of a version, in order. */
export function elementNames(version: FormatVersion): string[] {
  return COMICINFO_ELEMENTS.filter((e) => version === "2.1" || e.since === "2.0").map((e) => e.name);
}

const escapeAttr = (v: string) => v.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

function simpleType(t: ValueType, version: FormatVersion): string {
  switch (t.kind) {
    case "text":
      return `<xs:simpleType><xs:restriction base="xs:string"/></xs:simpleType>`;
    case "integer":
      return `<xs:simpleType><xs:restriction base="xs:int"/></xs:simpleType>`;
    case "long":
      return `<xs:simpleType><xs:restriction base="xs:long"/></xs:simpleType>`;
    case "boolean":
      return `<xs:simpleType><xs:restriction base="xs:boolean"/></xs:simpleType>`;
    case "decimal":
      return (
        `<xs:simpleType><xs:restriction base="xs:decimal">` +
        `<xs:minInclusive value="${t.min}"/><xs:maxInclusive value="${t.max}"/>` +
        `<xs:fractionDigits value="${t.digits[version]}"/></xs:restriction></xs:simpleType>`
      );
    case "choice":
      return `<xs:simpleType><xs:restriction base="xs:string">${t.of.map((v) => `<xs:enumeration value="${escapeAttr(v)}"/>`).join("")}</xs:restriction></xs:simpleType>`;
    case "words":
      return `<xs:simpleType><xs:list>${simpleType({ kind: "choice", of: t.of }, version)}</xs:list></xs:simpleType>`;
    case "pages":
      throw new Error("pages is a complex type");
  }
}

function elementXsd(e: ElementFact, version: FormatVersion): string {
  if (e.type.kind !== "pages") {
    return `<xs:element name="${e.name}" minOccurs="0">${simpleType(e.type, version)}</xs:element>`;
  }
  const attributes = PAGE_ATTRIBUTES.map(
    (a) =>
      `<xs:attribute name="${a.name}"${a.required ? ` use="required"` : ""}>${simpleType(a.type, version)}</xs:attribute>`,
  ).join("");
  return (
    `<xs:element name="${e.name}" minOccurs="0"><xs:complexType><xs:sequence>` +
    `<xs:element name="Page" minOccurs="0" maxOccurs="unbounded"><xs:complexType>${attributes}</xs:complexType></xs:element>` +
    `</xs:sequence></xs:complexType></xs:element>`
  );
}

/** The description as an XML Schema document (for libxml2's validation). */
export function schemaFor(version: FormatVersion): { fileName: string; contents: string } {
  const children = COMICINFO_ELEMENTS.filter((e) => version === "2.1" || e.since === "2.0")
    .map((e) => `      ${elementXsd(e, version)}`)
    .join("\n");
  const contents = [
    `<?xml version="1.0" encoding="utf-8"?>`,
    `<!-- Rendered from server/test/comicinfo/format.ts (ComicInfo ${version} as this service writes it). -->`,
    `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">`,
    `  <xs:element name="ComicInfo"><xs:complexType><xs:sequence>`,
    children,
    `  </xs:sequence></xs:complexType></xs:element>`,
    `</xs:schema>`,
    ``,
  ].join("\n");
  return { fileName: `comicinfo-${version}.xsd`, contents };
}
