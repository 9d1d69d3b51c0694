/**
 * Long IN lists, a statement each per chunk. The SQLite driver binds at most 999 values per
 * statement, and Prisma splits a long IN list by itself only for a findMany whose sole condition it
 * is (not with another condition, an order, a count, an update or a delete). A series of a few
 * thousand chapters holds more files than that: every IN list that can grow with the library goes
 * through here.
 */

/** Values per statement (room left for the statement's other parameters). */
export const IN_CHUNK = 500;

/** The values in chunks of IN_CHUNK, each deduplicated chunk given to `run`; the rows concatenated. */
export async function inChunks<T, R>(values: Iterable<T>, run: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const all = [...new Set(values)];
  if (all.length <= IN_CHUNK) return all.length === 0 ? [] : run(all);
  const out: R[] = [];
  for (let i = 0; i < all.length; i += IN_CHUNK) out.push(...(await run(all.slice(i, i + IN_CHUNK))));
  return out;
}

/** The same for updates and deletes: the counts added up. */
export async function countInChunks<T>(values: Iterable<T>, run: (chunk: T[]) => Promise<{ count: number }>) {
  const counts = await inChunks(values, async (chunk) => [(await run(chunk)).count]);
  return { count: counts.reduce((a, b) => a + b, 0) };
}

/** The values in chunks of IN_CHUNK (deduplicated), for statements built into one transaction. */
export function chunksOf<T>(values: Iterable<T>): T[][] {
  const all = [...new Set(values)];
  const out: T[][] = [];
  for (let i = 0; i < all.length; i += IN_CHUNK) out.push(all.slice(i, i + IN_CHUNK));
  return out;
}
