/**
 * Which file of a completed torrent holds which requested book, and what an operator may assign by
 * hand. Pure: the shell lists the torrent's files (names relative to the save path) and reads the
 * result; no path is resolved here (the mount checks stay in the import).
 *
 * Rules:
 * 1. A file holds book N when its name (the last path segment) parses as book N alone: one volume,
 *    not a pack, not an extra or a special. Only image archives (`.cbz`, `.zip`) are imported.
 * 2. A requested book held by exactly one archive is imported by itself.
 * 3. A requested book no archive is named for waits for an explicit assignment (`not_found_by_name`);
 *    so does one that two or more archives are named for (`ambiguous`: which is right is the
 *    operator's call, never the first in sort order).
 * 4. An operator may assign one archive of the torrent, downloaded in full, to one book that waits
 *    for an assignment in that job; other files (`.nfo`, a PDF, a RAR) are listed but never
 *    assignable. An assigned file goes through the same hardened import as an automatic one.
 */
import { parseFileName } from "./filename.ts";
import { labelEquals, type Label } from "./labels.ts";

/** Why a requested book waits for an operator. */
export type PendingReason =
  /** No file of the torrent is named for the book. */
  | "not_found_by_name"
  /** Several files are named for the book. */
  | "ambiguous"
  /** The torrent numbers books beyond the series' edition (a translation source from another edition). */
  | "other_edition"
  /** The book's page count is far from the series' books (another edition?). */
  | "page_count";

export interface PendingBook {
  book: Label;
  reason: PendingReason;
  /** A sentence for the operator. */
  detail: string;
}

export interface TorrentFileEntry {
  /** Relative to the torrent's save path, "/"-separated (the torrent's root folder included). */
  name: string;
  size: number;
  /** 0…1 as the client reports it. */
  progress: number;
}

export type FileFormat = "archive" | "other_book" | "other";

export interface TorrentFileView extends TorrentFileEntry {
  /** The book the file's name is for (rule 1), or null. */
  namedBook: Label | null;
  format: FileFormat;
  assignable: boolean;
  /** Why it is not assignable: `unsupported_format` (not an image ZIP/CBZ) or `incomplete`. */
  refusal: "unsupported_format" | "incomplete" | null;
}

const ARCHIVE = /\.(cbz|zip)$/i;
/** Book-like files we recognise but cannot read (only image ZIP/CBZ are). */
const OTHER_BOOK = /\.(cbr|rar|cb7|7z|cbt|tar|pdf|epub|mobi|azw3?)$/i;

export const formatOf = (name: string): FileFormat =>
  ARCHIVE.test(name) ? "archive" : OTHER_BOOK.test(name) ? "other_book" : "other";

const baseName = (name: string) => name.slice(name.lastIndexOf("/") + 1);

/** Rule 1: the single book a file's name is for, or null. */
export function bookNamedBy(name: string, seriesTitle: string): Label | null {
  const p = parseFileName(baseName(name), { series: seriesTitle });
  if (p.kind !== "book" || p.volume === null || p.volumeEnd !== null || p.extra || p.special) return null;
  return p.volume;
}

/** Every file of the torrent with the book its name is for and whether it could be assigned (rule 4). */
export function describeFiles(files: readonly TorrentFileEntry[], seriesTitle: string): TorrentFileView[] {
  return [...files]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((f) => {
      const format = formatOf(f.name);
      const refusal = format !== "archive" ? "unsupported_format" : f.progress < 1 ? "incomplete" : null;
      return { ...f, namedBook: bookNamedBy(f.name, seriesTitle), format, assignable: refusal === null, refusal };
    });
}

export interface BookMatch {
  /** Requested book → the one archive named for it (rule 2). */
  found: Map<Label, string>;
  /** Requested books that wait for an operator (rule 3), in request order. */
  pending: PendingBook[];
}

/** Rules 2 and 3 over the torrent's files (only archives count). */
export function matchRequestedBooks(
  requested: readonly Label[],
  files: readonly TorrentFileEntry[],
  seriesTitle: string,
): BookMatch {
  const named = new Map<Label, string[]>();
  for (const f of describeFiles(files, seriesTitle)) {
    if (f.format !== "archive" || f.namedBook === null) continue;
    const book = requested.find((b) => labelEquals(b, f.namedBook!));
    if (book !== undefined) named.set(book, [...(named.get(book) ?? []), f.name]);
  }
  const found = new Map<Label, string>();
  const pending: PendingBook[] = [];
  for (const book of requested) {
    const names = named.get(book) ?? [];
    if (names.length === 1) found.set(book, names[0]!);
    else if (names.length === 0)
      pending.push({ book, reason: "not_found_by_name", detail: `no file of the torrent is named for book ${book}` });
    else
      pending.push({
        book,
        reason: "ambiguous",
        detail: `${names.length} files of the torrent are named for book ${book}: ${names.map(baseName).join(", ")}`,
      });
  }
  return { found, pending };
}

export type AssignmentRefusal =
  | { code: "torrent_job_not_awaiting_assignment"; detail: string }
  | { code: "torrent_book_not_pending"; detail: string }
  | { code: "torrent_file_not_found"; detail: string }
  | { code: "torrent_file_not_assignable"; detail: string };

/** Rule 4: why assigning `fileName` to `book` in this job is refused, or null when it may go ahead. */
export function assignmentRefusal(
  job: { state: string; pending: readonly PendingBook[] },
  files: readonly TorrentFileView[],
  fileName: string,
  book: Label,
): AssignmentRefusal | null {
  if (job.state !== "awaiting_assignment")
    return { code: "torrent_job_not_awaiting_assignment", detail: `the torrent job is ${job.state}` };
  if (!job.pending.some((p) => labelEquals(p.book, book)))
    return {
      code: "torrent_book_not_pending",
      detail: `book ${book} does not wait for an assignment in this torrent job${
        job.pending.length > 0 ? ` (waiting: ${job.pending.map((p) => p.book).join(", ")})` : ""
      }`,
    };
  const file = files.find((f) => f.name === fileName);
  if (!file) return { code: "torrent_file_not_found", detail: `the torrent holds no file ${JSON.stringify(fileName)}` };
  if (file.refusal === "unsupported_format")
    return {
      code: "torrent_file_not_assignable",
      detail: `${baseName(file.name)} is not an image ZIP/CBZ archive (only those can be imported)`,
    };
  if (file.refusal === "incomplete")
    return { code: "torrent_file_not_assignable", detail: `${baseName(file.name)} is not fully downloaded` };
  return null;
}

/** The pending list once `book` is assigned. */
export const withoutBook = (pending: readonly PendingBook[], book: Label): PendingBook[] =>
  pending.filter((p) => !labelEquals(p.book, book));
