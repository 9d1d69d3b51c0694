/**
 * The figures of the product's rules that clients show to people (the web client words them from
 * here instead of repeating them): each is the constant the deciding module itself uses.
 */
import { FEW_PAGES } from "./audit.ts";
import { MAX_INTERVAL_DAYS, MIN_INTERVAL_DAYS, MIN_RELEASES, OVERDUE_AFTER } from "./calendar.ts";
import { DEFAULT_THRESHOLDS } from "./conformity.ts";
import { OVERSIZED_BOOK_PAGES } from "./types.ts";

/** A source mapping's priority: a whole number in this range, higher first. */
export const SOURCE_PRIORITY_MIN = -1000;
export const SOURCE_PRIORITY_MAX = 1000;

export interface ProductRules {
  /** A download with a larger share of black-card pages is degraded (conformity.ts). */
  maxBlackShare: number;
  /** A file with fewer pages is flagged as having few pages (audit.ts). */
  fewPages: number;
  /** A book with more pages is oversized: flagged and suspect (audit.ts, verification.ts). */
  oversizedBookPages: number;
  sourcePriorityMin: number;
  sourcePriorityMax: number;
  /** The calendar predicts a series' next chapter from at least this many dated releases (calendar.ts). */
  calendarMinReleases: number;
  /** Only intervals between releases from … to this many days (inclusive) make the cadence. */
  calendarMinIntervalDays: number;
  calendarMaxIntervalDays: number;
  /** After this many cadence intervals with nothing new, a series is overdue. */
  calendarOverdueIntervals: number;
}

/** The rules' figures with those the operator configures (the service adds them from its configuration). */
export interface ServiceRules extends ProductRules {
  /** Days a retired file stays restorable in the recycle bin (RECYCLE_RETENTION_DAYS). */
  recycleRetentionDays: number;
}

export const PRODUCT_RULES: ProductRules = Object.freeze({
  maxBlackShare: DEFAULT_THRESHOLDS.maxBlackShare,
  fewPages: FEW_PAGES,
  oversizedBookPages: OVERSIZED_BOOK_PAGES,
  sourcePriorityMin: SOURCE_PRIORITY_MIN,
  sourcePriorityMax: SOURCE_PRIORITY_MAX,
  calendarMinReleases: MIN_RELEASES,
  calendarMinIntervalDays: MIN_INTERVAL_DAYS,
  calendarMaxIntervalDays: MAX_INTERVAL_DAYS,
  calendarOverdueIntervals: OVERDUE_AFTER,
});
