/**
 * The database side of the publication module (tables publication_journal, library_file,
 * chapter_release and recycle_entry as publication, retirement, restore and purge change them).
 *
 * The journal: one row per operation in flight, written before its first irreversible step, its
 * `step` advanced after each, and deleted in the same transaction that commits the operation's
 * database rows. A row found at start-up is an operation a crash interrupted; recovery reads its
 * payload to finish or undo it.
 *
 * Each commit changes the library rows and ends the journal entry in one transaction, so a crash
 * leaves either the old rows and the entry, or the new rows and no entry.
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
import { chunksOf } from "./in-chunks.ts";
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

async function beginJournal<O extends Op>(
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
async function holdEntry(tx: Db | Tx, lease: JournalLease, id: number): Promise<void> {
  const claim = lease();
  if (!claim) return;
  if (!(await holdLease(tx, journalLeaseKey(id), claim.owner, claim.expiresAt)))
    throw new AppError(
      "journal_entry_taken_over",
      `publication journal entry ${id} was taken over by another instance (this one stalled past its lease)`,
      { journalId: id },
    );
}

async function advanceJournal<O extends Op>(
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
async function closeJournal(tx: Db | Tx, lease: JournalLease, id: number): Promise<void> {
  await tx.publicationJournal.deleteMany({ where: { id } });
  if (lease() !== null) await deleteLease(tx, journalLeaseKey(id));
}

/**
 * Ends an entry alone (an operation undone or given up): with several instances, only while it is
 * still this instance's, and a row its publication had marked may be taken over again.
 */
