/**
 * Worker validation of a translated page before anything is imported (spec "Worker validation
 * checks page count and dimensions, …"). Pure. These checks cannot prove translation quality; they
 * catch the provider failures we know: lost or resized pages, untranslated/echoed text, leftover
 * response markers (chat translators batch regions as numbered lines) and the wrong language.
 * Anything failed, ambiguous or malformed keeps the page unreleased.
 *
 * Stable reason codes:
 * - pages: `page_count` (output has a different number of pages), `page_names` (names differ, in
 *   order), `page_geometry` (a page's width/height differs or is not a positive integer).
 * - regions: `empty` (no text), `marker_numbering` (`<|3|>`), `marker_think` (`<think>`/`</think>`),
 *   `marker_fence` (```), `marker_json` (`{"`, `":`), `marker_list` ("1." numbering the source did
 *   not have), `echo` (unchanged answer not provably readable English, or destination not English),
 *   `source_script` (translation written in the source's script, e.g. kana for English),
 *   `script_mismatch` (neither the source's nor the destination's script, or mixed scripts),
 *   `source_language` (confidently the source's Latin-script language, i.e. untranslated),
 *   `wrong_language` (confidently another Latin-script language), `target_unsupported` (no script
 *   known for the destination language), `language_undetermined` (too short or ambiguous to judge:
 *   never a pass; `summarisePage` retries it on the page's pooled text).
 */

export type PageGeometry = { name: string; width: number; height: number };
export type PageCheck =
  { ok: true } | { ok: false; code: "page_count" | "page_names" | "page_geometry"; detail: string };

const validSize = (n: number) => Number.isInteger(n) && n > 0;

/** Output pages must be the source pages: same count, names (in order) and pixel size. */
export function checkPages(source: readonly PageGeometry[], output: readonly PageGeometry[]): PageCheck {
  if (source.length !== output.length) {
    return { ok: false, code: "page_count", detail: `expected ${source.length} pages, got ${output.length}` };
  }
  for (const [i, s] of source.entries()) {
    const o = output[i];
    if (!o) return { ok: false, code: "page_count", detail: `page ${i + 1} missing` };
    if (s.name !== o.name)
      return { ok: false, code: "page_names", detail: `page ${i + 1}: expected "${s.name}", got "${o.name}"` };
    if (!validSize(o.width) || !validSize(o.height) || o.width !== s.width || o.height !== s.height) {
      return {
        ok: false,
        code: "page_geometry",
        detail: `${s.name}: expected ${s.width}x${s.height}, got ${o.width}x${o.height}`,
      };
    }
  }
  return { ok: true };
}

export type Script = "latin" | "greek" | "cyrillic" | "japanese" | "han" | "hangul" | "arabic" | "mixed" | "none";

const SCRIPT_TESTS: readonly [string, RegExp][] = [
  ["latin", /\p{Script=Latin}/u],
  ["greek", /\p{Script=Greek}/u],
  ["cyrillic", /\p{Script=Cyrillic}/u],
  ["kana", /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ["han", /\p{Script=Han}/u],
  ["hangul", /\p{Script=Hangul}/u],
  ["arabic", /\p{Script=Arabic}/u],
];

/** Counts of letters per script family; digits, punctuation and marks are ignored. */
function scriptCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const ch of text.normalize("NFKC")) {
    if (!/\p{L}/u.test(ch)) continue;
    const family = SCRIPT_TESTS.find(([, re]) => re.test(ch))?.[0] ?? "other";
    counts.set(family, (counts.get(family) ?? 0) + 1);
  }
  return counts;
}

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

/** Base language code: "en-US" → "en". */
const base = (lang: string) => lang.trim().toLowerCase().split(/[-_]/)[0] ?? "";

const SCRIPT_OF: Readonly<Record<string, Script>> = {
  ja: "japanese",
  zh: "han",
  ko: "hangul",
  el: "greek",
  ru: "cyrillic",
  uk: "cyrillic",
  bg: "cyrillic",
  sr: "cyrillic",
  be: "cyrillic",
  mk: "cyrillic",
  kk: "cyrillic",
  ar: "arabic",
  fa: "arabic",
  ur: "arabic",
};

