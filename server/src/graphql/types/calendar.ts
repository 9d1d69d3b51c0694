/** GraphQL of the release calendar: the same service as REST (rest-calendar.ts). */
import type { CalendarEntry, CalendarView } from "../../services/acquisition/calendar-service.ts";
import { builder } from "../builder.ts";

const CalendarStatusEnum = builder.enumType("CalendarStatus", {
  values: {
    EXPECTED: { value: "expected", description: "The next chapter is expected on expectedOn." },
    OVERDUE: {
      value: "overdue",
      description: "Three intervals passed since the last release with nothing new: no prediction any more.",
    },
  } as const,
});

const EntryRef = builder.objectRef<CalendarEntry>("CalendarEntry").implement({
  description: "A monitored running series and when its next chapter is expected.",
  fields: (t) => ({
    seriesId: t.exposeInt("seriesId"),
    title: t.exposeString("title"),
    status: t.field({ type: CalendarStatusEnum, resolve: (e) => e.status }),
    expectedOn: t.exposeString("expectedOn", { description: "YYYY-MM-DD (UTC)." }),
    lastReleaseAt: t.string({ description: "ISO 8601.", resolve: (e) => e.lastReleaseAt.toISOString() }),
    lastChapter: t.string({ nullable: true, resolve: (e) => e.lastChapter }),
    nextChapter: t.string({ nullable: true, resolve: (e) => e.nextChapter }),
    medianIntervalDays: t.exposeFloat("medianIntervalDays"),
    intervals: t.exposeIntList("intervals", { description: "The intervals (days) the median was taken from." }),
    releases: t.exposeInt("releases", { description: "Dated releases known." }),
  }),
});

const CalendarRef = builder.objectRef<CalendarView>("Calendar").implement({
  fields: (t) => ({
    from: t.exposeString("from"),
    to: t.exposeString("to"),
    entries: t.field({ type: [EntryRef], resolve: (c) => c.entries }),
    overdue: t.field({ type: [EntryRef], resolve: (c) => c.overdue }),
  }),
});

builder.queryField("calendar", (t) =>
  t.field({
    type: CalendarRef,
    description:
      "Expected next chapters of monitored running series between from and to (YYYY-MM-DD), and the overdue ones. Without from the window starts today (UTC); without to it ends 30 days after from.",
    args: { from: t.arg.string({ required: false }), to: t.arg.string({ required: false }) },
    resolve: (_r, { from, to }, { services }) => services.calendar.calendar(from, to),
  }),
);

const CalendarFeedRef = builder.objectRef<{ path: string }>("CalendarFeed").implement({
  description: "The release calendar as an iCalendar feed for calendar apps.",
  fields: (t) => ({
    path: t.exposeString("path", {
      description: "The feed's address on this service (/api/calendar.ics?key=…): its key is good for the feed only.",
    }),
  }),
});

builder.queryField("calendarFeed", (t) =>
  t.field({
    type: CalendarFeedRef,
    description: "The calendar feed's address (its key is made on first use).",
    resolve: (_r, _a, { services }) => services.calendarFeed.address(),
  }),
);

builder.mutationField("regenerateCalendarFeed", (t) =>
  t.field({
    type: CalendarFeedRef,
    description: "A new key for the calendar feed: the old address stops working.",
    resolve: (_r, _a, { services }) => services.calendarFeed.regenerate(),
  }),
);
