/**
 * Reads volume, chapter and series from the file name of a library archive.
 *
 * The name is cleaned (extension, underscores, dot separators, full-width digits), bracketed parts
 * are read apart (group, tags, "(part 2)", "(v01)"), then the rules of filename-rules.ts find the
 * markers. The series is the text before the first marker. Numbers stay exact labels throughout.
 *
 * Decisions (each one a case that reached the tests):
 * - A bare number is a chapter only at the end of the name or of a " - " segment, and only when no
 *   volume or chapter marker exists: "7 Seeds v01" keeps its 7, "Title 012" is chapter 12.
 * - "v2" after a chapter is a scanlator revision ("Chapter11v2"); a spelled-out "Volume 2" is not.
 * - Chapters named only inside parentheses describe what a volume holds ("v09 (Ch.071-079)") and
 *   are used only when the name has no volume or chapter of its own.
 * - A descending range "38-1화" / "c012-2" is chapter 38 part 1, not a range.
 * - Season markers ("S2") stay in the series: season 2's chapter 10 is not chapter 10 of the work.
 * - extra: the name calls itself an extra ("Omake 2", "Title - Prologue"), or a fractional chapter
 *   says so ("Ch. 23.5 - Volume 3 Extras"). A whole chapter titled "Prologue" is a main chapter,
 *   and the number after "Omake"/"Side Story" is the extra's own, never a main chapter number.
 * - special: one-shots, art/fan/guide books, "SP02", and "Special" in a name without numbers. A
 *   chapter named only inside a special's parentheses is where it sits, not its number.
 */
import { compareLabels, isWhole, parseLabel, type Label } from "./labels.ts";
import { bracketLanguage, isLanguageTag } from "./language-markers.ts";
import { baseLanguage } from "./translation-jobs.ts";
import {
  BARE_BEFORE_INITIALS_RE,
  BARE_NUMBER_OWNER_RE,
  BARE_RE,
  BRACKET_RE,
  CHAPTER_RE,
  CJK_CHAPTER_RE,
  CJK_VOLUME_RE,
  DUPLICATE_RE,
  EXTENSION_RE,
  EXTRA_NUMBER_RE,
  EXTRA_WORD_RE,
  HASH_RE,
  NOISE_RE,
  PAREN_PART_RE,
  RELEASE_TAG_RE,
  SPECIAL_NUMBER_RE,
  SPECIAL_PLAIN_RE,
  SPECIAL_WORD_RE,
  TRAILING_EXTRA_RE,
  VOLUME_RE,
  YEAR_RE,
} from "./filename-rules.ts";

export interface ParsedName {
  /** The title part, without group, tags and numbers; null when the name has none. */
  series: string | null;
  /** First volume (the only one unless the file is a pack). */
  volume: Label | null;
  /** Last volume of a pack ("v01-03" → "3"); null for a single volume. */
  volumeEnd: Label | null;
  /** First chapter the file holds. */
  chapter: Label | null;
  /** Last chapter of a range ("c001-003" → "3"); null for one chapter. */
  chapterEnd: Label | null;
  /** 1-based part of a split chapter ("ch012_p2", "(part 1 of 2)"). */
  part: number | null;
  /** Parts the name says the chapter has ("(part 1 of 3)" → 3); null when it does not say. */
  partsTotal: number | null;
  /** "chapter" when a chapter is found, "book" when only a volume is, else null. */
  kind: "book" | "chapter" | null;
  /** Release group ("[Group]" or the bracket after "(Digital)"). */
  group: string | null;
  /** An optional extra (omake, prologue, side story). */
  extra: boolean;
  /** Outside the numbering (one-shot, art book, SP01). */
  special: boolean;
}

export interface ParseNameOptions {
  /**
   * The series title already known (the folder name). A name that starts with it keeps it whole,
   * so the digits of "Mob Psycho 100" or "Kaiju No. 8" are never read as numbers.
   */
  series?: string | null;
}

