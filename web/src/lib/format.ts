/**
 * Words for the enum values the API sends. Pure functions: every screen says the same thing
 * for the same state. An unexpected value (a newer server) is shown as it came, never hidden.
 */
import type {
  Coverage,
  SeriesOverview,
  SeriesSummary,
  MapState,
  PublicationStatus,
  SeriesCompletion,
  SeriesForm,
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
export function unitName(unit: { kind: UnitKind; number: string }): string {
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
 * A series' completion as the library card says it: "all books", "all chapters", else what is
 * missing ("3 books missing · 12 chapters missing"). The counts come from the server.
 */
export function completionWords(
  o: Pick<SeriesOverview, "completion" | "missingBooks" | "missingChapters" | "booksOwned" | "chaptersOwned">,
): string {
  if (o.completion === "ALL_BOOKS") return "all books";
  if (o.completion === "ALL_CHAPTERS") return "all chapters";
  const parts: string[] = [];
  if (o.missingBooks > 0) parts.push(`${plural(o.missingBooks, "book")} missing`);
  if (o.missingChapters > 0) parts.push(`${plural(o.missingChapters, "chapter")} missing`);
  if (parts.length > 0) return parts.join(" · ");
  return o.booksOwned + o.chaptersOwned > 0 ? "nothing missing" : "nothing on disk yet";
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

export function ownedLabel(unit: { owned: boolean }): string {
  return unit.owned ? "Owned" : "Not owned";
}

/** "212 pages", "1 page", or "" when unknown. */
export function pagesLabel(pageCount: number | null): string {
  if (pageCount === null || !Number.isFinite(pageCount)) return "";
  return pageCount === 1 ? "1 page" : `${pageCount} pages`;
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

/** "1.2 MB" (decimal units, as file managers show sizes). */
export function bytesLabel(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "";
  if (bytes < 1000) return `${bytes} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** A long digest shortened for reading ("1a2b3c4d…7e8f"); the full value goes in a title. */
export function shortHash(hash: string, head = 8, tail = 4): string {
  const bare = hash.replace(/^sha256:/, "");
  return bare.length <= head + tail + 1 ? bare : `${bare.slice(0, head)}…${bare.slice(-tail)}`;
}
