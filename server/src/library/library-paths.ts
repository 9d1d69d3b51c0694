/**
 * Where the publication module may put and take files: target paths inside a series folder, free
 * names beside a taken one, staged files inside the staging folder, and recycle-bin paths.
 */
import { realpath } from "node:fs/promises";
import path from "node:path";
import { safeName } from "../domain/safe-names.ts";
import { AppError } from "../errors.ts";

const ARCHIVE_EXT = /\.(cbz|zip)$/i;

/**
 * A library path (relative to LIBRARY_ROOT, forward slashes) inside `seriesFolder`, or
 * `invalid_field`: no traversal, no absolute path, no backslash, no dot-segment (dot-folders hold
 * the service's state and the scan skips them), portable names, and an archive extension the scan
 * reads (a file it cannot see would be marked missing by the next scan).
 */
export function checkTargetRelPath(rel: unknown, seriesFolder: string): string {
  const refuse = (why: string): never => {
    throw new AppError("invalid_field", `targetRelPath ${JSON.stringify(rel)}: ${why}`, { field: "targetRelPath" });
  };
  if (typeof rel !== "string" || rel.length === 0 || rel.length > 1000) return refuse("must be a non-empty path");
  if (rel.includes("\\") || rel.includes("\0")) return refuse("use forward slashes only");
  if (rel.startsWith("/") || /^[a-zA-Z]:/.test(rel)) return refuse("must be relative to the library root");
  const segments = rel.split("/");
  if (segments[0] !== seriesFolder) return refuse(`must lie inside the series folder ${JSON.stringify(seriesFolder)}`);
  const inside = segments.slice(1);
  if (inside.length === 0) return refuse("names no file");
  for (const s of inside) {
    if (s === "" || s === "." || s === "..") return refuse("has an empty, '.' or '..' segment");
    if (s.startsWith(".")) return refuse("has a hidden segment");
    if (safeName(s, 255) !== s) return refuse(`segment ${JSON.stringify(s)} is not a portable file name`);
  }
  if (!ARCHIVE_EXT.test(rel)) return refuse("must end in .cbz or .zip");
  return rel;
}

/** `rel` first, then "name (2).cbz", "name (3).cbz", …: the names tried when `rel` is taken. */
export function* freeNameCandidates(rel: string, max = 999): Generator<string> {
  yield rel;
  const dot = rel.lastIndexOf(".");
  const stem = rel.slice(0, dot);
  const ext = rel.slice(dot);
  for (let n = 2; n <= max; n++) yield `${stem} (${n})${ext}`;
}

/** Absolute path of a library-relative path. */
export function libraryAbs(libraryRoot: string, rel: string): string {
  return path.join(libraryRoot, ...rel.split("/"));
}

function isInside(child: string, parent: string): boolean {
  const r = path.relative(parent, child);
  return r !== "" && !r.startsWith("..") && !path.isAbsolute(r);
}

/** The staged file, checked to lie inside the staging folder (also after resolving symbolic links). */
export async function checkStagedPath(staged: unknown, stagingDir: string): Promise<string> {
  const refuse = (why: string): never => {
    throw new AppError("invalid_field", `stagedPath ${JSON.stringify(staged)}: ${why}`, { field: "stagedPath" });
  };
  if (typeof staged !== "string" || !path.isAbsolute(staged)) return refuse("must be an absolute path");
  const resolved = path.resolve(staged);
  if (!isInside(resolved, stagingDir)) return refuse(`must lie inside ${stagingDir}`);
  let realDir: string;
  let realStaging: string;
  try {
    [realDir, realStaging] = await Promise.all([realpath(path.dirname(resolved)), realpath(stagingDir)]);
  } catch {
    return refuse("does not exist");
  }
  if (realDir !== realStaging && !isInside(realDir, realStaging)) return refuse("leads outside the staging folder");
  return resolved;
}

/**
 * A fresh folder name for one retirement in the recycle bin ("20261121T070840Z-1a2b3c4d"); the
 * files keep their library path under it, so an operator can find them by hand.
 */
export function binFolderName(now: Date, random: string): string {
  return `${now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z")}-${random}`;
}
