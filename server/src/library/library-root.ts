/**
 * LIBRARY_ROOT is never created by a write. When it is gone (an unmounted disk or share), creating
 * it again, directly or through a staging folder below it, would put new files on the bare mount
 * point, hidden once the disk is back, and the next scan would take the library for emptied. So a
 * folder a write needs below the root is made only while the root is there; otherwise the write
 * stops with `library_root_missing` and nothing is written until the root is back.
 */
import { mkdir, opendir, stat } from "node:fs/promises";
import path from "node:path";
import { STAGING_FOLDER } from "../config.ts";
import { AppError, isAppError } from "../errors.ts";
import type { AppContext } from "../services/context.ts";

export async function libraryRootPresent(root: string): Promise<boolean> {
  return stat(root).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** A series folder: a folder directly under LIBRARY_ROOT; dot-folders are the service's own state and other tools'. */
export const isSeriesFolder = (e: { name: string; isDirectory(): boolean }): boolean =>
  e.isDirectory() && !e.name.startsWith(".");

/**
 * The library folder as the background work sees it: `missing`; `empty` when it holds no series
 * folder while active files are recorded (the empty mount point of an unmounted disk, or one that
 * cannot be listed), where downloads, translations, torrent imports and the scheduled scan wait as
 * for a missing one; otherwise `present`. A library emptied on purpose is recorded by an operator's
 * scan: its files are then missing, no longer active. `filesRecorded` is asked only for a folder
 * without one.
 */
export async function libraryRootState(
  root: string,
  filesRecorded: () => Promise<boolean>,
): Promise<"present" | "missing" | "empty"> {
  if (!(await libraryRootPresent(root))) return "missing";
  try {
    // The first series folder settles it: a large library is not listed whole.
    for await (const e of await opendir(root)) if (isSeriesFolder(e)) return "present";
  } catch {
    // Cannot be listed (a share that went away under its mount point): as one without folders.
  }
  return (await filesRecorded()) ? "empty" : "present";
}

const missingError = (root: string) =>
  new AppError(
    "library_root_missing",
    `the library folder ${root} is missing (is its disk mounted?): nothing is written until it is back`,
  );

export async function requireLibraryRoot(root: string): Promise<void> {
  if (!(await libraryRootPresent(root))) throw missingError(root);
}

/**
 * Before a new series folder or a published file: the folder there and, unlike requireLibraryRoot,
 * not an empty mount point either. A series folder made on the bare mount point would make the
 * library look mounted again: the scheduled scan would then mark every recorded file missing and
 * the Wanted pass fetch them all again, into the wrong place.
 */
export async function requireLibraryFolder(root: string, filesRecorded: () => Promise<boolean>): Promise<void> {
  const state = await libraryRootState(root, filesRecorded);
  if (state === "missing") throw missingError(root);
  if (state === "empty")
    throw new AppError(
      "library_root_empty",
      `the library folder ${root} holds no series folder while files are recorded in it (is its disk mounted?): nothing is written until the folders are back; if you emptied it on purpose, scan the library to record that`,
    );
}

type LibraryOf = Pick<AppContext, "config" | "repos">;

/** libraryRootState of the service's own library and recorded files. */
export const libraryFolderState = (ctx: LibraryOf) =>
  libraryRootState(ctx.config.libraryRoot, () => ctx.repos.files.anyActive());

/** requireLibraryFolder of the service's own library and recorded files (503 while it is away). */
export const requireLibraryFolderOf = (ctx: LibraryOf) =>
  requireLibraryFolder(ctx.config.libraryRoot, () => ctx.repos.files.anyActive());

/** The refusals above: work that meets one waits for the folder (retried), it is nobody's failure. */
export const isLibraryFolderAway = (e: unknown): boolean =>
  isAppError(e) && (e.code === "library_root_missing" || e.code === "library_root_empty");

/** mkdir -p for a folder of the staging area (LIBRARY_ROOT/.staging/…), never creating LIBRARY_ROOT. */
export async function mkdirStaging(dir: string): Promise<void> {
  const parts = path.resolve(dir).split(path.sep);
  const at = parts.lastIndexOf(STAGING_FOLDER);
  if (at < 1) throw new Error(`${dir} is not in the staging area`);
  await requireLibraryRoot(parts.slice(0, at).join(path.sep) || path.sep);
  await mkdir(dir, { recursive: true });
}