/** Longer names are cut: real file names are ≤ 255 bytes, and the regexes stay cheap. */
const MAX_NAME = 512;

interface NumberHit {
  index: number;
  num: Label;
  endText: string | undefined;
  partText: string | undefined;
  /** The glued single-letter form ("v2", "c5"). */
  letter: boolean;
}

function hits(re: RegExp, text: string, pick: (m: RegExpExecArray) => Omit<NumberHit, "index"> | null): NumberHit[] {
  const out: NumberHit[] = [];
  for (const m of text.matchAll(re)) {
    const h = pick(m);
    if (h) out.push({ index: m.index, ...h });
  }
  return out;
}

const num = (t: string | undefined): Label | null => parseLabel(t ?? null);

function volumeHits(text: string): NumberHit[] {
  const latin = hits(VOLUME_RE, text, (m) => {
    const n = num(m[3]);
    return n ? { num: n, endText: m[4] ?? m[5], partText: m[6], letter: m[2] !== undefined } : null;
  });
  const cjk = hits(CJK_VOLUME_RE, text, (m) => {
    const n = num(m[1] ?? m[3]);
    return n ? { num: n, endText: m[2] ?? m[4], partText: undefined, letter: false } : null;
  });
  return [...latin, ...cjk].sort((a, b) => a.index - b.index);
}

function chapterHits(text: string): NumberHit[] {
  const latin = hits(CHAPTER_RE, text, (m) => {
    const n = num(m[3]);
    return n ? { num: n, endText: m[4] ?? m[5], partText: m[6], letter: m[2] !== undefined } : null;
  });
  const hash = hits(HASH_RE, text, (m) => {
    const n = num(m[1]);
    return n ? { num: n, endText: undefined, partText: undefined, letter: false } : null;
  });
  const cjk = hits(CJK_CHAPTER_RE, text, (m) => {
    const n = num(m[1]);
    return n ? { num: n, endText: m[2], partText: undefined, letter: false } : null;
  });
  return [...latin, ...hash, ...cjk].sort((a, b) => a.index - b.index);
}

/**
 * A bare number that is a chapter: not a year, not owned by a word before it, at most 4 digits.
 * `underscored`: the name was written with underscores, where a group's initials may end it.
 */
function bareHit(text: string, unmasked: string, underscored: boolean): NumberHit | null {
  const pick = (m: RegExpExecArray): Omit<NumberHit, "index"> | null => {
    const raw = m[1] ?? "";
    const whole = raw.split(".")[0] ?? "";
    if (whole.length > 4) return null;
    if (/^(?:19|20)\d\d$/u.test(raw)) return null;
    if (BARE_NUMBER_OWNER_RE.test(text.slice(0, m.index))) return null;
    const n = num(raw);
    return n ? { num: n, endText: m[2], partText: m[3], letter: false } : null;
  };
  const found = hits(BARE_RE, text, pick);
  if (found.length === 0 && underscored) found.push(...hits(BARE_BEFORE_INITIALS_RE, text, pick));
  // A number alone in its " - " segment beats one ending the title: "Kaiji 2 - 012" is chapter 12
  // (`unmasked`: the name with a known series left in, which is no segment of its own).
  return found.find((h) => /(?:^|\s[-–—]\s)$/u.test(unmasked.slice(0, h.index))) ?? found[0] ?? null;
}

function toPart(text: string | undefined): number | null {
  if (text === undefined || !/^\d{1,3}$/u.test(text)) return null;
  const n = Number(text);
  return n >= 1 ? n : null;
}

/** Range end above the start → end; below → a part ("38-1화"); equal or unreadable → nothing. */
function rangeOf(start: Label, endText: string | undefined): { end: Label | null; part: number | null } {
  const end = num(endText);
  if (!end) return { end: null, part: null };
  const c = compareLabels(end, start);
  if (c > 0) return { end, part: null };
  if (c < 0 && isWhole(end)) return { end: null, part: toPart(end) };
  return { end: null, part: null };
}

