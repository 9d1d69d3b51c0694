/**
 * The map editor's form state as pure functions: rows of "book N starts at chapter C", what is
 * sent to the server's plan, where the plan's messages belong, and what adopting a suggestion
 * fills in. The plan itself (implied ends, validation, coverage change) is the server's.
 */
import { placeByOrder, rankIn } from "./label-order";
import { canonicalLabel, sameLabel } from "./labels";
import type { BookStart, MapEntry, MapSuggestion, PlanNote } from "./types";

export interface EditorRow {
  /** Stable key for the list and for focus; not sent. */
  id: number;
  volume: string;
  start: string;
}

let lastId = 0;
function newId(): number {
  lastId += 1;
  return lastId;
}

export function makeRow(volume: string, start = ""): EditorRow {
  return { id: newId(), volume, start };
}

export interface InitialForm {
  rows: EditorRow[];
  /** The saved end of the last book, so that saving again keeps it. */
  lastEnd: string;
}

/**
 * What the editor opens with. With a saved operator map: one row per saved book, its start from
 * the saved starts; a book saved with unknown chapters keeps its row with an empty start (the user
 * gives one or removes the row: dropping it silently would let the book before it swallow its
 * chapters). The last book's saved end fills the end field. Without a map: one empty row per book
 * the series knows, else one for book 1. Entries and books come in the service's order (the map's
 * entries are ordered; the series' book numbers go through `labelOrder` first).
 */
export function initialForm(
  map: { entries: readonly MapEntry[]; bookStarts: readonly BookStart[] },
  books: readonly string[],
): InitialForm {
  if (map.entries.length > 0) {
    const entries = map.entries;
    const rows = entries.map((e) =>
      makeRow(e.volume, map.bookStarts.find((s) => sameLabel(s.volume, e.volume))?.start ?? ""),
    );
    return { rows, lastEnd: entries.at(-1)?.chapters.at(-1) ?? "" };
  }
  const volumes = [...new Set(books)];
  return { rows: volumes.length > 0 ? volumes.map((v) => makeRow(v)) : [makeRow("1")], lastEnd: "" };
}

/**
 * A new row after the highest book; its number is `next`, the whole number the service names after
 * the rows' books (label-order.ts, `nextWhole`).
 */
export function addRow(rows: readonly EditorRow[], next: string): EditorRow[] {
  return [...rows, makeRow(next)];
}

export function removeRow(rows: readonly EditorRow[], id: number): EditorRow[] {
  return rows.filter((r) => r.id !== id);
}

export interface StartsInput {
  /** What the plan is asked about (rows with both fields empty are left out). */
  starts: BookStart[];
  /** Rows that cannot be sent yet, with what is missing. */
  missing: { id: number; message: string }[];
}

/** The starts to send, and the rows still half filled in (those hold the preview back). */
export function startsFromRows(rows: readonly EditorRow[]): StartsInput {
  const starts: BookStart[] = [];
  const missing: StartsInput["missing"] = [];
  for (const r of rows) {
    const volume = r.volume.trim();
    const start = r.start.trim();
    if (!volume && !start) continue;
    if (!volume) missing.push({ id: r.id, message: "Enter the book number." });
    else if (!start)
      missing.push({ id: r.id, message: `Enter the chapter where book ${volume} starts, or remove the row.` });
    else starts.push({ volume, start });
  }
  return { starts, missing };
}

/** "book 3 is listed twice" → "Book 3 is listed twice." */
export function sentence(message: string): string {
  const t = message.trim();
  if (!t) return t;
  const s = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

/** The plan's messages about this row's book (matched as labels: "01" is book 1). */
export function notesForRow(notes: readonly PlanNote[], row: EditorRow): PlanNote[] {
  return notes.filter((n) => n.volume !== null && (sameLabel(n.volume, row.volume) || n.volume === row.volume.trim()));
}

/**
 * Messages that belong to no row: about the last book's end (or an end that is not a number),
 * and any whose book is not in the table.
 */
export function notesWithoutRow(notes: readonly PlanNote[], rows: readonly EditorRow[]): PlanNote[] {
  return notes.filter((n) => n.volume === null || !rows.some((r) => notesForRow([n], r).length > 0));
}

/** The end column: the last chapter the plan gives the book, or null when its end is unknown. */
export function impliedEnd(entries: readonly MapEntry[], volume: string): { end: string | null; count: number } | null {
  const entry = entries.find((e) => sameLabel(e.volume, volume));
  if (!entry) return null;
  return { end: entry.chapters.at(-1) ?? null, count: entry.chapters.length };
}

export interface Adoption {
  rows: EditorRow[];
  /** The last chapter of the suggestion's last book when that book ends the table, else unchanged. */
  lastEnd: string | null;
  /** Books the suggestion filled in. */
  volumes: string[];
}

/** The book numbers an adoption places: the rows' and the suggestion's (ask the service to order them). */
export function adoptionVolumes(rows: readonly EditorRow[], suggestion: MapSuggestion): string[] {
  return [...rows.map((r) => r.volume.trim()).filter((v) => v), ...suggestion.entries.map((e) => e.volume)];
}

/**
 * Fill the starts from a suggestion: each of its books with chapters starts at its first chapter
 * (rows for other books are kept). The rows are placed in `order`, the service's order of
 * `adoptionVolumes`. When the suggestion's last book is the table's last, its last chapter becomes
 * the last book's end, because the suggestion states it.
 */
export function adoptSuggestion(
  rows: readonly EditorRow[],
  suggestion: MapSuggestion,
  lastEnd: string | null,
  order: readonly string[],
): Adoption {
  const byVolume = new Map<string, EditorRow>();
  for (const r of rows) {
    const key = canonicalLabel(r.volume) ?? r.volume.trim();
    if (key) byVolume.set(key, r);
  }
  const volumes: string[] = [];
  let lastChapter: { volume: string; chapter: string; rank: number } | null = null;
  for (const entry of suggestion.entries) {
    const first = entry.chapters[0];
    const last = entry.chapters.at(-1);
    if (first === undefined || last === undefined) continue;
    const key = canonicalLabel(entry.volume) ?? entry.volume;
    const existing = byVolume.get(key);
    byVolume.set(key, existing ? { ...existing, start: first } : makeRow(entry.volume, first));
    volumes.push(entry.volume);
    const rank = rankIn(order, entry.volume) ?? -1;
    if (lastChapter === null || rank > lastChapter.rank) lastChapter = { volume: entry.volume, chapter: last, rank };
  }
  // Empty rows (a book number without a start) that the suggestion did not fill stay as they are.
  const next = placeByOrder([...byVolume.values(), ...rows.filter((r) => !r.volume.trim())], (r) => r.volume, order);
  const tableLast = next.filter((r) => r.volume.trim()).at(-1);
  const end =
    lastChapter !== null && tableLast !== undefined && sameLabel(tableLast.volume, lastChapter.volume)
      ? lastChapter.chapter
      : lastEnd;
  return { rows: next, lastEnd: end, volumes };
}

/** Do two sets of rows ask the same thing (order and empty rows aside)? */
export function sameStarts(a: readonly BookStart[], b: readonly BookStart[]): boolean {
  const key = (list: readonly BookStart[]) =>
    list
      .map((s) => `${canonicalLabel(s.volume) ?? s.volume}@${canonicalLabel(s.start) ?? s.start}`)
      .sort()
      .join("|");
  return key(a) === key(b);
}
