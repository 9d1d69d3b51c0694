/**
 * The database side of the publication module: each commit changes the library rows and ends the
 * journal entry in one transaction, so a crash leaves either the old rows and the entry, or the
 * new rows and no entry.
 */
import type { Db } from "../db/client.ts";
import {
  beginJournal,
  endJournal,
  type PublishPayload,
  type RestorePayload,
  type RetireFilePlan,
  type RetirePayload,
} from "./journal.ts";

export interface CommittedPublish {
  fileId: number;
  /** The journal entry of the chained retirement, created in the same transaction. */
  retireJournalId: number | null;
}

/** Records the placed file (and its release), ends the publication entry, opens a chained retirement. */
export async function commitPublish(
  db: Db,
  journalId: number,
  p: PublishPayload,
  mtimeMs: number,
): Promise<CommittedPublish> {
  return db.$transaction(async (tx) => {
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
    if (stale.length > 0) await tx.libraryFile.updateMany({ where: { id: { in: stale } }, data: { state: "missing" } });
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
    const retireJournalId = p.retireAfter ? await beginJournal(tx, "retire", "moving", p.retireAfter) : null;
    await endJournal(tx, journalId);
    return { fileId: row.id, retireJournalId };
  });
}

/**
 * Marks the moved files recycled with their bin entries, and files that vanished from disk
 * outside the service missing; ends the retirement entry. Returns the entry id per moved file.
 */
export async function commitRetire(
  db: Db,
  journalId: number,
  p: RetirePayload,
  moved: RetireFilePlan[],
  lost: number[],
  now: Date,
): Promise<Map<number, number>> {
  return db.$transaction(async (tx) => {
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
    if (lost.length > 0)
      await tx.libraryFile.updateMany({ where: { id: { in: lost }, state: "active" }, data: { state: "missing" } });
    await endJournal(tx, journalId);
    return entries;
  });
}

/** Reactivates the restored file at its original path and closes its bin entry. Returns the live row's id. */
export async function commitRestore(
  db: Db,
  journalId: number,
  p: RestorePayload,
  mtimeMs: number,
  now: Date,
): Promise<number> {
  return db.$transaction(async (tx) => {
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
    await endJournal(tx, journalId);
    return liveId;
  });
}

/** Marks the expired entries purged and opens the journal entry that removes their bytes. */
export async function beginPurge(
  db: Db,
  ids: number[],
  cutoff: Date,
): Promise<{ journalId: number; bins: string[] } | null> {
  return db.$transaction(async (tx) => {
    const expired = await tx.recycleEntry.findMany({
      where: { id: { in: ids }, state: "recycled", recycledAt: { lt: cutoff } },
      orderBy: { id: "asc" },
    });
    if (expired.length === 0) return null;
    await tx.recycleEntry.updateMany({ where: { id: { in: expired.map((e) => e.id) } }, data: { state: "purged" } });
    const bins = expired.map((e) => e.binPath);
    const journalId = await beginJournal(tx, "purge", "unlinking", { v: 1, bins });
    return { journalId, bins };
  });
}
