/** REST of the release calendar: translation to the calendar service, nothing else. */
import type { Hono } from "hono";
import type { CalendarEntry, CalendarView } from "../services/acquisition/calendar-service.ts";
import type { Services } from "../services/index.ts";

const restEntry = (e: CalendarEntry) => ({
  series_id: e.seriesId,
  title: e.title,
  status: e.status,
  expected_on: e.expectedOn,
  last_release_at: e.lastReleaseAt.toISOString(),
  last_chapter: e.lastChapter,
  next_chapter: e.nextChapter,
  median_interval_days: e.medianIntervalDays,
  intervals: e.intervals,
  releases: e.releases,
});

export const restCalendar = (v: CalendarView) => ({
  from: v.from,
  to: v.to,
  entries: v.entries.map(restEntry),
  overdue: v.overdue.map(restEntry),
});

export function calendarRoutes(app: Hono, services: Services): void {
  app.get("/api/calendar", async (c) =>
    c.json(restCalendar(await services.calendar.calendar(c.req.query("from"), c.req.query("to")))),
  );
}
