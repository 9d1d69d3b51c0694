import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareLabels,
  expandRange,
  isCanonicalLabel,
  isWhole,
  label,
  labelKey,
  orderLabels,
  labelEquals,
  labelInRange,
  parseLabel,
  sortLabels,
  unionLabels,
  wholeLabel,
  wholePart,
  type Label,
} from "./labels.ts";
import { canonicalLabels } from "./map-labels.ts";

describe("parseLabel", () => {
  it.each([
    ["0", "0"],
    ["00", "0"],
    ["007", "7"],
    ["10", "10"],
    ["10.5", "10.5"],
    ["10.50", "10.5"],
    ["10.05", "10.05"],
    ["10.0", "10"],
    ["0.5", "0.5"],
    [" 12 ", "12"],
    ["123456789012345678901234567890", "123456789012345678901234567890"],
    [0, "0"],
    [4.5, "4.5"],
    [12, "12"],
  ] as const)("%j → %j", (input, expected) => {
    expect(parseLabel(input)).toBe(expected);
  });

  it.each([
    ["-1"],
    ["1.2.3"],
    ["1e3"],
    ["one"],
    [""],
    ["1,5"],
    [".5"],
    ["5."],
    ["+3"],
    ["0x10"],
    [-1],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [1e21],
    [null],
    [undefined],
  ])("%j is not a label", (input) => {
    expect(parseLabel(input as string)).toBeNull();
  });

  it("label() throws on what parseLabel refuses", () => {
    expect(() => label("1.2.3")).toThrow(RangeError);
    expect(label("03.10")).toBe("3.1");
  });
});

