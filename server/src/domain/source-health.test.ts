import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { healthOf, latestBySource, RECENT_DOWNLOADS } from "./source-health.ts";

const at = (n: number) => new Date(Date.UTC(2026, 10, 30, 12, 0, 0) - n * 60_000);
/** Downloads newest first, from their states. */
const downloads = (...states: string[]) => states.map((state, i) => ({ state, updatedAt: at(i) }));

describe("healthOf", () => {
  it.each([
    ["no download", [], "unknown"],
    ["only unfinished ones", ["queued", "fetching"], "unknown"],
    ["all published", ["published", "published"], "ok"],
    ["one failed of three", ["failed", "published", "published"], "degraded"],
    ["a single failure alone", ["failed"], "degraded"],
    ["two problems of four", ["failed", "degraded", "published", "published"], "failing"],
    ["two problems of five", ["failed", "degraded", "published", "published", "published"], "degraded"],
    ["two failures", ["failed", "failed"], "failing"],
    // Only the latest ten count: older failures are forgotten.
    ["ten published after many failures", [...Array(10).fill("published"), ...Array(10).fill("failed")], "ok"],
  ] as const)("%s: %s", (_, states, status) => {
    expect(healthOf(downloads(...states)).status).toBe(status);
  });

  it("counts and dates the latest problem", () => {
    expect(healthOf(downloads("queued", "published", "degraded", "failed", "published"))).toEqual({
      status: "failing",
      recent: 4,
      published: 2,
      degraded: 1,
      failed: 1,
      lastProblemAt: at(2),
    });
  });

  it("is failing exactly when at least two and at least half of the latest finished ones had a problem", () => {
    const state = fc.constantFrom("queued", "fetching", "published", "degraded", "failed");
    fc.assert(
      fc.property(fc.array(state, { maxLength: 25 }), (states) => {
        const h = healthOf(downloads(...states));
        const done = states.slice(0, RECENT_DOWNLOADS).filter((s) => s !== "queued" && s !== "fetching");
        const problems = done.filter((s) => s !== "published").length;
        expect(h.recent).toBe(done.length);
        expect(h.published + h.degraded + h.failed).toBe(h.recent);
        expect(h.status === "failing").toBe(problems >= 2 && problems * 2 >= done.length);
      }),
    );
  });
});

describe("latestBySource", () => {
  it("groups by source in the given order, at most RECENT_DOWNLOADS each, and leaves out downloads of no source", () => {
    const rows = [
      ...Array.from({ length: 12 }, (_, i) => ({ sourceMappingId: 1, n: i })),
      { sourceMappingId: 2, n: 100 },
      { sourceMappingId: null, n: 200 },
    ];
    const grouped = latestBySource(rows);
    expect([...grouped.keys()]).toEqual([1, 2]);
    expect(grouped.get(1)!.map((r) => r.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(grouped.get(2)!.map((r) => r.n)).toEqual([100]);
  });
});
