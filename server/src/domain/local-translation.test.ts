import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bookVerdict, judgePage, type CheckedPage } from "./local-translation.ts";
import { scriptedIdentifier, wordsIdentifier } from "./test-language.ts";
import type { IdentifierAnswer, LanguageIdentifier } from "./translation-language.ts";
import { checkRegion, detectScript } from "./translation-validation.ts";
import { languageScripts } from "./translation-scripts.ts";

const SHA = "a".repeat(64);
const page = (
  name: string,
  pairs: [string, string][],
  src = "ja",
  dst = "en",
  identifier: LanguageIdentifier = wordsIdentifier,
): CheckedPage => ({
  name,
  sources: pairs.map(([s]) => s),
  translations: pairs.map(([, t]) => t),
  results: pairs.map(([s, t]) =>
    checkRegion({ source: s, translation: t, sourceLanguage: src, targetLanguage: dst }, identifier),
  ),
});
const book = (pages: CheckedPage[], src = "ja", dst = "en", identifier: LanguageIdentifier = wordsIdentifier) =>
  bookVerdict({ sourceSha256: SHA, sourceLanguage: src, targetLanguage: dst, identifier, model: "m-1", pages });

const GOOD: [string, string][] = [
  ["どこへ行くの", "Where are you going? I thought you said that you would stay with us."],
  ["大丈夫ですか", "Are you all right? You do not look well at all."],
];

/** The comic of the bug report: one bubble of two short lines a page, in French. */
const FRENCH: [string, string][][] = [
  [["BONJOUR MON AMI ! TU VAS BIEN ?", "Hi, my friend!"]],
  [["JE SUIS EN RETARD, ATTENDS-MOI ICI.", "I'm late, wait!"]],
  [["MERCI BEAUCOUP POUR TON AIDE.", "Thanks a lot!"]],
];
const frenchBook = (answers: [string, string][][] = FRENCH) =>
  answers.map((pairs, i) => page(`00${i + 1}.png`, pairs, "fr", "en"));

describe("judgePage", () => {
  const ctx = { sourceLanguage: "ja", targetLanguage: "en", identifier: wordsIdentifier };
  it("releases a page whose own pooled translations are confirmed", () =>
    expect(judgePage(page("1", GOOD), ctx)).toMatchObject({ status: "released", pool: "page", translated: 2 }));
  it("defers a page too short to judge alone to the book's pool", () =>
    expect(judgePage(page("1", [["え？", "What?!"]]), ctx)).toMatchObject({
      status: "deferred",
      pool: "book",
      target: { verdict: "undetermined", reason: "too_short" },
    }));
  it("refuses a page confidently in another language, naming the source language when it is that", () => {
    expect(
      judgePage(page("1", [["どこ", "Où est-ce que tu vas ? Je ne sais pas pourquoi tu es ici"]]), ctx),
    ).toMatchObject({ status: "refused", codes: ["wrong_language"] });
    const fr = { ...ctx, sourceLanguage: "fr" };
    expect(
      judgePage(page("1", [["OÙ VAS-TU ?", "Où est-ce que tu vas ? Je ne sais pas pourquoi tu es ici"]], "fr"), fr),
    ).toMatchObject({ status: "refused", codes: ["source_language"] });
  });
  it("a region refused by its own checks refuses the page even when the rest is fine", () =>
    expect(judgePage(page("1", [...GOOD, ["ありがとう", "ありがとう"]]), ctx)).toMatchObject({
      status: "refused",
      codes: ["echo"],
    }));
  it("a page without regions is empty; a page of accepted echoes has nothing to judge", () => {
    expect(judgePage(page("1", []), ctx)).toEqual({ status: "empty" });
    const echo: [string, string] = ["We have to go home now, all of us", "We have to go home now, all of us"];
    expect(judgePage(page("1", [echo]), ctx)).toMatchObject({ status: "released", pool: null, echoed: 1 });
  });
});

