import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkPages,
  checkRegion,
  detectScript,
  findMarker,
  identifyLanguage,
  summarisePage,
  type RegionResult,
} from "./translation-validation.ts";

const EN = "I told you already, we have to leave this place before they find us.";
const FR = "Je te l'ai déjà dit, nous devons quitter cet endroit avant qu'ils nous trouvent.";
const DE = "Ich habe es dir schon gesagt, wir müssen hier weg, bevor sie uns finden.";
const ES = "Ya te lo dije, tenemos que salir de este lugar antes de que nos encuentren.";
const IT = "Te l'ho già detto, dobbiamo lasciare questo posto prima che ci trovino.";
const PT = "Eu já te disse, nós temos que sair deste lugar antes que eles nos encontrem.";
const NL = "Ik heb het je al gezegd, we moeten hier weg voordat ze ons vinden.";
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
    ["שלום", "mixed"],
    ["123 !?… 456", "none"],
    ["", "none"],
    ["ＡＢＣ full width", "latin"],
  ] as const)("%s → %s", (text, script) => expect(detectScript(text)).toBe(script));
});

describe("identifyLanguage", () => {
  it.each([
    [EN, "en"],
    [FR, "fr"],
    [DE, "de"],
    [ES, "es"],
    [IT, "it"],
    [PT, "pt"],
    [NL, "nl"],
    [JA, "ja"],
    [ZH, "zh"],
    [KO, "ko"],
    [EL, "el"],
    ["ドン", "ja"],
    [RU, "cyrillic-script"],
    ["مرحبا بك", "arabic-script"],
  ])("%s → %s", (text, lang) => {
    const g = identifyLanguage(text);
    expect(g).not.toBe("undetermined");
    if (g !== "undetermined") expect(g.language).toBe(lang);
  });
  it("candidates narrow a script to one language", () => {
    expect(identifyLanguage(RU, ["ru", "en"])).toEqual({ language: "ru", confidence: 1 });
    expect(identifyLanguage(RU, ["en"])).toBe("undetermined");
  });
  it.each([["What?!"], ["No way, dude."], ["Hello ありがとう"], ["…!?"], ["xqzv bnmk wrtp lkjh gfds"]])(
    "%s is undetermined",
    (t) => expect(identifyLanguage(t)).toBe("undetermined"),
  );
  it("confidence is within 0..1 and at least the threshold", () => {
    for (const t of [EN, FR, DE, ES, IT, PT, NL]) {
      const g = identifyLanguage(t);
      if (g === "undetermined") throw new Error(t);
      expect(g.confidence).toBeGreaterThanOrEqual(0.5);
      expect(g.confidence).toBeLessThanOrEqual(1);
    }
  });
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
    expect(checkRegion({ source: JA, translation, sourceLanguage: "ja", targetLanguage: "en" })).toMatchObject({
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
    checkRegion({ source, translation, sourceLanguage, targetLanguage });

  it.each([
    [JA, EN, "ja", "en"],
    [JA, FR, "ja", "fr"],
    [KO, DE, "ko", "de"],
    [ZH, ES, "zh", "es"],
    [EN, JA, "en", "ja"],
    [EN, KO, "en", "ko"],
    [EN, RU, "en", "ru"],
    [FR, EN, "fr", "en-US"],
  ])("%s → %s is translated", (s, t, sl, tl) => expect(region(s, t, sl, tl)).toMatchObject({ verdict: "translated" }));

  it.each([
    [JA, "", "empty"],
    [JA, "   \n ", "empty"],
    [JA, JA, "echo"],
    [JA, ` ${JA}  `, "echo"],
    [JA, "もう言っただろ", "source_script"],
    [JA, "I told you ありがとう already, we have to leave", "source_script"],
    [KO, "이미 말했잖아 we have to leave this place now", "source_script"],
    [JA, RU, "script_mismatch"],
    [FR, "Je te l'ai déjà dit, nous devons partir d'ici avant qu'ils arrivent.", "source_language"],
    [JA, DE, "wrong_language"],
    [JA, "What?!", "language_undetermined"],
  ])("%s → %s refused %s", (s, t, code) => {
    const sl = s === FR ? "fr" : s === KO ? "ko" : "ja";
    expect(region(s, t, sl)).toMatchObject({ verdict: "refused", code });
  });

  it("an unsupported destination is refused", () =>
    expect(region(JA, EN, "ja", "tlh")).toMatchObject({ verdict: "refused", code: "target_unsupported" }));

  it("readable English echoed exactly into an English destination is accepted with evidence", () => {
    const r = region(EN, EN.toUpperCase().replace(/ /g, "  "), "ja", "en");
    expect(r.verdict).toBe("echo_accepted");
    expect(r.evidence?.guess).toMatchObject({ language: "en" });
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

describe("summarisePage", () => {
  const ok = checkRegion({ source: JA, translation: EN, sourceLanguage: "ja", targetLanguage: "en" });
  const echo = checkRegion({ source: EN, translation: EN, sourceLanguage: "ja", targetLanguage: "en" });
  const short = (t: string) =>
    checkRegion({ source: "え？", translation: t, sourceLanguage: "ja", targetLanguage: "en" });

  it("counts and releases a clean page; echoes are not translated", () =>
    expect(summarisePage([ok, echo, ok])).toEqual({ translated: 2, echoed: 1, refused: 0, release: true, codes: [] }));
  it("a refused region holds the page", () => {
    const s = summarisePage([
      ok,
      checkRegion({ source: JA, translation: "<|1|>Hi", sourceLanguage: "ja", targetLanguage: "en" }),
    ]);
    expect(s).toMatchObject({ translated: 1, refused: 1, release: false, codes: ["marker_numbering"] });
  });
  it("short regions are judged on the pooled page text", () => {
    const regions = [short("What is that thing?"), short("I don't know what it is."), short("We have to go now!")];
    expect(regions.every((r) => r.code === "language_undetermined")).toBe(true);
    expect(summarisePage(regions)).toMatchObject({ translated: 3, refused: 0, release: true });
  });
  it("a pool still too short stays undetermined and holds the page", () =>
    expect(summarisePage([ok, short("What?!")])).toMatchObject({
      refused: 1,
      release: false,
      codes: ["language_undetermined"],
    }));
  it("an empty page does not release", () => expect(summarisePage([]).release).toBe(false));
});

describe("properties", () => {
  const marker = fc.constantFrom("<|3|>", "<|0|>", "<think>", "</think>", "```", '{"', '":', '"}');
  const texts = fc.constantFrom(EN, FR, DE, JA, ZH, KO, RU, "", "What?!");
  const langs = fc.constantFrom("en", "fr", "de", "ja", "zh", "ko", "ru");

  it("a translation containing any marker is never translated", () =>
    fc.assert(
      fc.property(texts, fc.string(), marker, fc.string(), texts, langs, langs, (src, pre, m, post, t, sl, tl) => {
        const r = checkRegion({
          source: src,
          translation: `${pre}${t}${m}${post}`,
          sourceLanguage: sl,
          targetLanguage: tl,
        });
        expect(r.verdict).toBe("refused");
      }),
    ));
  it("an empty translation is never released", () =>
    fc.assert(
      fc.property(texts, fc.stringMatching(/^\s*$/), langs, langs, fc.array(texts), (src, blank, sl, tl, others) => {
        const r = checkRegion({ source: src, translation: blank, sourceLanguage: sl, targetLanguage: tl });
        const rest = others.map((t) =>
          checkRegion({ source: JA, translation: t, sourceLanguage: "ja", targetLanguage: "en" }),
        );
        expect(r).toMatchObject({ verdict: "refused", code: "empty" });
        expect(summarisePage([...rest, r]).release).toBe(false);
      }),
    ));
  it("an undetermined region whose pool stays undetermined never releases the page", () =>
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z?! ]{1,12}$/), fc.array(fc.constant(EN), { maxLength: 3 }), (t, goods) => {
        const r: RegionResult = checkRegion({
          source: "え？",
          translation: t,
          sourceLanguage: "ja",
          targetLanguage: "en",
        });
        const rest = goods.map((g) =>
          checkRegion({ source: JA, translation: g, sourceLanguage: "ja", targetLanguage: "en" }),
        );
        if (r.code === "language_undetermined") expect(summarisePage([...rest, r]).release).toBe(false);
        else expect(r.verdict).toBe("refused");
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