/** Stop words and characteristic letter sequences of the Latin-script languages we can judge. */
const LATIN: Readonly<Record<string, { stop: ReadonlySet<string>; grams: readonly string[]; chars: string }>> = {
  en: {
    stop: new Set(
      "the and you to of is it that in was what this for are not with have be my me we he she they do don't i'm it's your all just but can so no there".split(
        " ",
      ),
    ),
    grams: ["th", "wh", "ing", "ght", "ould", "ey "],
    chars: "",
  },
  fr: {
    stop: new Set(
      "le la les de des et est un une je tu il elle nous vous ne pas que qui ce en du au pour sur mais c'est j'ai avec moi ils elles on cet cette ici déjà aussi tout rien bien oui non te me se sa son ses mon ma mes ton ta tes".split(
        " ",
      ),
    ),
    grams: ["eau", "oux", " qu'", " l'", " d'", " j'", " n'", " c'", "ais", "ait", "ez "],
    chars: "àâçéèêëîïôùûœ",
  },
  de: {
    stop: new Set(
      "der die das und ist ich du nicht ein eine zu es sie wir mit den dem auf was wie mir mich aber auch noch hier".split(
        " ",
      ),
    ),
    grams: ["sch", "ch", "ei", "ung", "cht", "ie"],
    chars: "äöüß",
  },
  es: {
    stop: new Set(
      "el la los las de que y es en un una no por para con se lo me te mi yo tu qué pero esto está muy ya nos les del al hay eso aquí antes este esta sí".split(
        " ",
      ),
    ),
    grams: ["ción", "ll", "os ", "que", "ado"],
    chars: "ñ¿¡",
  },
  it: {
    stop: new Set(
      "il lo la gli le di che e è un una non per con mi ti io tu sono questo cosa ma ho del della sei già ci questo qui anche".split(
        " ",
      ),
    ),
    grams: ["zione", "gli", "cch", "ell", "tt"],
    chars: "àèìòù",
  },
  pt: {
    stop: new Set(
      "o a os as de que e é um uma não por para com se me eu você isso está do da no na mas muito já nós eles ele ela isso aqui deste sim tem antes".split(
        " ",
      ),
    ),
    grams: ["ção", "ões", "nh", "lh", "ão"],
    chars: "ãõçâê",
  },
  nl: {
    stop: new Set(
      "de het een en is ik je niet dat van wat te zijn we hij zij maar met voor op er dit hier ook".split(" "),
    ),
    grams: ["ij", "oe", "aa", "sch", "cht"],
    chars: "",
  },
};

export const LATIN_LANGUAGES: readonly string[] = Object.keys(LATIN);
export const destinationScript = (lang: string): Script | undefined =>
  LATIN[base(lang)] ? "latin" : SCRIPT_OF[base(lang)];
export const MIN_LETTERS = 20;
/** Below this confidence a guess is ambiguous, which is never a pass. */
export const MIN_CONFIDENCE = 0.5;

export type LanguageGuess = { language: string; confidence: number } | "undetermined";

/**
 * An offline identifier. Script decides non-Latin text (any length with letters); Latin text needs
 * MIN_LETTERS letters and is scored by stop words plus letter sequences. `candidates` narrow the
 * answer (e.g. which Cyrillic language); they never make weak evidence strong.
 */
