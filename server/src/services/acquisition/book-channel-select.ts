/**
 * Which indexer results may fill which wanted books, and which torrent to take next. Pure: no
 * network, no database. A result qualifies only when its title names this series (the parsed
 * title equals the series title) and explicitly numbers its books — a single volume "v03" or a
 * pack "v01-05"; chapters, extras, specials and unnumbered releases never do.
 */
import { parseFileName } from "../../domain/filename.ts";
import { compareLabels, expandRange, isWhole, labelEquals, type Label } from "../../domain/labels.ts";
import { languageMarkers, markedSourceLanguage } from "../../domain/language-markers.ts";

/** A pack wider than this is a whole-run collection we never take for a few books (and never expand). */
export const MAX_PACK_BOOKS = 200;

export interface Release {
  title: string;
  size: number;
  seeders: number | null;
}

export interface Candidate<R extends Release> {
  release: R;
  /** Every book the release holds, in order. */
  books: Label[];
}

/** Letters and digits only, case- and accent-folded: "Blue Harbor!" = "blue harbor". */
export function normaliseTitle(t: string): string {
  return t
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The books a release title explicitly numbers for this series, or null when it does not qualify. */
export function booksOfTitle(seriesTitle: string, releaseTitle: string): Label[] | null {
  const p = parseFileName(releaseTitle, { series: seriesTitle });
  if (p.kind !== "book" || p.volume === null || p.chapter !== null || p.extra || p.special) return null;
  if (p.series === null || normaliseTitle(p.series) !== normaliseTitle(seriesTitle)) return null;
  if (p.volumeEnd === null) return [p.volume];
  if (!isWhole(p.volume) || !isWhole(p.volumeEnd) || compareLabels(p.volume, p.volumeEnd) >= 0) return null;
  if (BigInt(p.volumeEnd) - BigInt(p.volume) >= BigInt(MAX_PACK_BOOKS)) return null;
  return expandRange(p.volume, p.volumeEnd, MAX_PACK_BOOKS);
}

export function candidates<R extends Release>(seriesTitle: string, releases: readonly R[]): Candidate<R>[] {
  const out: Candidate<R>[] = [];
  for (const release of releases) {
    // A torrent nobody seeds never completes.
    if (release.seeders === 0) continue;
    const books = booksOfTitle(seriesTitle, release.title);
    if (books) out.push({ release, books });
  }
  return out;
}

/**
 * Releases for the library: a title that marks only other languages than the series' is a
 * foreign release (a translation source at most), never a native one. Unmarked titles stay.
 */
export function nativeOnly<R extends Release>(
  seriesTitle: string,
  language: string,
  pool: readonly Candidate<R>[],
): Candidate<R>[] {
  const base = language.toLowerCase().split("-")[0] ?? "";
  return pool.filter((c) => {
    const marks = languageMarkers(c.release.title, { seriesTitle });
    return marks.length === 0 || marks.includes(base);
  });
}

/** Foreign releases for translation: the title marks one of the ordered source languages (the first wins). */
export function foreignCandidates<R extends Release>(
  seriesTitle: string,
  sources: readonly string[],
  original: string | null,
  releases: readonly R[],
): (Candidate<R> & { language: string })[] {
  const out: (Candidate<R> & { language: string })[] = [];
  for (const c of candidates(seriesTitle, releases)) {
    const language = markedSourceLanguage(c.release.title, sources, { seriesTitle, original });
    if (language) out.push({ ...c, language });
  }
  return out;
}

export const covered = (c: Candidate<Release>, wanted: readonly Label[]): Label[] =>
  wanted.filter((w) => c.books.some((b) => labelEquals(b, w)));

/**
 * The next torrent to take for the books still wanted: the smallest that holds at least one of
 * them; on equal size the one holding more wanted books, then the better seeded.
 */
export function pickNext<C extends Candidate<Release>>(pool: readonly C[], wanted: readonly Label[]): C | null {
  let best: { c: C; n: number } | null = null;
  for (const c of pool) {
    const n = covered(c, wanted).length;
    if (n === 0) continue;
    if (
      best === null ||
      c.release.size < best.c.release.size ||
      (c.release.size === best.c.release.size &&
        (n > best.n || (n === best.n && (c.release.seeders ?? 0) > (best.c.release.seeders ?? 0))))
    ) {
      best = { c, n };
    }
  }
  return best?.c ?? null;
}
