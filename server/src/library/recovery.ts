/**
 * Start-up recovery: every journal entry left by a crash is finished or undone, oldest first, so
 * that afterwards disk and database agree (every active row's bytes at its path, every recycled
 * row's bytes in the bin, nothing in both, nothing lost, no journaled file left in staging).
 */
import path from "node:path";
import { journalLeaseKey } from "../repositories/publication-repo.ts";
import type { JournalEntry } from "./journal.ts";
import type { Engine } from "./publication-core.ts";
import { recoverPublish } from "./publish.ts";
import { recoverPurge, recoverRestore } from "./recycle-bin.ts";
import { recoverRetire } from "./retirement.ts";
import { libraryFolderState } from "./library-root.ts";
import { sweepStaging } from "./staging-sweep.ts";

function recoverOne(engine: Engine, entry: JournalEntry): Promise<"replayed" | "rolledBack"> {
  switch (entry.op) {
    case "publish":
      return recoverPublish(engine, entry);
    case "retire":
      return recoverRetire(engine, entry);
    case "restore":
      return recoverRestore(engine, entry);
    case "purge":
      return recoverPurge(engine, entry);
  }
}

/**
 * Whether the library folder is away (missing, or an empty mount point: library-root.ts). Recovery
 * then decides nothing: it would read the absence of every file as a crash's doing, give up each
 * publication and record the files of each retirement missing. Its entries wait for the folder.
 */
async function libraryAway(engine: Engine): Promise<boolean> {
  return (await libraryFolderState(engine.ctx)) !== "present";
}

/**
 * Meant for start-up, before anything else writes to the library. With several instances (where
 * the workers' sweep runs `recoverExpired` instead) each entry is claimed first: one that a live
 * instance holds is left to it. While the library folder is away, the entries are left as they are
 * and answered as `waiting` (recoverWaiting takes them once it is back).
 */
export async function recover(engine: Engine): Promise<{ replayed: number; rolledBack: number; waiting: number[] }> {
  const { cluster } = engine.ctx;
  const counts = { replayed: 0, rolledBack: 0 };
  const pending = await engine.store.pendingJournalIds();
  if (pending.length > 0 && (await libraryAway(engine))) {
    engine.ctx.log(
      `recovery: the library folder ${engine.root} is missing or holds no series folder (is its disk mounted?): ${pending.length} unfinished operation(s) wait for it`,
    );
    return { ...counts, waiting: pending };
  }
  let failed = 0;
  // Walks by id so that entries created on the way (a retirement chained to a publication) are seen too.
  for (let lastId = 0; ;) {
    const entry = await engine.store.nextJournalEntry(lastId);
    if (!entry) break;
    lastId = entry.id;
    const key = journalLeaseKey(entry.id);
    if (!(await cluster.claim(key))) continue;
    try {
      counts[await recoverOne(engine, entry)] += 1;
    } catch (e) {
      // The entry stays and is tried again at the next start; the others still get their turn.
      failed += 1;
      engine.ctx.log(`recovery: ${entry.op} ${entry.id} at step ${entry.step} failed: ${(e as Error).message}`);
    } finally {
      await cluster.release([key]);
    }
  }
  if (counts.replayed + counts.rolledBack + failed > 0) {
    engine.ctx.log(
      `recovery: ${counts.replayed} finished, ${counts.rolledBack} undone, ${failed} left for the next start`,
    );
  }
  // What no unfinished entry names is a leftover of an interrupted operation.
  await sweepStaging(engine);
  return { ...counts, waiting: [] };
}

/** The lock keys the operation of an entry held (publish.ts, retirement.ts, recycle-bin.ts). */
function lockKeysOf(engine: Engine, entry: JournalEntry): string[] {
  const files = (fs: { fileId: number; from: string }[]) => fs.flatMap((f) => [`file:${f.fileId}`, `path:${f.from}`]);
  switch (entry.op) {
    case "publish": {
      const p = entry.payload;
      return [
        `path:${p.requested}`,
        `staged:${path.join(engine.staging, ...p.staged.split("/"))}`,
        ...files(p.retireAfter?.files ?? []),
      ];
    }
    case "retire":
      return files(entry.payload.files);
    case "restore":
      return [`entry:${entry.payload.entryId}`, `file:${entry.payload.fileId}`, `path:${entry.payload.to}`];
    case "purge":
      // Removing bin copies is idempotent; no other operation touches purged entries.
      return [];
  }
}

/** Staged files younger than this may still be written by a live instance (an assembly being built). */
const STAGED_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * With several instances: finishes or undoes the entries whose instance died — those whose claim
 * (lease `journal:<id>`) ran out and that this instance could claim — under the locks their
 * operation held; an entry a live instance is working on is never touched. Run by every worker's
 * recovery sweep, so a surviving instance completes what a dead one left half-done. Nothing while
 * the library folder is away: the next sweep after it is back does it.
 */
export async function recoverExpired(engine: Engine): Promise<{ replayed: number; rolledBack: number }> {
  const ids = await engine.store.pendingJournalIds();
  if (ids.length > 0 && (await libraryAway(engine))) return { replayed: 0, rolledBack: 0 };
  return recoverEntries(engine, ids, "left by another instance");
}

/**
 * The entries `recover` left waiting for the library folder, once it is back: finished or undone
 * while the service runs, so under the locks their operations held, as the sweep does. Null while
 * the folder is still away.
 */
export async function recoverWaiting(
  engine: Engine,
  ids: number[],
): Promise<{ replayed: number; rolledBack: number } | null> {
  if (await libraryAway(engine)) return null;
  return recoverEntries(engine, ids, "left while the library folder was away");
}

async function recoverEntries(
  engine: Engine,
  ids: number[],
  why: string,
): Promise<{ replayed: number; rolledBack: number }> {
  const { cluster } = engine.ctx;
  const counts = { replayed: 0, rolledBack: 0 };
  for (const id of ids) {
    const key = journalLeaseKey(id);
    if (!(await cluster.claim(key))) continue;
    try {
      const entry = await engine.store.nextJournalEntry(id - 1);
      if (!entry || entry.id !== id) continue; // finished by its owner just before its lease ran out
      await engine.lock.run(lockKeysOf(engine, entry), async () => {
        // Under the locks: the entry as it is now (a chained entry's parent may have moved it on).
        const now = await engine.store.nextJournalEntry(id - 1);
        if (!now || now.id !== id) return;
        counts[await recoverOne(engine, now)] += 1;
      });
    } catch (e) {
      engine.ctx.log(`recovery: ${id} failed: ${(e as Error).message} (left for the next sweep or start)`);
    } finally {
      await cluster.release([key]);
    }
  }
  if (counts.replayed + counts.rolledBack > 0)
    engine.ctx.log(`recovery: ${counts.replayed} finished, ${counts.rolledBack} undone (${why})`);
  // Leftovers of operations that died before their journal entry; young files may be in the making.
  await sweepStaging(engine, STAGED_GRACE_MS);
  return counts;
}
