import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { seriesFacts } from "./page-fixtures.ts";
import { effectiveBookCount, seriesForm, seriesFormDecision, type FormRule } from "./series-form.ts";
import type { SeriesFacts, SeriesForm } from "./types.ts";

describe("seriesForm: running works, webtoons and works without a book count", () => {
  const cases: [string, Partial<SeriesFacts>, SeriesForm, FormRule][] = [
    ["finished with a book count", { status: "finished", knownBookCount: 12 }, "books", "book_count"],
    ["paused with a book count", { status: "paused", knownBookCount: 4 }, "books", "book_count"],
    ["running with a book count", { status: "running", knownBookCount: 30 }, "chapters", "running"],
    ["running without a book count", { status: "running", knownBookCount: null }, "chapters", "running"],
    [
      "finished webtoon with a book count",
      { status: "finished", webtoon: true, knownBookCount: 5 },
      "chapters",
      "webtoon",
    ],
    ["running webtoon", { status: "running", webtoon: true, knownBookCount: null }, "chapters", "running"],
    ["finished without a book count", { status: "finished", knownBookCount: null }, "chapters", "no_book_count"],
    ["paused without a book count", { status: "paused", knownBookCount: null }, "chapters", "no_book_count"],
    ["a zero book count is unknown", { status: "finished", knownBookCount: 0 }, "chapters", "no_book_count"],
    ["a fractional book count is unknown", { status: "finished", knownBookCount: 2.5 }, "chapters", "no_book_count"],
    [
      "edition count alone decides",
      { status: "finished", knownBookCount: null, editionBookCount: 12 },
      "books",
      "book_count",
    ],
    [
      "edition count of 0 falls back to the known count",
      { status: "paused", knownBookCount: 3, editionBookCount: 0 },
      "books",
      "book_count",
    ],
    ["edition count does not beat running", { status: "running", editionBookCount: 12 }, "chapters", "running"],
    [
      "edition count does not beat webtoon",
      { status: "finished", webtoon: true, editionBookCount: 12 },
      "chapters",
      "webtoon",
    ],
    [
      "override books on a running work",
      { status: "running", knownBookCount: null, formOverride: "books" },
      "books",
      "override",
    ],
    ["override books on a webtoon", { status: "finished", webtoon: true, formOverride: "books" }, "books", "override"],
    [
      "override chapters on a finished work",
      { status: "finished", knownBookCount: 10, formOverride: "chapters" },
      "chapters",
      "override",
    ],
  ];
  it.each(cases)("%s", (_name, over, form, rule) => {
    const series = seriesFacts(over);
    expect(seriesForm(series)).toBe(form);
    const decision = seriesFormDecision(series);
    expect(decision.rule).toBe(rule);
    expect(decision.reason.length).toBeGreaterThan(0);
  });

  it("reports the book count it used, edition first", () => {
    expect(seriesFormDecision(seriesFacts({ knownBookCount: 18, editionBookCount: 12 }))).toMatchObject({
      form: "books",
      bookCount: 12,
      reason: "finished series with 12 books (managed edition)",
    });
    expect(seriesFormDecision(seriesFacts({ knownBookCount: 18 })).bookCount).toBe(18);
  });
});

describe("effectiveBookCount", () => {
  it.each([
    [18, null, 18],
    [18, 12, 12],
    [null, 12, 12],
    [null, null, null],
    [0, null, null],
    [18, -1, 18],
    [-3, 0, null],
  ] as const)("known %s, edition %s → %s", (known, edition, expected) => {
    expect(effectiveBookCount({ knownBookCount: known, editionBookCount: edition })).toBe(expected);
  });
});

describe("seriesForm properties", () => {
  const facts = fc.record({
    status: fc.constantFrom("running", "finished", "paused" as const),
    knownBookCount: fc.option(fc.integer({ min: -2, max: 60 })),
    editionBookCount: fc.option(fc.integer({ min: -2, max: 60 })),
    webtoon: fc.boolean(),
    formOverride: fc.option(fc.constantFrom("books", "chapters" as const)),
  });

  it("an override always wins; otherwise books only for a non-webtoon finished/paused work with a count", () => {
    fc.assert(
      fc.property(facts, (over) => {
        const s = seriesFacts(over);
        const form = seriesForm(s);
        if (s.formOverride !== null) return form === s.formOverride;
        const books = s.status !== "running" && !s.webtoon && effectiveBookCount(s) !== null;
        return form === (books ? "books" : "chapters");
      }),
      { numRuns: 300 },
    );
  });

  it("never depends on the other series fields", () => {
    fc.assert(
      fc.property(facts, fc.string(), fc.boolean(), (over, title, monitored) => {
        const a = seriesForm(seriesFacts(over));
        const b = seriesForm(seriesFacts({ ...over, title, monitored, planWording: "chapters_first", language: "ja" }));
        return a === b;
      }),
      { numRuns: 100 },
    );
  });
});
