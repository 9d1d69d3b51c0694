/**
 * Publication: a complete staged file enters the library under a free name (fsync, journal, hard
 * link, unlink of the staged name, one database transaction), optionally followed by the
 * retirement of the files it replaces under the same journal.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors.ts";
import {
  dropSecondName,
  ensureDir,
  fsyncFile,
  moveNoClobber,
  sameFile,
  sha256File,
  statOrNull,
  TargetExistsError,
} from "./durable-fs.ts";
import {
  type JournalEntry,
  type PublicationClaim,
  type PublishFile,
  type PublishPayload,
  type PublishRelease,
} from "./journal.ts";
import { checkStagedPath, checkTargetRelPath, freeNameCandidates, libraryAbs } from "./library-paths.ts";
import { requireLibraryRoot } from "./library-root.ts";
import { checkFileIds, checkPublishFile, checkPublishRelease, checkReason } from "./publication-input.ts";
import { __crashAt, type Engine, type RetiredFile } from "./publication-core.ts";
import { executeRetire, fileLockKeys, planRetire } from "./retirement.ts";

export interface PublishInput {
  seriesId: number;
  /** Absolute path of a complete file inside stateDirs(config).staging; publish fsyncs it. */
  stagedPath: string;
  /** Path relative to LIBRARY_ROOT, forward slashes, inside the series folder. Taken: the next free "name (2).cbz". */
  targetRelPath: string;
  file: PublishFile;
  release?: PublishRelease;
  /**
   * Files this one replaces (an assembled book's chapters): retired in the same recoverable
   * sequence, after the file, its row and its release are committed. Checked before anything
   * moves, like `retire`; once the publication committed, recovery always finishes it.
   */
  retireAfter?: { fileIds: number[]; reason: string };
  /**
   * The claimed work this file comes from (a download's attempt, a translation job's claim). With
   * several instances the journal entry is created only while that claim is still the work's
   * (otherwise 409 `attempt_superseded`, nothing moves), and the commit records the file on it.
   */
  claim?: PublicationClaim;
}

export interface PublishResult {
  fileId: number;
  /** Where the file went: `targetRelPath`, or the free name used because it was taken. */
  path: string;
  sha256: string;
  size: number;
  /** The files retired through `retireAfter`. */
  retired?: RetiredFile[];
}

/** The first of `rel`, "rel (2)", … that is neither on disk nor an active row's path. */
async function freeTarget(engine: Engine, rel: string): Promise<string> {
  for (const candidate of freeNameCandidates(rel)) {
    if ((await statOrNull(libraryAbs(engine.root, candidate))) !== null) continue;
    if (await engine.store.activeAtPath(candidate)) continue;
    return candidate;
  }
  throw new AppError("invalid_field", `no free name beside ${rel}`, { field: "targetRelPath" });
}

const stagedAbs = (engine: Engine, p: PublishPayload) => path.join(engine.staging, ...p.staged.split("/"));

/**
 * Links the staged file into the library. A name taken in the meantime (the link never replaces)
 * means the next free one, written to the journal before it is tried.
 */
async function place(engine: Engine, journalId: number, payload: PublishPayload): Promise<PublishPayload> {
  let p = payload;
  for (;;) {
    const target = libraryAbs(engine.root, p.target);
    // The series folder may be made, LIBRARY_ROOT never (library-root.ts).
    await requireLibraryRoot(engine.root);
    await ensureDir(path.dirname(target));
    await engine.store.holdJournal(journalId);
    try {
      await moveNoClobber(stagedAbs(engine, p), target, async () => {
        __crashAt("publish:linked");
        await engine.store.advanceJournal(journalId, "placed");
        __crashAt("publish:placed");
      });
      return p;
    } catch (e) {
      if (!(e instanceof TargetExistsError)) throw e;
      p = { ...p, target: await freeTarget(engine, p.requested) };
      await engine.store.advanceJournal(journalId, "placing", p);
    }
  }
}

