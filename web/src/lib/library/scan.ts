/** The library scan (GraphQL `scanLibrary`) and its outcome in words. */
import { graphql, type ResultOf } from "$lib/gql";
import { plural } from "$lib/format";

export type ScanSummary = ResultOf<typeof SCAN_LIBRARY>["scanLibrary"];

export const SCAN_LIBRARY = graphql(`
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
`);

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
