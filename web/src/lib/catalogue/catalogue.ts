/**
 * Words for catalogue data. The rules (what agrees, what is offered, what a suggestion holds) come
 * from the API; this file only names things.
 */
import type { AgreementGrade, Catalogue, CatalogueHit, CatalogueStatus } from "./queries";

export const CATALOGUE_NAMES: Record<Catalogue, string> = {
  MANGADEX: "MangaDex",
  MANGAUPDATES: "MangaUpdates",
  ANILIST: "AniList",
};

export const CATALOGUE_ORDER: Catalogue[] = ["MANGADEX", "MANGAUPDATES", "ANILIST"];

const STATUS_WORDS: Record<CatalogueStatus, string> = {
  ONGOING: "Ongoing",
  COMPLETED: "Completed",
  HIATUS: "On hiatus",
  CANCELLED: "Cancelled",
  UPCOMING: "Not yet released",
};

export const statusWord = (s: CatalogueStatus | null): string => (s ? STATUS_WORDS[s] : "Status unknown");

const GRADE_WORDS: Record<AgreementGrade, { text: string; tone: string }> = {
  AGREED: { text: "Agreed", tone: "good" },
  LONE: { text: "One catalogue", tone: "info" },
  CONFLICT: { text: "Conflict", tone: "warn" },
};

export function gradeWord(g: AgreementGrade | null): { text: string; tone: string } {
  return g ? GRADE_WORDS[g] : { text: "Unknown", tone: "" };
}

const count = (n: number | null, one: string, many: string) => (n === null ? null : `${n} ${n === 1 ? one : many}`);

/** "2019 · Completed · 3 books · 24 chapters" (the parts a catalogue states). */
export function hitFacts(h: Pick<CatalogueHit, "year" | "status" | "volumes" | "chapters">): string {
  return [
    h.year === null ? null : String(h.year),
    h.status ? statusWord(h.status) : null,
    count(h.volumes, "book", "books"),
    count(h.chapters, "chapter", "chapters"),
  ]
    .filter((x): x is string => x !== null)
    .join(" · ");
}

/** Search results grouped per catalogue, in catalogue order, each keeping the catalogue's own order. */
export function byCatalogue(hits: readonly CatalogueHit[]): { catalogue: Catalogue; hits: CatalogueHit[] }[] {
  return CATALOGUE_ORDER.map((catalogue) => ({
    catalogue,
    hits: hits.filter((h) => h.catalogue === catalogue),
  })).filter((g) => g.hits.length > 0);
}

/** "Chapter 8 is listed under books 2 and 3: it is in neither." */
export function conflictSentence(c: { chapter: string; volumes: string[] }): string {
  const books =
    c.volumes.length <= 1 ? c.volumes.join("") : `${c.volumes.slice(0, -1).join(", ")} and ${c.volumes.at(-1)}`;
  return `Chapter ${c.chapter} is listed under books ${books}: it is in none of them.`;
}
