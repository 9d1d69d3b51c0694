/**
 * The download limit of one Wanted pass and the retries of releases that failed lately: chapters
 * never tried go first, and a pass that only retries counts as empty for the back-off.
 */
import { describe, expect, it } from "vitest";
import { planWanted } from "./wanted.ts";
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