function normalize(text: string): string {
  // Full-width digits (第３巻) read as ASCII; underscores are spaces.
  let s = text.replace(/[０-９]/gu, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0)).replace(/_/gu, " ");
  // Dots are separators only in names that have no spaces ("Title.v01.c001"); decimals stay.
  if (!/\s/u.test(s.trim())) s = s.replace(/(?<!\d)\.|\.(?!\d)/gu, " ");
  return s.replace(/\s+/gu, " ").trim();
}

function cleanTitle(text: string): string | null {
  const s = text
    .replace(/\s+/gu, " ")
    .replace(/(?:^|\s)vol(?:ume)?\.?\s*(?:tbd|tba|\?+)\s*$/iu, "")
    .replace(/^[\s\-–—,:;~]+|[\s\-–—,:;~]+$/gu, "");
  return s === "" ? null : s;
}

interface Brackets {
  rest: string;
  group: string | null;
  part: number | null;
  partsTotal: number | null;
  /** Round-bracket contents that may hold "(v01)" or "(Ch 01-08)". */
  numbered: string[];
  /** Round-bracket contents that are not a group, for the extra keywords. */
  text: string;
}

/** Reads [..], (..), {..} and 【..】 apart and removes them from the name. */
function readBrackets(s: string): Brackets {
  let square: string | null = null;
  let round: string | null = null;
  let part: number | null = null;
  let partsTotal: number | null = null;
  let afterTag = false;
  const numbered: string[] = [];
  const text: string[] = [];
  for (const m of s.matchAll(BRACKET_RE)) {
    const isRound = m[2] !== undefined;
    const content = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? "").trim();
    if (content === "" || m[3] !== undefined) continue; // {Special Edition}: an edition, never a group
    if (!isRound) {
      if (NOISE_RE.test(content) || isLanguageTag(content) || RELEASE_TAG_RE.test(content) || YEAR_RE.test(content))
        continue;
      if (DUPLICATE_RE.test(content)) continue;
      if (volumeHits(content).length > 0)
        numbered.push(content); // "[Volume 11]"
      else square ??= content;
      continue;
    }
    if (DUPLICATE_RE.test(content)) continue;
    if (YEAR_RE.test(content) || RELEASE_TAG_RE.test(content)) {
      afterTag = true;
      continue;
    }
    const p = PAREN_PART_RE.exec(content);
    if (p) {
      if (part === null) {
        part = toPart(p[1]);
        // "(part 1 of 3)": the known third part must not go missing unnoticed.
        const total = toPart(p[2]);
        partsTotal = part !== null && total !== null && total >= part ? total : null;
      }
      continue;
    }
    if (volumeHits(content).length > 0 || chapterHits(content).length > 0) {
      numbered.push(content);
      continue;
    }
    // Scene convention: "(2019) (Digital) (danke-Empire)" — the bracket after the tags is the group.
    if (afterTag && round === null && !NOISE_RE.test(content) && !isLanguageTag(content)) round = content;
    else text.push(content);
  }
  const rest = s.replace(BRACKET_RE, " ").replace(/\s+/gu, " ").trim();
  return { rest, group: square ?? round, part, partsTotal, numbered, text: text.join(" ") };
}

/** Blanks out a known series prefix (same length, so indexes stay valid). */
function maskSeries(m: string, series: string | null | undefined): number {
  if (!series) return 0;
  const s = normalize(series).toLowerCase();
  if (s === "" || m.slice(0, s.length).toLowerCase() !== s) return 0;
  return /[\p{L}\p{N}]/u.test(m.charAt(s.length)) ? 0 : s.length;
}

function firstIndex(re: RegExp, text: string): number | null {
  for (const m of text.matchAll(re)) return m.index;
  return null;
}

/**
 * Mihon/Tachiyomi save a release as "<scanlator>_<chapter name>" ("Asura Scans_Chapter 12"). Read so
 * only in a name that otherwise uses spaces, when the part before the first "_" names no number and
 * the rest starts right after it with a volume or chapter marker: "Chapter 12_ The Return" is a
 * colon saved as "_", and "Title_v01_c001" or "Title Two_v01_c001" use underscores as spaces.
 */
