import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scriptedIdentifier, wordsIdentifier } from "./test-language.ts";
import {
  canConfirm,
  describeJudgement,
  judgePool,
  MIN_MARGIN,
  MIN_POOL_LETTERS,
  type IdentifierAnswer,
} from "./translation-language.ts";

const answer = (language: string | null, scores: Record<string, number>, reliable = true): IdentifierAnswer => ({
  language,
  reliable,
  scores,
});
const fixed = (a: IdentifierAnswer) => scriptedIdentifier(() => a);
const LONG = "Where are you going tonight, my friend?";

describe("judgePool", () => {
  it("confirms the expected language when the identifier is reliable and clearly ahead of the rivals", () => {
    const j = judgePool([LONG], "en", ["fr"], fixed(answer("en", { en: 0.8, fr: 0.5, tl: 0.79 })));
    // tl is close but is no rival: only the source language and English are.
    expect(j).toMatchObject({ verdict: "confirmed", language: "en", by: "identifier", margin: 0.375 });
  });

  it("is ambiguous when a rival is within the margin", () => {
    const close = 0.8 * (1 - MIN_MARGIN / 2);
    expect(judgePool([LONG], "en", ["fr"], fixed(answer("en", { en: 0.8, fr: close })))).toMatchObject({
      verdict: "undetermined",
      reason: "ambiguous",
    });
  });

  it("says which other language a pool is in, when it clearly is", () => {
    expect(judgePool([LONG], "en", ["fr"], fixed(answer("fr", { fr: 0.8, en: 0.4 })))).toMatchObject({
      verdict: "other",
      language: "fr",
    });
    expect(judgePool([LONG], "en", ["fr"], fixed(answer("fr", { fr: 0.8, en: 0.79 })))).toMatchObject({
      verdict: "undetermined",
      reason: "ambiguous",
      best: "fr",
    });
  });

  it.each([
    ["unreliable", answer("en", { en: 0.9 }, false)],
    ["no answer", answer(null, {})],
    ["no score", answer("en", {})],
    ["a nonsense score", answer("en", { en: Number.NaN })],
  ])("an answer with %s is undetermined", (_, a) =>
    expect(judgePool([LONG], "en", ["fr"], fixed(a))).toMatchObject({ verdict: "undetermined" }),
  );

  it("a pool under the letter minimum is too short, whatever the identifier would say", () => {
    const never = scriptedIdentifier(() => {
      throw new Error("not asked");
    });
    expect(judgePool(["Run!", "What?!"], "en", ["fr"], never)).toMatchObject({
      verdict: "undetermined",
      reason: "too_short",
      letters: 7,
    });
    expect(judgePool(["", "  "], "en", ["fr"], never)).toMatchObject({ reason: "too_short", letters: 0 });
    expect(MIN_POOL_LETTERS).toBeGreaterThan(7);
  });

  it("dense scripts need fewer characters; a script of one language decides alone", () => {
    const never = scriptedIdentifier(() => {
      throw new Error("not asked");
    });
    // Kana: only Japanese; Hangul: only Korean; Greek: only Greek — at any length.
    expect(judgePool(["何？", "うん"], "ja", ["en"], never)).toMatchObject({ verdict: "confirmed", by: "script" });
    expect(judgePool(["뭐?"], "ko", ["en"], never)).toMatchObject({ verdict: "confirmed", by: "script" });
    expect(judgePool(["Τι;"], "el", ["en"], never)).toMatchObject({ verdict: "confirmed", by: "script" });
    // Han alone is Chinese or Japanese: the identifier decides, from 4 characters.
    expect(judgePool(["什么"], "zh", ["ja"], never)).toMatchObject({ reason: "too_short" });
    expect(judgePool(["我不知道。"], "zh", ["ja"], fixed(answer("zh", { zh: 0.8, ja: 0.5 })))).toMatchObject({
      verdict: "confirmed",
      by: "identifier",
    });
    // Cyrillic is shared: never by script.
    expect(judgePool(["Что?"], "ru", ["en"], never)).toMatchObject({ reason: "too_short" });
  });

  it("text in a script the expected language is not written in is never it, whatever the identifier says", () => {
    const yes = fixed(answer("en", { en: 1 }));
    // Kana is Japanese alone: another language, at any length.
    expect(judgePool(["どこへ行くの"], "en", ["ja"], yes)).toMatchObject({ verdict: "other", language: "ja" });
    // Han is Chinese or Japanese; Cyrillic several languages: not English, but which one is open.
    expect(judgePool(["你去哪里？"], "en", ["zh"], yes)).toMatchObject({
      verdict: "undetermined",
      reason: "other_script",
    });
    expect(judgePool(["Куда ты идёшь, мой друг?"], "en", ["ru"], yes)).toMatchObject({ reason: "other_script" });
    expect(judgePool(["Hello どこ"], "en", ["ja"], yes)).toMatchObject({ reason: "other_script" });
  });

  it("a language the identifier does not know cannot be confirmed by it", () => {
    const known = scriptedIdentifier(() => answer("en", { en: 1 }), ["en"]);
    expect(judgePool([LONG], "sw", ["en"], known)).toMatchObject({ reason: "unknown_language" });
    expect(canConfirm("sw", known)).toBe(false);
    expect(canConfirm("en-GB", known)).toBe(true);
    // Kana makes Japanese confirmable by script even for an identifier without it.
    expect(canConfirm("ja", known)).toBe(true);
  });

  it("works with the word-list identifier on short dialogue pooled", () => {
    expect(judgePool(["Hello my friend!"], "en", ["fr"], wordsIdentifier)).toMatchObject({ reason: "too_short" });
    expect(judgePool(["Hello my friend!", "How are you, are you well?"], "en", ["fr"], wordsIdentifier)).toMatchObject({
      verdict: "confirmed",
    });
  });

  it("describes judgements in words", () => {
    expect(describeJudgement({ verdict: "undetermined", reason: "too_short", letters: 3, best: null })).toBe(
      "undetermined (too short)",
    );
    expect(describeJudgement({ verdict: "undetermined", reason: "ambiguous", letters: 30, best: "pt" })).toBe(
      "undetermined (ambiguous, nearest pt)",
    );
    expect(describeJudgement({ verdict: "other", language: "fr", letters: 30, margin: 0.4 })).toBe("fr");
  });

  const langs = ["en", "fr", "es", "de", "ja", "ru"] as const;
  const answers = fc.record({
    language: fc.option(fc.constantFrom(...langs), { nil: null }),
    reliable: fc.boolean(),
    scores: fc.dictionary(fc.constantFrom(...langs), fc.double({ min: 0, max: 1, noNaN: true })),
  });

  it("property: a confirmation is always the expected language, reliable, and ahead of every rival", () =>
    fc.assert(
      fc.property(
        answers,
        fc.constantFrom(...langs),
        fc.constantFrom(...langs),
        fc.constantFrom(LONG, "Run!", "Je suis en retard, attends-moi ici."),
        (a, expected, rival, text) => {
          const j = judgePool([text], expected, [rival, "en"], fixed(a));
          if (j.verdict !== "confirmed") return;
          expect(j.language).toBe(expected);
          if (j.by === "identifier") {
            expect(a.reliable).toBe(true);
            expect(a.language).toBe(expected);
            for (const r of [rival, "en"].filter((r) => r !== expected))
              expect(a.scores[expected]! - (a.scores[r] ?? 0)).toBeGreaterThanOrEqual(
                MIN_MARGIN * a.scores[expected]! - 1e-9,
              );
          }
        },
      ),
    ));

  it("property: an undetermined answer is never a confirmation, and never of another language", () =>
    fc.assert(
      fc.property(answers, fc.constantFrom(...langs), (a, expected) => {
        const j = judgePool([LONG], expected, ["fr"], fixed({ ...a, reliable: false }));
        expect(j.verdict).toBe("undetermined");
      }),
    ));
});
