/**
 * The recycle bin: what retirements moved out of the library, listed newest first, restorable to
 * its original path, and purged only once its retention ended (the one deletion of file bytes the
 * service ever makes, and only of expired bin copies).
 */
import { stat, unlink } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors.ts";
import {
  dropSecondName,
  ensureDir,
  fsyncDir,
  moveNoClobber,
  removeEmptyDirs,
  sameFile,
  sha256File,
  statOrNull,
  TargetExistsError,
} from "./durable-fs.ts";
import type { JournalEntry, RestorePayload } from "./journal.ts";
import { libraryAbs } from "./library-paths.ts";
import { __crashAt, DAY_MS, type Engine, type RecycleListEntry } from "./publication-core.ts";
import { binAbs } from "./retirement.ts";
import { libraryFolderState } from "./library-root.ts";

export async function listBin(engine: Engine): Promise<RecycleListEntry[]> {
  const rows = await engine.store.recycledEntries();
  const keepMs = engine.ctx.config.recycleRetentionDays * DAY_MS;
  return rows.map((r) => ({
    id: r.id,
    fileId: r.fileId,
    seriesId: r.seriesId,
    originalPath: r.originalPath,
    binPath: r.binPath,
    size: Number(r.size),
    sha256: r.sha256,
    reason: r.reason,
    recycledAt: r.recycledAt,
    restorableUntil: new Date(r.recycledAt.getTime() + keepMs),
  }));
}

/** Moves a recycled file back to its original path; 409 `restore_target_taken` when that path is occupied. */
/**
 * An entry of a removed series has neither a file row nor a series any more: its bytes go back to
 * their library path all the same, and the next scan records them (and a series of their folder).
 * `fileId` is then null.
 */
export async function restore(engine: Engine, entryId: number): Promise<{ fileId: number | null; path: string }> {
  const { store } = engine;
  const first = await store.recycleEntry(entryId);
  if (!first) throw new AppError("recycle_entry_not_found", `recycle-bin entry ${entryId} does not exist`);
  return engine.lock.run([`entry:${entryId}`, `file:${first.fileId}`, `path:${first.originalPath}`], async () => {
    const e = await store.recycleEntry(entryId);
    if (!e || e.state !== "recycled")
      throw new AppError("recycle_entry_not_found", `recycle-bin entry ${entryId} was ${e?.state ?? "removed"}`);
    const row = e.fileId === null ? null : await store.file(e.fileId);
    if (e.fileId !== null && (!row || row.state !== "recycled"))
      throw new AppError("file_not_found", `the library record of recycle-bin entry ${entryId} no longer exists`);
    const from = binAbs(engine, e.binPath);
    const st = await statOrNull(from);
    if (!st?.isFile())
      throw new AppError(
        "recycle_entry_not_found",
        `the bytes of recycle-bin entry ${entryId} are no longer in the bin`,
      );
    const to = libraryAbs(engine.root, e.originalPath);
    const taken = () =>
      new AppError("restore_target_taken", `${e.originalPath} is occupied: move that file away first`, {
        path: e.originalPath,
      });
    if (
      (await statOrNull(to)) !== null ||
      (await store.activeAtPath(e.originalPath))
    )
      throw taken();

    const p: RestorePayload = {
      v: 1,
      entryId,
      fileId: row?.id ?? null,
      seriesId: e.seriesId,
      bin: e.binPath,
      to: e.originalPath,
      size: st.size,
      sha256: e.sha256,
    };
    const journalId = await engine.store.beginJournal("restore", "moving", p);
    __crashAt("restore:journaled");
    try {
      await ensureDir(path.dirname(to));
      await engine.store.holdJournal(journalId);
      await moveNoClobber(from, to, () => __crashAt("restore:linked"));
    } catch (err) {
      // Occupied at the last moment: nothing moved, so the entry ends here. Any other failure
      // leaves it to recovery, which looks at what is on disk.
      if (err instanceof TargetExistsError) {
        await engine.store.endJournal(journalId);
        throw taken();
      }
      throw err;
    }
    __crashAt("restore:moved");
    return finishRestore(engine, journalId, p);
  });
}

async function finishRestore(
  engine: Engine,
  journalId: number,
  p: RestorePayload,
): Promise<{ fileId: number | null; path: string }> {
  const st = await stat(libraryAbs(engine.root, p.to));
  const fileId = await engine.store.commitRestore(journalId, p, st.mtimeMs, new Date());
  await removeEmptyDirs(path.dirname(binAbs(engine, p.bin)), engine.bin);
  __crashAt("restore:committed");
  engine.ctx.events.publish("series_changed", p.seriesId);
  return { fileId, path: p.to };
}