describe("bookVerdict", () => {
  it("releases a book whose text pages pass, counting translated regions and passing art pages through", () => {
    const v = book([page("001.png", GOOD), page("002.png", []), page("003.png", GOOD.slice(0, 1))]);
    expect(v).toMatchObject({
      ok: true,
      echoed: 0,
      receipt: {
        source_sha256: SHA,
        source_language: "ja",
        target_language: "en",
        page_count: 3,
        translated_regions: 3,
        untranslated_regions: 0,
        unconfirmed_regions: [],
        detected_source_language: "ja",
        detected_target_language: "en",
        model: "m-1",
        evidence: {
          language_identifier: "test words",
          target: { pages_by_page_pool: 2, pages_by_book_pool: 0, judgement: { verdict: "confirmed" } },
          source: { judgement: { verdict: "confirmed", language: "ja", by: "script" } },
          echoed_regions: 0,
        },
      },
    });
  });

  it("the receipt names the job's own language codes; only the detected ones are base codes", () => {
    const v = book([page("001.png", GOOD, "ja", "en-GB")], "ja", "en-GB");
    expect(v).toMatchObject({
      ok: true,
      receipt: {
        source_language: "ja",
        target_language: "en-GB",
        detected_source_language: "ja",
        detected_target_language: "en",
      },
    });
  });

  it("translates the short French comic: each page too short alone, the book's pool confirms every page", () => {
    const pages = frenchBook();
    for (const p of pages)
      expect(judgePage(p, { sourceLanguage: "fr", targetLanguage: "en", identifier: wordsIdentifier }).status).toBe(
        "deferred",
      );
    const v = book(pages, "fr", "en");
    expect(v).toMatchObject({
      ok: true,
      receipt: {
        translated_regions: 3,
        detected_source_language: "fr",
        detected_target_language: "en",
        evidence: { target: { pages_by_page_pool: 0, pages_by_book_pool: 3 } },
      },
    });
    if (v.ok) expect(v.pages.every((p) => p.status === "released")).toBe(true);
  });

  it("a short book answered in the wrong language fails, naming the waiting pages for another request", () => {
    const german = ["Hallo, Freund!", "Ich bin spät!", "Vielen Dank!"].map(
      (t, i) => [[FRENCH[i]![0]![0], t]] as [string, string][],
    );
    const v = book(frenchBook(german), "fr", "en");
    expect(v).toMatchObject({ ok: false, code: "validation_failed", retryPages: [0, 1, 2] });
    expect(!v.ok && v.message).toContain("wrong_language");
    expect(!v.ok && v.message).toContain("001.png");
  });

  it("a short book answered with the source kept fails as source_language", () => {
    const kept = FRENCH.map((pairs) => [[pairs[0]![0], "Bonjour mon ami, tu vas bien ?"]] as [string, string][]);
    const v = book(frenchBook(kept), "fr", "en");
    expect(v).toMatchObject({ ok: false, code: "validation_failed" });
    expect(!v.ok && v.message).toContain("source_language");
  });

  it("undetermined at book level is never a pass", () => {
    const v = book([page("001.png", [["え？", "What?!"]]), page("002.png", [["ん", "Huh?"]])]);
    expect(v).toMatchObject({ ok: false, code: "validation_failed", retryPages: [0, 1] });
    expect(!v.ok && v.message).toContain("language_undetermined");
  });

  it("refuses the book when one page fails validation, naming the page and the reasons", () => {
    const v = book([
      page("001.png", GOOD),
      page("002.png", [["ありがとう", "<|2|> Thank you so much for everything that you have done"]]),
    ]);
    expect(v).toMatchObject({ ok: false, code: "validation_failed", retryPages: [1] });
    expect(!v.ok && v.message).toContain("002.png");
    expect(!v.ok && v.message).toContain("marker_numbering");
  });

  it("refuses an untranslated answer (the source's script kept)", () => {
    expect(book([page("001.png", [["どこへ行くの", "どこへ行くの?"]])])).toMatchObject({
      ok: false,
      code: "validation_failed",
    });
  });

  it("fails with no_text_found when no page had a region", () => {
    expect(book([page("001.png", []), page("002.png", [])])).toMatchObject({ ok: false, code: "no_text_found" });
  });

  it("the OCR text pooled per book must be the source language", () => {
    // French OCR text for a Spanish job: the translations are fine, the source is not confirmed.
    const v = book(frenchBook(), "es", "en");
    expect(v).toMatchObject({ ok: false, code: "language_not_confirmed", retryPages: [] });
    expect(!v.ok && v.message).toContain("fr");
  });

  it("counts an accepted English echo as neither translated nor untranslated", () => {
    const echo: [string, string] = [
      "This is the end of the story and we are going home now",
      "This is the end of the story and we are going home now",
    ];
    const v = book([page("001.png", [echo, ...GOOD], "fr", "en")], "fr", "en");
    // The echo says nothing about the source: the remaining OCR text is Japanese, not French.
    expect(v).toMatchObject({ ok: false, code: "language_not_confirmed" });
    const fr: [string, string] = [
      "Où est-ce que tu vas avec elle ? Je ne sais pas pourquoi tu es ici",
      "Where are you going with her? I do not know why you are here",
    ];
    const ok = book([page("001.png", [echo, fr], "fr", "en")], "fr", "en");
    expect(ok).toMatchObject({
      ok: true,
      echoed: 1,
      receipt: { translated_regions: 1, untranslated_regions: 0, detected_source_language: "fr" },
    });
  });

  it("property: a book with any refused page never produces a receipt", () => {
    const bad = fc.constantFrom<[string, string]>(
      ["どこへ行くの", ""],
      ["どこへ行くの", "どこへ行くの"],
      ["ありがとう", "```Thank you```"],
      ["ありがとう", "<think>hm</think>"],
    );
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), fc.nat(5), bad, (layout, at, wrong) => {
        const pages = layout.map((hasText, i) => page(`${i}.png`, hasText ? GOOD : []));
        const i = at % pages.length;
        pages[i] = page(`${i}.png`, [...GOOD, wrong]);
        expect(book(pages).ok).toBe(false);
      }),
    );
  });
});

