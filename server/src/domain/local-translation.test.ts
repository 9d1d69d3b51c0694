import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bookVerdict, pageSummary, type CheckedPage } from "./local-translation.ts";
import { checkRegion } from "./translation-validation.ts";

const SHA = "a".repeat(64);
const page = (name: string, pairs: [string, string][], src = "ja", dst = "en"): CheckedPage => ({
  name,
  sources: pairs.map(([s]) => s),
  translations: pairs.map(([, t]) => t),
  results: pairs.map(([s, t]) => checkRegion({ source: s, translation: t, sourceLanguage: src, targetLanguage: dst })),
});
const book = (pages: CheckedPage[], src = "ja", dst = "en") =>
  bookVerdict({ sourceSha256: SHA, sourceLanguage: src, targetLanguage: dst, model: "m-1", pages });

const GOOD: [string, string][] = [
  ["どこへ行くの", "Where are you going? I thought you said that you would stay with us."],
  ["大丈夫ですか", "Are you all right? You do not look well at all."],
];

describe("bookVerdict", () => {
  it("releases a book whose text pages pass, counting translated regions and passing art pages through", () => {
    const v = book([page("001.png", GOOD), page("002.png", []), page("003.png", GOOD.slice(0, 1))]);
    expect(v).toEqual({
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
      },
    });
  });

  it("refuses the book when one page fails validation, naming the page and the reasons", () => {
    const v = book([
      page("001.png", GOOD),
      page("002.png", [["ありがとう", "<|2|> Thank you so much for everything that you have done"]]),
    ]);
    expect(v).toMatchObject({ ok: false, code: "validation_failed" });
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

  it("does not confirm a destination the translations are not written in", () => {
    const french: [string, string][] = [
      ["どこへ行くの", "Où est-ce que tu vas ? Je ne sais pas pourquoi tu es ici avec nous"],
    ];
    expect(book([page("001.png", french)])).toMatchObject({ ok: false, code: "validation_failed" });
  });

  it("a page without regions has no summary; a page with regions has one", () => {
    expect(pageSummary(page("a", []))).toBeNull();
    expect(pageSummary(page("a", GOOD))).toMatchObject({ release: true, translated: 2 });
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
