/**
 * The publication journal's entries (table publication_journal) and their payloads: one row per
 * operation in flight, written before its first irreversible step, its `step` advanced after each,
 * and deleted in the same transaction that commits the operation's database rows
 * (publication-repo.ts). A row found at start-up is an operation a crash interrupted; recovery
 * reads its payload to finish or undo it.
 *
 * Several instances: an entry is its instance's while that instance holds its lease. Every
 * transaction that advances or ends an entry first holds the lease (the owner's guarded update,
 * which on PostgreSQL also locks it until the commit), so an instance that stalled past its lease
 * and wakes up after the recovery sweep of another one took the entry over changes nothing of it:
 * the entry is finished once. A publication on behalf of a download or a translation job names its
 * claim (the download's attempt, the job's epoch): the entry's own transaction marks the row with
 * the entry only while that claim is still the row's, and the commit records the file on the row
 * and clears the mark; a marked row is never taken over.
 */
import type { Db } from "../db/client.ts";
import { AppError } from "../errors.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import { deleteLease, holdLease, insertLease } from "./lease-repo.ts";

/** A transaction handle (the journal entry of a chained operation opens inside the committing one). */
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

/**
 * The work a publication is made for, with the claim it was made under (several instances): a
 * download in its attempt, a translation job in its claim epoch.
 */
export type PublicationClaim =
  { kind: "download"; id: number; attempt: number } | { kind: "translation"; id: number; epoch: number };

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
  /** The claimed work it publishes for (several instances only). */
  claim?: PublicationClaim | null;
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
  /** null: the entry's series was removed (no file row; the next scan records the restored file). */
  fileId: number | null;
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

export type Op = JournalEntry["op"];
export type PayloadOf<O extends Op> = Extract<JournalEntry, { op: O }>["payload"];

/**
 * The claim a new entry is born with when several instances share the database: its lease is
 * written in the entry's own transaction, so no other instance's recovery ever sees the entry
 * unclaimed while its instance lives. Null alone on the database (nothing to claim).
 */
export type JournalLease = () => { owner: string; expiresAt: Date } | null;

export const journalLeaseKey = (id: number) => `journal:${id}`;

/**
 * Marks the claimed row with the publication's entry, only while the claim is still the row's (a
 * download still publishing in its attempt with no file yet, a translation job in its epoch) and
 * no other publication of it is in flight: a stalled instance whose work another instance took
 * over publishes nothing (`attempt_superseded`, and the entry's transaction rolls back).
 */
async function markClaim(tx: Tx, claim: PublicationClaim, journalId: number): Promise<void> {
  const marked =
    claim.kind === "download"
      ? await tx.download.updateMany({
          where: { id: claim.id, attempts: claim.attempt, state: "publishing", journalId: null, fileId: null },
          data: { journalId },
        })
      : await tx.translationJob.updateMany({
          where: { id: claim.id, epoch: claim.epoch, journalId: null },
          data: { journalId },
        });
  if (marked.count !== 1) {
    const which = claim.kind === "download" ? `attempt ${claim.attempt}` : `claim ${claim.epoch}`;
    throw new AppError(
      "attempt_superseded",
      `${claim.kind} ${claim.id}: ${which} is no longer the current one (another instance took it over)`,
      { [claim.kind]: claim.id },
    );
  }
}

export async function beginJournal<O extends Op>(
  tx: Tx,
  lease: JournalLease,
  op: O,
  step: string,
  payload: PayloadOf<O>,
): Promise<number> {
  const row = await tx.publicationJournal.create({ data: { op, step, payload: JSON.stringify(payload) } });
  const claim = lease();
  if (claim) await insertLease(tx, journalLeaseKey(row.id), claim.owner, claim.expiresAt);
  const work = op === "publish" ? (payload as PublishPayload).claim : null;
  if (work) await markClaim(tx, work, row.id);
  return row.id;
}

/**
 * Several instances: the entry is still this instance's (its lease, held until the transaction
 * ends). An instance that stalled past the lease finds the recovery sweep of another one took the
 * entry over: `journal_entry_taken_over`, and its transaction changes nothing.
 */
export async function holdEntry(tx: Db | Tx, lease: JournalLease, id: number): Promise<void> {
  const claim = lease();
  if (!claim) return;
  if (!(await holdLease(tx, journalLeaseKey(id), claim.owner, claim.expiresAt)))
    throw new AppError(
      "journal_entry_taken_over",
      `publication journal entry ${id} was taken over by another instance (this one stalled past its lease)`,
      { journalId: id },
    );
}

export async function advanceJournal<O extends Op>(
  db: Db,
  lease: JournalLease,
  id: number,
  step: string,
  payload?: PayloadOf<O>,
): Promise<void> {
  const advance = (tx: Db | Tx) =>
    tx.publicationJournal.update({
      where: { id },
      data: { step, ...(payload ? { payload: JSON.stringify(payload) } : {}) },
    });
  if (lease() === null) {
    await advance(db);
    return;
  }
  await db.$transaction(async (tx) => {
    await holdEntry(tx, lease, id);
    await advance(tx);
  });
}

/** Deletes an entry and its claim, inside the transaction that holds it. */
export async function closeJournal(tx: Db | Tx, lease: JournalLease, id: number): Promise<void> {
  await tx.publicationJournal.deleteMany({ where: { id } });
  if (lease() !== null) await deleteLease(tx, journalLeaseKey(id));
}

/**
 * Ends an entry alone (an operation undone or given up): with several instances, only while it is
 * still this instance's, and a row its publication had marked may be taken over again.
 */
export async function endJournal(db: Db, lease: JournalLease, id: number): Promise<void> {
  if (lease() === null) {
    await closeJournal(db, lease, id);
    return;
  }
  await db.$transaction(async (tx) => {
    await holdEntry(tx, lease, id);
    await tx.download.updateMany({ where: { journalId: id }, data: { journalId: null } });
    await tx.translationJob.updateMany({ where: { journalId: id }, data: { journalId: null } });
    await closeJournal(tx, lease, id);
  });
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

export async function pendingJournalIds(db: Db): Promise<number[]> {
  const rows = await db.publicationJournal.findMany({ select: { id: true }, orderBy: { id: "asc" } });
  return rows.map((r) => r.id);
}
