/** Pure helpers of the recycle bin screen. */
import type { CombinedError } from "@urql/core";

/** A field the service put next to an error's code (GraphQL extensions or a REST problem body), e.g. `path`. */
export function problemField(error: unknown, field: string): string | null {
  const combined = error as Partial<CombinedError> | null;
  const fromGraphql = combined?.graphQLErrors?.[0]?.extensions?.[field];
  if (typeof fromGraphql === "string") return fromGraphql;
  const body = (error as { body?: Record<string, unknown> } | null)?.body;
  const fromRest = body?.[field];
  return typeof fromRest === "string" ? fromRest : null;
}

/** The series folder of a library path ("Title/Title v01.cbz" → "Title"), or null at the root. */
export function seriesFolder(path: string): string | null {
  const i = path.indexOf("/");
  return i > 0 ? path.slice(0, i) : null;
}

/** "Files retired from the library wait here for 30 days …" with the retention the entries show. */
export function retentionSentence(days: number): string {
  const span = days === 1 ? "1 day" : `${days} days`;
  return `Retired files wait here for ${span} before the service removes them for good; until then you can put them back where they were.`;
}
