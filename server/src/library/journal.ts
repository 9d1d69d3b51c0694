/**
 * The publication journal (table publication_journal): one row per operation in flight, written
 * before its first irreversible step, its `step` advanced after each, and deleted in the same
 * transaction that commits the operation's database rows. A row found at start-up is an operation
 * a crash interrupted; recovery reads its payload to finish or undo it.
 */
import type { Db } from "../db/client.ts";
import type { Prisma } from "../generated/prisma/client.ts";

export type Tx = Prisma.TransactionClient;

export interface PublishFile {
  kind: "book" | "chapter";
  volume: string | null;
  chapter: string | null;
  chapterEnd: string | null;
  part: number | null;
  pageCount: number;
  language: string | null;
  origin: "download" | "assembled" | "import" | "translation";
  tagSource: "comicinfo" | "filename" | null;
}

export interface PublishRelease {
  kind: "chapter" | "volume";
  volume: string | null;
  chapter: string | null;
  part: number | null;
  language: string;
  assembledFrom: string | null;
  providerId?: number | null;
  sourceMappingId?: number | null;
  externalId?: string | null;
  scanlator?: string | null;
}

/** One file of a retirement: where it is, where it goes in the bin, and what it must be. */
export interface RetireFilePlan {
  fileId: number;
  seriesId: number;
  /** Library path (relative to LIBRARY_ROOT). */
  from: string;
  /** Path relative to the recycle bin. */
  bin: string;
  size: number;
  sha256: string;
}

export interface PublishPayload {
  v: 1;
  seriesId: number;
  /** Path relative to the staging folder. */
  staged: string;
  /** The library path the caller asked for. */
  requested: string;
  /** Library path the file is (being) placed at; updated before each new name is tried. */
  target: string;
  sha256: string;
  size: number;
  file: PublishFile;
  release: PublishRelease | null;
  /** Files to retire once the publication committed (assembled books retire their chapters). */
  retireAfter: RetirePayload | null;
}

export interface RetirePayload {
  v: 1;
  reason: string;
  /**
   * Recovery finishes it even if no file moved yet: set for a retirement chained to a committed
   * publication. A plain retirement with nothing moved is rolled back instead.
   */
  forward: boolean;
  files: RetireFilePlan[];
}

export interface RestorePayload {
  v: 1;
  entryId: number;
  fileId: number;
  seriesId: number | null;
  bin: string;
  to: string;
  size: number;
  sha256: string;
}

export interface PurgePayload {
  v: 1;
  bins: string[];
}

export type JournalEntry =
  | { id: number; op: "publish"; step: string; payload: PublishPayload }
  | { id: number; op: "retire"; step: string; payload: RetirePayload }
  | { id: number; op: "restore"; step: string; payload: RestorePayload }
  | { id: number; op: "purge"; step: string; payload: PurgePayload };

type Op = JournalEntry["op"];
type PayloadOf<O extends Op> = Extract<JournalEntry, { op: O }>["payload"];

export async function beginJournal<O extends Op>(
  db: Db | Tx,
  op: O,
  step: string,
  payload: PayloadOf<O>,
): Promise<number> {
  const row = await db.publicationJournal.create({ data: { op, step, payload: JSON.stringify(payload) } });
  return row.id;
}

export async function advanceJournal<O extends Op>(
  db: Db,
  id: number,
  step: string,
  payload?: PayloadOf<O>,
): Promise<void> {
  await db.publicationJournal.update({
    where: { id },
    data: { step, ...(payload ? { payload: JSON.stringify(payload) } : {}) },
  });
}

/** Ends an entry; inside the committing transaction, or alone when an operation is undone. */
export async function endJournal(db: Db | Tx, id: number): Promise<void> {
  await db.publicationJournal.deleteMany({ where: { id } });
}

/** The oldest unfinished entry after `afterId` (recovery walks them in order, seeing rows it creates). */
export async function nextJournalEntry(db: Db, afterId: number): Promise<JournalEntry | null> {
  const row = await db.publicationJournal.findFirst({ where: { id: { gt: afterId } }, orderBy: { id: "asc" } });
  if (!row) return null;
  const op = row.op;
  if (op !== "publish" && op !== "retire" && op !== "restore" && op !== "purge")
    throw new Error(`journal entry ${row.id} has unknown op ${op}`);
  return { id: row.id, op, step: row.step, payload: JSON.parse(row.payload) } as JournalEntry;
}

export async function pendingJournalCount(db: Db): Promise<number> {
  return db.publicationJournal.count();
}
