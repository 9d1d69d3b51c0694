/**
 * Writing systems of the translation checks (pure): the script a text is written in, and the
 * scripts a language is written in. Script evidence is judged per region (a translation written in
 * the source's script is untranslated, whatever any language pool says); languages are judged on
 * pooled text (translation-language.ts).
 */

export type Script =
  | "latin"
  | "greek"
  | "cyrillic"
  | "armenian"
  | "georgian"
  | "hebrew"
  | "arabic"
  | "ethiopic"
  | "devanagari"
  | "bengali"
  | "gurmukhi"
  | "gujarati"
  | "oriya"
  | "tamil"
  | "telugu"
  | "kannada"
  | "malayalam"
  | "thai"
  | "lao"
  | "japanese"
  | "han"
  | "hangul"
  | "mixed"
  | "none";

/** Letter families by Unicode script; "kana" is reported as "japanese". */
const FAMILIES: readonly [string, RegExp][] = [
  ["latin", /\p{Script=Latin}/u],
  ["greek", /\p{Script=Greek}/u],
  ["cyrillic", /\p{Script=Cyrillic}/u],
  ["kana", /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ["han", /\p{Script=Han}/u],
  ["hangul", /\p{Script=Hangul}/u],
  ["arabic", /\p{Script=Arabic}/u],
  ["hebrew", /\p{Script=Hebrew}/u],
  ["armenian", /\p{Script=Armenian}/u],
  ["georgian", /\p{Script=Georgian}/u],
  ["ethiopic", /\p{Script=Ethiopic}/u],
  ["devanagari", /\p{Script=Devanagari}/u],
  ["bengali", /\p{Script=Bengali}/u],
  ["gurmukhi", /\p{Script=Gurmukhi}/u],
  ["gujarati", /\p{Script=Gujarati}/u],
  ["oriya", /\p{Script=Oriya}/u],
  ["tamil", /\p{Script=Tamil}/u],
  ["telugu", /\p{Script=Telugu}/u],
  ["kannada", /\p{Script=Kannada}/u],
  ["malayalam", /\p{Script=Malayalam}/u],
  ["thai", /\p{Script=Thai}/u],
  ["lao", /\p{Script=Lao}/u],
];

/** Counts of letters per script family; digits, punctuation and marks are ignored. */
export function scriptCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const ch of text.normalize("NFKC")) {
    if (!/\p{L}/u.test(ch)) continue;
    const family = FAMILIES.find(([, re]) => re.test(ch))?.[0] ?? "other";
    counts.set(family, (counts.get(family) ?? 0) + 1);
  }
  return counts;
}

/** Letters of a text (what the language pools count), after NFKC. */
export const letterCount = (text: string): number =>
  [...text.normalize("NFKC")].filter((ch) => /\p{L}/u.test(ch)).length;

/**
 * The script of a text. Any kana makes Han-with-kana "japanese"; Hangul with Han (hanja) stays
 * "hangul". Letters of two families (or of a script not listed) are "mixed": strict on purpose, a
 * stray source character in a translation must not pass.
 */
export function detectScript(text: string): Script {
  const c = scriptCounts(text);
  const fams = [...c.keys()];
  if (fams.length === 0) return "none";
  if (c.has("kana") && fams.every((f) => f === "kana" || f === "han")) return "japanese";
  if (c.has("hangul") && fams.every((f) => f === "hangul" || f === "han")) return "hangul";
  if (fams.length > 1 || fams[0] === "other") return "mixed";
  const only = fams[0];
  return only === "kana" ? "japanese" : (only as Script);
}

/** Base language code: "en-US" → "en", "zh_Hant" → "zh". */
export const baseCode = (lang: string): string => lang.trim().toLowerCase().split(/[-_]/)[0] ?? "";

const L: Script[] = ["latin"];
const CYR: Script[] = ["cyrillic"];
const ARAB: Script[] = ["arabic"];
const DEVA: Script[] = ["devanagari"];

/**
 * The scripts a text in each language is written in (ISO 639-1 base codes). Japanese may be all
 * kanji ("han"); Serbian is listed in Cyrillic, the script the language identifier models (Latin
 * Serbian reads as Croatian or Slovenian to it); Kurdish is Sorani, in Arabic script, likewise.
 */
const LANGUAGE_SCRIPTS: Readonly<Record<string, readonly Script[]>> = {
  am: ["ethiopic"],
  ar: ARAB,
  az: L,
  be: CYR,
  bg: CYR,
  bn: ["bengali"],
  ca: L,
  cs: L,
  da: L,
  de: L,
  el: ["greek"],
  en: L,
  es: L,
  et: L,
  eu: L,
  fa: ARAB,
  fi: L,
  fr: L,
  gu: ["gujarati"],
  he: ["hebrew"],
  hi: DEVA,
  hr: L,
  hu: L,
  hy: ["armenian"],
  id: L,
  is: L,
  it: L,
  ja: ["japanese", "han"],
  ka: ["georgian"],
  kk: CYR,
  kn: ["kannada"],
  ko: ["hangul"],
  ku: ARAB,
  lo: ["lao"],
  lt: L,
  lv: L,
  mk: CYR,
  ml: ["malayalam"],
  mr: DEVA,
  ms: L,
  nl: L,
  no: L,
  or: ["oriya"],
  pa: ["gurmukhi"],
  pl: L,
  pt: L,
  ro: L,
  ru: CYR,
  sk: L,
  sl: L,
  sq: L,
  sr: CYR,
  sv: L,
  ta: ["tamil"],
  te: ["telugu"],
  th: ["thai"],
  tl: L,
  tr: L,
  uk: CYR,
  ur: ARAB,
  vi: L,
  yo: L,
  zh: ["han"],
};

/** The languages whose scripts the table knows. */
export const SCRIPTED_LANGUAGES: readonly string[] = Object.keys(LANGUAGE_SCRIPTS);

/** The scripts a language is written in, or undefined when the checks know none for it. */
export function languageScripts(lang: string): readonly Script[] | undefined {
  return LANGUAGE_SCRIPTS[baseCode(lang)];
}

/** The scripts the service's own (local) lettering writes: the spec's Latin, Greek and Cyrillic. */
export const LOCAL_LETTERING_SCRIPTS: ReadonlySet<Script> = new Set<Script>(["latin", "greek", "cyrillic"]);

/**
 * Whether the local path may translate into `lang`: its checks know the language's scripts and
 * every one of them is Latin, Greek or Cyrillic. Any other destination needs an external processor.
 */
export function localDestinationSupported(lang: string): boolean {
  const scripts = languageScripts(lang);
  return scripts !== undefined && scripts.length > 0 && scripts.every((s) => LOCAL_LETTERING_SCRIPTS.has(s));
}

/** Scripts whose letters are dense (one character a syllable or a word): pools need fewer of them. */
export const DENSE_SCRIPTS: ReadonlySet<Script> = new Set<Script>(["japanese", "han", "hangul"]);

/**
 * Whether a text in `script` can only be in `lang` among `known` languages (kana: Japanese; Hangul:
 * Korean; Greek: Greek…): then the script alone identifies the language, at any length.
 */
export function scriptIdentifies(script: Script, lang: string, known: Iterable<string>): boolean {
  const own = languageScripts(lang);
  if (!own?.includes(script) || script === "mixed" || script === "none") return false;
  const base = baseCode(lang);
  for (const other of known) {
    const o = baseCode(other);
    if (o !== base && languageScripts(o)?.includes(script)) return false;
  }
  return true;
}
