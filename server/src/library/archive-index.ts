/**
 * What a library scan needs from a CBZ: page names in reading order, the ComicInfo.xml text and
 * what was skipped. Built on the hardened reader (archive-reader.ts): the central directory is
 * judged and ComicInfo is read and CRC-checked; no image entry is read or decoded.
 */
import { stat } from "node:fs/promises";
import { withArchive, type ArchiveOpenOptions } from "./archive-reader.ts";
import { sha256File } from "./durable-fs.ts";

export {
  ArchiveError,
  DEFAULT_ARCHIVE_LIMITS,
  isUnsafeName,
  naturalCompare,
  naturalComparePaths,
  type ArchiveErrorCode,
  type ArchiveLimits,
  type ArchiveOpenOptions,
} from "./archive-reader.ts";

export interface ArchiveIndex {
  pageCount: number;
  /** Image entry paths as stored in the archive, in natural order (page2 before page10). */
  pageNames: string[];
  /** Text of the root ComicInfo.xml; null when the archive has none. */
  comicInfoXml: string | null;
  /** File entries that are neither pages nor the ComicInfo (directories are not listed). */
  ignoredEntries: string[];
}

export async function readArchiveIndex(absPath: string, limits?: ArchiveOpenOptions): Promise<ArchiveIndex> {
  return withArchive(absPath, limits, async (archive) => ({
    pageCount: archive.pages.length,
    pageNames: archive.pages.map((p) => p.name),
    comicInfoXml: archive.comicInfoXml,
    ignoredEntries: [...archive.ignored],
  }));
}

/** Lowercase hex SHA-256 of a file, streamed. */
/** One hashing function for the whole service (durable-fs.ts); re-exported for the scan. */
export { sha256File };

export async function statFile(absPath: string): Promise<{ size: number; mtimeMs: number }> {
  const s = await stat(absPath);
  return { size: s.size, mtimeMs: Math.trunc(s.mtimeMs) };
}
