/**
 * Retirement: library files move into the recycle bin (a rename on the same filesystem), their
 * rows become `recycled` with a bin entry each. All or nothing per call.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { AppError } from "../errors.ts";
import { dropSecondName, ensureDir, moveNoClobber, sameFile, sha256File, statOrNull } from "./durable-fs.ts";
import {
  type JournalEntry,
  type RetireFilePlan,
  type RetirePayload,
} from "./journal.ts";
import { binFolderName, libraryAbs } from "./library-paths.ts";
import { checkFileIds, checkReason } from "./publication-input.ts";
import { __crashAt, type Engine, type RetiredFile } from "./publication-core.ts";

export const binAbs = (engine: Engine, binRel: string) => path.join(engine.bin, ...binRel.split("/"));

/** Lock keys of files by id and path (a publication to the same path waits too). */
export async function fileLockKeys(engine: Engine, ids: number[]): Promise<string[]> {
  const rows = await engine.store.filePaths(ids);
  return rows.flatMap((r) => [`file:${r.id}`, `path:${r.path}`]);
}

/**
 * The plan of a retirement, checked under the lock: every file is an active row whose bytes are on
 * disk at its path with the recorded size and sha256 (otherwise what the caller reviewed is not
 * what would move: `snapshot_stale`).
 */
