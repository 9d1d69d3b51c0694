import { describe, expect, it } from "vitest";
import { estimateBooks, estimatedChaptersByBook } from "./estimates.ts";
import type { Label } from "./labels.ts";
import { operationalMap } from "./map-trust.ts";
import { chapterSlot, chapterSlots, labels, mapSource } from "./test-fixtures.ts";
import type { MapSourceFacts } from "./types.ts";

/** Book → "first-last" (or the list) of its estimated chapters. */
function layout(estimates: Map<Label, Label>): Record<string, string> {
  return Object.fromEntries([...estimatedChaptersByBook(estimates)].map(([b, cs]) => [b, cs.join(",")]));
}

const mapOf = (...sources: MapSourceFacts[]) => operationalMap(sources, []);
const none = mapOf();

describe("estimateBooks: even shares", () => {
  it.each([
    ["divides evenly", "1-12", "1-3", { "1": "1,2,3,4", "2": "5,6,7,8", "3": "9,10,11,12" }],
    ["gives the first books one more when it does not divide", "1-7", "1-3", { "1": "1,2,3", "2": "4,5", "3": "6,7" }],
    ["leaves later books empty when books outnumber chapters", "1-2", "1-3", { "1": "1", "2": "2" }],
    ["keeps chapter zero and decimals in reading order", "0, 1, 1.5, 2", "1-2", { "1": "0,1", "2": "1.5,2" }],
  ])("%s", (_name, chapters, volumes, expected) => {
    expect(layout(estimateBooks(labels(chapters), labels(volumes), none))).toEqual(expected);
  });

  it("has nothing to estimate without chapters or without books", () => {
    expect(estimateBooks([], labels("1-3"), none).size).toBe(0);
    expect(estimateBooks(labels("1-3"), [], none).size).toBe(0);
  });

  it("skips extras: they never count as main chapters", () => {
    const chapters = [...chapterSlots("1-4"), chapterSlot("2.5", { extra: true })];
    const estimates = estimateBooks(chapters, labels("1-2"), none);
    expect(layout(estimates)).toEqual({ "1": "1,2", "2": "3,4" });
    expect(estimates.has("2.5")).toBe(false);
  });
});

describe("estimateBooks: saved boundaries stay fixed", () => {
  it("never estimates a chapter the map assigns", () => {
    const map = mapOf(mapSource("operator", { "1": "1-5" }));
    const estimates = estimateBooks(labels("1-15"), labels("1-3"), map);
    expect(layout(estimates)).toEqual({ "2": "6,7,8,9,10", "3": "11,12,13,14,15" });
  });

  it("splits what lies between two fixed intervals among the books between them", () => {
    const map = mapOf(mapSource("operator", { "1": "1-5", "4": "16-20" }));
    expect(layout(estimateBooks(labels("1-25"), labels("1-5"), map))).toEqual({
      "2": "6,7,8,9,10",
      "3": "11,12,13,14,15",
      "5": "21,22,23,24,25",
    });
  });

  it("fills books before the first fixed interval from the chapters before it", () => {
    const map = mapOf(mapSource("reading", { "3": "9-12" }));
    expect(layout(estimateBooks(labels("1-12"), labels("1-3"), map))).toEqual({ "1": "1,2,3,4", "2": "5,6,7,8" });
  });

  it("does not estimate chapters between two adjacent fixed books", () => {
    const map = mapOf(mapSource("operator", { "1": "1-4", "2": "7-9" }));
    expect(estimateBooks(labels("1-9"), labels("1-2"), map).size).toBe(0);
  });

  it("leaves conflicting chapters unestimated (they are claimed, not unknown)", () => {
    const map = mapOf(mapSource("operator", { "1": "1-5", "2": "5-6" }));
    const estimates = estimateBooks(labels("1-10"), labels("1-3"), map);
    expect(estimates.has("5")).toBe(false);
    expect(layout(estimates)).toEqual({ "3": "7,8,9,10" });
  });

  it("lets an explicitly unknown book take its share (display only)", () => {
    const map = mapOf(mapSource("operator", { "1": "1-5", "2": "" }));
    expect(layout(estimateBooks(labels("1-9"), labels("1"), map))).toEqual({ "2": "6,7,8,9" });
  });

  it("estimates each chapter once when fixed books are out of order", () => {
    const map = mapOf(mapSource("operator", { "1": "1-2", "3": "20-21", "5": "8-9" }));
    const estimates = estimateBooks(labels("1-25"), labels("1-6"), map);
    expect(layout(estimates)).toEqual({ "2": "3,4,5,6,7,10,11,12,13,14,15,16,17,18,19", "6": "22,23,24,25" });
  });
});

describe("estimateBooks: recomputed from current data", () => {
  const map = mapOf(mapSource("operator", { "1": "1-10" }));
  it("moves when a new chapter is released", () => {
    const before = layout(estimateBooks(labels("1-20"), labels("1-3"), map));
    const after = layout(estimateBooks(labels("1-22"), labels("1-3"), map));
    expect(before).toEqual({ "2": "11,12,13,14,15", "3": "16,17,18,19,20" });
    expect(after).toEqual({ "2": "11,12,13,14,15,16", "3": "17,18,19,20,21,22" });
  });

  it("moves when the volume count changes", () => {
    const after = layout(estimateBooks(labels("1-20"), labels("1-4"), map));
    expect(after).toEqual({ "2": "11,12,13,14", "3": "15,16,17", "4": "18,19,20" });
  });

  it("does not change the map it is given", () => {
    estimateBooks(labels("1-20"), labels("1-3"), map);
    expect([...map.chapterToBook.keys()]).toEqual(labels("1-10"));
  });
});
