/**
 * Words for the enum values the API sends. Pure functions: every screen says the same thing
 * for the same state. An unexpected value (a newer server) is shown as it came, never hidden.
 */
import type {
  Coverage,
  SeriesSummary,
  MapState,
  Plan,
  PlanWording,
  PublicationStatus,
  SeriesCompletion,
  SeriesForm,
  Unit,
  UnitKind,
} from "./types";

function fallback(value: string): string {
  const words = value.toLowerCase().replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function formLabel(form: SeriesForm): string {
  switch (form) {
    case "BOOKS":
      return "Books";
    case "CHAPTERS":
      return "Chapters";
    default:
      return fallback(form);
  }
}

export function publicationLabel(status: PublicationStatus): string {
  switch (status) {
    case "RUNNING":
      return "Running";
    case "FINISHED":
      return "Finished";
    case "PAUSED":
      return "Paused";
    default:
      return fallback(status);
  }
}

export function kindLabel(kind: UnitKind): string {
  switch (kind) {
    case "BOOK":
      return "Book";
    case "CHAPTER":
      return "Chapter";
    default:
      return fallback(kind);
  }
}

/** "Book 3", "Chapter 10.5". */
export function unitName(unit: Pick<Unit, "kind" | "number">): string {
  return `${kindLabel(unit.kind)} ${unit.number}`;
}

/** Short name of the map state, for a badge. */
export function mapLabel(map: MapState): string {
  switch (map) {
    case "EXACT":
      return "Exact map";
    case "PARTIAL":
      return "Partial map";
    case "NONE":
      return "No map";
    default:
      return fallback(map);
  }
}

/** The map state in one line. */
export function mapExplanation(map: MapState): string {
  switch (map) {
    case "EXACT":
      return "Exact map: the chapters of every book are known, so chapters are listed under their book.";
    case "PARTIAL":
      return "Partial map: chapters are known for some books only, or some chapters on disk fall outside every book.";
    case "NONE":
      return "No map: nobody has saved which chapters each book holds.";
    default:
      return `Map: ${fallback(map)}.`;
  }
}

/** The sentence every page without an exact map must show. */
export const UNKNOWN_CONTENT_SENTENCE =
  "The content of each book is unknown: chapters are kept and no book counts as covered.";

/** The required sentence for PARTIAL and NONE maps; null for an exact map. */
export function unknownContentNotice(map: MapState): string | null {
  return map === "EXACT" ? null : UNKNOWN_CONTENT_SENTENCE;
}

export function completionLabel(status: SeriesCompletion | null): string | null {
  switch (status) {
    case null:
      return null;
    case "ALL_BOOKS":
      return "Complete: every book is on disk.";
    case "ALL_CHAPTERS":
      return "Complete from chapters: every book is made whole by its chapters.";
    default:
      return fallback(status);
  }
}

/**
 * The completion plan of a book in words. The wording follows the series' preference: books
 * first names the book, chapters first names the chapters.
 */
export function planLabel(plan: Plan | null, wording: PlanWording = "BOOKS_FIRST"): string {
  if (plan === null) return "";
  const chaptersFirst = wording === "CHAPTERS_FIRST";
  switch (plan) {
    case "BOOK_ON_DISK":
      return chaptersFirst ? "On disk as a book" : "Book on disk";
    case "ASSEMBLE_WHEN_CHAPTERS_COMPLETE":
      return chaptersFirst
        ? "Chapters first, then assembled into the book once complete"
        : "Assemble the book when its chapters are complete";
    case "IN_PART":
      return chaptersFirst ? "Some of its chapters are on disk" : "Book in part: some of its chapters are on disk";
    case "MISSING":
      return chaptersFirst ? "Chapters missing" : "Book missing";
    default:
      return fallback(plan);
  }
}

/** Tone of a plan, for a calm colour cue next to the words. */
export function planTone(plan: Plan | null): "good" | "info" | "warn" | "bad" | "none" {
  switch (plan) {
    case null:
      return "none";
    case "BOOK_ON_DISK":
      return "good";
    case "ASSEMBLE_WHEN_CHAPTERS_COMPLETE":
      return "info";
    case "IN_PART":
      return "warn";
    case "MISSING":
      return "bad";
    default:
      return "none";
  }
}

export function coverageLabel(coverage: Coverage | null): string {
  switch (coverage) {
    case null:
      return "";
    case "COVERED_BY_VOLUME":
      return "Inside an owned book";
    case "COVERED_UNMAPPED":
      return "Taken as covered by the owned books (no map)";
    case "COVERED_BY_CHAPTERS":
      return "Covered by its chapters on disk";
    default:
      return fallback(coverage);
  }
}

export function ownedLabel(unit: Pick<Unit, "owned">): string {
  return unit.owned ? "Owned" : "Not owned";
}

/** "212 pages", "1 page", or "" when unknown. */
export function pagesLabel(pageCount: number | null): string {
  if (pageCount === null || !Number.isFinite(pageCount)) return "";
  return pageCount === 1 ? "1 page" : `${pageCount} pages`;
}

/**
 * What the Book column shows: the exact-map book as it is, otherwise an estimate worded as one
 * (never as a badge), otherwise nothing.
 */
export function bookCell(unit: Pick<Unit, "book" | "estimatedBook">): { text: string; estimate: boolean } {
  if (unit.book !== null) return { text: unit.book, estimate: false };
  if (unit.estimatedBook !== null) return { text: `≈ vol ${unit.estimatedBook} (estimate)`, estimate: true };
  return { text: "", estimate: false };
}

/** "Japanese" for "ja" where the runtime knows the name, else the code in capitals. */
export function languageLabel(code: string, locale = "en"): string {
  const trimmed = code.trim();
  if (!trimmed) return "";
  try {
    const names = new Intl.DisplayNames([locale], { type: "language" });
    const name = names.of(trimmed);
    if (name && name.toLowerCase() !== trimmed.toLowerCase()) return name;
  } catch {
    /* not a language tag */
  }
  return trimmed.toUpperCase();
}

/** "1 book", "12 books". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The quiet line under a series title: "12 books known · Japanese · not monitored". */
export function seriesMeta(series: Pick<SeriesSummary, "knownBookCount" | "language" | "monitored">): string {
  const parts: string[] = [];
  if (series.knownBookCount !== null) parts.push(`${plural(series.knownBookCount, "book")} known`);
  const language = languageLabel(series.language);
  if (language) parts.push(language);
  if (!series.monitored) parts.push("not monitored");
  return parts.join(" · ");
}
