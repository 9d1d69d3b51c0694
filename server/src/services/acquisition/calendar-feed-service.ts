/**
 * The release calendar as an iCalendar feed, for calendar apps (Thunderbird, Apple Calendar, Google
 * Calendar, DAVx⁵), as the *arr apps offer theirs. Calendar apps send no headers, so the address
 * carries a key of its own: a random secret in the secrets file, good for this feed only (never
 * the API key, which can change the library), replaced on request (the old address stops working).
 * The feed spans two weeks back to three months ahead; overdue series are listed on the day they
 * were expected.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import ical from "ical-generator";
import type { AppContext } from "../context.ts";
import type { CalendarEntry, CalendarService } from "./calendar-service.ts";

export const CALENDAR_FEED_SECRET = "calendar.feedKey";
const DAY_MS = 86_400_000;
const BACK_DAYS = 14;
const AHEAD_DAYS = 90;

export interface CalendarFeedView {
  /** The feed's address on this service: `/api/calendar.ics?key=…`. */
  path: string;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function summary(e: CalendarEntry): string {
  const what = e.nextChapter === null ? "next chapter" : `chapter ${e.nextChapter}`;
  return e.status === "overdue" ? `${e.title}: ${what} overdue` : `${e.title}: ${what} expected`;
}

function description(e: CalendarEntry): string {
  return [
    `Last release: ${e.lastChapter === null ? "a chapter" : `chapter ${e.lastChapter}`} on ${day(e.lastReleaseAt.getTime())}.`,
    `Median interval: ${e.medianIntervalDays} days over ${e.releases} dated releases.`,
    e.status === "overdue" ? "Three intervals have passed with nothing new." : "",
  ]
    .filter(Boolean)
    .join("\n");
}

export function calendarFeedService(ctx: AppContext, calendar: Pick<CalendarService, "calendar">) {
  async function stored(): Promise<string | null> {
    await ctx.secrets.refresh();
    return ctx.secrets.getIntegrationSecret(CALENDAR_FEED_SECRET);
  }

  async function replace(): Promise<string> {
    const key = randomBytes(24).toString("hex");
    await ctx.secrets.setIntegrationSecret(CALENDAR_FEED_SECRET, key);
    return key;
  }

  const view = (key: string): CalendarFeedView => ({ path: `/api/calendar.ics?key=${key}` });

  return {
    /** The feed's address (its key is made on first use). */
    async address(): Promise<CalendarFeedView> {
      return view((await stored()) ?? (await replace()));
    },
    /** A new key: the old address stops working. */
    async regenerate(): Promise<CalendarFeedView> {
      return view(await replace());
    },
    /** Whether `given` is the feed's key (compared in constant time). */
    async accepts(given: string): Promise<boolean> {
      const key = await stored();
      if (key === null) return false;
      const a = Buffer.from(given);
      const b = Buffer.from(key);
      return a.length === b.length && timingSafeEqual(a, b);
    },
    /** The iCalendar text: one all-day event per expected or overdue next chapter. */
    async ics(now = Date.now()): Promise<string> {
      const today = Math.floor(now / DAY_MS) * DAY_MS;
      const v = await calendar.calendar(day(today - BACK_DAYS * DAY_MS), day(today + AHEAD_DAYS * DAY_MS), now);
      const cal = ical({
        name: "Manga library: next chapters",
        prodId: "//manga-library//release calendar//EN",
        ttl: 3600,
      });
      for (const e of [...v.entries, ...v.overdue]) {
        // Noon UTC: the same calendar day in every time zone the server may run in.
        const start = new Date(`${e.expectedOn}T12:00:00Z`);
        cal.createEvent({
          id: `series-${e.seriesId}-chapter-${e.nextChapter ?? "next"}@manga-library`,
          start,
          allDay: true,
          summary: summary(e),
          description: description(e),
        });
      }
      return cal.toString();
    },
  };
}

export type CalendarFeedService = ReturnType<typeof calendarFeedService>;