async function endJournal(db: Db, lease: JournalLease, id: number): Promise<void> {
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
async function nextJournalEntry(db: Db, afterId: number): Promise<JournalEntry | null> {
  const row = await db.publicationJournal.findFirst({ where: { id: { gt: afterId } }, orderBy: { id: "asc" } });
  if (!row) return null;
  const op = row.op;
  if (op !== "publish" && op !== "retire" && op !== "restore" && op !== "purge")
    throw new Error(`journal entry ${row.id} has unknown op ${op}`);
  return { id: row.id, op, step: row.step, payload: JSON.parse(row.payload) } as JournalEntry;
}

async function pendingJournalCount(db: Db): Promise<number> {
  return db.publicationJournal.count();
}

async function pendingJournalIds(db: Db): Promise<number[]> {
  const rows = await db.publicationJournal.findMany({ select: { id: true }, orderBy: { id: "asc" } });
  return rows.map((r) => r.id);
}

export interface CommittedPublish {
  fileId: number;
  /** The journal entry of the chained retirement, created in the same transaction. */
  retireJournalId: number | null;
}

/** Records the placed file (and its release), ends the publication entry, opens a chained retirement. */
async function commitPublish(
  db: Db,
  lease: JournalLease,
  journalId: number,
  p: PublishPayload,
  mtimeMs: number,
): Promise<CommittedPublish> {
  return db.$transaction(async (tx) => {
    await holdEntry(tx, lease, journalId);
    const data = {
      seriesId: p.seriesId,
      path: p.target,
      size: BigInt(p.size),
      mtimeMs: BigInt(Math.trunc(mtimeMs)),
      sha256: p.sha256,
      pageCount: p.file.pageCount,
      kind: p.file.kind,
      volume: p.file.volume,
      chapter: p.file.chapter,
      chapterEnd: p.file.chapterEnd,
      part: p.file.part,
      tagSource: p.file.tagSource,
      language: p.file.language,
      origin: p.file.origin,
      state: "active",
      recycledAt: null,
    };
    // A library scan running meanwhile may have recorded the placed file already: adopt its row
    // rather than add a second one for the same bytes. Any other active row at this path is stale
    // (the place was free on disk when chosen), so its file is missing.
    const atPath = await tx.libraryFile.findMany({
      where: { path: p.target, state: "active" },
      orderBy: { id: "asc" },
    });
    const adopted = atPath.find((r) => r.sha256 === p.sha256 && r.seriesId === p.seriesId);
    const stale = atPath.filter((r) => r !== adopted).map((r) => r.id);
    for (const chunk of chunksOf(stale))
      await tx.libraryFile.updateMany({ where: { id: { in: chunk } }, data: { state: "missing" } });
    const row = adopted
      ? await tx.libraryFile.update({ where: { id: adopted.id }, data })
      : await tx.libraryFile.create({ data });
    if (p.release) {
      const r = p.release;
      await tx.chapterRelease.create({
        data: {
          seriesId: p.seriesId,
          kind: r.kind,
          volume: r.volume,
          chapter: r.chapter,
          part: r.part,
          language: r.language,
          scanlator: r.scanlator ?? null,
          providerId: r.providerId ?? null,
          sourceMappingId: r.sourceMappingId ?? null,
          externalId: r.externalId ?? null,
          assembledFrom: r.assembledFrom,
          fileId: row.id,
        },
      });
    }
    // The claimed row learns its file in the same commit: from now on it is published, never fetched again.
    if (p.claim?.kind === "download")
      await tx.download.updateMany({ where: { id: p.claim.id, journalId }, data: { journalId: null, fileId: row.id } });
    if (p.claim?.kind === "translation")
      await tx.translationJob.updateMany({
        where: { id: p.claim.id, journalId },
        data: { journalId: null, fileId: row.id },
      });
    const retireJournalId = p.retireAfter ? await beginJournal(tx, lease, "retire", "moving", p.retireAfter) : null;
    await closeJournal(tx, lease, journalId);
    return { fileId: row.id, retireJournalId };
  });
}

/**
 * Marks the moved files recycled with their bin entries, and files that vanished from disk
 * outside the service missing; ends the retirement entry. Returns the entry id per moved file.
 */
async function commitRetire(
  db: Db,
  lease: JournalLease,
  journalId: number,
  p: RetirePayload,
  moved: RetireFilePlan[],
  lost: number[],
  now: Date,
): Promise<Map<number, number>> {
  return db.$transaction(async (tx) => {
    await holdEntry(tx, lease, journalId);
    const entries = new Map<number, number>();
    for (const f of moved) {
      // `missing`: a scan running meanwhile saw the file gone from the library before this commit.
      await tx.libraryFile.updateMany({
        where: { id: f.fileId, state: { in: ["active", "missing"] } },
        data: { state: "recycled", recycledAt: now },
      });
      const entry = await tx.recycleEntry.create({
        data: {
          fileId: f.fileId,
          seriesId: f.seriesId,
          originalPath: f.from,
          binPath: f.bin,
          size: BigInt(f.size),
          sha256: f.sha256,
          reason: p.reason,
          state: "recycled",
          recycledAt: now,
        },
      });
      entries.set(f.fileId, entry.id);
    }
    for (const chunk of chunksOf(lost))
      await tx.libraryFile.updateMany({ where: { id: { in: chunk }, state: "active" }, data: { state: "missing" } });
    await closeJournal(tx, lease, journalId);
    return entries;
  });
}

/** Reactivates the restored file at its original path and closes its bin entry. Returns the live row's id. */
async function commitRestore(
  db: Db,
  lease: JournalLease,
  journalId: number,
  p: RestorePayload,
  mtimeMs: number,
  now: Date,
): Promise<number> {
  return db.$transaction(async (tx) => {
    await holdEntry(tx, lease, journalId);
    await tx.recycleEntry.update({ where: { id: p.entryId }, data: { state: "restored", restoredAt: now } });
    // A scan running meanwhile may have recorded the restored bytes as a new file: that row is then
    // the live one, and the old row stays recycled (two active rows for one file would double it).
    const scanned = await tx.libraryFile.findFirst({
      where: { path: p.to, state: "active", sha256: p.sha256, id: { not: p.fileId } },
    });
    let liveId = p.fileId;
    if (scanned) liveId = scanned.id;
    else {
      await tx.libraryFile.update({
        where: { id: p.fileId },
        data: {
          state: "active",
          recycledAt: null,
          path: p.to,
          size: BigInt(p.size),
          sha256: p.sha256,
          mtimeMs: BigInt(Math.trunc(mtimeMs)),
        },
      });
    }
    await closeJournal(tx, lease, journalId);
    return liveId;
  });
}

/** Marks the expired entries purged and opens the journal entry that removes their bytes. */
async function beginPurge(
  db: Db,
  lease: JournalLease,
  ids: number[],
  cutoff: Date,
): Promise<{ journalId: number; bins: string[] } | null> {
  return db.$transaction(async (tx) => {
    const expired: { id: number; binPath: string }[] = [];
    for (const chunk of chunksOf([...ids].sort((a, b) => a - b)))
      expired.push(
        ...(await tx.recycleEntry.findMany({
          where: { id: { in: chunk }, state: "recycled", recycledAt: { lt: cutoff } },
          orderBy: { id: "asc" },
        })),
      );
    if (expired.length === 0) return null;
    for (const chunk of chunksOf(expired.map((e) => e.id)))
      await tx.recycleEntry.updateMany({ where: { id: { in: chunk } }, data: { state: "purged" } });
    const bins = expired.map((e) => e.binPath);
    const journalId = await beginJournal(tx, lease, "purge", "unlinking", { v: 1, bins });
    return { journalId, bins };
  });
}

/** The publication module's database calls, on the client (or inside a caller's transaction). */
export function publicationRepo(db: Db, lease: JournalLease = () => null) {
  return {
    beginJournal: <O extends Op>(op: O, step: string, payload: PayloadOf<O>) =>
      lease() === null
        ? beginJournal(db as unknown as Tx, lease, op, step, payload)
        : db.$transaction((tx) => beginJournal(tx, lease, op, step, payload)),
    advanceJournal: <O extends Op>(id: number, step: string, payload?: PayloadOf<O>) =>
      advanceJournal(db, lease, id, step, payload),
    endJournal: (id: number) => endJournal(db, lease, id),
    /**
     * Several instances: throws `journal_entry_taken_over` unless the entry is still this
     * instance's (and extends its lease); called before each irreversible step on disk, so an
     * instance that stalled past the lease moves nothing of an entry another instance's recovery took.
     */
    holdJournal: (id: number) => holdEntry(db, lease, id),
    nextJournalEntry: (afterId: number) => nextJournalEntry(db, afterId),
    pendingJournalCount: () => pendingJournalCount(db),
    pendingJournalIds: () => pendingJournalIds(db),
    commitPublish: (journalId: number, p: PublishPayload, mtimeMs: number) =>
      commitPublish(db, lease, journalId, p, mtimeMs),
    commitRetire: (journalId: number, p: RetirePayload, moved: RetireFilePlan[], lost: number[], now: Date) =>
      commitRetire(db, lease, journalId, p, moved, lost, now),
    commitRestore: (journalId: number, p: RestorePayload, mtimeMs: number, now: Date) =>
      commitRestore(db, lease, journalId, p, mtimeMs, now),
    beginPurge: (ids: number[], cutoff: Date) => beginPurge(db, lease, ids, cutoff),

    /** Whether an active row holds this library path. */
    async activeAtPath(relPath: string): Promise<boolean> {
      return (await db.libraryFile.count({ where: { path: relPath, state: "active" } })) > 0;
    },
    /** The library rows of these ids (any state). */
    files: (ids: number[]) => db.libraryFile.findMany({ where: { id: { in: ids } } }),
    file: (id: number) => db.libraryFile.findUnique({ where: { id } }),
    /** Id and path of these files (their lock keys). */
    filePaths: (ids: number[]) =>
      db.libraryFile.findMany({ where: { id: { in: ids } }, select: { id: true, path: true } }),

    /** The bin's entries still recycled, newest first. */
    recycledEntries: () =>
      db.recycleEntry.findMany({ where: { state: "recycled" }, orderBy: [{ recycledAt: "desc" }, { id: "desc" }] }),
    recycleEntry: (id: number) => db.recycleEntry.findUnique({ where: { id } }),
    /** Ids of the entries recycled before the cutoff. */
    async expiredEntryIds(cutoff: Date): Promise<number[]> {
      const rows = await db.recycleEntry.findMany({
        where: { state: "recycled", recycledAt: { lt: cutoff } },
        select: { id: true },
      });
      return rows.map((e) => e.id);
    },
  };
}

export type PublicationRepo = ReturnType<typeof publicationRepo>;
