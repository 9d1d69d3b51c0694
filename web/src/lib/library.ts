/** Pure helpers of the library screen: search, the has-gaps filter, ordering, route ids. */
import type { SeriesOverview, SeriesSummary } from "./types";

/** Lower case, accents removed, punctuation and runs of spaces folded to one space. */
export function normalizeTitle(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * Series whose title holds every word of the query (in any order, each as a substring), in
 * title order. An empty query keeps everything. "one piece", "Piece One" and "ONE-PIECE" all
 * find "One Piece"; "pokemon" finds "Pokémon".
 */
export function filterSeries<T extends Pick<SeriesSummary, "title">>(list: readonly T[], query: string): T[] {
  const words = normalizeTitle(query).split(" ").filter(Boolean);
  const kept = words.length
    ? list.filter((s) => {
        const title = normalizeTitle(s.title);
        return words.every((w) => title.includes(w));
      })
    : [...list];
  return sortByTitle(kept);
}

const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });

/** Title order as a person expects it: case- and accent-blind, "Vol 2" before "Vol 10". */
export function sortByTitle<T extends Pick<SeriesSummary, "title">>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => collator.compare(a.title, b.title));
}

/**
 * The library grid: the search (as filterSeries) and, with `gapsOnly`, only the series the server
 * says have gaps. Title order.
 */
export function filterLibrary<T extends Pick<SeriesSummary, "title"> & { overview: Pick<SeriesOverview, "hasGaps"> }>(
  list: readonly T[],
  filters: { query: string; gapsOnly: boolean },
): T[] {
  const found = filterSeries(list, filters.query);
  return filters.gapsOnly ? found.filter((s) => s.overview.hasGaps) : found;
}

/** A route parameter as a series id, or null when it is not a positive whole number. */
export function parseSeriesId(param: string | undefined): number | null {
  if (!param || !/^[1-9]\d{0,9}$/.test(param)) return null;
  const id = Number(param);
  return id <= 2_147_483_647 ? id : null;
}