function scanlatorPrefix(stem: string): { group: string; rest: string } | null {
  const i = stem.indexOf("_");
  if (i <= 0 || !/\s/u.test(stem)) return null;
  const group = stem.slice(0, i).trim();
  const rest = stem.slice(i + 1);
  // Past the prefix an "_" is only a saved colon ("_ "): "Kenichi_v11_c90-98" is underscore style.
  if (group === "" || /^\s|_\S/u.test(rest) || /[[\](){}【】]/u.test(group)) return null;
  if (volumeHits(group).length > 0 || chapterHits(group).length > 0) return null;
  const restText = normalize(rest);
  return volumeHits(restText).length > 0 || chapterHits(restText).length > 0 ? { group, rest } : null;
}

export function parseFileName(name: string, options: ParseNameOptions = {}): ParsedName {
  const base = name.slice(Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\")) + 1).slice(0, MAX_NAME);
  const full = base.replace(EXTENSION_RE, "");
  const scanlator = scanlatorPrefix(full);
  const stem = scanlator?.rest ?? full;
  const br = readBrackets(normalize(stem));
  const m = br.rest;
  const maskLen = maskSeries(m, options.series);
  const w = " ".repeat(maskLen) + m.slice(maskLen);

  const chHit = chapterHits(w)[0] ?? null;
  // After the chapter, a glued "v2" is a revision and a volume past " - " is in the subtitle.
  const inTitle = (v: NumberHit) =>
    !chHit || v.index < chHit.index || (!v.letter && !/\s[-–—]\s/u.test(w.slice(chHit.index, v.index)));
  const volHit = volumeHits(w).find(inTitle) ?? null;
  const extraNum = firstIndex(EXTRA_NUMBER_RE, w);
  const specialNum = firstIndex(SPECIAL_NUMBER_RE, w);
  const bare =
    !volHit && !chHit && extraNum === null && specialNum === null
      ? bareHit(w, m, stem.includes("_") && !/\s/u.test(stem))
      : null;
  const specialWord = firstIndex(SPECIAL_WORD_RE, w);
  const specialPlain = !volHit && !chHit && !bare ? firstIndex(SPECIAL_PLAIN_RE, w) : null;

  let volume = volHit?.num ?? null;
  let volumeEnd = volHit ? rangeOf(volHit.num, volHit.endText).end : null;
  let chapterHit = chHit ?? bare;
  // Parentheses only fill what the name itself leaves open; a special's "(between chapter 83 and
  // 84)" or "(Ch. 0)" says where it sits, and it must not take that chapter's place.
  const special = specialNum !== null || specialWord !== null || specialPlain !== null;
  for (const content of br.numbered) {
    if (volume === null) {
      const v = volumeHits(content)[0];
      if (v) {
        volume = v.num;
        volumeEnd = rangeOf(v.num, v.endText).end;
      }
    }
    if (chapterHit === null && volHit === null && !special) chapterHit = chapterHits(content)[0] ?? null;
  }

  const chapter = chapterHit?.num ?? null;
  const range = chapter && chapterHit ? rangeOf(chapter, chapterHit.endText) : { end: null, part: null };
  const volumePart = chapterHit ? null : toPart(volHit?.partText);
  const part = toPart(chapterHit?.partText) ?? range.part ?? volumePart ?? br.part;
  const partsTotal = part !== null && part === br.part ? br.partsTotal : null;

  const ends = [volHit, chHit, bare].map((h) => h?.index ?? null);
  ends.push(extraNum, specialNum, specialWord, specialPlain);
  const seriesEnd = Math.min(m.length, ...ends.filter((i): i is number => i !== null));
  let rawSeries = m.slice(0, seriesEnd);
  let extra = extraNum !== null;
  // "Title - Prologue", "Title Omake": the keyword ends the title (never inside a known series).
  const own = rawSeries.slice(maskLen);
  const trailing = TRAILING_EXTRA_RE.exec(own);
  if (trailing) {
    rawSeries = rawSeries.slice(0, maskLen + trailing.index);
    extra = true;
  }
  const tail = `${m.slice(seriesEnd)} ${br.text}`;
  if (EXTRA_WORD_RE.test(tail) && (chapter === null || !isWhole(chapter))) extra = true;

  return {
    series: cleanTitle(rawSeries),
    volume,
    volumeEnd,
    chapter,
    chapterEnd: range.end,
    part,
    partsTotal: chapter !== null ? partsTotal : null,
    kind: chapter !== null ? "chapter" : volume !== null ? "book" : null,
    group: scanlator?.group ?? br.group,
    extra,
    special,
  };
}

/**
 * Reads a library file from its path below the library root ("Series/Volume 03/Chapter 021.cbz"):
 * the first folder is the series, whose title is known; the file name decides, and the folders in
 * between fill only what it leaves open, nearest first. A folder counts by its markers ("Vol.1",
 * "Chapter 2", "第3巻"), never by a bare number ("2019/", "01/" say too little).
 */
export function parseLibraryPath(relativePath: string): ParsedName {
  const segments = relativePath.split(/[/\\]+/u).filter((s) => s !== "" && s !== ".");
  const file = segments.pop() ?? "";
  const series = segments[0] ?? null;
  const out = parseFileName(file, { series });
  // A special or an extra is outside the numbering, whatever folder it was put in: it takes the
  // folder's volume as a tag, never a book's or a chapter's place.
  const numbered = !out.special && !out.extra;
  let chapterOpen = out.chapter === null && numbered;
  for (const folder of segments.slice(1).reverse()) {
    const f = parseFileName(folder, { series });
    if (out.volume === null && f.volume !== null) {
      out.volume = f.volume;
      out.volumeEnd = f.volumeEnd;
      if (numbered) out.kind ??= "book";
    }
    if (chapterOpen && f.chapter !== null && chapterHits(normalize(folder)).length > 0) {
      Object.assign(out, { chapter: f.chapter, chapterEnd: f.chapterEnd, part: f.part, partsTotal: f.partsTotal });
      out.kind = "chapter";
      chapterOpen = false;
    }
  }
  return out;
}

/**
 * The language a name states in a bracket of its own ("Harbor [fr] - c012.cbz", "(French)", "[ENG]",
 * "[pt-BR]"): the base code; null when no bracket names one, or two brackets name different ones. A
 * language word outside brackets ("The French Chef - c001") or inside a longer bracket ("[French
 * Scans]") states nothing: it may be the title or a group. With `series` (the work's folder name), a
 * name that starts with it reads only what follows: the work's own name states the work's language,
 * which the operator already gave when linking it.
 */
export function nameLanguage(name: string, options: ParseNameOptions = {}): string | null {
  const series = options.series?.trim() ?? "";
  const own = series !== "" && name.toLowerCase().startsWith(series.toLowerCase()) ? name.slice(series.length) : name;
  const found = new Set<string>();
  for (const m of own.matchAll(BRACKET_RE)) {
    const language = bracketLanguage(m[1] ?? m[2] ?? m[3] ?? m[4] ?? "");
    if (language !== null) found.add(language);
  }
  return found.size === 1 ? ([...found][0] ?? null) : null;
}

/**
 * The language of the release a drop-folder name describes: the one the name states, else the
 * mapping's. A name states a base code ("[pt-BR]" and "[br]" read "pt"), so a name stating the
 * mapping's own language keeps the mapping's code ("pt-BR" stays "pt-BR"): slots match languages
 * exactly, and a Brazilian work's "[pt-BR]" file is one of its chapters, not another language's.
 */
export function releaseLanguage(name: string, mappingLanguage: string, options: ParseNameOptions = {}): string {
  const stated = nameLanguage(name, options);
  return stated === null || stated === baseLanguage(mappingLanguage) ? mappingLanguage : stated;
}
