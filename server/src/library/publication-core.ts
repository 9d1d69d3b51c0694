/**
 * What the publication modules share: the folders, the lock, the named steps and the crash hook
 * the crash tests use to kill the process at each of them.
 */
import { stateDirs } from "../config.ts";
import { publicationRepo, type PublicationRepo } from "../repositories/publication-repo.ts";
import type { AppContext } from "../services/context.ts";
import type { KeyedLock } from "./keyed-lock.ts";

/**
 * The points of a publication at which a crash leaves a distinct state on disk and in the
 * database, in the order they are reached. `X:journaled` means the journal row for X exists and
 * nothing irreversible happened yet; `linked` means the file has its new name and still its old
 * one; `committed` means the database rows changed (and the journal row went) in one transaction.
 */
export const PUBLISH_STEPS = [
  "publish:prepared", // staged file fsynced and hashed; no journal row yet (still the caller's file)
  "publish:journaled",
  "publish:linked",
  "publish:placed", // journal step "placed"; the staged name still exists
  "publish:unstaged",
  "publish:committed",
] as const;

/** With two or more files, the per-file steps fire at the first file (the others are still in place). */
export const RETIRE_STEPS = [
  "retire:journaled",
  "retire:linked",
  "retire:moved",
  "retire:all-moved",
  "retire:committed",
] as const;

export const RESTORE_STEPS = ["restore:journaled", "restore:linked", "restore:moved", "restore:committed"] as const;

export const PURGE_STEPS = ["purge:marked", "purge:unlinked"] as const;

export type CrashStep =
  | (typeof PUBLISH_STEPS)[number]
  | (typeof RETIRE_STEPS)[number]
  | (typeof RESTORE_STEPS)[number]
  | (typeof PURGE_STEPS)[number];

/** The environment variable naming the step at which the process kills itself (crash tests only). */
export const CRASH_ENV = "PUBLICATION_CRASH_AT";

/**
 * Test-only: kills this process with SIGKILL (no cleanup, no flush, like a power cut for the
 * process) when CRASH_ENV names `step`. A no-op otherwise.
 */
export function __crashAt(step: CrashStep): void {
  if (process.env[CRASH_ENV] === step) process.kill(process.pid, "SIGKILL");
}

/** The state every publication module works with. */
export interface Engine {
  ctx: AppContext;
  /** The journal and the library rows the publication steps change. */
  store: PublicationRepo;
  root: string;
  staging: string;
  bin: string;
  lock: KeyedLock;
}

export function createEngine(ctx: AppContext): Engine {
  const dirs = stateDirs(ctx.config);
  return {
    ctx,
    // With several instances, each journal entry is born claimed by this one (library/cluster.ts).
    store: publicationRepo(ctx.db, () => ctx.cluster.journalLease()),
    root: ctx.config.libraryRoot,
    staging: dirs.staging,
    bin: dirs.recycleBin,
    // Files are locked across instances: two of them never move the same path or file at once.
    lock: ctx.cluster.keyedLock("publication"),
  };
}

export const DAY_MS = 24 * 60 * 60 * 1000;

/** A file a retirement moved into the recycle bin. */
export interface RetiredFile {
  fileId: number;
  recycleEntryId: number;
  /** Its library path (relative to LIBRARY_ROOT). */
  from: string;
  /** Its path relative to the recycle bin. */
  binPath: string;
}

/** A file in the recycle bin, restorable until `restorableUntil`. */
export interface RecycleListEntry {
  id: number;
  fileId: number | null;
  seriesId: number | null;
  originalPath: string;
  binPath: string;
  size: number;
  sha256: string;
  reason: string;
  recycledAt: Date;
  restorableUntil: Date;
}
