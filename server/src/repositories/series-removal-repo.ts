/**
 * Removing a series' records (services/series/series-removal-service.ts): in one transaction, the
 * facts the removal rule needs are loaded, the rule decides, and only then are the rows of the
 * series deleted. Children are deleted explicitly rather than left to the schema's cascades, so
 * that rows keyed by a file id without a foreign key (reading progress, KOReader documents) and the
 * source rejections go too. The recycle bin keeps its entries: they only forget the file row and the
 * series they came from (restoring one puts the bytes back at their library path; the next scan
 * records them).
 */
import type { Db } from "../db/client.ts";
import type { SeriesRemovalFacts } from "../domain/series-removal.ts";
import { chunksOf } from "./in-chunks.ts";
import type { JournalEntry, Tx } from "./journal-repo.ts";

/** Whether a pending journal entry's payload names the series (JSON as stored). */
function namesSeries(op: string, payload: string, seriesId: number): boolean {
  let p: unknown;
  try {
    p = JSON.parse(payload);
  } catch {
    return false;
  }
  if (op === "publish" || op === "restore")
    return (p as Extract<JournalEntry, { op: "publish" | "restore" }>["payload"]).seriesId === seriesId;
  if (op === "retire")
    return (p as Extract<JournalEntry, { op: "retire" }>["payload"]).files.some((f) => f.seriesId === seriesId);
  return false;
}

async function loadFacts(tx: Tx, seriesId: number): Promise<SeriesRemovalFacts & { fileIds: number[] }> {
  const files = await tx.libraryFile.findMany({ where: { seriesId }, select: { id: true, state: true } });
  const downloads = await tx.download.findMany({ where: { seriesId }, select: { state: true } });
  const torrents = await tx.torrentJob.findMany({ where: { seriesId }, select: { state: true } });
  const translations = await tx.translationJob.findMany({ where: { seriesId }, select: { state: true } });
  // Few rows: the journal holds only entries a crash or a running operation left open.
  const journal = await tx.publicationJournal.findMany({ select: { op: true, payload: true } });
  return {
    fileIds: files.map((f) => f.id),
    fileStates: files.map((f) => f.state),
    downloadStates: downloads.map((d) => d.state),
    torrentStates: torrents.map((t) => t.state),
    translationStates: translations.map((t) => t.state),
    pendingPublications: journal.filter((j) => namesSeries(j.op, j.payload, seriesId)).length,
  };
}

export interface SeriesRemoved {
  title: string;
  folder: string;
  /** Recycle-bin entries of the series, kept (restorable) without it. */
  recycleEntriesKept: number;
}

export function seriesRemovalRepo(db: Db) {
  return {
    /** The removal rule's facts of a series (for showing whether it can be removed). */
    facts: (seriesId: number): Promise<SeriesRemovalFacts> => db.$transaction((tx) => loadFacts(tx, seriesId)),

    /**
     * Decides with `decide` on the facts read in the same transaction, and deletes the series'
     * rows only when it allows. null: no such series.
     */
    remove<D extends { ok: boolean }>(
      seriesId: number,
      decide: (facts: SeriesRemovalFacts) => D,
    ): Promise<{ decision: D; removed: SeriesRemoved | null; coverFiles: string[] } | null> {
      return db.$transaction(async (tx) => {
        const series = await tx.series.findUnique({ where: { id: seriesId }, select: { title: true, folder: true } });
        if (!series) return null;
        const facts = await loadFacts(tx, seriesId);
        const decision = decide(facts);
        if (!decision.ok) return { decision, removed: null, coverFiles: [] };

        const kept = await tx.recycleEntry.count({ where: { seriesId, state: "recycled" } });
        await tx.recycleEntry.updateMany({ where: { seriesId }, data: { seriesId: null, fileId: null } });
        for (const chunk of chunksOf(facts.fileIds)) {
          await tx.recycleEntry.updateMany({ where: { fileId: { in: chunk } }, data: { fileId: null } });
          await tx.readProgress.deleteMany({ where: { fileId: { in: chunk } } });
          await tx.readerDocument.deleteMany({ where: { fileId: { in: chunk } } });
        }
        const bySeries = { where: { seriesId } };
        await tx.chapterRelease.deleteMany(bySeries);
        await tx.offer.deleteMany(bySeries);
        await tx.blockedRelease.deleteMany(bySeries);
        await tx.numberingOverride.deleteMany(bySeries);
        await tx.download.deleteMany(bySeries);
        await tx.verification.deleteMany(bySeries);
        await tx.libraryFile.deleteMany(bySeries);
        await tx.mapEntry.deleteMany({ where: { source: { seriesId } } });
        await tx.mapSource.deleteMany(bySeries);
        await tx.volumeSlot.deleteMany(bySeries);
        await tx.chapterSlot.deleteMany(bySeries);
        await tx.wantedEntry.deleteMany(bySeries);
        await tx.wantedState.deleteMany(bySeries);
        await tx.torrentJob.deleteMany(bySeries);
        await tx.translationJob.deleteMany(bySeries);
        // The covers its links named: the caller drops those no other link names once this commits.
        const covers = await tx.catalogueLink.findMany({
          where: { seriesId, coverFile: { not: null } },
          select: { coverFile: true },
        });
        await tx.catalogueLink.deleteMany(bySeries);
        await tx.sourceRejection.deleteMany(bySeries);
        await tx.sourceMapping.deleteMany(bySeries);
        await tx.series.delete({ where: { id: seriesId } });
        return {
          decision,
          removed: { ...series, recycleEntriesKept: kept },
          coverFiles: covers.map((c) => c.coverFile as string),
        };
      });
    },
  };
}

export type SeriesRemovalRepo = ReturnType<typeof seriesRemovalRepo>;
