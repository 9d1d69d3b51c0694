/**
 * Language identifiers for the rule core's tests (the real one lives in the shell and is tested in
 * translation/language-id.test.ts): a word-list identifier that behaves like a real one on the
 * tests' sentences (short text: unreliable; a clear majority: reliable), and one answering whatever
 * a property test dictates.
 */
import type { IdentifierAnswer, LanguageIdentifier } from "./translation-language.ts";

const WORDS: Readonly<Record<string, string>> = {
  en: "the you are to of is it that what this for not with have be my me we he she they do i am your all just but can so no there where going thank much everything done said would stay us well look at today really did know true hello friend how late wait here help hi thanks a lot i'm",
  fr: "le la les de des et est un une je tu il elle nous vous ne pas que qui ce en du au pour sur mais avec moi ici bien oui non mon ma ton ta bonjour ami vas suis retard attends merci beaucoup aide où sais pourquoi es",
  es: "el los las de que y es en un una no por para con se lo me te mi yo tu pero esto está muy ya nos hola amigo estás bien llego tarde espérame aquí muchas gracias ayuda",
  de: "der die das und ist ich du nicht ein eine zu es sie wir mit den dem auf was wie mir mich aber auch noch hier hallo freund bin spät vielen dank",
};
const LEXICON = new Map<string, string[]>();
for (const [lang, list] of Object.entries(WORDS))
  for (const w of list.split(" ")) LEXICON.set(w, [...(LEXICON.get(w) ?? []), lang]);

/** Words of the lists vote; kana/Hangul/Han answer ja/ko/zh. Reliable from 3 words and a majority. */
export const wordsIdentifier: LanguageIdentifier = {
  name: "test words",
  languages: new Set(["en", "fr", "es", "de", "ja", "ko", "zh", "ru", "it", "pt"]),
  identify(text: string): IdentifierAnswer {
    if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text))
      return { language: "ja", reliable: true, scores: { ja: 1 } };
    if (/\p{Script=Hangul}/u.test(text)) return { language: "ko", reliable: true, scores: { ko: 1 } };
    if (/\p{Script=Han}/u.test(text)) return { language: "zh", reliable: true, scores: { zh: 0.8, ja: 0.7 } };
    if (/\p{Script=Cyrillic}/u.test(text)) return { language: "ru", reliable: true, scores: { ru: 0.8 } };
    const words = text
      .toLowerCase()
      .split(/[^\p{L}']+/u)
      .filter((w) => w !== "");
    const votes: Record<string, number> = {};
    for (const w of words) for (const l of LEXICON.get(w) ?? []) votes[l] = (votes[l] ?? 0) + 1;
    const ranked = Object.entries(votes).sort((a, b) => b[1] - a[1]);
    const best = ranked[0];
    if (!best) return { language: null, reliable: false, scores: {} };
    const scores = Object.fromEntries(ranked.map(([l, v]) => [l, v / words.length]));
    return { language: best[0], reliable: words.length >= 3 && best[1] / words.length >= 0.5, scores };
  },
};

/** An identifier that answers `answer(text)` (property tests draw the answers). */
export function scriptedIdentifier(
  answer: (text: string) => IdentifierAnswer,
  languages: readonly string[] = ["en", "fr", "es", "de", "ja", "ko", "zh", "ru"],
): LanguageIdentifier {
  return { name: "scripted", languages: new Set(languages), identify: answer };
}
