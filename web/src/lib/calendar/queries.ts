/** GraphQL documents of the release calendar (fields exactly as schema.graphql names them). */
import { gql } from "@urql/core";

export interface CalendarEntry {
  seriesId: number;
  title: string;
  status: "EXPECTED" | "OVERDUE";
  expectedOn: string;
  lastReleaseAt: string;
  lastChapter: string | null;
  nextChapter: string | null;
  medianIntervalDays: number;
  intervals: number[];
  releases: number;
}

export interface CalendarData {
  calendar: { from: string; to: string; entries: CalendarEntry[]; overdue: CalendarEntry[] };
}

const ENTRY =
  "seriesId title status expectedOn lastReleaseAt lastChapter nextChapter medianIntervalDays intervals releases";

export const CALENDAR_QUERY = gql<CalendarData, { from: string; to: string }>`
  query Calendar($from: String!, $to: String!) {
    calendar(from: $from, to: $to) { from to entries { ${ENTRY} } overdue { ${ENTRY} } }
  }
`;
