/** The library scan (GraphQL `scanLibrary`) and its outcome in words. */
import { gql } from "@urql/core";
import { plural } from "$lib/format";

export interface ScanSummary {
  added: number;
  changed: number;
  moved: number;
  removed: number;
  unchanged: number;
  seriesCreated: number;
  errors: { path: string; code: string; message: string }[];
}

export const SCAN_LIBRARY = gql<{ scanLibrary: ScanSummary }, Record<string, never>>`
  mutation ScanLibrary {
    scanLibrary {
      added
      changed
      moved
      removed
      unchanged
      seriesCreated
      errors {
        path
        code
        message
      }
    }
  }
`;

/** "Scan finished: 3 new files, 1 new series." or "Scan finished: nothing changed." */
export function scanWords(s: ScanSummary): string {
  const parts: string[] = [];
  if (s.added) parts.push(`${plural(s.added, "new file")}`);
  if (s.changed) parts.push(`${plural(s.changed, "changed file")}`);
  if (s.moved) parts.push(`${plural(s.moved, "moved file")}`);
  if (s.removed) parts.push(`${plural(s.removed, "file")} gone from disk`);
  if (s.seriesCreated) parts.push(`${plural(s.seriesCreated, "new series", "new series")}`);
  if (s.errors.length) parts.push(`${plural(s.errors.length, "file")} could not be read`);
  return parts.length ? `Scan finished: ${parts.join(", ")}.` : "Scan finished: nothing changed.";
}
