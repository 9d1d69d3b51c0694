/** Pure helpers of the library and series screens: search, ordering, sections, counts. */
import type { MapState, SeriesSummary, Unit } from "./types";

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

export interface UnitSection {
  key: "all" | "books" | "chapters";
  title: string;
  units: Unit[];
}

/**
 * How the units are laid out. The server sends them in reading order and that order is kept.
 * With an exact map they form one list (chapters follow their book). Without one, books and
 * chapters are two flat sections, because which chapters a book holds is unknown.
 * Empty sections are left out.
 */
export function unitSections(map: MapState, units: readonly Unit[]): UnitSection[] {
  if (map === "EXACT") {
    return units.length ? [{ key: "all", title: "Reading order", units: [...units] }] : [];
  }
  const books = units.filter((u) => u.kind === "BOOK");
  const chapters = units.filter((u) => u.kind !== "BOOK");
  const sections: UnitSection[] = [];
  if (books.length) sections.push({ key: "books", title: "Books", units: books });
  if (chapters.length) sections.push({ key: "chapters", title: "Chapters", units: chapters });
  return sections;
}

export interface UnitCounts {
  books: number;
  booksOwned: number;
  chapters: number;
  chaptersOwned: number;
  withProblems: number;
}

export function unitCounts(units: readonly Unit[]): UnitCounts {
  const counts: UnitCounts = { books: 0, booksOwned: 0, chapters: 0, chaptersOwned: 0, withProblems: 0 };
  for (const u of units) {
    if (u.kind === "BOOK") {
      counts.books += 1;
      if (u.owned) counts.booksOwned += 1;
    } else {
      counts.chapters += 1;
      if (u.owned) counts.chaptersOwned += 1;
    }
    if (u.problems.length) counts.withProblems += 1;
  }
  return counts;
}

/** A chapter shown under its book in an exact-map list. */
export function isNested(map: MapState, unit: Unit): boolean {
  return map === "EXACT" && unit.kind === "CHAPTER" && unit.book !== null;
}

/** A route parameter as a series id, or null when it is not a positive whole number. */
export function parseSeriesId(param: string | undefined): number | null {
  if (!param || !/^[1-9]\d{0,9}$/.test(param)) return null;
  const id = Number(param);
  return id <= 2_147_483_647 ? id : null;
}