describe("property: no region in the source script or echoing the source is ever released", () => {
  const LANGS = ["en", "fr", "es", "de", "ja", "ko", "zh", "ru"] as const;
  const SAMPLES: Record<(typeof LANGS)[number], string[]> = {
    en: ["Where are you going?", "Thank you so much for your help.", "Run!"],
    fr: ["BONJOUR MON AMI ! TU VAS BIEN ?", "Je suis en retard.", "Quoi ?!"],
    es: ["¡Hola, amigo mío!", "Muchas gracias por tu ayuda.", "¡Corre!"],
    de: ["Hallo, mein Freund!", "Vielen Dank für deine Hilfe.", "Was?!"],
    ja: ["どこへ行くの", "大丈夫ですか", "何！？"],
    ko: ["어디 가?", "정말 고마워", "뭐?!"],
    zh: ["你去哪里？", "非常感谢你的帮助。", "什么？！"],
    ru: ["Куда ты идёшь?", "Большое спасибо", "Что?!"],
  };
  const lang = fc.constantFrom(...LANGS);
  const sample = (l: (typeof LANGS)[number]) => fc.constantFrom(...SAMPLES[l]);
  /** Whatever the identifier answers, text by text: pooling may decide anything. */
  const identifier = fc
    .func(
      fc.record({
        language: fc.option(fc.constantFrom(...LANGS), { nil: null }),
        reliable: fc.boolean(),
        scores: fc.dictionary(fc.constantFrom(...LANGS), fc.double({ min: 0, max: 1, noNaN: true })),
      }),
    )
    .map((f) => scriptedIdentifier((t: string): IdentifierAnswer => f(t)));

  /** A bad region: an echo of the source, or the translation written in the source's script. */
  const badRegion = fc
    .record({ src: lang, dst: lang, kind: fc.constantFrom("echo", "source_script"), shout: fc.boolean() })
    .chain(({ src, dst, kind, shout }) =>
      fc.tuple(sample(src), sample(src)).map(([source, other]) => {
        const translation = kind === "echo" ? (shout ? source.toUpperCase() : ` ${source} `) : other;
        return { src, dst, kind, source, translation };
      }),
    )
    .filter(({ src, dst, kind, source, translation }) => {
      if (src === dst) return false;
      if (kind === "echo") return true;
      // "In the source script": a script the destination is not written in, and the source's own.
      const script = detectScript(translation);
      return !languageScripts(dst)!.includes(script) && script === detectScript(source);
    });

  it("whatever the identifier answers and whatever the other pages hold", () =>
    fc.assert(
      fc.property(
        identifier,
        badRegion,
        fc.array(fc.array(fc.tuple(fc.constantFrom(...SAMPLES.ja), fc.constantFrom(...SAMPLES.en)), { maxLength: 3 }), {
          maxLength: 4,
        }),
        fc.nat(),
        (id, bad, others, at) => {
          const pages = others.map((pairs, i) => page(`${i}.png`, pairs, bad.src, bad.dst, id));
          const i = at % (pages.length + 1);
          const region = checkRegion(
            { source: bad.source, translation: bad.translation, sourceLanguage: bad.src, targetLanguage: bad.dst },
            id,
          );
          pages.splice(i, 0, {
            name: "bad.png",
            sources: [bad.source],
            translations: [bad.translation],
            results: [region],
          });
          const v = book(pages, bad.src, bad.dst, id);
          if (region.verdict === "echo_accepted") {
            // The one exception (docs/rules.md, "Local translation"): readable English kept as is in an English
            // destination, judged on the region alone, never in another script; it is never
            // counted as translated.
            expect(bad.translation.trim().toLowerCase()).toBe(bad.source.trim().toLowerCase());
            expect(bad.dst).toBe("en");
            expect(detectScript(bad.source)).toBe("latin");
            expect(region.evidence?.echo).toMatchObject({ verdict: "confirmed", language: "en" });
            if (v.ok) {
              const judged = judgePage(pages[i]!, { sourceLanguage: bad.src, targetLanguage: bad.dst, identifier: id });
              expect(judged).toMatchObject({ translated: 0, echoed: 1 });
            }
            return;
          }
          expect(region.verdict).toBe("refused");
          expect(v.ok).toBe(false);
        },
      ),
      { numRuns: 2000 },
    ));
});
