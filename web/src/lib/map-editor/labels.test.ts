import { describe, expect, it } from "vitest";
import { canonicalLabel, compactRanges, sameLabel } from "./labels";

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

  it("matches spellings of one label", () => {
    expect(sameLabel("01", "1")).toBe(true);
    expect(sameLabel("10.5", "10.50")).toBe(true);
    expect(sameLabel("x", "x")).toBe(false);
  });

  it("folds runs of whole numbers, in the order given (the service's)", () => {
    expect(compactRanges(["1", "2", "3", "3.5", "4", "5"])).toBe("1–3, 3.5, 4–5");
    expect(compactRanges(["7"])).toBe("7");
    expect(compactRanges(["1", "2", "3", "9", "10"])).toBe("1–3, 9–10");
    expect(compactRanges(["99999999999999999999", "100000000000000000000"])).toBe(
      "99999999999999999999–100000000000000000000",
    );
    expect(compactRanges(["0", "1", "1"])).toBe("0–1");
    expect(compactRanges([])).toBe("");
  });
});
