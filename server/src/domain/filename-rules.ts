/**
 * The rules table of the file-name parser (filename.ts is the driver). Every pattern is built
 * from a few pieces so that the keyword lists stay readable and the number grammar is the same
 * everywhere: digits with an optional decimal part, never a float.
 *
 * All patterns use the `u` flag: series names are often Japanese or Korean, and `\b` knows
 * nothing about letters outside ASCII, so word edges are written as explicit look-arounds.
 */

/** A decimal number as written ("003", "10.5"); canonicalised later by parseLabel. */
const NUM = String.raw`(\d+(?:\.\d+)?)`;
/** Start of a word: no letter or digit before (works for "Capítulo" and after "_" → " "). */
const START = String.raw`(?<![\p{L}\p{N}])`;
/** End of a word, also refusing a hyphen so "Extra-ordinary" is not "Extra". */
const END = String.raw`(?![\p{L}\p{N}-])`;

/** Spelled-out volume keywords (English, French/Spanish/Portuguese, German, Russian). */
const VOL_WORD = String.raw`volumes?|vols?|tom[eo]s?|band|тома?`;
/** Spelled-out chapter keywords (+ webtoon episodes, Romance and German languages, Russian). */
const CH_WORD = String.raw`chapters?|chapitres?|chap|chp|ch|cap[ií]tulos?|capitolo|cap|kapitel|episodes?|epis[oó]dios?|ep|глава`;

/** A marker prefix: a word followed by an optional dot and spacing, or a glued single letter. */
function marker(words: string, letter: string): string {
  return String.raw`(?:(${words})\.?\s*-?\s*|(${letter})\.?(?=\d))`;
}
/** The prefix repeated at the end of a range ("c001-c005", "v01-v03"); never captured. */
function again(words: string, letter: string): string {
  return String.raw`(?:(?:${words})\.?\s*|${letter}\.?)`;
}
/**
 * A range end: "001-003" glued, or " - c003" spaced but only with the keyword repeated, because
 * "Title - c001 - 2 Subtitle" is a subtitle, not a range.
 */
function rangeEnd(words: string, letter: string): string {
  return String.raw`(?:-${again(words, letter)}?${NUM}|\s+-\s+${again(words, letter)}${NUM})?`;
}
/** "p2", " part 2", ".pt2" right after a chapter number: a split chapter. */
const PART_SUFFIX = String.raw`(?:[\s.]*(?:part|pt|p)\.?\s*(\d+)(?![\p{L}\p{N}]))?`;
/** "Chapter11v2": a scanlator's revision number, not a volume. */
const REVISION = String.raw`(?:v\d+)?`;

/** " Part 2", " pt.2" right after a volume number: a volume split in files (never the bare "p", a page). */
const VOLUME_PART_SUFFIX = String.raw`(?:[\s.]*(?:part|pt)\.?\s*(\d+)(?![\p{L}\p{N}]))?`;

/**
 * Volume: groups 1 = keyword, 2 = single letter "v", 3 = number, 4/5 = range end (glued/spaced),
 * 6 = part. "Vol.01", "v02", "Volume 12", "Tome 03", "Tomo 3", "Band 4", "Vol-1", "v01-03", "Vol. 2 Part 1".
 */
export const VOLUME_RE = new RegExp(
  START + marker(VOL_WORD, "v") + NUM + rangeEnd("vol(?:ume)?s?", "v") + VOLUME_PART_SUFFIX,
  "giu",
);

/**
 * Chapter: groups 1 = keyword, 2 = "c", 3 = number, 4/5 = range end, 6 = part.
 * "Ch.003", "c010.5", "Chapter 0", "c001-003", "c001-c005", "Capítulo 12", "Episode 10", "ch012_p2".
 */
export const CHAPTER_RE = new RegExp(
  START + marker(CH_WORD, "c") + NUM + REVISION + rangeEnd(CH_WORD, "c") + REVISION + PART_SUFFIX,
  "giu",
);

/** "#12" (western-style issue numbers used for chapters). Group 1 = number. */
export const HASH_RE = new RegExp(String.raw`#\s*${NUM}`, "gu");

/**
 * The ordinal prefix of a CJK number: Japanese/Chinese "第", Korean "제" as a word of its own (the
 * last syllable of "형제 3권" belongs to the title). After the prefix the number may follow a digit
 * ("卷2第25话"); without it a digit or dot before means a longer number.
 */
const CJK_ORDINAL = String.raw`(?:第\s*|(?<![\p{L}\p{N}])제\s*|(?<![\d.]))`;

/**
 * Japanese/Chinese/Korean volume: "第3巻", "第3卷", "1-3巻", "3권", "제1권", and the Chinese prefix
 * form "卷2", "卷01". Groups 1, 2 = number and range end; 3, 4 = the same in the prefix form.
 */
export const CJK_VOLUME_RE = new RegExp(
  String.raw`${CJK_ORDINAL}${NUM}(?:\s*[-~～]\s*${NUM})?\s*[巻卷册冊권]|卷${NUM}(?:[-~～]${NUM})?(?![\d.])`,
  "gu",
);

/** Japanese/Chinese/Korean chapter: "第12話", "第3话", "第5回", "3화", "제12화", "38-1화". Groups 1, 2. */
export const CJK_CHAPTER_RE = new RegExp(
  String.raw`${CJK_ORDINAL}${NUM}(?:\s*[-~～]\s*${NUM})?\s*[話话回章화회]`,
  "gu",
);

