import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fillsIn, ownedSound, partsReplacement } from "./slot-holdings.ts";
import { planWanted, type WantedSlot } from "./wanted.ts";
import { ch, input, offer } from "./wanted-test-helpers.ts";

describe("a slot a sound file owns", () => {
  const degraded = (n: string) => ({ fileId: 1, slot: ch(n, { owned: true }), mappingId: 1, replacing: false });
  it.each<[string, Partial<WantedSlot>, string[], boolean]>([
    ["owned, no degraded file", { owned: true }, [], true],
    ["owned, its file degraded", { owned: true }, ["1"], false],
    ["owned, another slot's file degraded", { owned: true }, ["2"], true],
    ["owned, the same number written otherwise is degraded", { owned: true }, ["1.0"], false],
    ["missing", {}, [], false],
    ["a split chapter with a part missing", { parts: 2, partsOnDisk: [1] }, [], false],
  ])("%s → %s", (_name, over, bad, expected) => {
    expect(ownedSound(ch("1", over), bad.map(degraded))).toBe(expected);
  });
  it("is never true for a slot that is not owned, whatever is degraded", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("1", "2", "3")), (bad) => {
        expect(ownedSound(ch("1"), bad.map(degraded))).toBe(false);
      }),
    );
  });
});

describe("a chapter partly on disk", () => {
  // Part 1 on disk from mapping 1 (file 7); part 2 of mapping 1 came out degraded.
  const partly = ch("10", { parts: 2, partsOnDisk: [1], partsFrom: { mappingId: 1, scanlator: null, fileIds: [7] } });
  const parts = (mappingId: number) => [1, 2].map((part) => offer("10", { mappingId, part }));

  it("is filled in only by the source of its parts (same scanlator)", () => {
    expect(fillsIn(partly, 1, null)).toBe(true);
    expect(fillsIn(partly, 1, "Other")).toBe(false);
    expect(fillsIn(partly, 2, null)).toBe(false);
    expect(fillsIn(ch("10", { parts: 2, partsOnDisk: [1] }), 2, null)).toBe(true);
  });

  it("from another source: every part, replacing the files on disk together", () => {
    const out = planWanted(
      input({
        slots: [partly],
        offers: [...parts(1), ...parts(2)],
        degraded: [{ mappingId: 1, externalId: parts(1)[1]!.externalId, kind: "chapter", chapter: "10", volume: null }],
      }),
    );
    expect(out.downloads.map((d) => [d.mappingId, d.part, d.replacesFileIds, d.replacementGroup])).toEqual([
      [2, 1, [7], "chapter:10#7"],
      [2, 2, [7], "chapter:10#7"],
    ]);
  });

  it("from its own source: only the missing part, replacing nothing", () => {
    const out = planWanted(input({ slots: [partly], offers: parts(1) }));
    expect(out.downloads.map((d) => [d.mappingId, d.part, d.replacesFileIds])).toEqual([[1, 2, undefined]]);
    expect(partsReplacement(partly, parts(1))).toEqual({});
  });

  it("never mixes two sources' parts in one chapter", () => {
    fc.assert(
      fc.property(fc.constantFrom(1, 2, 3), fc.boolean(), (from, blockOwn) => {
        const slot = ch("10", {
          parts: 2,
          partsOnDisk: [1],
          partsFrom: { mappingId: from, scanlator: null, fileIds: [7] },
        });
        const offers = [1, 2, 3].flatMap(parts);
        const own = offers.find((o) => o.mappingId === from && o.part === 2)!;
        const out = planWanted(
          input({
            slots: [slot],
            offers,
            degraded: blockOwn
              ? [{ mappingId: from, externalId: own.externalId, kind: "chapter", chapter: "10", volume: null }]
              : [],
          }),
        );
        for (const d of out.downloads)
          if (d.mappingId !== from) expect([d.part, d.replacesFileIds]).toEqual([d.part, [7]]);
        const foreign = out.downloads.filter((d) => d.mappingId !== from);
        if (foreign.length > 0) expect(foreign.map((d) => d.part).sort()).toEqual([1, 2]);
      }),
    );
  });
});
