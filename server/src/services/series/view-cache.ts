/**
 * Views computed from a series' rows (its units, its audit list, its library card), kept until the
 * series changes. "Changes" is the series revision the database bumps on every write to the
 * series' rows (repositories/revision-repo.ts), so no writer has to remember to invalidate, and a
 * second instance on the same database sees the change too. Each use costs one small select (the
 * revision); a view is computed at most once per revision, and concurrent requests for the same
 * view share one computation.
 *
 * Two stores:
 * - heavy views (units, audit lists: megabytes for a series of 10,000 files) for the
 *   `maxSeries` series used last; older series are dropped whole;
 * - light views (library cards: a few numbers per series) for every series.
 * A view computed from rows read after the revision was read may be newer than its revision says;
 * the next request then computes it again (never an older view under a newer revision).
 */
import { revisionRepo } from "../../repositories/revision-repo.ts";
import type { AppContext } from "../context.ts";

interface SeriesEntry {
  revision: string;
  views: Map<string, Promise<unknown>>;
}

/**
 * Freezes a view and everything it holds: a kept view is shared by every request until the series
 * changes, so a caller that tried to change it would corrupt the answers of others. Frozen, such a
 * change throws at once (modules run in strict mode).
 */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== "object" || Object.isFrozen(v)) continue;
    Object.freeze(v);
    if (v instanceof Map) {
      for (const [k, x] of v) stack.push(k, x);
    } else if (v instanceof Set) {
      for (const x of v) stack.push(x);
    } else {
      for (const x of Object.values(v)) stack.push(x);
    }
  }
  return value;
}

/** Another view of the same series at the same revision (no second revision select). */
export type SubView = <U>(kind: string, compute: (sub: SubView) => Promise<U>) => Promise<U>;

const uncached: SubView = (_kind, compute) => compute(uncached);

export interface ViewCacheStats {
  hits: number;
  misses: number;
  heavySeries: number;
  lightSeries: number;
}

export function viewCache(ctx: Pick<AppContext, "db">, options: { maxSeries: number }) {
  const revisions = revisionRepo(ctx.db);
  const heavy = new Map<number, SeriesEntry>();
  const light = new Map<number, SeriesEntry>();
  const stats = { hits: 0, misses: 0 };

  function entryOf(store: Map<number, SeriesEntry>, seriesId: number, revision: string): SeriesEntry {
    let entry = store.get(seriesId);
    if (entry && entry.revision !== revision) entry = undefined;
    if (!entry) entry = { revision, views: new Map() };
    // Most recently used last (Map keeps insertion order).
    store.delete(seriesId);
    store.set(seriesId, entry);
    return entry;
  }

  function lookup<T>(entry: SeriesEntry, kind: string, compute: (sub: SubView) => Promise<T>): Promise<T> {
    const known = entry.views.get(kind);
    if (known) {
      stats.hits += 1;
      return known as Promise<T>;
    }
    stats.misses += 1;
    const sub: SubView = (k, c) => lookup(entry, k, c);
    const p = compute(sub).then(deepFreeze);
    entry.views.set(kind, p);
    // A failed computation is not kept: the next request tries again.
    p.catch(() => {
      if (entry.views.get(kind) === p) entry.views.delete(kind);
    });
    return p;
  }

  function evict(): void {
    while (heavy.size > options.maxSeries) {
      const oldest = heavy.keys().next().value as number;
      heavy.delete(oldest);
    }
  }

  return {
    /**
     * The heavy view `kind` of a series at its current revision (computed at most once per
     * revision). `compute` may build on other views of the series through `sub`.
     */
    async get<T>(seriesId: number, kind: string, compute: (sub: SubView) => Promise<T>): Promise<T> {
      if (options.maxSeries <= 0) return compute(uncached);
      const revision = (await revisions.of([seriesId])).get(seriesId) as string;
      const entry = entryOf(heavy, seriesId, revision);
      const p = lookup(entry, kind, compute);
      evict();
      return p;
    },

    /**
     * The light view `kind` of many series: one revision select, then `compute` once for the
     * series whose view is missing or stale (it returns a map by series id; ids it leaves out have
     * no view and are absent from the result).
     */
    async getMany<T>(
      seriesIds: readonly number[],
      kind: string,
      compute: (stale: number[]) => Promise<Map<number, T>>,
    ): Promise<Map<number, T>> {
      const ids = [...new Set(seriesIds)];
      if (options.maxSeries <= 0) return compute(ids);
      const byId = await revisions.of(ids);
      const out = new Map<number, T>();
      const stale: number[] = [];
      const entries = new Map<number, SeriesEntry>();
      for (const id of ids) {
        const entry = entryOf(light, id, byId.get(id) as string);
        entries.set(id, entry);
        if (!entry.views.has(kind)) stale.push(id);
      }
      stats.hits += ids.length - stale.length;
      stats.misses += stale.length;
      const fresh = stale.length > 0 ? await compute(stale) : new Map<number, T>();
      for (const id of stale) {
        const v = fresh.get(id);
        if (v !== undefined) entries.get(id)?.views.set(kind, Promise.resolve(deepFreeze(v)));
        else light.delete(id);
      }
      for (const id of ids) {
        const p = entries.get(id)?.views.get(kind);
        if (p) out.set(id, (await p) as T);
      }
      return out;
    },

    stats(): ViewCacheStats {
      return { ...stats, heavySeries: heavy.size, lightSeries: light.size };
    },

    /** Forgets every view (the next use of each computes it again). */
    clear(): void {
      heavy.clear();
      light.clear();
    },
  };
}

export type ViewCache = ReturnType<typeof viewCache>;