/**
 * A bare number: "Title 012", "Bleach 001-003", "Title - 012 - Subtitle". Only counts at the end of
 * the name or of a " - " segment, so "7 Seeds" and "20th Century Boys" keep their digits.
 * Groups 1 = number, 2 = range end, 3 = part.
 */
export const BARE_RE = new RegExp(
  String.raw`(?<![\p{L}\p{N}.#])${NUM}(?:-${NUM})?${PART_SUFFIX}(?=\s*(?:$|\s[-–—]\s))`,
  "gu",
);
/**
 * A bare number before the group's initials that end an underscored scanlator release
 * ("Beelzebub_172_RHS"): read only in names written with underscores, whose last word is 2–6
 * capitals. Groups 1 = number, 2 = range end.
 */
export const BARE_BEFORE_INITIALS_RE = new RegExp(
  String.raw`(?<![\p{L}\p{N}.#])${NUM}(?:-${NUM})?(?=\s\p{Lu}{2,6}$)`,
  "gu",
);
/** Words right before a bare number that make it part of a title: "Kaiju No. 8", "Part 4", "Season 2". */
export const BARE_NUMBER_OWNER_RE = /(?:^|[\s(])(?:no\.?|nr\.?|part|season|saison|vol\.?|volume|level|lv\.?)\s*$/iu;

/** Numbers of an extra, not of a main chapter: "Omake 2", "Side Story 02", "Extra 1", "Bonus 3". */
export const EXTRA_NUMBER_RE = new RegExp(
  START + String.raw`(?:omake|extras?|bonus|side[\s-]?stor(?:y|ies))\s*-?\s*${NUM}` + END,
  "giu",
);
/** Numbered specials: "SP02", "Special 2". */
export const SPECIAL_NUMBER_RE = new RegExp(START + String.raw`(?:sp\.?(?=\d)|specials?\s*-?\s*)${NUM}` + END, "giu");

/** Words naming an optional extra chapter. */
const EXTRA_WORDS = String.raw`prologue|epilogue|omake|interlude|afterword|extras?(?:\s+chapters?)?|bonus(?:\s+chapters?)?|side[\s-]?stor(?:y|ies)|special\s+chapters?`;
export const EXTRA_WORD_RE = new RegExp(START + String.raw`(?:${EXTRA_WORDS})` + END, "iu");
/** The same words at the end of the title part ("Title - Prologue", "Title Omake"). */
export const TRAILING_EXTRA_RE = new RegExp(String.raw`(?:^|[\s\-–—,:])(?:${EXTRA_WORDS})\s*$`, "iu");

/** Works outside the numbering that are always specials. */
const SPECIAL_WORDS = String.raw`one[\s-]?shot|art[\s-]?book|art\s+collection|fan[\s-]?book|guide[\s-]?book`;
export const SPECIAL_WORD_RE = new RegExp(START + String.raw`(?:${SPECIAL_WORDS})` + END, "giu");
/** "Special(s)" only means a special when the file has no number ("Special A v01" is a title). */
export const SPECIAL_PLAIN_RE = new RegExp(START + String.raw`specials?` + END + String.raw`(?!\s*edition)`, "giu");

/* ------------------------------------------------------------------------------------------ */
/* Bracketed parts: [Group], (Digital), (2019), (part 2), {Special Edition}, 【…】                */
/* ------------------------------------------------------------------------------------------ */

export const BRACKET_RE = /\[([^\]]*)\]|\(([^()]*)\)|\{([^}]*)\}|【([^】]*)】/gu;

/** "(1)", "(2)": the duplicate markers of a copied file, and other bare counters. */
export const DUPLICATE_RE = /^\s*\d{1,3}\s*$/u;
/** "(2019)", "(2016-2019)", "(September 2007)", "(March 2016)". */
export const YEAR_RE =
  /^\s*(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+)?(?:19|20)\d\d(?:\s*-\s*(?:19|20)?\d\d)?\s*$/iu;
/** "(part 2)", "(part 1 of 2)", "(Pt. 3)". Group 1 = part. */
export const PAREN_PART_RE = /^\s*(?:part|pt)\.?\s*(\d+)(?:\s*(?:of|\/)\s*(\d+))?\s*$/iu;
/** Release descriptors that follow a title ("(Digital)", "(F)"): a round bracket after them is the group. */
export const RELEASE_TAG_RE =
  /^\s*(?:digital(?:[\s-]?hd)?|webrip|web|f|f\d|fixed|hq|lq|hd|c2c|color(?:ed)?|full[\s-]?colou?r|uncensored|official)\s*$/iu;
/** Bracket contents that are never a group: resolutions, languages, revisions, page counts, states. */
export const NOISE_RE = new RegExp(
  [
    String.raw`^\s*\d{3,4}[pi]\s*$`,
    String.raw`^\s*v\d+(?:\.\d+)?\s*$`,
    String.raw`^\s*\d+\s*pages?\s*$`,
    String.raw`^\s*(?:eng(?:lish)?|raw|manga|complete|completed|ongoing|volume\s+scans|scans?|unknown|jpn|japanese)\s*$`,
  ].join("|"),
  "iu",
);

/** Archive and document extensions a library file can have (removed before parsing). */
export const EXTENSION_RE = /\.(?:cbz|zip|cbr|rar|cb7|7z|cbt|tar|pdf|epub)$/iu;
