/**
 * The calendar page's month arithmetic, pure and in UTC (the server's dates are UTC days): which
 * month the URL names, the days of its grid (weeks from Monday), and words for an entry. The
 * prediction itself is the server's.
 */
import type { CalendarEntry, CalendarRules } from "./queries";

export interface Month {
  year: number;
  /** 1..12 */
  month: number;
}

const MONTH_RE = /^(\d{4})-(\d{2})$/;
const pad = (n: number) => String(n).padStart(2, "0");

export function monthKey(m: Month): string {
  return `${m.year}-${pad(m.month)}`;
}

/** The month of `?month=YYYY-MM`, else the month of `today`. */
export function parseMonth(text: string | null, today: Date): Month {
  const m = text ? MONTH_RE.exec(text) : null;
  if (m) {
    const month = Number(m[2]);
    if (month >= 1 && month <= 12) return { year: Number(m[1]), month };
  }
  return { year: today.getUTCFullYear(), month: today.getUTCMonth() + 1 };
}

export function addMonths(m: Month, delta: number): Month {
  const i = m.year * 12 + (m.month - 1) + delta;
  return { year: Math.floor(i / 12), month: (i % 12) + 1 };
}

export const isoDate = (d: Date) => d.toISOString().slice(0, 10);

/** First and last day of the month (YYYY-MM-DD). */
export function monthRange(m: Month): { from: string; to: string } {
  const last = new Date(Date.UTC(m.year, m.month, 0));
  return { from: `${monthKey(m)}-01`, to: isoDate(last) };
}

export interface GridDay {
  date: string;
  day: number;
  inMonth: boolean;
}

/** Whole weeks, Monday first, covering the month. */
export function monthGrid(m: Month): GridDay[][] {
  const first = new Date(Date.UTC(m.year, m.month - 1, 1));
  const lead = (first.getUTCDay() + 6) % 7;
  const start = Date.UTC(m.year, m.month - 1, 1 - lead);
  const days = new Date(Date.UTC(m.year, m.month, 0)).getUTCDate();
  const cells = Math.ceil((lead + days) / 7) * 7;
  const weeks: GridDay[][] = [];
  for (let i = 0; i < cells; i++) {
    const d = new Date(start + i * 86_400_000);
    if (i % 7 === 0) weeks.push([]);
    weeks[weeks.length - 1]!.push({ date: isoDate(d), day: d.getUTCDate(), inMonth: d.getUTCMonth() === m.month - 1 });
  }
  return weeks;
}

export function monthTitle(m: Month): string {
  return new Date(Date.UTC(m.year, m.month - 1, 1)).toLocaleDateString("en", {
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
}

export function dayTitle(date: string): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString("en", {
    weekday: "short",
    day: "numeric",
    month: "short",
    timeZone: "UTC",
  });
}

const days = (n: number) => (n === 1 ? "1 day" : `${Number.isInteger(n) ? n : n.toFixed(1)} days`);

/** "Chapter 9 expected (every 7 days, from 7 intervals)". */
export function entrySummary(e: CalendarEntry): string {
  const what = e.nextChapter ? `Chapter ${e.nextChapter}` : "The next chapter";
  const basis = `every ${days(e.medianIntervalDays)}, median of ${e.intervals.length} intervals`;
  return e.status === "OVERDUE"
    ? `${what} was expected on ${dayTitle(e.expectedOn)} (${basis}); nothing new since ${dayTitle(e.lastReleaseAt.slice(0, 10))}.`
    : `${what} expected (${basis}; last release ${dayTitle(e.lastReleaseAt.slice(0, 10))}).`;
}

/** Entries by expected day. */
export function byDay(entries: readonly CalendarEntry[]): Map<string, CalendarEntry[]> {
  const out = new Map<string, CalendarEntry[]>();
  for (const e of entries) out.set(e.expectedOn, [...(out.get(e.expectedOn) ?? []), e]);
  return out;
}

const SMALL = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
const counted = (n: number) => SMALL[n] ?? String(n);

/** How the page explains the prediction, with the service's own figures. */
export function ruleWords(r: CalendarRules): { intro: string; needs: string } {
  const apart = `${r.calendarMinIntervalDays} to ${r.calendarMaxIntervalDays} days apart`;
  const releases = `at least ${counted(r.calendarMinReleases)} dated releases`;
  const after = r.calendarOverdueIntervals === 1 ? "one interval" : `${counted(r.calendarOverdueIntervals)} intervals`;
  return {
    intro:
      "When the next chapter of each monitored, running series is expected: the median interval between its recent " +
      `releases (${apart}, ${releases}) after the last one. A series with nothing new after ${after} is overdue.`,
    needs: `A series needs a linked source with ${releases} to be predicted.`,
  };
}