export async function planRetire(
  engine: Engine,
  ids: number[],
  reason: string,
  forward: boolean,
): Promise<RetirePayload> {
  const rows = await engine.store.files(ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const folder = binFolderName(new Date(), randomBytes(4).toString("hex"));
  const files: RetireFilePlan[] = [];
  for (const id of ids) {
    const row = byId.get(id);
    if (!row) throw new AppError("file_not_found", `file ${id} does not exist`, { fileId: id });
    if (row.state !== "active")
      throw new AppError("nothing_to_retire", `file ${id} is ${row.state}, not active`, { fileId: id });
    const abs = libraryAbs(engine.root, row.path);
    const st = await statOrNull(abs);
    const stale = (why: string) =>
      new AppError("snapshot_stale", `file ${id} (${row.path}) ${why}: scan the library and review again`, {
        fileId: id,
      });
    if (!st?.isFile()) throw stale("is not on disk");
    if (st.size !== Number(row.size) || (await sha256File(abs)) !== row.sha256)
      throw stale("changed on disk since it was recorded");
    files.push({
      fileId: id,
      seriesId: row.seriesId,
      from: row.path,
      bin: `${folder}/${row.path}`,
      size: st.size,
      sha256: row.sha256,
    });
  }
  return { v: 1, reason, forward, files };
}

/** Moves the planned files into the bin and commits. A plain retirement that fails midway is undone. */
export async function executeRetire(engine: Engine, journalId: number, plan: RetirePayload): Promise<RetiredFile[]> {
  const moved: RetireFilePlan[] = [];
  try {
    for (const f of plan.files) {
      const to = binAbs(engine, f.bin);
      await ensureDir(path.dirname(to));
      await engine.store.holdJournal(journalId);
      await moveNoClobber(libraryAbs(engine.root, f.from), to, () => __crashAt("retire:linked"));
      moved.push(f);
      __crashAt("retire:moved");
    }
  } catch (e) {
    // A chained retirement belongs to a committed publication: recovery finishes it at the next start.
    if (!plan.forward) await undoMoves(engine, journalId, plan);
    throw e;
  }
  await engine.store.advanceJournal(journalId, "moved");
  __crashAt("retire:all-moved");
  return commit(engine, journalId, plan, moved, []);
}

/** Puts moved files back (a file caught between its link and its unlink just loses its bin name). */
async function putBack(engine: Engine, plan: RetirePayload): Promise<void> {
  for (const f of [...plan.files].reverse()) {
    const from = libraryAbs(engine.root, f.from);
    const to = binAbs(engine, f.bin);
    const [fromSt, binSt] = await Promise.all([statOrNull(from), statOrNull(to)]);
    if (binSt && fromSt && sameFile(fromSt, binSt)) await dropSecondName(to);
    else if (binSt && !fromSt) await moveNoClobber(to, from);
  }
}

/**
 * Undoes a failed retirement. The entry says so first ("undoing", under its claim): an instance
 * that stalled past its lease, whose entry another instance's recovery finished meanwhile, moves
 * nothing back out of the bin; and a recovery of an entry that is being undone undoes it too. If
 * the undo fails, the entry stays and recovery finishes the undo.
 */
async function undoMoves(engine: Engine, journalId: number, plan: RetirePayload): Promise<void> {
  try {
    await engine.store.advanceJournal(journalId, "undoing");
    await putBack(engine, plan);
    await engine.store.endJournal(journalId);
  } catch (e) {
    engine.ctx.log(
      `retirement ${journalId}: could not undo (${(e as Error).message}); recovery will finish it at the next start`,
    );
  }
}

async function commit(
  engine: Engine,
  journalId: number,
  plan: RetirePayload,
  moved: RetireFilePlan[],
  lost: number[],
): Promise<RetiredFile[]> {
  const entries = await engine.store.commitRetire(journalId, plan, moved, lost, new Date());
  __crashAt("retire:committed");
  for (const seriesId of new Set(
    [...moved, ...plan.files.filter((f) => lost.includes(f.fileId))].map((f) => f.seriesId),
  )) {
    engine.ctx.events.publish("series_changed", seriesId);
  }
  return moved.map((f) => ({
    fileId: f.fileId,
    recycleEntryId: entries.get(f.fileId) as number,
    from: f.from,
    binPath: f.bin,
  }));
}

export async function retire(engine: Engine, fileIds: number[], reason: string): Promise<RetiredFile[]> {
  const ids = checkFileIds(fileIds);
  const why = checkReason(reason);
  return engine.lock.run(await fileLockKeys(engine, ids), async () => {
    const plan = await planRetire(engine, ids, why, false);
    const journalId = await engine.store.beginJournal("retire", "moving", plan);
    __crashAt("retire:journaled");
    return executeRetire(engine, journalId, plan);
  });
}

/**
 * An interrupted retirement: undone when no file reached the bin (unless it is chained to a
 * committed publication), otherwise finished file by file from what is on disk.
 */
export async function recoverRetire(
  engine: Engine,
  entry: Extract<JournalEntry, { op: "retire" }>,
): Promise<"replayed" | "rolledBack"> {
  const p = entry.payload;
  if (entry.step === "undoing") {
    await putBack(engine, p);
    await engine.store.endJournal(entry.id);
    return "rolledBack";
  }
  const inBin = await Promise.all(p.files.map((f) => statOrNull(binAbs(engine, f.bin))));
  if (!p.forward && inBin.every((s) => s === null)) {
    await engine.store.endJournal(entry.id);
    return "rolledBack";
  }
  const moved: RetireFilePlan[] = [];
  const lost: number[] = [];
  for (const f of p.files) {
    const from = libraryAbs(engine.root, f.from);
    const to = binAbs(engine, f.bin);
    const [fromSt, binSt] = await Promise.all([statOrNull(from), statOrNull(to)]);
    if (binSt) {
      // Linked, not yet unlinked. A different file at the old path is someone else's: it stays.
      if (fromSt && sameFile(fromSt, binSt)) await dropSecondName(from);
      moved.push(f);
    } else if (fromSt?.isFile()) {
      if (fromSt.size === f.size && (await sha256File(from)) === f.sha256) {
        await ensureDir(path.dirname(to));
        await moveNoClobber(from, to);
        moved.push(f);
      } else {
        // Changed since it was planned: not what was reviewed, so it stays (the next scan records the change).
        engine.ctx.log(`retirement ${entry.id}: ${f.from} changed since it was planned; left in the library`);
      }
    } else {
      engine.ctx.log(`retirement ${entry.id}: ${f.from} vanished outside the service; recorded as missing`);
      lost.push(f.fileId);
    }
  }
  await commit(engine, entry.id, p, moved, lost);
  return "replayed";
}
