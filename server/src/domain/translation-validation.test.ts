import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scriptedIdentifier, wordsIdentifier } from "./test-language.ts";
import { checkPages, checkRegion, detectScript, findMarker } from "./translation-validation.ts";

const EN = "I told you already, we have to leave this place before they find us.";
const FR = "Je te l'ai déjà dit, nous devons quitter cet endroit avant qu'ils nous trouvent.";
const DE = "Ich habe es dir schon gesagt, wir müssen hier weg, bevor sie uns finden.";
const ES = "Ya te lo dije, tenemos que salir de este lugar antes de que nos encuentren.";
const JA = "もう言っただろ、奴らに見つかる前にここを出なきゃ。";
const ZH = "我已经告诉过你了，我们必须在他们找到我们之前离开这里。";
const KO = "이미 말했잖아, 놈들이 찾기 전에 여기서 나가야 해.";
const RU = "Я же тебе говорил, нам нужно уйти отсюда, пока они нас не нашли.";
const EL = "Σου το είπα ήδη, πρέπει να φύγουμε από εδώ.";

const page = (name: string, width = 800, height = 1200) => ({ name, width, height });

describe("checkPages", () => {
  const src = [page("001.png"), page("002.png")];
  it.each([
    ["same pages", [page("001.png"), page("002.png")], true, undefined],
    ["one missing", [page("001.png")], false, "page_count"],
    ["one extra", [...src, page("003.png")], false, "page_count"],
    ["renamed", [page("001.png"), page("002.jpg")], false, "page_names"],
    ["reordered", [page("002.png"), page("001.png")], false, "page_names"],
    ["resized", [page("001.png"), page("002.png", 1600, 2400)], false, "page_geometry"],
    ["zero size", [page("001.png", 0, 0), page("002.png")], false, "page_geometry"],
    ["fractional", [page("001.png", 800.5, 1200), page("002.png")], false, "page_geometry"],
  ] as const)("%s", (_, out, ok, code) => {
    const r = checkPages(src, out);
    expect(r.ok).toBe(ok);
    if (!r.ok) expect(r.code).toBe(code);
  });
});

describe("detectScript", () => {
  it.each([
    [EN, "latin"],
    [FR, "latin"],
    [DE, "latin"],
    [JA, "japanese"],
    ["カタカナ", "japanese"],
    ["日本", "han"],
    [ZH, "han"],
    [KO, "hangul"],
    ["韓國 사람", "hangul"],
    [RU, "cyrillic"],
    [EL, "greek"],
    ["مرحبا بك", "arabic"],
    ["Hello ありがとう", "mixed"],
    ["Привет hello", "mixed"],
    ["שלום", "hebrew"],
    ["สวัสดี", "thai"],
    ["नमस्ते दोस्त", "devanagari"],
    ["שלום hello", "mixed"],
    ["123 !?… 456", "none"],
    ["", "none"],
    ["ＡＢＣ full width", "latin"],
  ] as const)("%s → %s", (text, script) => expect(detectScript(text)).toBe(script));
});

describe("findMarker / checkRegion markers", () => {
  it.each([
    ["<|3|>" + EN, "marker_numbering"],
    [EN + " <| 12 |>", "marker_numbering"],
    ["<think>hmm</think>" + EN, "marker_think"],
    [EN + "</think>", "marker_think"],
    ["```\n" + EN + "\n```", "marker_fence"],
    ['{"text": "' + EN + '"}', "marker_json"],
    [EN + '", "id":', "marker_json"],
    ["1. " + EN, "marker_list"],
    ["2) " + EN, "marker_list"],
  ] as const)("%s → %s", (translation, code) => {
    expect(findMarker(translation, JA)).toBe(code);
    expect(
      checkRegion({ source: JA, translation, sourceLanguage: "ja", targetLanguage: "en" }, wordsIdentifier),
    ).toMatchObject({
      verdict: "refused",
      code,
    });
  });
  it("numbering the source already had is not a marker", () => {
    expect(findMarker("1. First, we eat.", "1. まず食べる")).toBeNull();
    expect(findMarker(EN, JA)).toBeNull();
  });
});

