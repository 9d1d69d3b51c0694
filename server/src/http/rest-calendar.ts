/** REST of the release calendar: translation to the calendar service, nothing else. */
import type { Hono } from "hono";
import { AppError } from "../errors.ts";
import type { Authenticator } from "./auth.ts";
import type { CalendarFeedView } from "../services/acquisition/calendar-feed-service.ts";
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

const restFeed = (f: CalendarFeedView) => ({ path: f.path });

export function calendarRoutes(app: Hono, services: Services): void {
  app.get("/api/calendar", async (c) =>
    c.json(restCalendar(await services.calendar.calendar(c.req.query("from"), c.req.query("to")))),
  );
  app.get("/api/calendar/feed", async (c) => c.json(restFeed(await services.calendarFeed.address())));
  app.post("/api/calendar/feed/regenerate", async (c) => c.json(restFeed(await services.calendarFeed.regenerate())));
}

/**
 * The iCalendar feed, registered before the API's authentication: calendar apps send no headers,
 * so the feed's own key in the address (`?key=`) is accepted, besides the API key or a session.
 */
export function calendarFeedRoute(app: Hono, services: Services, authenticate: Authenticator): void {
  app.get("/api/calendar.ics", async (c) => {
    const key = c.req.query("key");
    const ok =
      (key !== undefined && (await services.calendarFeed.accepts(key))) ||
      (await authenticate((name) => c.req.header(name))) !== null;
    if (!ok)
      throw new AppError(
        "unauthenticated",
        "use the calendar's address from the Calendar page (its key is in it), or send the API key",
      );
    return c.body(await services.calendarFeed.ics(), 200, {
      "content-type": "text/calendar; charset=utf-8",
      "content-disposition": 'inline; filename="manga-library.ics"',
      "cache-control": "private, max-age=300",
    });
  });
}
