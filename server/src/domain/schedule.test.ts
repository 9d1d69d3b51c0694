import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstRunDelay } from "./schedule.ts";

const HOUR = 3_600_000;
const now = new Date("2026-11-30T12:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms);

describe("firstRunDelay", () => {
  it.each([
    ["no cycle recorded: one interval after the start", null, HOUR, HOUR],
    ["the last cycle 20 minutes ago: 40 minutes from now", ago(20 * 60_000), HOUR, 40 * 60_000],
    ["the last cycle exactly one interval ago: at once", ago(HOUR), HOUR, 0],
    ["overdue by a day: at once", ago(25 * HOUR), HOUR, 0],
    ["the last cycle this very moment: one interval", now, HOUR, HOUR],
    ["a last cycle in the future (clock set back): one interval", new Date(now.getTime() + 5 * HOUR), HOUR, HOUR],
    ["an unreadable time counts as none", new Date(Number.NaN), HOUR, HOUR],
  ] as const)("%s", (_, last, interval, expected) => {
    expect(firstRunDelay(last, interval, now)).toBe(expected);
  });

  it("is never negative nor more than the interval, and at once exactly when overdue", () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: -10 * HOUR, max: 100 * HOUR })),
        fc.integer({ min: 1, max: 48 * HOUR }),
        (sinceLast, interval) => {
          const delay = firstRunDelay(sinceLast === null ? null : ago(sinceLast), interval, now);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(interval);
          if (sinceLast !== null && sinceLast >= 0) expect(delay).toBe(Math.max(0, interval - sinceLast));
        },
      ),
    );
  });
});