describe("checkRegion", () => {
  const region = (source: string, translation: string, sourceLanguage = "ja", targetLanguage = "en") =>
    checkRegion({ source, translation, sourceLanguage, targetLanguage }, wordsIdentifier);

  it.each([
    [JA, EN, "ja", "en"],
    [JA, FR, "ja", "fr"],
    [KO, DE, "ko", "de"],
    [ZH, ES, "zh", "es"],
    [EN, JA, "en", "ja"],
    [EN, ZH, "en", "ja"],
    [EN, KO, "en", "ko"],
    [EN, ZH, "en", "zh"],
    [EN, RU, "en", "ru"],
    [FR, EN, "fr", "en-US"],
    [JA, "What?!", "ja", "en"],
    [FR, "Je te l'ai déjà dit, nous devons partir d'ici avant qu'ils arrivent.", "fr", "en"],
    [JA, "שלום חבר", "ja", "he"],
  ])("%s → %s passes the region checks (its language is judged on the pool)", (s, t, sl, tl) =>
    expect(region(s, t, sl, tl)).toMatchObject({ verdict: "passed" }),
  );

  it.each([
    [JA, "", "empty"],
    [JA, "   \n ", "empty"],
    [JA, JA, "echo"],
    [JA, ` ${JA}  `, "echo"],
    [JA, "もう言っただろ", "source_script"],
    [JA, "I told you ありがとう already, we have to leave", "source_script"],
    [KO, "이미 말했잖아 we have to leave this place now", "source_script"],
    [JA, RU, "script_mismatch"],
    [JA, "Hello שלום", "script_mismatch"],
  ])("%s → %s refused %s", (s, t, code) => {
    const sl = s === KO ? "ko" : "ja";
    expect(region(s, t, sl)).toMatchObject({ verdict: "refused", code });
  });

  it.each([
    ["Latin left in a Japanese translation of French", FR, "こんにちは OK", "fr", "ja"],
    ["kana in a Chinese translation of Japanese", JA, "你好ですか", "ja", "zh"],
    ["French kept in a Korean translation", FR, "Je te l'ai déjà dit", "fr", "ko"],
  ])("%s is source_script", (_, s, t, sl, tl) =>
    expect(region(s, t, sl, tl)).toMatchObject({ verdict: "refused", code: "source_script" }),
  );

  it("an unsupported destination is refused", () =>
    expect(region(JA, EN, "ja", "tlh")).toMatchObject({ verdict: "refused", code: "target_unsupported" }));

  it("readable English echoed exactly into an English destination is accepted with evidence", () => {
    const r = region(EN, EN.toUpperCase().replace(/ /g, "  "), "ja", "en");
    expect(r.verdict).toBe("echo_accepted");
    expect(r.evidence?.echo).toMatchObject({ verdict: "confirmed", language: "en" });
    expect(r.evidence?.sourceScript).toBe("latin");
  });
  it.each([
    ["English echo into French", EN, "fr"],
    ["short English echo", "BOOM!", "en"],
    ["French echo into English", FR, "en"],
    ["gibberish echo", "xqzv bnmk wrtp lkjh gfds pqwz", "en"],
  ])("%s is refused", (_, text, target) =>
    expect(region(text, text, "ja", target)).toMatchObject({ verdict: "refused", code: "echo" }),
  );
});

describe("properties", () => {
  const marker = fc.constantFrom("<|3|>", "<|0|>", "<think>", "</think>", "```", '{"', '":', '"}');
  const texts = fc.constantFrom(EN, FR, DE, JA, ZH, KO, RU, "", "What?!");
  const langs = fc.constantFrom("en", "fr", "de", "ja", "zh", "ko", "ru");
  /** Whatever an identifier may answer. */
  const answers = fc.func(
    fc.record({
      language: fc.option(fc.constantFrom("en", "fr", "de", "ja", "zh", "ko", "ru"), { nil: null }),
      reliable: fc.boolean(),
      scores: fc.dictionary(fc.constantFrom("en", "fr", "de", "ja", "zh", "ko", "ru"), fc.double({ min: 0, max: 1 })),
    }),
  );

  it("a translation containing any marker is never passed, whatever the identifier says", () =>
    fc.assert(
      fc.property(
        texts,
        fc.string(),
        marker,
        fc.string(),
        texts,
        langs,
        langs,
        answers,
        (src, pre, m, post, t, sl, tl, answer) => {
          const r = checkRegion(
            { source: src, translation: `${pre}${t}${m}${post}`, sourceLanguage: sl, targetLanguage: tl },
            scriptedIdentifier(answer),
          );
          expect(r.verdict).toBe("refused");
        },
      ),
    ));
  it("an empty translation is always refused as empty", () =>
    fc.assert(
      fc.property(texts, fc.stringMatching(/^\s*$/), langs, langs, answers, (src, blank, sl, tl, answer) => {
        const r = checkRegion(
          { source: src, translation: blank, sourceLanguage: sl, targetLanguage: tl },
          scriptedIdentifier(answer),
        );
        expect(r).toMatchObject({ verdict: "refused", code: "empty" });
      }),
    ));
  it("an echo is accepted only into English, and only when the identifier confirms the region as English", () =>
    fc.assert(
      fc.property(texts, langs, langs, answers, (src, sl, tl, answer) => {
        const r = checkRegion(
          { source: src, translation: src, sourceLanguage: sl, targetLanguage: tl },
          scriptedIdentifier(answer),
        );
        if (r.verdict === "echo_accepted") {
          expect(tl).toBe("en");
          expect(r.evidence?.echo).toMatchObject({ verdict: "confirmed", language: "en" });
        } else expect(r).toMatchObject({ verdict: "refused" });
      }),
    ));
  it("detectScript ignores digits and punctuation", () =>
    fc.assert(
      fc.property(texts, fc.stringMatching(/^[0-9 .,!?…()-]*$/), (t, noise) => {
        expect(detectScript(`${noise}${t}${noise}`)).toBe(detectScript(t));
      }),
    ));
  it("page checks accept identical pages and reject any single change", () =>
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            name: fc.string({ minLength: 1 }),
            width: fc.integer({ min: 1, max: 5000 }),
            height: fc.integer({ min: 1, max: 5000 }),
          }),
          { selector: (p) => p.name, minLength: 1, maxLength: 20 },
        ),
        fc.nat(),
        fc.integer({ min: 1, max: 100 }),
        (pages, i, delta) => {
          expect(
            checkPages(
              pages,
              pages.map((p) => ({ ...p })),
            ),
          ).toEqual({ ok: true });
          const j = i % pages.length;
          const changed = pages.map((p, k) => (k === j ? { ...p, height: p.height + delta } : p));
          expect(checkPages(pages, changed)).toMatchObject({ ok: false, code: "page_geometry" });
          expect(checkPages(pages, pages.slice(1))).toMatchObject({ ok: false, code: "page_count" });
        },
      ),
    ));
});
