/**
 * A small, safe reader for ComicInfo.xml, and the precedence between ComicInfo and the file name.
 *
 * Not an XML library on purpose: ComicInfo is a flat list of simple elements under one root, and a
 * general parser would bring DTDs and entity expansion into a file that comes from any archive.
 * This reader never expands entities (a DOCTYPE rejects the document), reads at most
 * COMICINFO_MAX_CHARS characters, tolerates whitespace, comments, processing instructions,
 * CDATA and attributes in any order, decodes the five predefined entities and numeric character
 * references, and skips nested elements (<Pages>). The first occurrence of a field wins.
 */
import { compareLabels, isWhole, labelEquals, parseLabel, type Label } from "./labels.ts";
import type { ParsedName } from "./filename.ts";
import { normalizeLanguageTag } from "./file-language.ts";

export type MangaFlag = "Unknown" | "No" | "Yes" | "YesAndRightToLeft";

export interface ComicInfoFields {
  series: string | null;
  title: string | null;
  /** Volume; -1 (the schema's "unset") and anything not an exact decimal are null. */
  volume: Label | null;
  /** Number; Kavita reads it as a chapter, so volume archives leave it out. */
  number: Label | null;
  /** Books in the series; -1 and 0 mean unknown → null. */
  count: number | null;
  /** Pages in the archive; 0 and -1 mean unknown → null. */
  pageCount: number | null;
  languageISO: string | null;
  manga: MangaFlag | null;
  format: string | null;
  notes: string | null;
  web: string | null;
  scanInformation: string | null;
}

/** ComicInfo with a <Pages> list of a thousand pages is ~150 KB; anything near 1 MiB is not one. */
export const COMICINFO_MAX_CHARS = 1 << 20;
/** Nesting allowed below the root (<Pages><Page/></Pages> needs 2). */
const MAX_DEPTH = 16;

const NAME = String.raw`[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?`;
const NAME_RE = new RegExp(NAME, "y");
const ATTR_RE = new RegExp(String.raw`\s+${NAME}\s*=\s*(?:"[^"<]*"|'[^'<]*')`, "y");
const TAG_END_RE = /\s*(\/?)>/y;
const CLOSE_RE = new RegExp(String.raw`</(${NAME})\s*>`, "y");

