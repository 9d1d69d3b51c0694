/**
 * The file-system moves of the publication module, made durable: fsync of files and directories,
 * and a no-clobber move (a hard link, then the old name removed) so that an existing file is never
 * overwritten, whatever else writes into the library meanwhile.
 */
import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { link, lstat, mkdir, open, rename, rmdir, unlink } from "node:fs/promises";
import path from "node:path";

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException).code;

/** The lstat of a path, or null when nothing is there. */
export async function statOrNull(p: string): Promise<Stats | null> {
  try {
    return await lstat(p);
  } catch (e) {
    // ENAMETOOLONG: a path the system cannot have holds nothing either.
    if (errno(e) === "ENOENT" || errno(e) === "ENOTDIR" || errno(e) === "ENAMETOOLONG") return null;
    throw e;
  }
}

/** Lowercase hex SHA-256 of a file: 1 MiB reads into one reused buffer (twice the throughput of a default stream). */
export async function sha256File(p: string, buf: Buffer = Buffer.allocUnsafe(1024 * 1024)): Promise<string> {
  const hash = createHash("sha256");
  const fh = await open(p, "r");
  try {
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      hash.update(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
    }
  } finally {
    await fh.close();
  }
  return hash.digest("hex");
}

/** Two names of one file (a hard link made by `moveNoClobber` before its old name went away). */
export function sameFile(a: Stats, b: Stats): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

/** Flushes a file's bytes to the disk. */
export async function fsyncFile(p: string): Promise<void> {
  const fh = await open(p, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Flushes a directory's entries (a rename or link is durable only after this). */
export async function fsyncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, "r");
  } catch (e) {
    // Platforms without directory handles (Windows) cannot fsync a directory; nothing more to do.
    if (errno(e) === "EISDIR" || errno(e) === "EPERM" || errno(e) === "EACCES") return;
    throw e;
  }
  try {
    await fh.sync();
  } catch (e) {
    if (errno(e) !== "EINVAL" && errno(e) !== "EBADF" && errno(e) !== "EPERM") throw e;
  } finally {
    await fh.close();
  }
}

/** mkdir -p, fsyncing the parent of every directory it created so the new names survive a crash. */
export async function ensureDir(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let d = dir; (await statOrNull(d)) === null; d = path.dirname(d)) {
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  if (missing.length === 0) return;
  await mkdir(dir, { recursive: true });
  for (const d of missing) await fsyncDir(path.dirname(d));
}

export class TargetExistsError extends Error {
  constructor(readonly target: string) {
    super(`${target} already exists`);
  }
}

/** Link errors that mean "this filesystem has no hard links" (exFAT, some network shares). */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK"]);

/**
 * Gives `from` the new name `to` and removes the old name, never replacing a file at `to`
 * (TargetExistsError). Both directories are fsynced. Between the link and the unlink both names
 * exist (one file): recovery recognises that state with `sameFile` and finishes the move.
 * `afterNewName` runs once `to` exists durably (the journal advances there; the crash tests kill
 * the process there).
 */
export async function moveNoClobber(
  from: string,
  to: string,
  afterNewName: () => void | Promise<void> = () => {},
): Promise<void> {
  let linked = true;
  try {
    await link(from, to);
  } catch (e) {
    if (errno(e) === "EEXIST") throw new TargetExistsError(to);
    if (!NO_LINKS.has(errno(e) ?? "")) throw e;
    linked = false;
  }
  if (linked) {
    await fsyncDir(path.dirname(to));
    await afterNewName();
    await unlink(from);
  } else {
    // No hard links here: check, then rename. Only another process could slip in between; the
    // service's own writers are serialised by the publication lock.
    if ((await statOrNull(to)) !== null) throw new TargetExistsError(to);
    await rename(from, to);
    await fsyncDir(path.dirname(to));
    await afterNewName();
  }
  await fsyncDir(path.dirname(from));
}

/** Removes the old name of a file that already has its new one (recovery of an interrupted move). */
export async function dropSecondName(oldName: string): Promise<void> {
  await unlink(oldName);
  await fsyncDir(path.dirname(oldName));
}

/** Removes now-empty directories from `dir` up to (not including) `stop`. Never a file. */
export async function removeEmptyDirs(dir: string, stop: string): Promise<void> {
  for (let d = dir; d.startsWith(stop + path.sep) && d !== stop; d = path.dirname(d)) {
    try {
      await rmdir(d);
    } catch {
      return;
    }
  }
}
