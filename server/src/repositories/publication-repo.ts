/**
 * The database side of the publication module (tables publication_journal, library_file,
 * chapter_release and recycle_entry as publication, retirement, restore and purge change them);
 * the journal's entries themselves: journal-repo.ts.
 *
 * Each commit changes the library rows and ends the journal entry in one transaction, so a crash
 * leaves either the old rows and the entry, or the new rows and no entry. With several instances
 * each commit first holds the entry's lease, and the commit of a claimed work's publication records
 * the file on the download or translation job it was made for (journal-repo.ts).
 */
import type { Db } from "../db/client.ts";
import { chunksOf } from "./in-chunks.ts";
import {
  advanceJournal,
  beginJournal,
  closeJournal,
  endJournal,
  holdEntry,
  nextJournalEntry,
  pendingJournalCount,
  pendingJournalIds,
  type JournalLease,
  type Op,
  type PayloadOf,
  type PublishPayload,
  type RestorePayload,
  type RetireFilePlan,
  type RetirePayload,
  type Tx,
} from "./journal-repo.ts";

export {
  journalLeaseKey,
  type JournalEntry,
  type JournalLease,
  type PublicationClaim,
  type PublishFile,
  type PublishPayload,
  type PublishRelease,
  type PurgePayload,
  type RestorePayload,
  type RetireFilePlan,
  type RetirePayload,
  type Tx,
} from "./journal-repo.ts";

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

/**
 * Reactivates the restored file at its original path and closes its bin entry. Returns the live
 * row's id; null when the file has no row (its series was removed: the next scan records it).
 */
async function commitRestore(
  db: Db,
  lease: JournalLease,
  journalId: number,
  p: RestorePayload,
  mtimeMs: number,
  now: Date,
): Promise<number | null> {
  return db.$transaction(async (tx) => {
    await holdEntry(tx, lease, journalId);
    await tx.recycleEntry.update({ where: { id: p.entryId }, data: { state: "restored", restoredAt: now } });
    // A scan running meanwhile may have recorded the restored bytes as a new file: that row is then
    // the live one, and the old row stays recycled (two active rows for one file would double it).
    const scanned = await tx.libraryFile.findFirst({
      where: { path: p.to, state: "active", sha256: p.sha256, ...(p.fileId === null ? {} : { id: { not: p.fileId } }) },
    });
    // The series was removed while the bytes moved (or before): no row to reactivate.
    const own =
      p.fileId === null ? null : await tx.libraryFile.findUnique({ where: { id: p.fileId }, select: { id: true } });
    let liveId: number | null = own?.id ?? null;
    if (scanned) liveId = scanned.id;
    else if (own) {
      await tx.libraryFile.update({
        where: { id: own.id },
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