/** XML 1.0 Char production: what a character reference may produce. */
function isXmlChar(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

const PREDEFINED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** One pass, so "&amp;lt;" stays "&lt;"; unknown entities and invalid references stay as written. */
export function decodeXmlText(raw: string): string {
  return raw.replace(
    /&(?:#x([0-9a-fA-F]{1,6})|#(\d{1,7})|(lt|gt|amp|quot|apos));/g,
    (all: string, hex?: string, dec?: string, named?: string) => {
      if (named !== undefined) return PREDEFINED[named] ?? all;
      const cp = hex !== undefined ? parseInt(hex, 16) : parseInt(dec ?? "", 10);
      return isXmlChar(cp) ? String.fromCodePoint(cp) : all;
    },
  );
}

const localName = (qname: string): string => qname.slice(qname.indexOf(":") + 1);

/** Start tag at s[i] === "<": its name, whether it closes itself, and where it ends. */
function readStartTag(s: string, i: number): { name: string; selfClosing: boolean; end: number } | null {
  NAME_RE.lastIndex = i + 1;
  const m = NAME_RE.exec(s);
  if (!m) return null;
  let j = NAME_RE.lastIndex;
  for (;;) {
    TAG_END_RE.lastIndex = j;
    const end = TAG_END_RE.exec(s);
    if (end) return { name: m[0], selfClosing: end[1] === "/", end: TAG_END_RE.lastIndex };
    ATTR_RE.lastIndex = j;
    if (!ATTR_RE.exec(s)) return null;
    j = ATTR_RE.lastIndex;
  }
}

/** Skips "<?…?>" or "<!--…-->" at i; the index after it, or -1 when unterminated. */
function skipMarkup(s: string, i: number): number | null {
  if (s.startsWith("<?", i)) {
    const e = s.indexOf("?>", i + 2);
    return e < 0 ? -1 : e + 2;
  }
  if (s.startsWith("<!--", i)) {
    const e = s.indexOf("-->", i + 4);
    return e < 0 ? -1 : e + 3;
  }
  return null;
}

/** Direct children of the ComicInfo root with text content, keyed by lower-case local name. */
function readFields(xml: string): Map<string, string> | null {
  const s = xml.replace(/\r\n?/g, "\n"); // XML end-of-line handling
  let i = s.charCodeAt(0) === 0xfeff ? 1 : 0;
  // Prolog: declaration, comments, PIs. A DOCTYPE (or any other "<!") rejects the document.
  for (;;) {
    while (i < s.length && /\s/.test(s.charAt(i))) i++;
    if (s.charAt(i) !== "<") return null;
    const next = skipMarkup(s, i);
    if (next === -1) return null;
    if (next === null) break;
    i = next;
  }
  const root = readStartTag(s, i);
  if (!root || localName(root.name) !== "ComicInfo") return null;
  const fields = new Map<string, string>();
  if (root.selfClosing) return fields;
  i = root.end;
  const stack: string[] = [];
  let text = "";
  let nested = false;
  while (i < s.length) {
    const lt = s.indexOf("<", i);
    if (lt < 0) return null;
    if (stack.length === 1) text += decodeXmlText(s.slice(i, lt));
    const skipped = skipMarkup(s, lt);
    if (skipped === -1) return null;
    if (skipped !== null) {
      i = skipped;
      continue;
    }
    if (s.startsWith("<![CDATA[", lt)) {
      const e = s.indexOf("]]>", lt + 9);
      if (e < 0) return null;
      if (stack.length === 1) text += s.slice(lt + 9, e);
      i = e + 3;
      continue;
    }
    if (s.startsWith("<!", lt)) return null;
    if (s.startsWith("</", lt)) {
      CLOSE_RE.lastIndex = lt;
      const c = CLOSE_RE.exec(s);
      const open = stack.at(-1) ?? root.name;
      if (!c || c[1] !== open) return null;
      if (stack.length === 0) return fields; // the root is closed; trailing content is ignored
      stack.pop();
      if (stack.length === 0) {
        const key = localName(open).toLowerCase();
        if (!nested && !fields.has(key)) fields.set(key, text);
        text = "";
        nested = false;
      }
      i = CLOSE_RE.lastIndex;
      continue;
    }
    const tag = readStartTag(s, lt);
    if (!tag) return null;
    if (stack.length >= 1) nested = true;
    if (tag.selfClosing) {
      const key = localName(tag.name).toLowerCase();
      if (stack.length === 0 && !fields.has(key)) fields.set(key, "");
    } else {
      if (stack.length >= MAX_DEPTH) return null;
      stack.push(tag.name);
    }
    i = tag.end;
  }
  return null; // the root never closed
}

const oneLine = (t: string | undefined): string | null => {
  const v = (t ?? "").replace(/\s+/g, " ").trim();
  return v === "" ? null : v;
};
const block = (t: string | undefined): string | null => {
  const v = (t ?? "").trim();
  return v === "" ? null : v;
};
/** A positive integer; "-1", "0", "3.5", "12 pages" are unknown. */
const positive = (t: string | undefined): number | null => {
  const v = (t ?? "").trim();
  if (!/^\+?\d{1,9}$/.test(v)) return null;
  const n = Number(v);
  return n > 0 ? n : null;
};
const MANGA: readonly MangaFlag[] = ["Unknown", "No", "Yes", "YesAndRightToLeft"];

/** The fields of a ComicInfo.xml, or null when the text is not a (safe, bounded) ComicInfo document. */
export function parseComicInfo(xml: string): ComicInfoFields | null {
  if (xml.length > COMICINFO_MAX_CHARS) return null;
  const f = readFields(xml);
  if (!f) return null;
  const manga = oneLine(f.get("manga"))?.toLowerCase();
  return {
    series: oneLine(f.get("series")),
    title: oneLine(f.get("title")),
    volume: parseLabel(oneLine(f.get("volume"))),
    number: parseLabel(oneLine(f.get("number"))),
    count: positive(f.get("count")),
    pageCount: positive(f.get("pagecount")),
    languageISO: oneLine(f.get("languageiso")),
    manga: MANGA.find((m) => m.toLowerCase() === manga) ?? null,
    format: oneLine(f.get("format")),
    notes: block(f.get("notes")),
    web: oneLine(f.get("web")),
    scanInformation: block(f.get("scaninformation")),
  };
}

/* ------------------------------------------------------------------------------------------ */
/* Precedence between ComicInfo and the file name                                             */
/* ------------------------------------------------------------------------------------------ */

export interface Numbering {
  kind: "book" | "chapter" | null;
  volume: Label | null;
  chapter: Label | null;
  chapterEnd: Label | null;
  part: number | null;
  /** Parts the file name says the chapter has ("(part 1 of 3)"); null when unsaid. */
  partsTotal: number | null;
  extra: boolean;
  /** Where the numbering was read from (FileFacts.tagSource). */
  tagSource: "comicinfo" | "filename";
}

/** ComicTagger writes the series' start year into Volume (ComicVine "volumes" are runs). */
function isYear(l: Label): boolean {
  return isWhole(l) && compareLabels(l, "1900") >= 0 && compareLabels(l, "2099") <= 0;
}

/**
 * The numbering of one file. Precedence, first match wins:
 * 1. No ComicInfo, or one with neither Volume nor Number (a year in Volume counts as none) → the
 *    file name.
 * 2. Number present → a chapter (Kavita's reading), with ComicInfo's Volume; except a file named
 *    as a volume only ("Title v03") whose Number repeats that volume (and whose Volume is absent or
 *    the same): taggers such as Komga's write a book's number there, so it stays a book by name.
 * 3. Volume without Number → a book (how volume archives, ours included, are tagged); except when
 *    the file name names a chapter: a tag alone never turns a chapter file into a book, because a
 *    book covers chapters and can retire their files. The name decides; its volume or the tag's fills in.
 * What ComicInfo cannot say (a chapter range, a part, extra) comes from the file name when the name
 * does not contradict the chosen chapter; the volume is filled from the name the same way.
 */
export function numberingFromSources(ci: ComicInfoFields | null, name: ParsedName): Numbering {
  const byName: Numbering = {
    kind: name.kind,
    volume: name.volume,
    chapter: name.chapter,
    chapterEnd: name.chapterEnd,
    part: name.part,
    partsTotal: name.partsTotal,
    extra: name.extra,
    tagSource: "filename",
  };
  if (!ci) return byName;
  const volume = ci.volume !== null && !isYear(ci.volume) ? ci.volume : null;
  if (ci.number !== null) {
    const repeatsVolume =
      name.kind === "book" &&
      name.volume !== null &&
      labelEquals(name.volume, ci.number) &&
      (volume === null || labelEquals(volume, ci.number));
    if (repeatsVolume) return byName;
    const same = name.chapter !== null && labelEquals(name.chapter, ci.number);
    const agrees = same || name.chapter === null;
    return {
      kind: "chapter",
      volume: volume ?? (agrees ? name.volume : null),
      chapter: ci.number,
      chapterEnd: same ? name.chapterEnd : null,
      part: agrees ? name.part : null,
      partsTotal: agrees ? name.partsTotal : null,
      extra: agrees && name.extra,
      tagSource: "comicinfo",
    };
  }
  if (volume !== null) {
    if (name.chapter !== null) return { ...byName, volume: name.volume ?? volume };
    return {
      kind: "book",
      volume,
      chapter: null,
      chapterEnd: null,
      part: null,
      partsTotal: null,
      extra: name.extra,
      tagSource: "comicinfo",
    };
  }
  return byName;
}

/**
 * The language a ComicInfo `LanguageISO` names, as the service stores languages
 * (`normalizeLanguageTag`: "en-us" → "en-US", "PT_br" → "pt-BR"); null when it names none (absent,
 * "unknown", not a code). A series reads it at its own precision (`languageInSeries`).
 */
export function comicInfoLanguage(ci: Pick<ComicInfoFields, "languageISO"> | null): string | null {
  return normalizeLanguageTag(ci?.languageISO);
}
