/** GraphQL documents of the release calendar (fields exactly as schema.graphql names them). */
import { graphql, type ResultOf } from "$lib/gql";

export type CalendarEntry = ResultOf<typeof ENTRY>;

export type CalendarData = ResultOf<typeof CALENDAR_QUERY>;

/** The service's figures of the prediction rule (the page words them; it does not repeat them). */
export type CalendarRules = CalendarData["rules"];

export const ENTRY = graphql(`
  fragment CalendarEntryFields on CalendarEntry {
    seriesId
    title
    status
    expectedOn
    lastReleaseAt
    lastChapter
    nextChapter
    medianIntervalDays
    intervals
    releases
  }
`);

export const CALENDAR_QUERY = graphql(
  `
    query Calendar($from: String!, $to: String!) {
      calendar(from: $from, to: $to) {
        from
        to
        entries {
          ...CalendarEntryFields
        }
        overdue {
          ...CalendarEntryFields
        }
      }
      rules {
        calendarMinReleases
        calendarMinIntervalDays
        calendarMaxIntervalDays
        calendarOverdueIntervals
      }
    }
  `,
  [ENTRY],
);

export const CALENDAR_FEED_QUERY = graphql(`
  query CalendarFeed {
    calendarFeed {
      path
    }
  }
`);

export const REGENERATE_CALENDAR_FEED = graphql(`
  mutation RegenerateCalendarFeed {
    regenerateCalendarFeed {
      path
    }
  }
`);
