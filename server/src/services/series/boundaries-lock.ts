import type { AppContext } from "../context.ts";

/**
 * A series' book boundaries and what is built from them take turns: a map change waits for an
 * assembly under way, so that an assembly never retires chapter files by boundaries that changed
 * while it was building the book.
 */
export function boundariesLock(ctx: AppContext) {
  const locks = ctx.cluster.keyedLock("assembly");
  return <T>(seriesId: number, fn: () => Promise<T>): Promise<T> => locks.run([`assembly-series:${seriesId}`], fn);
}
