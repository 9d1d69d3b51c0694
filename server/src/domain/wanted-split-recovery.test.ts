/** Recovery of a degraded part of a split chapter: replaced like the whole chapter, all parts from one other source. */
import { describe, expect, it } from "vitest";
import { planWanted, type DegradedFile, type PlanInput, type PlanOffer, type WantedSlot } from "./wanted.ts";

const NOW = Date.UTC(2026, 0, 1);
const slot = (n: string, over: Partial<WantedSlot> = {}): WantedSlot => ({
  kind: "chapter",
  number: n,
  wanted: false,
  monitored: true,
  owned: true,
  coverage: null,
  parts: 1,
  partsOnDisk: [],
  ...over,
});
const offer = (n: string, over: Partial<PlanOffer> = {}): PlanOffer => ({
  mappingId: 1,
  kind: "chapter",
  chapter: n,
  volume: null,
  part: null,
  language: "en",
  scanlator: null,
  externalId: `${over.mappingId ?? 1}-${n}-${over.part ?? 0}`,
  pageCount: 10,
  uploadedAt: NOW,
  ...over,
});
const input = (over: Partial<PlanInput>): PlanInput => ({
  slots: [],
  offers: [],
  mappings: [1, 2, 3].map((id) => ({ id, priority: 0, degraded: 0, failed: 0 })),
  degraded: [],
  active: [],
  languages: ["en"],
  maxDownloads: 10,
  backoff: { emptyPasses: 0, nextPassAt: null },
  now: NOW,
  ...over,
});
/** Chapter 10 on disk in three parts from source 1 (files 21, 22, 23); part 2 was judged degraded. */
const degradedPart = (over: Partial<DegradedFile> = {}): DegradedFile => ({
  fileId: 22,
  slot: slot("10", { parts: 3 }),
  siblingFileIds: [21, 22, 23],
  mappingId: 1,
  replacing: false,
  ...over,
});
const parts = (mappingId: number, ...ps: number[]) => ps.map((part) => offer("10", { mappingId, part }));

