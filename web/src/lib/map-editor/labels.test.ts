import { describe, expect, it } from "vitest";
import { canonicalLabel, compactRanges, compareLabels, nextWhole, sameLabel, sortLabels } from "./labels";

describe("labels", () => {
  it("canonical forms", () => {
    expect(canonicalLabel("007")).toBe("7");
    expect(canonicalLabel(" 10.50 ")).toBe("10.5");
    expect(canonicalLabel("0")).toBe("0");
    expect(canonicalLabel("1.0")).toBe("1");
    expect(canonicalLabel("1e3")).toBeNull();
    expect(canonicalLabel("-1")).toBeNull();
    expect(canonicalLabel("")).toBeNull();
    expect(canonicalLabel(null)).toBeNull();
  });

  it("orders without floats", () => {
    expect(sortLabels(["10", "9", "10.5", "10.05", "0", "2"])).toEqual(["0", "2", "9", "10", "10.05", "10.5"]);
    expect(compareLabels("10.5", "10.50")).toBe(0);
    expect(compareLabels("abc", "1")).toBeGreaterThan(0);
    expect(sameLabel("01", "1")).toBe(true);
    expect(sameLabel("x", "x")).toBe(false);
  });

  it("next whole number", () => {
    expect(nextWhole("6")).toBe("7");
    expect(nextWhole("6.5")).toBe("7");
    expect(nextWhole("99999999999999999999")).toBe("100000000000000000000");
    expect(nextWhole(null)).toBe("1");
  });

  it("folds runs of whole numbers", () => {
    expect(compactRanges(["1", "2", "3", "3.5", "4", "5"])).toBe("1–3, 3.5, 4–5");
    expect(compactRanges(["7"])).toBe("7");
    expect(compactRanges(["3", "1", "2", "9", "10"])).toBe("1–3, 9–10");
    expect(compactRanges(["0", "1", "1"])).toBe("0–1");
    expect(compactRanges([])).toBe("");
  });
});
