/**
 * The download limit of one Wanted pass and the retries of releases that failed lately: chapters
 * never tried go first, and a pass that only retries counts as empty for the back-off.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planWanted, queuesUntried, type DegradedFile, type PlanInput } from "./wanted.ts";
import { H, NOW, ch, input, offer, reasons } from "./wanted-test-helpers.ts";

describe("the download limit and retries", () => {
  it("under the limit, chapters never tried come before releases that failed lately, in reading order each", () => {
    const slots = ["1", "2", "3", "4"].map((n) => ch(n));
    const out = planWanted(
      input({
        slots,
        offers: slots.map((s) => offer(s.number)),
        failed: [
          { mappingId: 1, externalId: "m1-c1" },
          { mappingId: 1, externalId: "m1-c2" },
        ],
        maxDownloads: 3,
      }),
    );
    // Chapters 1 and 2 keep failing: they do not hold chapters 3 and 4 back.
    expect(out.downloads.map((d) => d.externalId)).toEqual(["m1-c3", "m1-c4", "m1-c1"]);
    expect(reasons(out)).toEqual([
      "chapter 1: queued",
      "chapter 2: limit_reached",
      "chapter 3: queued",
      "chapter 4: queued",
    ]);
    expect(out.backoff).toEqual({ emptyPasses: 0, nextPassAt: null });
  });

  it("a pass that queues only retries and holds back only retries backs off", () => {
    const slots = ["1", "2", "3"].map((n) => ch(n));
    const out = planWanted(
      input({
        slots,
        offers: slots.map((s) => offer(s.number)),
        failed: slots.map((s) => ({ mappingId: 1, externalId: `m1-c${s.number}` })),
        maxDownloads: 2,
      }),
    );
    expect(reasons(out)).toEqual(["chapter 1: queued", "chapter 2: queued", "chapter 3: limit_reached"]);
    expect(out.backoff).toEqual({ emptyPasses: 1, nextPassAt: NOW + H });
    // One chapter never tried among them, held back: the series stays out of the back-off.
    const fresh = planWanted(
      input({
        slots: [...slots, ch("4")],
        offers: [...slots, ch("4")].map((s) => offer(s.number)),
        failed: slots.map((s) => ({ mappingId: 1, externalId: `m1-c${s.number}` })),
        maxDownloads: 0,
      }),
    );
    expect(fresh.backoff).toEqual({ emptyPasses: 0, nextPassAt: null });
  });

  it("a split chapter one of whose parts failed lately is a retry: it comes after a chapter never tried", () => {
    const out = planWanted(
      input({
        slots: [ch("5", { parts: 2 }), ch("6")],
        offers: [offer("5", { part: 1 }), offer("5", { part: 2 }), offer("6")],
        failed: [{ mappingId: 1, externalId: "m1-c5p2" }],
        maxDownloads: 2,
      }),
    );
    expect(out.downloads.map((d) => d.externalId)).toEqual(["m1-c6"]);
    expect(reasons(out)).toEqual(["chapter 5: limit_reached", "chapter 6: queued"]);
    // Held back as a retry, with a chapter never tried queued: the pass is not empty.
    expect(out.backoff).toEqual({ emptyPasses: 0, nextPassAt: null });
  });
});

describe("whether a plan tries a release that has not failed lately", () => {
  const failed = (...ids: string[]) => ids.map((externalId) => ({ mappingId: 1, externalId }));
  /** Chapter 10 on disk in two parts from source 1 (files 21, 22); part 2 was judged degraded. */
  const degradedPart: DegradedFile = {
    fileId: 22,
    slot: ch("10", { parts: 2, owned: true }),
    siblingFileIds: [21, 22],
    mappingId: 1,
    replacing: false,
  };
  const parts = (mappingId: number) => [1, 2].map((part) => offer("10", { mappingId, part }));
  it.each<[string, Partial<PlanInput>, boolean]>([
    ["nothing queued", { slots: [ch("1")] }, false],
    ["a chapter never tried", { slots: [ch("1")], offers: [offer("1")] }, true],
    ["only the release that failed", { slots: [ch("1")], offers: [offer("1")], failed: failed("m1-c1") }, false],
    [
      "another source's release of the chapter whose release failed",
      { slots: [ch("1")], offers: [offer("1"), offer("1", { mappingId: 2 })], failed: failed("m1-c1") },
      true,
    ],
    [
      "a retry beside a chapter never tried",
      { slots: [ch("1"), ch("2")], offers: [offer("1"), offer("2")], failed: failed("m1-c1") },
      true,
    ],
    [
      "a split chapter one of whose parts failed",
      {
        slots: [ch("5", { parts: 2 })],
        offers: [offer("5", { part: 1 }), offer("5", { part: 2 })],
        failed: failed("m1-c5p2"),
      },
      false,
    ],
    [
      "a split replacement whose part 2 failed (part 1 is fetched again with it)",
      {
        offers: [...parts(1), ...parts(2)],
        degradedFiles: [degradedPart],
        failed: [{ mappingId: 2, externalId: "m2-c10p2" }],
      },
      false,
    ],
    ["a split replacement never tried", { offers: [...parts(1), ...parts(2)], degradedFiles: [degradedPart] }, true],
  ])("%s → %s", (_name, over, expected) => {
    const i = input(over);
    expect(queuesUntried(planWanted(i), i.failed ?? [])).toBe(expected);
  });

  it("nothing failed: true exactly when something is queued; everything failed: false", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 30 }), { maxLength: 8 }), fc.nat(12), (ns, limit) => {
        const slots = ns.map((n) => ch(String(n)));
        const offers = ns.flatMap((n) => [offer(String(n)), offer(String(n), { mappingId: 2 })]);
        const plan = planWanted(input({ slots, offers, maxDownloads: limit }));
        expect(queuesUntried(plan, [])).toBe(plan.downloads.length > 0);
        const all = offers.map((o) => ({ mappingId: o.mappingId, externalId: o.externalId }));
        expect(queuesUntried(planWanted(input({ slots, offers, maxDownloads: limit, failed: all })), all)).toBe(false);
      }),
    );
  });
});
