import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoDay, predictNextRelease } from "./calendar.ts";

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
const DAY = 86_400_000;

describe("predictNextRelease", () => {
  it("a weekly series: the median of its intervals after the last release", () => {
    const dates = ["2026-01-02", "2026-01-09", "2026-01-16", "2026-01-23", "2026-01-30"].map(day);
    const p = predictNextRelease(dates, day("2026-02-01"));
    expect(p).toMatchObject({ status: "expected", medianDays: 7, releases: 5, intervals: [7, 7, 7, 7] });
    expect(isoDay(p.status === "expected" ? p.expectedAt : 0)).toBe("2026-02-06");
    expect(isoDay(p.lastReleaseAt!)).toBe("2026-01-30");
  });

  it("the median resists one late chapter; batch uploads and a hiatus are left out", () => {
    // Batch of three on one day, a 2-day gap, a 90-day hiatus: only 14, 14, 21, 14 count.
    const dates = [
      "2025-06-01",
      "2025-06-01",
      "2025-06-01",
      "2025-06-03",
      "2025-09-01",
      "2025-09-15",
      "2025-09-29",
      "2025-10-20",
      "2025-11-03",
    ].map(day);
    const p = predictNextRelease(dates, day("2025-11-05"));
    expect(p).toMatchObject({ status: "expected", intervals: [14, 14, 21, 14], medianDays: 14 });
    expect(isoDay((p as { expectedAt: number }).expectedAt)).toBe("2025-11-17");
  });

  it("too few dates: no prediction with fewer than four releases or three usable intervals", () => {
    expect(
      predictNextRelease([day("2026-01-01"), day("2026-01-08"), day("2026-01-15")], day("2026-01-16")),
    ).toMatchObject({ status: "unknown", reason: "too_few_dates", releases: 3, medianDays: null });
    // Four releases, but two of the intervals are a batch (1 day) and a hiatus (100 days).
    const irregular = ["2026-01-01", "2026-01-02", "2026-01-09", "2026-04-19"].map(day);
    expect(predictNextRelease(irregular, day("2026-04-20"))).toMatchObject({ status: "unknown", intervals: [7] });
    expect(predictNextRelease([], 0)).toMatchObject({ status: "unknown", releases: 0, lastReleaseAt: null });
  });

  it("overdue once three intervals passed with nothing: expected date kept, no prediction", () => {
    const dates = ["2026-01-05", "2026-01-12", "2026-01-19", "2026-01-26"].map(day);
    expect(predictNextRelease(dates, day("2026-02-16"))).toMatchObject({ status: "expected" });
    const late = predictNextRelease(dates, day("2026-02-16") + 1);
    expect(late).toMatchObject({ status: "overdue", medianDays: 7 });
    expect(isoDay((late as { expectedAt: number }).expectedAt)).toBe("2026-02-02");
  });

  it("the expected date is never before the last release and the median lies within the bounds", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 40 }), (offsets) => {
        const p = predictNextRelease(
          offsets.map((o) => o * DAY),
          3000 * DAY,
        );
        if (p.status === "unknown") return;
        expect(p.expectedAt).toBeGreaterThan(p.lastReleaseAt!);
        expect(p.medianDays).toBeGreaterThanOrEqual(3);
        expect(p.medianDays).toBeLessThanOrEqual(62);
        expect(p.intervals.length).toBeGreaterThanOrEqual(3);
      }),
    );
  });
});
