/**
 * Worker validation of a translated page before anything is imported (docs/rules.md, "Translation
 * jobs": page count and size, untranslated or echoed text, markers, languages). Pure. These checks cannot
 * prove translation quality; they catch the provider failures we know: lost or resized pages,
 * untranslated/echoed text, leftover response markers (chat translators batch regions as numbered lines) and
 * the wrong language. Anything failed, ambiguous or malformed keeps the page unreleased.
 *
 * This module judges one region at a time: markers, echoes and scripts are facts of the region
 * itself, so no pooling can ever release a region that fails them. Whether a region's text is in
 * the destination language is judged on pooled text (a page's regions, else the book's) by
 * local-translation.ts with translation-language.ts.
 *
 * Stable reason codes:
 * - pages: `page_count` (output has a different number of pages), `page_names` (names differ, in
 *   order), `page_geometry` (a page's width/height differs or is not a positive integer).
 * - regions: `empty` (no text), `marker_numbering` (`<|3|>`), `marker_think` (`<think>`/`</think>`),
 *   `marker_fence` (```), `marker_json` (`{"`, `":`), `marker_list` ("1." numbering the source did
 *   not have), `echo` (unchanged answer not confirmed as readable English, or destination not
 *   English), `source_script` (translation written in the source's script, e.g. kana for English),
 *   `script_mismatch` (neither the source's nor the destination's script, or mixed scripts),
 *   `target_unsupported` (no script known for the destination language).
 * - language (pooled, see local-translation.ts): `source_language` (confidently the source
 *   language, i.e. untranslated), `wrong_language` (confidently another language),
 *   `language_undetermined` (too short or ambiguous even for the book's pool: never a pass).
 */
import { judgePool, type LanguageIdentifier, type PoolJudgement } from "./translation-language.ts";
import { baseCode, detectScript, languageScripts, scriptCounts, type Script } from "./translation-scripts.ts";

export { detectScript, type Script };

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

export type RegionCode =
  | "empty"
  | "marker_numbering"
  | "marker_think"
  | "marker_fence"
  | "marker_json"
  | "marker_list"
  | "echo"
  | "source_script"
  | "script_mismatch"
  | "target_unsupported";

/** Reasons a pool of translations (a page's or the book's) is not the destination language. */
export type LanguageCode = "source_language" | "wrong_language" | "language_undetermined";

export type RegionEvidence = {
  sourceScript: Script;
  translationScript: Script;
  /** For an unchanged answer: the judgement of the source region as English. */
  echo?: PoolJudgement;
};

export type RegionResult = {
  /**
   * "passed": no marker, not an echo, in the destination's script — released once the pool it
   * belongs to is confirmed as the destination language; "echo_accepted": readable English kept as
   * is in an English destination (evidence, not a translation); "refused": never released.
   */
  verdict: "passed" | "echo_accepted" | "refused";
  code?: RegionCode;
  evidence?: RegionEvidence;
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

/** Validates one translated text region against its source (no language pooling here). */
export function checkRegion(
  input: {
    source: string;
    translation: string;
    sourceLanguage: string;
    targetLanguage: string;
  },
  identifier: LanguageIdentifier,
): RegionResult {
  const target = baseCode(input.targetLanguage);
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
    // Only readable English kept as is in an English destination, judged on this region alone.
    const echo = judgePool([input.source], "en", [input.sourceLanguage], identifier);
    return echo.verdict === "confirmed" && target === "en"
      ? { verdict: "echo_accepted", code: "echo", evidence: { ...evidence, echo } }
      : refuse("echo", { echo });
  }
  const expected = languageScripts(target);
  if (!expected) return refuse("target_unsupported");
  if (!expected.includes(evidence.translationScript)) {
    const sourceExpected = languageScripts(input.sourceLanguage) ?? [];
    const sourceLike =
      evidence.translationScript === evidence.sourceScript || sourceExpected.includes(evidence.translationScript);
    // A letter of the source region's own script left in the translation, when it is not the destination's.
    const targetFamilies = new Set<string>(expected.map((s) => (s === "japanese" ? "kana" : s)));
    const sourceFamilies = [...scriptCounts(input.source).keys()].filter((f) => !targetFamilies.has(f));
    const leaked = [...scriptCounts(input.translation).keys()].some((f) => sourceFamilies.includes(f));
    return refuse(sourceLike || leaked ? "source_script" : "script_mismatch");
  }
  return { verdict: "passed", evidence };
}
