/**
 * Torrent jobs of the indexer/torrent channel. A job's state changes only from the state the caller
 * read (`WHERE state = expected`), so two polls never import the same torrent twice.
 */
import type { Db } from "../db/client.ts";
import type { PendingBook } from "../domain/torrent-assignment.ts";

export const TORRENT_STATES = [
  "added",
  "downloading",
  "completed",
  "importing",
  "imported",
  "awaiting_assignment",
  "assigning",
  "failed",
  "removed",
  "dismissed",
] as const;
export type TorrentState = (typeof TORRENT_STATES)[number];

/**
 * States the poll still looks at (an imported job waits for its retention action; a job awaiting an
 * assignment loses the books owned meanwhile; an assignment found interrupted goes back to waiting).
 */
export const OPEN_STATES: readonly TorrentState[] = [
  "added",
  "downloading",
  "completed",
  "importing",
  "imported",
  "awaiting_assignment",
  "assigning",
];

export interface TorrentJobRow {
  id: number;
  seriesId: number;
  infoHash: string;
  title: string;
  indexer: string | null;
  books: string[];
  state: TorrentState;
  contentPath: string | null;
  imported: number[];
  retention: string | null;
  error: string | null;
  /** "native" books for the library, or "translation": foreign books staged as translation sources. */
  purpose: string;
  sourceLanguage: string | null;
  /** Books waiting for an operator to assign them a file of the torrent (state `awaiting_assignment`). */
  pending: PendingBook[];
  createdAt: Date;
  updatedAt: Date;
}

type Raw = Omit<TorrentJobRow, "books" | "imported" | "state" | "pending"> & {
  books: string;
  imported: string;
  state: string;
  pending: string;
};

const row = (r: Raw): TorrentJobRow => ({
  ...r,
  books: JSON.parse(r.books) as string[],
  imported: JSON.parse(r.imported) as number[],
  state: r.state as TorrentState,
  pending: JSON.parse(r.pending) as PendingBook[],
});

export function torrentRepo(db: Db) {
  return {
    async create(input: {
      seriesId: number;
      infoHash: string;
      title: string;
      indexer: string | null;
      books: string[];
      retention: string;
      purpose?: "native" | "translation";
      sourceLanguage?: string;
    }): Promise<TorrentJobRow> {
      return row(await db.torrentJob.create({ data: { ...input, books: JSON.stringify(input.books) } }));
    },
    async list(seriesId?: number): Promise<TorrentJobRow[]> {
      return (
        await db.torrentJob.findMany({ where: seriesId === undefined ? {} : { seriesId }, orderBy: { id: "desc" } })
      ).map(row);
    },
    async open(): Promise<TorrentJobRow[]> {
      return (await db.torrentJob.findMany({ where: { state: { in: [...OPEN_STATES] } }, orderBy: { id: "asc" } })).map(
        row,
      );
    },
    /**
     * The books of a series' native torrents still on their way into the library (an operator's
     * assignment being imported included; a book waiting for one is not on its way).
     */
    async nativeBooksInFlight(seriesId: number): Promise<string[]> {
      const rows = await db.torrentJob.findMany({
        where: {
          seriesId,
          purpose: "native",
          state: { in: ["added", "downloading", "completed", "importing", "assigning"] },
        },
        select: { books: true },
      });
      return rows.flatMap((j) => JSON.parse(j.books) as string[]);
    },
    async get(id: number): Promise<TorrentJobRow | null> {
      const r = await db.torrentJob.findUnique({ where: { id } });
      return r ? row(r) : null;
    },
    async hashesOf(seriesId: number): Promise<Set<string>> {
      return new Set(
        (await db.torrentJob.findMany({ where: { seriesId }, select: { infoHash: true } })).map((r) => r.infoHash),
      );
    },
    /** The active book file of that number, if the series owns one. */
    async ownedBook(seriesId: number, book: string): Promise<number | null> {
      const f = await db.libraryFile.findFirst({
        where: { seriesId, kind: "book", volume: book, state: "active" },
        select: { id: true },
      });
      return f?.id ?? null;
    },
    /** Moves a job on only from `expected`; false when someone else moved it first. */
    async transition(
      id: number,
      expected: TorrentState,
      next: TorrentState,
      fields: { contentPath?: string; imported?: number[]; error?: string | null; pending?: PendingBook[] } = {},
    ): Promise<boolean> {
      const data = {
        state: next,
        ...(fields.pending !== undefined ? { pending: JSON.stringify(fields.pending) } : {}),
        ...(fields.contentPath !== undefined ? { contentPath: fields.contentPath } : {}),
        ...(fields.imported !== undefined ? { imported: JSON.stringify(fields.imported) } : {}),
        ...(fields.error !== undefined ? { error: fields.error } : {}),
      };
      return (await db.torrentJob.updateMany({ where: { id, state: expected }, data })).count === 1;
    },
  };
}

export type TorrentRepo = ReturnType<typeof torrentRepo>;
