import { describe, expect, it } from "vitest";
import { addMonths, byDay, entrySummary, monthGrid, monthRange, parseMonth, ruleWords } from "./calendar";
import type { CalendarEntry } from "./queries";

const entry = (over: Partial<CalendarEntry> = {}): CalendarEntry => ({
  seriesId: 1,
  title: "Weekly Wave",
  status: "EXPECTED",
  expectedOn: "2026-03-06",
  lastReleaseAt: "2026-02-27T10:00:00.000Z",
  lastChapter: "8",
  nextChapter: "9",
  medianIntervalDays: 7,
  intervals: [7, 7, 7],
  releases: 4,
  ...over,
});

describe("calendar helpers", () => {
  it("reads the month from the URL, else today's", () => {
    expect(parseMonth("2026-03", new Date("2025-01-01"))).toEqual({ year: 2026, month: 3 });
    expect(parseMonth("2026-13", new Date("2025-01-15T00:00:00Z"))).toEqual({ year: 2025, month: 1 });
    expect(addMonths({ year: 2026, month: 12 }, 1)).toEqual({ year: 2027, month: 1 });
    expect(addMonths({ year: 2026, month: 1 }, -1)).toEqual({ year: 2025, month: 12 });
    expect(monthRange({ year: 2024, month: 2 })).toEqual({ from: "2024-02-01", to: "2024-02-29" });
  });

  it("lays the month out in whole weeks from Monday", () => {
    const weeks = monthGrid({ year: 2026, month: 3 });
    // 1 March 2026 is a Sunday: the grid starts on Monday 23 February.
    expect(weeks[0]![0]).toEqual({ date: "2026-02-23", day: 23, inMonth: false });
    expect(weeks[0]![6]).toEqual({ date: "2026-03-01", day: 1, inMonth: true });
    expect(weeks.every((w) => w.length === 7)).toBe(true);
    expect(weeks.flat().filter((d) => d.inMonth)).toHaveLength(31);
  });

  it("words an expected and an overdue entry with the figures used", () => {
    expect(entrySummary(entry())).toBe(
      "Chapter 9 expected (every 7 days, median of 3 intervals; last release Fri, Feb 27).",
    );
    expect(entrySummary(entry({ status: "OVERDUE", expectedOn: "2026-01-02" }))).toContain(
      "was expected on Fri, Jan 2",
    );
    expect(byDay([entry(), entry({ seriesId: 2 })]).get("2026-03-06")).toHaveLength(2);
  });

  it("words the rule with the service's figures", () => {
    const rules = {
      calendarMinReleases: 4,
      calendarMinIntervalDays: 3,
      calendarMaxIntervalDays: 62,
      calendarOverdueIntervals: 3,
    };
    expect(ruleWords(rules)).toEqual({
      intro:
        "When the next chapter of each monitored, running series is expected: the median interval between its " +
        "recent releases (3 to 62 days apart, at least four dated releases) after the last one. A series with " +
        "nothing new after three intervals is overdue.",
      needs: "A series needs a linked source with at least four dated releases to be predicted.",
    });
    const other = ruleWords({ ...rules, calendarMinReleases: 20, calendarOverdueIntervals: 1 });
    expect([other.intro.includes("at least 20 dated releases"), other.intro.includes("after one interval")]).toEqual([
      true,
      true,
    ]);
  });
});
