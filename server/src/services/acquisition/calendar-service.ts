/**
 * The release calendar: per monitored running series, when its next chapter is expected
 * (domain/calendar.ts), from the upload dates of the main chapters its linked sources list in the
 * series' languages (each chapter's earliest date across sources).
 */
import { isoDay, predictNextRelease } from "../../domain/calendar.ts";
import { compareLabels, isWhole, parseLabel, type Label } from "../../domain/labels.ts";
import { AppError } from "../../errors.ts";
import { calendarRepo } from "../../repositories/calendar-repo.ts";
import type { AppContext } from "../context.ts";
import { downloadLanguages } from "./source-slots.ts";

/** The widest window one request may ask for. */
export const MAX_CALENDAR_DAYS = 400;
/** Without `to`, the window ends this many days after `from` (a month ahead, as a calendar app shows). */
export const DEFAULT_CALENDAR_DAYS = 30;
const DAY_MS = 86_400_000;

export interface CalendarEntry {
  seriesId: number;
  title: string;
  status: "expected" | "overdue";
  /** YYYY-MM-DD (UTC). */
  expectedOn: string;
  lastReleaseAt: Date;
  /** The highest main chapter listed, and the one expected next. */
  lastChapter: string | null;
  nextChapter: string | null;
  medianIntervalDays: number;
  intervals: number[];
  releases: number;
}

export interface CalendarView {
  from: string;
  to: string;
  /** Expected within [from, to], by date. */
  entries: CalendarEntry[];
  /** Every overdue series, whatever the window (three intervals passed with nothing new). */
  overdue: CalendarEntry[];
}

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

function asDay(v: unknown, field: string): number {
  const ms = typeof v === "string" && DAY_RE.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
  if (!Number.isFinite(ms) || isoDay(ms) !== v)
    throw new AppError("invalid_field", `${field} must be a date YYYY-MM-DD`, { field });
  return ms;
}

export function calendarService(ctx: AppContext) {
  const repo = calendarRepo(ctx.db);
  return {
    /** Without `from` the window starts today (UTC); without `to` it ends DEFAULT_CALENDAR_DAYS later. */
    async calendar(fromText: unknown, toText: unknown, now = Date.now()): Promise<CalendarView> {
      const from = fromText == null ? Math.floor(now / DAY_MS) * DAY_MS : asDay(fromText, "from");
      const to = toText == null ? from + DEFAULT_CALENDAR_DAYS * DAY_MS : asDay(toText, "to");
      if (to < from) throw new AppError("invalid_field", "to must not be before from", { field: "to" });
      if ((to - from) / DAY_MS > MAX_CALENDAR_DAYS)
        throw new AppError("invalid_field", `the window may span at most ${MAX_CALENDAR_DAYS} days`, { field: "to" });
      const series = await repo.runningSeries();
      const offers = await repo.datedOffers(series.map((s) => s.id));
      const entries: CalendarEntry[] = [];
      const overdue: CalendarEntry[] = [];
      for (const s of series) {
        const languages = await downloadLanguages(ctx, s.language);
        const first = new Map<Label, number>();
        for (const o of offers) {
          if (o.seriesId !== s.id || !languages.includes(o.language)) continue;
          const n = parseLabel(o.chapter);
          // Main chapters only: chapter 0 and decimals are extras.
          if (n === null || !isWhole(n) || n === "0") continue;
          const at = o.uploadedAt!.getTime();
          first.set(n, Math.min(first.get(n) ?? Infinity, at));
        }
        const p = predictNextRelease([...first.values()], now);
        if (p.status === "unknown") continue;
        const last = [...first.keys()].sort(compareLabels).at(-1) ?? null;
        const entry: CalendarEntry = {
          seriesId: s.id,
          title: s.title,
          status: p.status,
          expectedOn: isoDay(p.expectedAt),
          lastReleaseAt: new Date(p.lastReleaseAt!),
          lastChapter: last,
          nextChapter: last === null ? null : String(BigInt(last) + 1n),
          medianIntervalDays: p.medianDays!,
          intervals: p.intervals,
          releases: p.releases,
        };
        if (p.status === "overdue") overdue.push(entry);
        else if (p.expectedAt >= from && p.expectedAt < to + DAY_MS) entries.push(entry);
      }
      const byDate = (a: CalendarEntry, b: CalendarEntry) =>
        a.expectedOn.localeCompare(b.expectedOn) || a.title.localeCompare(b.title);
      return { from: isoDay(from), to: isoDay(to), entries: entries.sort(byDate), overdue: overdue.sort(byDate) };
    },
  };
}

export type CalendarService = ReturnType<typeof calendarService>;
