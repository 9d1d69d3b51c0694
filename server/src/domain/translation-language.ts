/**
 * Language evidence of a translation (pure): is a pool of text confidently in the expected
 * language? The identifier itself is a maintained library adapted in the shell
 * (translation/language-id.ts) and passed in, so these rules stay pure and testable with any
 * answers.
 *
 * Short manga dialogue is the hard case: one bubble ("Run!") says little, so texts are judged in
 * pools — a page's regions together, and when that is still too short, the whole book's. A pool is
 * judged only when it holds enough letters (MIN_POOL_LETTERS, or MIN_DENSE_POOL_LETTERS in Han,
 * kana or Hangul, where a character carries a syllable or a word). Below that it is undetermined,
 * which is never a pass on its own.
 *
 * A pool is confirmed as language X when
 * - its script is written by X alone among the languages known here (kana → Japanese, Hangul →
 *   Korean, Greek → Greek…): the script decides, at any length; or
 * - the identifier's best answer is X, it calls the answer reliable, and X's score is ahead of each
 *   rival's by at least MIN_MARGIN (relative). The rivals are the languages a bad answer would be
 *   in: the source language (untranslated text) and English (where providers fall back).
 * It is another language Y when the identifier's reliable best answer is Y, ahead of X by the same
 * margin, or when its script is Y's alone. Text in a script X is not written in is never X (kana
 * is never English), whatever the identifier says. Everything else is undetermined.
 *
 * The figures come from measuring the identifier on short manga dialogue (docs/benchmarks.md,
 * "Language identification").
 */
import {
  baseCode,
  DENSE_SCRIPTS,
  detectScript,
  languageScripts,
  letterCount,
  SCRIPTED_LANGUAGES,
  scriptIdentifies,
} from "./translation-scripts.ts";

/** What a language identifier answers for a text (the shell adapts a library to this). */
export interface IdentifierAnswer {
  /** Best language as a base code, or null when it has none. */
  language: string | null;
  /** The identifier's own judgement that the answer is reliable. */
  reliable: boolean;
  /** Scores of the likeliest languages (higher is likelier); absent languages score 0. */
  scores: Readonly<Record<string, number>>;
}

export interface LanguageIdentifier {
  /** Name and version, recorded in the receipt's evidence. */
  readonly name: string;
  /** Base codes of the languages it can identify. */
  readonly languages: ReadonlySet<string>;
  identify(text: string): IdentifierAnswer;
}

/** Letters a pool in an alphabetic script needs before it is judged. */
export const MIN_POOL_LETTERS = 16;
/** Characters a pool in Han, kana or Hangul needs before it is judged. */
export const MIN_DENSE_POOL_LETTERS = 4;
/** Relative lead of the best language's score over each rival's. */
export const MIN_MARGIN = 0.03;

export type UndeterminedReason = "too_short" | "unreliable" | "ambiguous" | "unknown_language" | "other_script";

export type PoolJudgement =
  | { verdict: "confirmed"; language: string; by: "script" | "identifier"; letters: number; margin: number }
  | { verdict: "other"; language: string; letters: number; margin: number }
  | { verdict: "undetermined"; reason: UndeterminedReason; letters: number; best: string | null };

const round = (n: number) => Math.round(n * 1000) / 1000;

const knownLanguages = (identifier: LanguageIdentifier) => new Set([...identifier.languages, ...SCRIPTED_LANGUAGES]);

/** Whether the judge can ever confirm `lang`: the identifier knows it, or a script of its own does. */
export function canConfirm(lang: string, identifier: LanguageIdentifier): boolean {
  const base = baseCode(lang);
  const known = knownLanguages(identifier);
  return identifier.languages.has(base) || (languageScripts(base) ?? []).some((s) => scriptIdentifies(s, base, known));
}

/**
 * Judges a pool of texts against the expected language. `rivals` are the languages it must be
 * clearly ahead of (the expected language itself is ignored among them).
 */
export function judgePool(
  texts: readonly string[],
  expected: string,
  rivals: readonly string[],
  identifier: LanguageIdentifier,
): PoolJudgement {
  const text = texts
    .map((t) => t.trim())
    .filter((t) => t !== "")
    .join("\n");
  const target = baseCode(expected);
  const letters = letterCount(text);
  const undetermined = (reason: UndeterminedReason, best: string | null = null): PoolJudgement => ({
    verdict: "undetermined",
    reason,
    letters,
    best,
  });
  if (letters === 0) return undetermined("too_short");
  const script = detectScript(text);
  const known = knownLanguages(identifier);
  if (scriptIdentifies(script, target, known))
    return { verdict: "confirmed", language: target, by: "script", letters, margin: 1 };
  // Text not written in a script of the expected language is never it, whatever the identifier says.
  const own = languageScripts(target);
  if (own && !own.includes(script)) {
    const by = [...known].find((l) => scriptIdentifies(script, l, known));
    return by ? { verdict: "other", language: baseCode(by), letters, margin: 1 } : undetermined("other_script");
  }
  if (!identifier.languages.has(target)) return undetermined("unknown_language");
  if (letters < (DENSE_SCRIPTS.has(script) ? MIN_DENSE_POOL_LETTERS : MIN_POOL_LETTERS))
    return undetermined("too_short");

  const answer = identifier.identify(text);
  const best = answer.language ? baseCode(answer.language) : null;
  const score = (lang: string) => {
    const v = answer.scores[lang];
    return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0;
  };
  const top = best ? score(best) : 0;
  if (!best || !answer.reliable || top <= 0) return undetermined("unreliable", best);
  const lead = (lang: string) => (top - score(lang)) / top;
  if (best === target) {
    const others = [...new Set(rivals.map(baseCode))].filter((r) => r !== target && r !== "");
    const margin = Math.min(1, ...others.map(lead));
    return margin >= MIN_MARGIN
      ? { verdict: "confirmed", language: target, by: "identifier", letters, margin: round(margin) }
      : undetermined("ambiguous", best);
  }
  const margin = lead(target);
  return margin >= MIN_MARGIN
    ? { verdict: "other", language: best, letters, margin: round(Math.min(1, margin)) }
    : undetermined("ambiguous", best);
}

/** A judgement in words, for job messages: "en", "undetermined (too short)". */
export function describeJudgement(j: PoolJudgement): string {
  if (j.verdict !== "undetermined") return j.language;
  return `undetermined (${j.reason.replace(/_/g, " ")}${j.best ? `, nearest ${j.best}` : ""})`;
}
