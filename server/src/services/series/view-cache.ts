/**
 * Views computed from a series' rows (its units, its audit list, its library card), kept until the
 * series changes. "Changes" is the series revision the database bumps on every write to the
 * series' rows (repositories/revision-repo.ts), so no writer has to remember to invalidate, and a
 * second instance on the same database sees the change too. Each use costs one small select (the
 * revision); a view is computed at most once per revision, and concurrent requests for the same
 * view share one computation.
 *
 * Two stores:
 * - heavy views (units, audit lists: megabytes for a series of 10,000 files, tens of kilobytes for
 *   one of 50) for the series used last, as many as fit in `maxBytes` (estimated
 *   when a view is frozen) and at most `maxSeries`; older series are dropped whole. A budget in
 *   bytes rather than in series keeps every view of a library of small series (a bound of 16
 *   series made a read load over 200 of them compute nine views in ten again) while a few huge
 *   series still cannot take the memory; the series used last is always kept;
 * - light views (library cards: a few numbers per series) for every series.
 * A view computed from rows read after the revision was read may be newer than its revision says;
 * the next request then computes it again (never an older view under a newer revision).
 */
import { revisionRepo } from "../../repositories/revision-repo.ts";
import type { AppContext } from "../context.ts";

interface SeriesEntry {
  revision: string;
  views: Map<string, Promise<unknown>>;
  /** Estimated bytes held by the views computed so far (weighed as they are frozen). */
  weight: number;
  /** Evicted or replaced: its views no longer count against the budget. */
  dropped: boolean;
}

/**
 * Freezes a view and everything it holds: a kept view is shared by every request until the series
 * changes, so a caller that tried to change it would corrupt the answers of others. Frozen, such a
 * change throws at once (modules run in strict mode).
 */
export function deepFreeze<T>(value: T): T {
  freezeWeighing(value);
  return value;
}

/**
 * Freezes like deepFreeze; returns an estimate of the bytes the value holds, with V8's sizes on a
 * 64-bit build: an object's header and a slot per property, an array's header and its backing
 * store, a map's or set's hash table, each string's characters (a string held twice counts twice).
 * Measured against the heap, it comes within a quarter for units, series pages and audit lists.
 */
function freezeWeighing(value: unknown): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") {
      bytes += 24 + v.length;
      continue;
    }
    if (v === null || typeof v !== "object" || Object.isFrozen(v)) continue;
    Object.freeze(v);
    if (v instanceof Map) {
      bytes += 64 + 24 * v.size;
      for (const [k, x] of v) stack.push(k, x);
    } else if (v instanceof Set) {
      bytes += 64 + 16 * v.size;
      for (const x of v) stack.push(x);
    } else {
      const values = Object.values(v);
      bytes += (Array.isArray(v) ? 48 : 24) + 8 * values.length;
      for (const x of values) stack.push(x);
    }
  }
  return bytes;
}

/** Another view of the same series at the same revision (no second revision select). */
export type SubView = <U>(kind: string, compute: (sub: SubView) => Promise<U>) => Promise<U>;

const uncached: SubView = (_kind, compute) => compute(uncached);

export interface ViewCacheStats {
  hits: number;
  misses: number;
  heavySeries: number;
  /** Estimated bytes held by the heavy views kept. */
  heavyBytes: number;
  lightSeries: number;
}

export interface ViewCacheOptions {
  /** Most series whose heavy views are kept (0: no view is kept). */
  maxSeries: number;
  /** Most bytes (estimated) the kept heavy views may hold together. */
  maxBytes: number;
}

export function viewCache(ctx: Pick<AppContext, "db">, options: ViewCacheOptions) {
  const revisions = revisionRepo(ctx.db);
  const heavy = new Map<number, SeriesEntry>();
  const light = new Map<number, SeriesEntry>();
  const stats = { hits: 0, misses: 0 };
  /** Sum of the weights of the entries in `heavy`. */
  let heavyBytes = 0;

  function entryOf(store: Map<number, SeriesEntry>, seriesId: number, revision: string): SeriesEntry {
    let entry = store.get(seriesId);
    if (entry && entry.revision !== revision) {
      drop(store, entry);
      entry = undefined;
    }
    if (!entry) entry = { revision, views: new Map(), weight: 0, dropped: false };
    // Most recently used last (Map keeps insertion order).
    store.delete(seriesId);
    store.set(seriesId, entry);
    return entry;
  }

  function drop(store: Map<number, SeriesEntry>, entry: SeriesEntry): void {
    entry.dropped = true;
    if (store === heavy) heavyBytes -= entry.weight;
  }

  function lookup<T>(entry: SeriesEntry, kind: string, compute: (sub: SubView) => Promise<T>): Promise<T> {
    const known = entry.views.get(kind);
    if (known) {
      stats.hits += 1;
      return known as Promise<T>;
    }
    stats.misses += 1;
    const sub: SubView = (k, c) => lookup(entry, k, c);
    const p = compute(sub).then((view) => {
      weigh(entry, freezeWeighing(view));
      return view;
    });
    entry.views.set(kind, p);
    // A failed computation is not kept: the next request tries again.
    p.catch(() => {
      if (entry.views.get(kind) === p) entry.views.delete(kind);
    });
    return p;
  }

  /** Drops the series used longest ago until the rest fit (the one used last always stays). */
  function evict(): void {
    while (heavy.size > 1 && (heavy.size > options.maxSeries || heavyBytes > options.maxBytes)) {
      const [oldest, entry] = heavy.entries().next().value as [number, SeriesEntry];
      heavy.delete(oldest);
      drop(heavy, entry);
    }
  }

  /** A heavy view was computed: its bytes count against the budget while its series is kept. */
  function weigh(entry: SeriesEntry, objects: number): void {
    entry.weight += objects;
    if (entry.dropped) return;
    heavyBytes += objects;
    evict();
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
      return { ...stats, heavySeries: heavy.size, heavyBytes, lightSeries: light.size };
    },

    /** Forgets every view (the next use of each computes it again). */
    clear(): void {
      for (const entry of heavy.values()) drop(heavy, entry);
      heavy.clear();
      light.clear();
    },
  };
}

export type ViewCache = ReturnType<typeof viewCache>;
