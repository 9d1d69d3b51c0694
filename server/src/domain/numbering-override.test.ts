import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Label } from "./labels.ts";
import {
  applyNumberingOverrides,
  isWithdrawal,
  observedKey,
  parseCorrection,
  type NumberingOverrideRule,
  type SourceNumbering,
} from "./numbering-override.ts";
import { chapterLabel, volumeLabel } from "./test-arbitraries.ts";

const ch = (
  externalId: string,
  number: string | null,
  volume: string | null = null,
  part: number | null = null,
): SourceNumbering => ({
  externalId,
  number: number as Label | null,
  volume: volume as Label | null,
  part,
});

describe("applyNumberingOverrides", () => {
  it("applies a correction while the source still shows the observed number", () => {
    const r = applyNumberingOverrides(
      [ch("a", "12"), ch("b", "13")],
      [{ externalId: "b", observedNumber: "13", correction: { chapter: "12" as Label, part: 2 } }],
    );
    expect(r.chapters).toEqual([
      { ...ch("a", "12"), overridden: false },
      { ...ch("b", "12", null, 2), overridden: true },
    ]);
    expect(r.applied).toEqual(["b"]);
    expect(r.invalidated).toEqual([]);
  });

  it("compares observed numbers as labels: 10.50 is 10.5, 10.05 is not", () => {
    const o = (observedNumber: string): NumberingOverrideRule => ({
      externalId: "x",
      observedNumber,
      correction: { chapter: "11" as Label },
    });
    expect(applyNumberingOverrides([ch("x", "10.5")], [o("10.50")]).applied).toEqual(["x"]);
    expect(applyNumberingOverrides([ch("x", "10.5")], [o("10.05")]).invalidated).toEqual([
      { externalId: "x", observedNumber: "10.05", sourceNumber: "10.5" },
    ]);
  });

  it("invalidates (ignores and reports) an override when the source renumbered the release", () => {
    const r = applyNumberingOverrides(
      [ch("a", "14")],
      [{ externalId: "a", observedNumber: "13", correction: { chapter: "12" as Label } }],
    );
    expect(r.chapters[0]).toEqual({ ...ch("a", "14"), overridden: false });
    expect(r.invalidated).toEqual([{ externalId: "a", observedNumber: "13", sourceNumber: "14" }]);
  });

  it("keeps unnumbered apart from zero", () => {
    const rule = { externalId: "a", observedNumber: "", correction: { chapter: "0" as Label } };
    expect(applyNumberingOverrides([ch("a", null)], [rule]).chapters[0]?.number).toBe("0");
    expect(applyNumberingOverrides([ch("a", "0")], [rule]).invalidated).toHaveLength(1);
    expect(observedKey(null)).toBe("");
    expect(observedKey("007")).toBe("7");
  });

  it("replaces only the fields named; chapter null unnumbers the release", () => {
    const r = applyNumberingOverrides(
      [ch("a", "13", "2", 1)],
      [{ externalId: "a", observedNumber: "13", correction: { chapter: null } }],
    );
    expect(r.chapters[0]).toEqual({ ...ch("a", null, "2", 1), overridden: true });
    const v = applyNumberingOverrides(
      [ch("a", "13", "2", 1)],
      [{ externalId: "a", observedNumber: "13", correction: { volume: "3" as Label } }],
    );
    expect(v.chapters[0]).toEqual({ ...ch("a", "13", "3", 1), overridden: true });
  });

  it("reports overrides whose release is no longer listed, and ignores withdrawn ones", () => {
    const r = applyNumberingOverrides(
      [ch("a", "1")],
      [
        { externalId: "gone", observedNumber: "5", correction: { chapter: "6" as Label } },
        { externalId: "a", observedNumber: "1", correction: {} },
      ],
    );
    expect(r.unmatched).toEqual(["gone"]);
    expect(r.applied).toEqual([]);
    expect(isWithdrawal({})).toBe(true);
    expect(isWithdrawal(null)).toBe(true);
    expect(isWithdrawal({ chapter: null })).toBe(false);
  });
});