export function identifyLanguage(text: string, candidates?: readonly string[]): LanguageGuess {
  const cands = candidates?.map(base);
  const script = detectScript(text);
  if (script === "none" || script === "mixed") return "undetermined";
  if (script !== "latin") {
    const langs = Object.entries(SCRIPT_OF)
      .filter(([, s]) => s === script)
      .map(([l]) => l);
    const allowed = cands ? langs.filter((l) => cands.includes(l)) : langs;
    if (allowed.length === 1 && allowed[0]) return { language: allowed[0], confidence: 1 };
    if (cands && allowed.length === 0) return "undetermined";
    return { language: `${script}-script`, confidence: 1 };
  }
  const lower = text.normalize("NFC").toLowerCase().replace(/[’‘]/g, "'");
  const letters = [...lower].filter((ch) => /\p{L}/u.test(ch));
  if (letters.length < MIN_LETTERS) return "undetermined";
  const words = lower.split(/[^\p{L}']+/u).filter((w) => w !== "");
  const padded = ` ${words.join(" ")} `;
  // A stop word shared by several languages ("de", "que") counts as a share of one.
  const weight = (w: string) => 1 / Object.values(LATIN).filter((p) => p.stop.has(w)).length;
  const scores = Object.entries(LATIN)
    .filter(([l]) => !cands || cands.includes(l))
    .map(([language, p]) => {
      const stop = words.filter((w) => p.stop.has(w)).reduce((n, w) => n + weight(w), 0) / words.length;
      const grams = p.grams.reduce((n, g) => n + padded.split(g).length - 1, 0) / words.length;
      const chars = letters.filter((ch) => p.chars.includes(ch)).length / words.length;
      // English uses no diacritics: each one counts against it.
      const foreign = language === "en" ? letters.filter((ch) => !/[a-z]/.test(ch)).length / words.length : 0;
      return { language, stop, score: stop + 0.15 * grams + 0.5 * chars - foreign };
    })
    .sort((a, b) => b.score - a.score);
  const [best, second] = scores;
  if (!best || best.stop < 0.15 || best.score <= 0) return "undetermined";
  const margin = second
    ? Math.max(0, (best.score - Math.max(0, second.score)) / best.score)
    : Math.min(1, best.stop / 0.3);
  const confidence = Math.round(margin * 100) / 100;
  return confidence < MIN_CONFIDENCE ? "undetermined" : { language: best.language, confidence };
}

export type RegionCode =
  | "empty"
  | "marker_numbering"
  | "marker_think"
  | "marker_fence"
  | "marker_json"
  | "marker_list"
  | "echo"
  | "source_script"
  | "source_language"
  | "script_mismatch"
  | "wrong_language"
  | "target_unsupported"
  | "language_undetermined";

export type RegionEvidence = { sourceScript: Script; translationScript: Script; guess?: LanguageGuess };

export type RegionResult = {
  verdict: "translated" | "echo_accepted" | "refused";
  code?: RegionCode;
  evidence?: RegionEvidence;
  /** Set when only the length kept the language check from judging: summarisePage pools these. */
  pending?: { text: string; language: string };
};

const LIST_NUMBER = /^\s*\d+\s*[.)]\s/m;
const MARKERS: readonly [Exclude<RegionCode, "marker_list">, RegExp][] = [
  ["marker_numbering", /<\|\s*\d*\s*\|>/],
  ["marker_think", /<\/?\s*think\s*>/i],
  ["marker_fence", /```|~~~/],
  ["marker_json", /[{[]\s*"|"\s*:|"\s*[}\]]/],
];

/** The first response marker left in a translation, or null. */
export function findMarker(translation: string, source = ""): RegionCode | null {
  for (const [code, re] of MARKERS) if (re.test(translation)) return code;
  return LIST_NUMBER.test(translation) && !LIST_NUMBER.test(source) ? "marker_list" : null;
}

const normalise = (s: string) => s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();

/** Validates one translated text region against its source. */
export function checkRegion(input: {
  source: string;
  translation: string;
  sourceLanguage: string;
  targetLanguage: string;
}): RegionResult {
  const target = base(input.targetLanguage);
  const evidence: RegionEvidence = {
    sourceScript: detectScript(input.source),
    translationScript: detectScript(input.translation),
  };
  const refuse = (code: RegionCode, extra: Partial<RegionEvidence> = {}): RegionResult => ({
    verdict: "refused",
    code,
    evidence: { ...evidence, ...extra },
  });
  if (normalise(input.translation) === "") return refuse("empty");
  const marker = findMarker(input.translation, input.source);
  if (marker) return refuse(marker);
  if (normalise(input.source) === normalise(input.translation)) {
    // Only readable English kept as is in an English destination; judged on the source alone.
    const guess = identifyLanguage(input.source);
    const english = guess !== "undetermined" && guess.language === "en" && guess.confidence >= MIN_CONFIDENCE;
    return english && target === "en"
      ? { verdict: "echo_accepted", code: "echo", evidence: { ...evidence, guess } }
      : refuse("echo", { guess });
  }
  const expected: Script | undefined = LATIN[target] ? "latin" : SCRIPT_OF[target];
  if (!expected) return refuse("target_unsupported");
  if (evidence.translationScript !== expected) {
    const sourceExpected = LATIN[base(input.sourceLanguage)] ? "latin" : SCRIPT_OF[base(input.sourceLanguage)];
    const sourceLike =
      evidence.translationScript === evidence.sourceScript || evidence.translationScript === sourceExpected;
    // A letter of the source region's own non-Latin script left in the translation.
    const sourceFamilies = [...scriptCounts(input.source).keys()].filter((f) => f !== "latin");
    const leaked = [...scriptCounts(input.translation).keys()].some((f) => sourceFamilies.includes(f));
    return refuse(sourceLike || leaked ? "source_script" : "script_mismatch");
  }
  const guess = identifyLanguage(input.translation, expected === "latin" ? undefined : [target]);
  if (guess === "undetermined") {
    return {
      verdict: "refused",
      code: "language_undetermined",
      evidence: { ...evidence, guess },
      pending: { text: input.translation, language: target },
    };
  }
  if (guess.language !== target)
    return refuse(guess.language === base(input.sourceLanguage) ? "source_language" : "wrong_language", { guess });
  return { verdict: "translated", evidence: { ...evidence, guess } };
}

export type PageSummary = {
  translated: number;
  echoed: number;
  refused: number;
  release: boolean;
  codes: RegionCode[];
};

/**
 * Counts a page's regions. Short regions the identifier could not judge are judged once more on
 * the page's pooled text of the same destination language (a bubble saying "What?!" is normal);
 * when the pool is still undetermined or another language they stay refused. A page releases only
 * when nothing is refused and it has at least one region.
 */
export function summarisePage(regions: readonly RegionResult[]): PageSummary {
  const resolved = new Set<RegionResult>();
  const pools = new Map<string, RegionResult[]>();
  for (const r of regions) if (r.pending) pools.set(r.pending.language, [...(pools.get(r.pending.language) ?? []), r]);
  for (const [language, rs] of pools) {
    const guess = identifyLanguage(rs.map((r) => r.pending?.text ?? "").join("\n"));
    if (guess !== "undetermined" && guess.language === language) for (const r of rs) resolved.add(r);
  }
  let translated = 0,
    echoed = 0,
    refused = 0;
  const codes: RegionCode[] = [];
  for (const r of regions) {
    if (r.verdict === "translated" || resolved.has(r)) translated++;
    else if (r.verdict === "echo_accepted") echoed++;
    else {
      refused++;
      codes.push(r.code ?? "language_undetermined");
    }
  }
  return { translated, echoed, refused, release: regions.length > 0 && refused === 0, codes };
}