describe("split chapter recovery", () => {
  it("a degraded part brings every part from ONE other source, and all old parts are replaced together", () => {
    const out = planWanted(
      input({ offers: [...parts(1, 1, 2, 3), ...parts(2, 1, 2, 3)], degradedFiles: [degradedPart()] }),
    );
    expect(out.downloads.map((d) => [d.mappingId, d.part])).toEqual([
      [2, 1],
      [2, 2],
      [2, 3],
    ]);
    const groups = new Set(out.downloads.map((d) => d.replacementGroup));
    expect(groups.size).toBe(1);
    expect(out.downloads.every((d) => JSON.stringify(d.replacesFileIds) === "[21,22,23]")).toBe(true);
    expect(out.ledger).toEqual([
      expect.objectContaining({
        number: "10",
        reason: "replacing",
        detail: expect.objectContaining({ replacesFileId: 22 }),
      }),
    ]);
  });

  it("a source with only some of the parts does not replace it; a whole release from another source does", () => {
    const incomplete = planWanted(input({ offers: parts(2, 1, 3), degradedFiles: [degradedPart()] }));
    expect(incomplete.downloads).toEqual([]);
    expect(incomplete.ledger.map((e) => e.reason)).toEqual(["no_other_source"]);

    const whole = planWanted(
      input({ offers: [...parts(2, 1, 3), offer("10", { mappingId: 3 })], degradedFiles: [degradedPart()] }),
    );
    expect(whole.downloads.map((d) => [d.mappingId, d.part, d.replacesFileIds])).toEqual([[3, null, [21, 22, 23]]]);
  });

  it("two degraded parts of one chapter are one replacement; a live one is not queued again", () => {
    const two = planWanted(
      input({
        offers: parts(2, 1, 2, 3),
        degradedFiles: [degradedPart(), degradedPart({ fileId: 23 })],
      }),
    );
    expect(two.downloads).toHaveLength(3);
    expect(two.ledger).toHaveLength(1);
    const live = planWanted(input({ offers: parts(2, 1, 2, 3), degradedFiles: [degradedPart({ replacing: true })] }));
    expect([live.downloads.length, live.ledger[0]?.reason]).toEqual([0, "replacing"]);
  });

  it("the parts count against the pass's limit as a whole: never some of them", () => {
    const out = planWanted(input({ offers: parts(2, 1, 2, 3), degradedFiles: [degradedPart()], maxDownloads: 2 }));
    expect([out.downloads.length, out.ledger[0]?.reason]).toEqual([0, "limit_reached"]);
  });

  it("an unfinished replacement's source fills in only its missing parts, into the same group", () => {
    // Source 2 published parts 1 and 3 (files 31, 33) of group "chapter:10#21,22,23"; part 2 failed.
    // Siblings now hold the new part files too.
    const resume = {
      group: "chapter:10#21,22,23",
      replacesFileIds: [21, 22, 23],
      mappingId: 2,
      scanlator: null,
      parts: [1, 3],
    };
    const file = degradedPart({ siblingFileIds: [21, 22, 23, 31, 33], resume });
    const out = planWanted(input({ offers: [...parts(1, 1, 2, 3), ...parts(2, 1, 2, 3)], degradedFiles: [file] }));
    expect(out.downloads.map((d) => [d.mappingId, d.part, d.replacementGroup, d.replacesFileIds])).toEqual([
      [2, 2, "chapter:10#21,22,23", [21, 22, 23]],
    ]);
    expect(out.ledger.map((e) => e.reason)).toEqual(["replacing"]);
    // Another source (ranked first) brings every part, and replaces the new part files too.
    const other = planWanted(
      input({
        offers: [...parts(2, 1, 2, 3), ...parts(3, 1, 2, 3)],
        mappings: [1, 2, 3].map((id) => ({ id, priority: id === 3 ? 5 : 0, degraded: 0, failed: 0 })),
        degradedFiles: [file],
      }),
    );
    expect(other.downloads.map((d) => [d.mappingId, d.part, d.replacesFileIds])).toEqual([
      [3, 1, [21, 22, 23, 31, 33]],
      [3, 2, [21, 22, 23, 31, 33]],
      [3, 3, [21, 22, 23, 31, 33]],
    ]);
    expect(new Set(other.downloads.map((d) => d.replacementGroup))).toEqual(new Set(["chapter:10#21,22,23,31,33"]));
    // That source now offers the chapter whole: it replaces its own new parts too.
    const whole = planWanted(input({ offers: [offer("10", { mappingId: 2 })], degradedFiles: [file] }));
    expect(whole.downloads.map((d) => [d.mappingId, d.part, d.replacesFileIds])).toEqual([
      [2, null, [21, 22, 23, 31, 33]],
    ]);
  });

  it("a replacement that only tries again a failed release is queued but backs off; the next pass waits", () => {
    const H = 3_600_000;
    // Part 2 of source 2's replacement failed; source 2 is the only other source.
    const failed = [{ mappingId: 2, externalId: "2-10-2" }];
    const first = planWanted(input({ offers: parts(2, 1, 2, 3), degradedFiles: [degradedPart()], failed }));
    expect(first.downloads).toHaveLength(3);
    expect(first.backoff).toEqual({ emptyPasses: 1, nextPassAt: NOW + H });
    // The scheduled pass an hour later (no wanted slot) does not ask again before the back-off ends.
    const early = planWanted(
      input({
        offers: parts(2, 1, 2, 3),
        degradedFiles: [degradedPart()],
        failed,
        now: NOW + H - 1,
        backoff: first.backoff,
      }),
    );
    expect([early.downloads.length, early.ledger.map((e) => e.reason)]).toEqual([0, ["backing_off"]]);
    const later = planWanted(
      input({
        offers: parts(2, 1, 2, 3),
        degradedFiles: [degradedPart()],
        failed,
        now: NOW + H,
        backoff: first.backoff,
      }),
    );
    expect([later.downloads.length, later.backoff]).toEqual([3, { emptyPasses: 2, nextPassAt: NOW + 3 * H }]);
    // A release never tried (another source) resets it; so does a series with nothing to replace.
    const other = planWanted(
      input({
        offers: [...parts(2, 1, 2, 3), offer("10", { mappingId: 3 })],
        mappings: [1, 2, 3].map((id) => ({ id, priority: id === 3 ? 5 : 0, degraded: 0, failed: 0 })),
        degradedFiles: [degradedPart()],
        failed,
        backoff: later.backoff,
        now: NOW + 3 * H,
      }),
    );
    expect([other.downloads.map((d) => d.mappingId), other.backoff]).toEqual([
      [3],
      { emptyPasses: 0, nextPassAt: null },
    ]);
    expect(planWanted(input({ backoff: later.backoff, now: NOW + 3 * H })).backoff).toEqual({
      emptyPasses: 0,
      nextPassAt: null,
    });
  });
});
