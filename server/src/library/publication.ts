/**
 * The one way files enter and leave the library. Every operation is journalled before its first
 * irreversible step (publication_journal), moves bytes only by no-clobber renames on the library's
 * filesystem with fsyncs around them, changes its rows in one transaction together with the end
 * of its journal entry, and is serialised with other operations on the same files. Start-up
 * recovery finishes or undoes what a crash interrupted. Nothing is deleted: retirement moves
 * bytes into the recycle bin, and only `purgeExpired` removes bin copies whose retention ended.
 *
 * Split by responsibility: publish.ts, retirement.ts, recycle-bin.ts, recovery.ts (operations),
 * journal.ts and repositories/publication-repo.ts (database), durable-fs.ts and library-paths.ts (disk).
 */
import type { AppContext } from "../services/context.ts";
import { createEngine, type RecycleListEntry, type RetiredFile } from "./publication-core.ts";
import { requireLibraryFolderOf } from "./library-root.ts";
import { publish, type PublishInput, type PublishResult } from "./publish.ts";
import { listBin, purgeEntry, purgeExpired, restore } from "./recycle-bin.ts";
import { recover, recoverExpired, recoverWaiting } from "./recovery.ts";
import { retire } from "./retirement.ts";
import { scheduledLoop, type ScheduledLoop } from "../scheduled-loop.ts";

export type { PublishInput, PublishResult } from "./publish.ts";
export type { PublicationClaim, PublishFile, PublishRelease } from "./journal.ts";
export type { RecycleListEntry, RetiredFile } from "./publication-core.ts";
export {
  __crashAt,
  CRASH_ENV,
  PUBLISH_STEPS,
  PURGE_STEPS,
  RESTORE_STEPS,
  RETIRE_STEPS,
  type CrashStep,
} from "./publication-core.ts";

/** How often a running service purges expired recycle-bin entries. */
export const PURGE_INTERVAL_MS = 6 * 60 * 60 * 1000;

export interface Publication {
  /** Puts a complete staged file into the library under `targetRelPath` or, when that is taken, the next free "name (2).cbz". */
  publish(input: PublishInput): Promise<PublishResult>;
  /** Moves active files into the recycle bin, all or nothing; rows become `recycled` with `recycledAt`. */
  retire(fileIds: number[], reason: string): Promise<RetiredFile[]>;
  /** Moves a recycled file back to its original path (409 `restore_target_taken` when occupied). */
  restore(recycleEntryId: number): Promise<{ fileId: number | null; path: string }>;
  /**
   * Finishes or undoes what a crash interrupted; run at start-up before serving. While the library
   * folder is away (an unmounted disk) nothing is decided: the entries wait (`recoverWaiting`).
   */
  recover(): Promise<{ replayed: number; rolledBack: number }>;
  /**
   * The entries `recover` left waiting, once the library folder is back (null while it is still
   * away, or nothing waits).
   */
  recoverWaiting(): Promise<{ replayed: number; rolledBack: number } | null>;
  /** Whether entries of the start-up recovery still wait for the library folder. */
  waitingForLibrary(): boolean;
  /** With several instances: finishes or undoes the entries of instances that died (library/recovery.ts). */
  recoverExpired(): Promise<{ replayed: number; rolledBack: number }>;
  /** Removes the bin copies recycled more than RECYCLE_RETENTION_DAYS before `now`; entries become `purged`. */
  purgeExpired(now?: Date): Promise<number>;
  /** Removes one entry's bin copy now, whatever its age (404 `recycle_entry_not_found` unless it is in the bin). */
  purge(recycleEntryId: number): Promise<void>;
  /** Files in the recycle bin, newest first. */
  list(): Promise<RecycleListEntry[]>;
  /**
   * `purgeExpired` as a scheduled pass (every PURGE_INTERVAL_MS once started, the time of its last
   * cycle kept): the purge at start-up and a run on request are its cycles too, so the task list
   * says when it last ran.
   */
  readonly purgeSchedule: ScheduledLoop<number>;
}

export function createPublication(ctx: AppContext): Publication {
  const engine = createEngine(ctx);
  let waiting: number[] = [];
  let recovering: Promise<{ replayed: number; rolledBack: number } | null> | null = null;
  /** The waiting entries finished once the folder is back (one run at a time; null: still away). */
  const recoverWaitingNow = () =>
    (recovering ??= (async () => {
      try {
        if (waiting.length === 0) return null;
        const out = await recoverWaiting(engine, waiting);
        if (out) waiting = [];
        return out;
      } finally {
        recovering = null;
      }
    })());
  const whileHere = async <T>(op: () => Promise<T>): Promise<T> => {
    await requireLibraryFolderOf(ctx);
    // What the start-up recovery left for the folder is finished first, so no operation on the
    // same files comes between.
    if (waiting.length > 0) await recoverWaitingNow();
    return op();
  };
  return {
    // An operation on the library's files waits for its folder (503 while it is missing or an empty
    // mount point, library-root.ts): a publication there would make the library look mounted again,
    // and the others would take the absent files for gone.
    publish: (input) => whileHere(() => publish(engine, input)),
    retire: (fileIds, reason) => whileHere(() => retire(engine, fileIds, reason)),
    restore: (id) => whileHere(() => restore(engine, id)),
    async recover() {
      const { replayed, rolledBack, waiting: left } = await recover(engine);
      waiting = left;
      return { replayed, rolledBack };
    },
    recoverWaiting: recoverWaitingNow,
    waitingForLibrary: () => waiting.length > 0,
    recoverExpired: () => recoverExpired(engine),
    purgeExpired: (now) => purgeExpired(engine, now),
    purge: (id) => whileHere(() => purgeEntry(engine, id)),
    list: () => listBin(engine),
    purgeSchedule: scheduledLoop(
      "recycle bin purge",
      () => purgeExpired(engine),
      ctx.log,
      ctx.cluster.turn,
      ctx.repos.scheduledRuns,
    ),
  };
}
