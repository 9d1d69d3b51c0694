/**
 * Times in words, for the recycle bin and the previews' expiry: "in 29 days", "3 minutes ago",
 * and a readable date. Pure: `now` is a parameter so the words can be tested.
 */

const DAY = 24 * 3600;
/** Unit, its length in seconds, and from when it is used: days up to two months ("in 30 days" reads better than "next month" for a retention). */
const UNITS: readonly [Intl.RelativeTimeFormatUnit, number, number][] = [
  ["year", 365 * DAY, 365 * DAY],
  ["month", 30 * DAY, 60 * DAY],
  ["day", DAY, DAY],
  ["hour", 3600, 3600],
  ["minute", 60, 60],
];

/** "in 29 days", "3 minutes ago", "now"; "" for a value that is not a time. */
export function relativeTime(iso: string, now: Date = new Date(), locale = "en"): string {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return "";
  const seconds = (at - now.getTime()) / 1000;
  const format = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  for (const [unit, size, from] of UNITS) {
    if (Math.abs(seconds) >= from) return format.format(Math.round(seconds / size), unit);
  }
  return Math.abs(seconds) < 45 ? "just now" : format.format(Math.round(seconds / 60), "minute");
}

/** "12 Mar 2025, 14:05" in the reader's time zone (or the one given, for tests). */
export function formatDateTime(iso: string, locale = "en-GB", timeZone?: string): string {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return iso;
  return new Intl.DateTimeFormat(locale, {
    dateStyle: "medium",
    timeStyle: "short",
    ...(timeZone ? { timeZone } : {}),
  }).format(at);
}

/** True once the bin copy may be purged by the service. */
export function isExpired(restorableUntil: string, now: Date = new Date()): boolean {
  const to = Date.parse(restorableUntil);
  return Number.isFinite(to) && to <= now.getTime();
}
