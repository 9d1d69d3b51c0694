/**
 * The Settings page's About (the *arr apps' System → Status → About): the GraphQL document and the
 * words. What the service runs on, where it keeps things and the library's totals are the server's.
 */
import { graphql, type ResultOf } from "$lib/gql";
import { bytesLabel, plural } from "$lib/format";
import { formatDateTime, relativeTime } from "$lib/recycle/time";

export const SYSTEM_STATUS_QUERY = graphql(`
  query SystemStatus {
    systemStatus {
      version
      startedAt
      uptimeSeconds
      nodeVersion
      database {
        kind
        version
      }
      events
      instanceRole
      libraryRoot
      dataDir
      library {
        series
        files
        bytes
      }
    }
  }
`);

export type SystemStatus = ResultOf<typeof SYSTEM_STATUS_QUERY>["systemStatus"];

const DATABASES: Record<SystemStatus["database"]["kind"], string> = { SQLITE: "SQLite", POSTGRESQL: "PostgreSQL" };
const EVENTS: Record<SystemStatus["events"], string> = {
  IN_PROCESS: "In this process (one instance)",
  REDIS: "Through Redis (several instances)",
};
const ROLES: Record<SystemStatus["instanceRole"], string> = {
  ALL: "Web, API and background work",
  API: "Web and API only",
  WORKER: "Background work only",
};

/** The About panel's rows, in order: a label and its value. */
export function aboutRows(s: SystemStatus, now: Date = new Date(), timeZone?: string): [string, string][] {
  const db = DATABASES[s.database.kind];
  return [
    ["Version", s.version],
    ["Running since", `${formatDateTime(s.startedAt, "en-GB", timeZone)} (${relativeTime(s.startedAt, now)})`],
    [
      "Library",
      `${plural(s.library.series, "series", "series")}, ${plural(s.library.files, "file")}, ${bytesLabel(s.library.bytes)}`,
    ],
    ["Library folder", s.libraryRoot],
    ["Data folder", s.dataDir],
    ["Database", s.database.version ? `${db} ${s.database.version}` : db],
    ["Events", EVENTS[s.events]],
    ["This instance", ROLES[s.instanceRole]],
    ["Node.js", s.nodeVersion],
  ];
}
