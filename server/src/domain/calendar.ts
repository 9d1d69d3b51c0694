/**
 * When the next chapter of a running series is expected, from the dates its sources released the
 * earlier ones. Pure: the service loads the dates.
 *
 * - The dates: one per main chapter (its earliest upload across the series' sources), one per day
 *   (a batch released on one day is one release).
 * - The cadence: the median of the intervals between consecutive releases that lie between 3 and
 *   62 days (a batch upload and a hiatus say nothing about the rhythm), over the latest 12 such
 *   intervals. At least four dated releases with three such intervals are needed; with fewer there is
 *   no prediction (`unknown`).
 * - Expected: the last release + the median. Once three medians have passed since the last release
 *   with nothing new, there is no prediction any more: the series is `overdue`, with the date the
 *   next chapter was expected.
 */

/** Dated releases (distinct days) needed for a prediction. */
export const MIN_RELEASES = 4;
export const MIN_INTERVAL_DAYS = 3;
export const MAX_INTERVAL_DAYS = 62;
export const MIN_INTERVALS = 3;
export const RECENT_INTERVALS = 12;
export const OVERDUE_AFTER = 3;
const DAY_MS = 86_400_000;

export interface CadenceFigures {
  /** Distinct release days known. */
  releases: number;
  /** The intervals (days) the median was taken from, oldest first. */
  intervals: number[];
  medianDays: number | null;
  lastReleaseAt: number | null;
}

export type Prediction =
  | ({ status: "expected"; expectedAt: number } & CadenceFigures)
  | ({ status: "overdue"; expectedAt: number } & CadenceFigures)
  | ({ status: "unknown"; reason: "too_few_dates" } & CadenceFigures);

const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The next chapter's expected date from the release dates (ms since the epoch) and now. */
export function predictNextRelease(releaseDates: readonly number[], now: number): Prediction {
  const days = [...new Set(releaseDates.filter((d) => Number.isFinite(d)).map(dayOf))].sort((a, b) => a - b);
  const lastReleaseAt = days.length > 0 ? days[days.length - 1]! * DAY_MS : null;
  const all: number[] = [];
  for (let i = 1; i < days.length; i++) all.push(days[i]! - days[i - 1]!);
  const intervals = all.filter((d) => d >= MIN_INTERVAL_DAYS && d <= MAX_INTERVAL_DAYS).slice(-RECENT_INTERVALS);
  const base = { releases: days.length, intervals, lastReleaseAt };
  if (days.length < MIN_RELEASES || intervals.length < MIN_INTERVALS)
    return { status: "unknown", reason: "too_few_dates", ...base, medianDays: null };
  const medianDays = median(intervals);
  const expectedAt = lastReleaseAt! + Math.round(medianDays * DAY_MS);
  const overdue = now > lastReleaseAt! + OVERDUE_AFTER * medianDays * DAY_MS;
  return { status: overdue ? "overdue" : "expected", expectedAt, ...base, medianDays };
}

/** "YYYY-MM-DD" (UTC) of a time. */
export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
