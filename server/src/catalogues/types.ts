/** The one interface every catalogue client implements, and the shapes it answers in. */
import type { AggregateVolume, CatalogueName, CatalogueStatus } from "../domain/catalogue.ts";
import type { CacheMode } from "./polite-http.ts";

/** A search result: enough to pick the right work. */
export interface CatalogueHit {
  catalogue: CatalogueName;
  catalogueId: string;
  title: string;
  status: CatalogueStatus | null;
  year: number | null;
  /** The catalogue's own cover URL (shown by the browser as is; the service stores covers only on refresh). */
  coverUrl: string | null;
  /** Books and chapters the catalogue counts; null when it states none. */
  volumes: number | null;
  chapters: number | null;
  /** The work's page on the catalogue's web site. */
  url: string | null;
}

/** One work in full, as a refresh stores it. */
export interface CatalogueWork extends CatalogueHit {
  description: string | null;
  alternativeTitles: string[];
  authors: string[];
  genres: string[];
  /** ISO 639-1 of the original work when the catalogue states it. */
  originalLanguage: string | null;
}

/** The aggregate of one language: the raw answer (retained verbatim) and its volumes. */
export interface CatalogueAggregate {
  language: string;
  volumes: AggregateVolume[];
  raw: unknown;
}

export interface CatalogueClient {
  readonly name: CatalogueName;
  /** Only the search text leaves the service. */
  search(query: string): Promise<CatalogueHit[]>;
  /** Only the id leaves the service. */
  work(id: string, cache?: CacheMode): Promise<CatalogueWork>;
  /** Volume → chapters uploaded in `language` (MangaDex only). */
  aggregate?(id: string, language: string, cache?: CacheMode): Promise<CatalogueAggregate>;
  /** A cover image the work's answer pointed at. */
  cover(url: string): Promise<{ bytes: Buffer; contentType: string | null }>;
}

/** Catalogue ids as each catalogue spells them (checked before anything is sent). */
export const CATALOGUE_ID_PATTERNS: Record<CatalogueName, RegExp> = {
  mangadex: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  mangaupdates: /^[1-9][0-9]{0,18}$/,
  anilist: /^[1-9][0-9]{0,9}$/,
};

/** Largest cover accepted. */
export const MAX_COVER_BYTES = 8 * 1024 ** 2;

/** A whole positive count from a number or a numeric string ("12", "12.0"); null otherwise. */
export function wholeCount(v: unknown): number | null {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d+(\.0+)?$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isInteger(n) && n > 0 && n < 1_000_000 ? n : null;
}

/** A year from a number or a string starting with one ("2019", "2019-2023"). */
export function yearOf(v: unknown): number | null {
  const m = /^\s*(\d{4})/.exec(typeof v === "number" ? String(v) : typeof v === "string" ? v : "");
  const y = m ? Number(m[1]) : NaN;
  return y >= 1800 && y <= 3000 ? y : null;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", "#39": "'" };

/** BBCode tags the catalogues' older sites left in descriptions (MangaDex, MangaUpdates). */
const BBCODE =
  /\[\/?(?:b|i|u|s|spoiler|url|img|quote|center|left|right|size|color|code|sup|sub|hr|list)(?:=[^\]\n]*)?\]/gi;

/**
 * Catalogue text as plain text: HTML tags dropped (also those spelled as entities, which decode
 * to text, never to markup), BBCode and AniList's spoiler marks (`~!…!~`) dropped, entities
 * decoded. Markdown stays: it reads as text.
 */
export function plainText(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const text = v
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/p>\s*/gi, "\n\n")
    .replace(/<[^>]*>/g, "")
    .replace(/\[\*\]/g, "\n- ")
    .replace(BBCODE, "")
    .replace(/~!|!~/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+|#39);/gi, (all, name: string) => {
      const lower = name.toLowerCase();
      if (lower.startsWith("#")) {
        const code = lower.startsWith("#x") ? parseInt(lower.slice(2), 16) : Number(lower.slice(1));
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
      }
      return ENTITIES[lower] ?? all;
    })
    // What decoding made look like a tag ("&lt;script&gt;") goes too; "a < b" stays.
    .replace(/<!--[\s\S]*?-->|<\/?[a-z][^<>]*>/gi, "")
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return text === "" ? null : text.slice(0, 20_000);
}

/** Strings of an unknown list, trimmed, non-empty. */
export function strings(v: unknown, pick: (x: unknown) => unknown = (x) => x): string[] {
  if (!Array.isArray(v)) return [];
  return v
    .map(pick)
    .filter((x): x is string => typeof x === "string")
    .map((x) => x.trim())
    .filter((x) => x !== "");
}

export const asRecord = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
