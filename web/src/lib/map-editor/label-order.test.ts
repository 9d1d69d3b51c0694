import { describe, expect, it } from "vitest";
import { placeByOrder, rankIn } from "./label-order";

describe("the service's label order", () => {
  // The service's answer for ["10", "2", "10.5", "9.9"].
  const order = ["2", "9.9", "10", "10.5"];

  it("places items by their label's rank, whatever their spelling; others keep their order, last", () => {
    const rows = ["10.50", "x", "010", "", "2", "9.90"];
    expect(placeByOrder(rows, (r) => r, order)).toEqual(["2", "9.90", "010", "10.50", "x", ""]);
    expect(placeByOrder([], (r: string) => r, order)).toEqual([]);
  });

  it("ranks a label by the answer, null when the answer does not hold it", () => {
    expect(rankIn(order, "09.9")).toBe(1);
    expect(rankIn(order, "11")).toBeNull();
    expect(rankIn(order, "eleven")).toBeNull();
  });
});