/** An interrupted restore: finished once the file has its library name, undone otherwise. */
export async function recoverRestore(
  engine: Engine,
  entry: Extract<JournalEntry, { op: "restore" }>,
): Promise<"replayed" | "rolledBack"> {
  const p = entry.payload;
  const to = libraryAbs(engine.root, p.to);
  const from = binAbs(engine, p.bin);
  const [toSt, binSt] = await Promise.all([statOrNull(to), statOrNull(from)]);
  if (toSt && binSt && sameFile(toSt, binSt)) {
    await dropSecondName(from);
    await finishRestore(engine, entry.id, p);
    return "replayed";
  }
  if (toSt?.isFile() && !binSt && toSt.size === p.size && (await sha256File(to)) === p.sha256) {
    await finishRestore(engine, entry.id, p);
    return "replayed";
  }
  if (!binSt)
    engine.ctx.log(
      `restore ${entry.id}: the bytes of recycle-bin entry ${p.entryId} are neither in the bin nor at ${p.to}`,
    );
  await engine.store.endJournal(entry.id);
  return "rolledBack";
}

/** Removes the bytes of purged entries; a missing one was removed before a crash. */
async function removeBins(engine: Engine, bins: string[]): Promise<void> {
  const dirs = new Set<string>();
  for (const [i, rel] of bins.entries()) {
    const abs = binAbs(engine, rel);
    try {
      await unlink(abs);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    dirs.add(path.dirname(abs));
    if (i === 0) __crashAt("purge:unlinked");
  }
  // The removals are durable before the journal entry ends, so none is forgotten half-done.
  for (const d of dirs) if (await statOrNull(d)) await fsyncDir(d);
  for (const d of dirs) await removeEmptyDirs(d, engine.bin);
}

/** Purges the entries recycled more than RECYCLE_RETENTION_DAYS before `now`; returns how many. */
export async function purgeExpired(engine: Engine, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - engine.ctx.config.recycleRetentionDays * DAY_MS);
  const ids = await engine.store.expiredEntryIds(cutoff);
  if (ids.length === 0) return 0;
  // The bin is in the library folder: with it away (an unmounted disk) the copies are not there to
  // remove, and marking them purged would leave them in the bin for good once it is back.
  if ((await libraryFolderState(engine.ctx)) !== "present") {
    engine.ctx.log(`recycle bin: ${ids.length} expired file(s) wait for the library folder ${engine.root}`);
    return 0;
  }
  return engine.lock.run(
    ids.map((id) => `entry:${id}`),
    async () => {
      const begun = await engine.store.beginPurge(ids, cutoff);
      if (!begun) return 0;
      __crashAt("purge:marked");
      await removeBins(engine, begun.bins);
      await engine.store.endJournal(begun.journalId);
      engine.ctx.log(`recycle bin: purged ${begun.bins.length} expired file(s)`);
      return begun.bins.length;
    },
  );
}

/**
 * Purges one entry at the operator's request, whatever its age: the entry becomes `purged` and its
 * bin copy is removed, through the same journalled steps (and the same recovery) as the expiry
 * purge. 404 `recycle_entry_not_found` for an unknown, restored or already purged entry.
 */
export async function purgeEntry(engine: Engine, entryId: number): Promise<void> {
  const first = await engine.store.recycleEntry(entryId);
  if (!first) throw new AppError("recycle_entry_not_found", `recycle-bin entry ${entryId} does not exist`);
  const keys = [`entry:${entryId}`, ...(first.fileId === null ? [] : [`file:${first.fileId}`])];
  await engine.lock.run(keys, async () => {
    const e = await engine.store.recycleEntry(entryId);
    if (!e || e.state !== "recycled")
      throw new AppError("recycle_entry_not_found", `recycle-bin entry ${entryId} was ${e?.state ?? "removed"}`);
    // A cutoff far in the future: an explicit purge takes the entry whatever its age.
    const begun = await engine.store.beginPurge([entryId], new Date("9999-12-31T00:00:00Z"));
    if (!begun) throw new AppError("recycle_entry_not_found", `recycle-bin entry ${entryId} is no longer in the bin`);
    __crashAt("purge:marked");
    await removeBins(engine, begun.bins);
    await engine.store.endJournal(begun.journalId);
    engine.ctx.log(`recycle bin: purged entry ${entryId} on request`);
    engine.ctx.events.publish("series_changed", e.seriesId);
  });
}

export async function recoverPurge(engine: Engine, entry: Extract<JournalEntry, { op: "purge" }>): Promise<"replayed"> {
  await removeBins(engine, entry.payload.bins);
  await engine.store.endJournal(entry.id);
  return "replayed";
}