describe("parseCorrection", () => {
  it("accepts labels, null and parts; refuses floats, unknown fields and bad parts", () => {
    expect(parseCorrection({ chapter: "012", part: 1 })).toEqual({ ok: true, correction: { chapter: "12", part: 1 } });
    expect(parseCorrection({ chapter: null })).toEqual({ ok: true, correction: { chapter: null } });
    expect(parseCorrection(null)).toEqual({ ok: true, correction: {} });
    expect(parseCorrection({ chapter: 12 }).ok).toBe(false);
    expect(parseCorrection({ chapter: "-1" }).ok).toBe(false);
    expect(parseCorrection({ number: "1" }).ok).toBe(false);
    expect(parseCorrection({ part: 0 }).ok).toBe(false);
    expect(parseCorrection([]).ok).toBe(false);
  });
});

const numberArb = fc.option(chapterLabel, { nil: null });
const chaptersArb = fc.uniqueArray(
  fc.record({
    externalId: fc.constantFrom("a", "b", "c", "d", "e", "f"),
    number: numberArb,
    volume: fc.option(volumeLabel, { nil: null }),
    part: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
  }),
  { selector: (c) => c.externalId, maxLength: 6 },
);
const overridesArb = fc.uniqueArray(
  fc.record({
    externalId: fc.constantFrom("a", "b", "c", "d", "e", "f", "g"),
    observedNumber: numberArb.map((n) => observedKey(n)),
    correction: fc.record(
      {
        chapter: numberArb,
        volume: fc.option(volumeLabel, { nil: null }),
        part: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
      },
      { requiredKeys: [] },
    ),
  }),
  { selector: (o) => o.externalId, maxLength: 7 },
);

describe("numbering override properties", () => {
  it("every override is exactly one of applied, invalidated, unmatched or withdrawn; order and ids are kept", () => {
    fc.assert(
      fc.property(chaptersArb, overridesArb, (chapters, overrides) => {
        const r = applyNumberingOverrides(chapters, overrides);
        const withdrawn = overrides.filter((o) => isWithdrawal(o.correction)).length;
        expect(r.applied.length + r.invalidated.length + r.unmatched.length + withdrawn).toBe(overrides.length);
        expect(r.chapters.map((c) => c.externalId)).toEqual(chapters.map((c) => c.externalId));
        expect(r.chapters.filter((c) => c.overridden).map((c) => c.externalId)).toEqual(r.applied);
      }),
      { numRuns: 2000 },
    );
  });

  it("a chapter changes only through an applied override whose observed number is the source's own", () => {
    fc.assert(
      fc.property(chaptersArb, overridesArb, (chapters, overrides) => {
        const r = applyNumberingOverrides(chapters, overrides);
        r.chapters.forEach((out, i) => {
          const src = chapters[i]!;
          const { overridden, ...numbering } = out;
          if (!overridden) expect(numbering).toEqual(src);
          else {
            const o = overrides.find((x) => x.externalId === src.externalId)!;
            expect(observedKey(o.observedNumber)).toBe(observedKey(src.number));
          }
        });
      }),
      { numRuns: 2000 },
    );
  });

  it("without overrides nothing changes; a renumbered source invalidates every applied override", () => {
    fc.assert(
      fc.property(chaptersArb, overridesArb, (chapters, overrides) => {
        expect(applyNumberingOverrides(chapters, []).chapters.every((c) => !c.overridden)).toBe(true);
        const first = applyNumberingOverrides(chapters, overrides);
        // The source shifts every number by a step that no label universe value equals after the shift.
        const renumbered = chapters.map((c) => ({
          ...c,
          number: (c.number === null ? "999" : `${c.number}1`.replace(/^(\d+)1$/, "$1.1")) as Label,
        }));
        const second = applyNumberingOverrides(renumbered, overrides);
        expect(second.applied.filter((id) => first.applied.includes(id))).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });
});