describe("compareLabels", () => {
  it("orders chapter zero, decimals and long numbers exactly", () => {
    const shuffled = ["10", "2", "0", "10.5", "1.1", "1.05", "100", "9.99", "1", "10.45"].map((x) => label(x));
    expect(sortLabels(shuffled)).toEqual(["0", "1", "1.05", "1.1", "2", "9.99", "10", "10.45", "10.5", "100"]);
  });

  it("compares numbers beyond float precision without floats", () => {
    const a = label("9007199254740993");
    const b = label("9007199254740992");
    expect(Number(a)).toBe(Number(b)); // floats cannot tell them apart
    expect(compareLabels(a, b)).toBeGreaterThan(0);
    expect(compareLabels(label("0.30000000000000001"), label("0.3"))).toBeGreaterThan(0);
  });

  it("equal labels compare equal, whatever their written form", () => {
    expect(labelEquals(label("10.50"), label("10.5"))).toBe(true);
    expect(labelEquals(label("10.05"), label("10.5"))).toBe(false);
  });

  it("is a total order consistent with exact decimal value (property)", () => {
    const decimal = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.nat({ max: 9999 }))
      .map(([i, f]) => `${i}.${String(f).padStart(4, "0")}`);
    fc.assert(
      fc.property(decimal, decimal, decimal, (x, y, z) => {
        const [a, b, c] = [label(x), label(y), label(z)];
        // Exact value as scaled integers.
        const v = (s: string) => BigInt(s.replace(".", ""));
        const expected = Math.sign(Number(v(x) - v(y)));
        expect(Math.sign(compareLabels(a, b))).toBe(expected);
        expect(Math.sign(compareLabels(b, a))).toBe(expected === 0 ? 0 : -expected); // not -0: toBe uses Object.is
        if (compareLabels(a, b) <= 0 && compareLabels(b, c) <= 0) expect(compareLabels(a, c)).toBeLessThanOrEqual(0);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("sort keys", () => {
  /** Exact value of a decimal text as a scaled integer, for a reference order. */
  const exact = (s: string): bigint => {
    const [i = "0", f = ""] = s.split(".");
    return BigInt(i + f.padEnd(40, "0"));
  };
  const decimalText = fc
    .tuple(
      fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 25n }), fc.bigInt({ min: 0n, max: 120n })),
      fc.option(fc.stringMatching(/^\d{1,6}$/), { nil: undefined }),
      fc.nat({ max: 2 }),
    )
    .map(([i, f, zeros]) => `${"0".repeat(zeros)}${i}${f === undefined ? "" : `.${f}`}`);
  const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

  it("key order is compareLabels order is exact value order (property)", () => {
    fc.assert(
      fc.property(decimalText, decimalText, (x, y) => {
        const [a, b] = [label(x), label(y)];
        const [vx, vy] = [exact(x), exact(y)];
        const expected = vx < vy ? -1 : vx > vy ? 1 : 0;
        expect(sign(compareLabels(a, b))).toBe(expected);
        expect(text(labelKey(a), labelKey(b))).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it("a sort by keys is the sort by compareLabels (property)", () => {
    fc.assert(
      fc.property(fc.array(decimalText, { maxLength: 40 }), (texts) => {
        const labels = texts.map((t) => label(t));
        const byKey = [...labels].sort((a, b) => text(labelKey(a), labelKey(b)));
        expect(byKey).toEqual(sortLabels(labels));
      }),
    );
  });

  it("a text is canonical exactly when parsing keeps it as it is (property)", () => {
    fc.assert(
      fc.property(fc.oneof(decimalText, fc.string({ maxLength: 8 })), (t) => {
        expect(isCanonicalLabel(t)).toBe(parseLabel(t) === t);
      }),
    );
  });

  it("compares labels written loosely as their canonical forms", () => {
    const loose = (t: string) => t as Label;
    expect(compareLabels(loose("10.50"), label("10.5"))).toBe(0);
    expect(compareLabels(loose("10."), label("10"))).toBe(0);
    expect(compareLabels(loose("10.50"), label("10.45"))).toBeGreaterThan(0);
    expect(compareLabels(label("10.45"), loose("10.50"))).toBeLessThan(0);
  });
});

describe("ranges and parts", () => {
  it("expands whole numbers between the ends and never invents decimals", () => {
    expect(expandRange(label("1"), label("3"))).toEqual(["1", "2", "3"]);
    expect(expandRange(label("1.5"), label("3"))).toEqual(["1.5", "2", "3"]);
    expect(expandRange(label("1"), label("2.5"))).toEqual(["1", "2", "2.5"]);
    expect(expandRange(label("0"), label("0"))).toEqual(["0"]);
    expect(expandRange(label("5"), label("3"))).toEqual(["5"]);
  });

  it("bounds a hostile range", () => {
    expect(expandRange(label("1"), label("99999999999"), 1000)).toHaveLength(1000);
  });

  it("knows whole parts and ranges", () => {
    expect(wholePart(label("10.5"))).toBe("10");
    expect(isWhole(label("10"))).toBe(true);
    expect(isWhole(label("10.5"))).toBe(false);
    expect(labelInRange(label("2.5"), label("2"), label("3"))).toBe(true);
    expect(labelInRange(label("3.5"), label("2"), label("3"))).toBe(false);
    expect(wholeLabel(12)).toBe("12" as Label);
  });
});

describe("orderLabels", () => {
  it("canonicalises, removes repeats, orders exactly and names the next whole number", () => {
    expect(orderLabels(["11", "10.5", "007", "10", "10.50", "x", "", "7"])).toEqual({
      labels: ["7", "10", "10.5", "11"],
      rejected: ["x", ""],
      nextWhole: "12",
    });
    expect(orderLabels(["6.5", "6"]).nextWhole).toBe("7");
    expect(orderLabels(["99999999999999999999.5"]).nextWhole).toBe("100000000000000000000");
    expect(orderLabels([])).toEqual({ labels: [], rejected: [], nextWhole: "1" });
  });

  it("agrees with sortLabels for any list of labels", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(300), fc.option(fc.nat(99), { nil: undefined }))), (pairs) => {
        const texts = pairs.map(([w, f]) => (f === undefined ? String(w) : `${w}.${f}`));
        const canonical = [...new Set(texts.map((t) => label(t)))];
        expect(orderLabels(texts).labels).toEqual(sortLabels(canonical));
      }),
    );
  });
});

describe("unionLabels", () => {
  const labelText = fc
    .tuple(fc.nat(60), fc.option(fc.nat(99), { nil: undefined }))
    .map(([w, f]) => label(f === undefined ? String(w) : `${w}.${f}`));
  // Lists sorted and without repeats (the usual input), or as they come.
  const list = fc.oneof(
    fc.array(labelText, { maxLength: 30 }).map((ls) => sortLabels([...new Set(ls)])),
    fc.array(labelText, { maxLength: 30 }),
  );

  it("is every label of the lists once, in label order (property)", () => {
    fc.assert(
      fc.property(fc.array(list, { maxLength: 4 }), (lists) => {
        expect(unionLabels(...lists)).toEqual(sortLabels([...new Set(lists.flat())]));
      }),
      { numRuns: 2000 },
    );
  });

  it("gives back the first list itself when the others add nothing", () => {
    const slots = [label("1"), label("2"), label("2.5"), label("3")];
    expect(unionLabels(slots, [label("2"), label("3")], [])).toBe(slots);
    expect(unionLabels(slots, [label("4")])).toEqual(["1", "2", "2.5", "3", "4"]);
  });
});

describe("canonicalLabels", () => {
  it("canonicalises, drops what is no label, removes repeats and orders (property)", () => {
    const texts = fc.array(
      fc.oneof(
        fc
          .tuple(fc.nat(40), fc.option(fc.nat(99), { nil: undefined }))
          .map(([w, f]) => (f === undefined ? `${w}` : `${w}.${f}`)),
        fc.constantFrom("x", "", "007", "10.50", "-1"),
      ),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          texts,
          texts.map((t) => [...t].sort(compareTexts)),
        ),
        (values) => {
          const expected = sortLabels([
            ...new Set(values.map((v) => parseLabel(v)).filter((l): l is Label => l !== null)),
          ]);
          expect(canonicalLabels(values)).toEqual(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

function compareTexts(a: string, b: string): number {
  const [x, y] = [parseLabel(a), parseLabel(b)];
  if (x === null || y === null) return x === null ? (y === null ? 0 : -1) : 1;
  return compareLabels(x, y);
}