async function finishPublish(engine: Engine, journalId: number, p: PublishPayload): Promise<PublishResult> {
  const st = await stat(libraryAbs(engine.root, p.target));
  const { fileId, retireJournalId } = await engine.store.commitPublish(journalId, p, st.mtimeMs);
  __crashAt("publish:committed");
  engine.ctx.events.publish("series_changed", p.seriesId);
  const result: PublishResult = { fileId, path: p.target, sha256: p.sha256, size: p.size };
  if (retireJournalId !== null && p.retireAfter)
    result.retired = await executeRetire(engine, retireJournalId, p.retireAfter);
  return result;
}

export async function publish(engine: Engine, input: PublishInput): Promise<PublishResult> {
  const series = await engine.ctx.repos.series.get(input.seriesId);
  if (!series) throw new AppError("series_not_found", `series ${input.seriesId} does not exist`);
  const requested = checkTargetRelPath(input.targetRelPath, series.folder);
  const staged = await checkStagedPath(input.stagedPath, engine.staging);
  const file = checkPublishFile(input.file);
  const release = input.release ? checkPublishRelease(input.release) : null;
  const chain = input.retireAfter
    ? { ids: checkFileIds(input.retireAfter.fileIds), reason: checkReason(input.retireAfter.reason) }
    : null;
  const keys = [`path:${requested}`, `staged:${staged}`, ...(chain ? await fileLockKeys(engine, chain.ids) : [])];

  return engine.lock.run(keys, async () => {
    const st = await statOrNull(staged);
    if (!st?.isFile())
      throw new AppError("invalid_field", `stagedPath ${staged} is not a regular file`, { field: "stagedPath" });
    await fsyncFile(staged);
    const sha256 = await sha256File(staged);
    const retireAfter = chain ? await planRetire(engine, chain.ids, chain.reason, true) : null;
    const payload: PublishPayload = {
      v: 1,
      seriesId: series.id,
      staged: path.relative(engine.staging, staged).split(path.sep).join("/"),
      requested,
      target: await freeTarget(engine, requested),
      sha256,
      size: (await stat(staged)).size,
      file,
      release,
      retireAfter,
      // Alone on its database no other instance takes work over: nothing to fence.
      ...(input.claim && !engine.ctx.cluster.exclusive ? { claim: input.claim } : {}),
    };
    __crashAt("publish:prepared");
    const journalId = await engine.store.beginJournal("publish", "placing", payload);
    __crashAt("publish:journaled");
    const placed = await place(engine, journalId, payload);
    __crashAt("publish:unstaged");
    return finishPublish(engine, journalId, placed);
  });
}

/**
 * An interrupted publication is finished whenever its bytes are intact (the caller handed over a
 * complete file): from the library name when the file got there, else from the staged name. Only
 * when neither holds the journaled bytes is it given up.
 */
export async function recoverPublish(
  engine: Engine,
  entry: Extract<JournalEntry, { op: "publish" }>,
): Promise<"replayed" | "rolledBack"> {
  let p = entry.payload;
  const staged = stagedAbs(engine, p);
  const target = libraryAbs(engine.root, p.target);
  const [stagedSt, targetSt] = await Promise.all([statOrNull(staged), statOrNull(target)]);
  const intact = async (abs: string, st: typeof stagedSt) =>
    st?.isFile() === true && st.size === p.size && (await sha256File(abs)) === p.sha256;

  if (stagedSt && targetSt && sameFile(stagedSt, targetSt)) {
    await dropSecondName(staged);
  } else if (!stagedSt && (await intact(target, targetSt))) {
    // Placed (and the staged name gone); only the commit is missing.
  } else if (await intact(staged, stagedSt)) {
    p = { ...p, target: await freeTarget(engine, p.target) };
    await engine.store.advanceJournal(entry.id, "placing", p);
    p = await place(engine, entry.id, p);
  } else {
    engine.ctx.log(`publication ${entry.id}: the bytes of ${p.target} are neither staged nor placed; given up`);
    await engine.store.endJournal(entry.id);
    return "rolledBack";
  }
  await finishPublish(engine, entry.id, p);
  return "replayed";
}
