/**
 * The source archive of a translation job in staging: an uploaded body streamed to disk (hashed on
 * the way, bounded by its Content-Length and the archive size limit), then judged by the hardened
 * archive reader (image ZIP/CBZ only, every page read and its header checked) and refused when it
 * names several books or chapters (a pack: split it first). Each attempt has its own directory, so
 * a late result of an older attempt can never land in a newer one's files.
 */
import { createHash, randomUUID } from "node:crypto";
import { copyFile, open as openFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { stateDirs, type Config } from "../../config.ts";
import { parseComicInfo } from "../../domain/comicinfo.ts";
import { parseFileName } from "../../domain/filename.ts";
import { labelEquals, type Label } from "../../domain/labels.ts";
import { AppError } from "../../errors.ts";
import { fsyncDir, fsyncFile } from "../../library/durable-fs.ts";
import { withArchive } from "../../library/archive-reader.ts";
import { mkdirStaging } from "../../library/library-root.ts";

export const SOURCE_FILE_NAME = "source.cbz";

/** Where one attempt keeps its source archive (and, for the worker, its result and checkpoints). */
export function translationStagingDir(
  config: Pick<Config, "libraryRoot" | "dataDir">,
  jobKey: string,
  attempt: number,
): string {
  return path.join(stateDirs(config).staging, "translations", `${jobKey}-${attempt}`);
}

const incomingDir = (config: Config) => path.join(stateDirs(config).staging, "translations", "incoming");

export interface StagedSource {
  /** Absolute path of the archive in staging. */
  path: string;
  sha256: string;
  size: number;
  pages: number;
}

/**
 * Streams the body `open` gives (exactly `length` bytes) to a new file in staging and hashes it. A body longer or
 * shorter than its Content-Length is refused and its partial file removed.
 */
export async function receiveBody(
  config: Config,
  open: () => ReadableStream<Uint8Array> | null,
  length: number,
): Promise<{ path: string; sha256: string; size: number }> {
  if (length > config.archiveLimits.maxTotalBytes) {
    throw new AppError(
      "archive_too_large",
      `the body is ${length} bytes; the archive limit is ${config.archiveLimits.maxTotalBytes}`,
    );
  }
  await mkdirStaging(incomingDir(config));
  const file = path.join(incomingDir(config), `${randomUUID()}.cbz`);
  const hash = createHash("sha256");
  const out = await openFile(file, "wx", 0o600);
  let size = 0;
  try {
    // Asked for only now: a body refused above was never touched, so the server can drain it.
    const body = open();
    if (body) {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        if (size > length) throw new AppError("bad_request", "the body is longer than its Content-Length");
        hash.update(chunk);
        await out.write(chunk);
      }
    }
    if (size !== length) throw new AppError("translation_source_incomplete", `received ${size} of ${length} bytes`);
    await out.sync();
    await out.close();
  } catch (e) {
    await out.close().catch(() => undefined);
    await rm(file, { force: true });
    throw e;
  }
  return { path: file, sha256: hash.digest("hex"), size };
}

/** A name (file name or ComicInfo title) that says it holds a range of books or chapters. */
function namesPack(name: string | null | undefined): boolean {
  if (!name) return false;
  const p = parseFileName(name.endsWith(".cbz") ? name : `${name}.cbz`);
  const range = (a: Label | null, b: Label | null) => a !== null && b !== null && !labelEquals(a, b);
  return range(p.volume, p.volumeEnd) || range(p.chapter, p.chapterEnd);
}

/**
 * Opens the staged archive with the hardened reader: its directory, its ComicInfo and every page
 * (size, CRC, image header against the pixel limit). Refuses an archive without pages and one whose
 * name or ComicInfo names a pack. Returns the page count.
 */
export async function checkSourceArchive(config: Config, file: string, fileName: string | null): Promise<number> {
  if (namesPack(fileName))
    throw new AppError(
      "translation_pack_refused",
      `${JSON.stringify(fileName)} names several books or chapters: split it into one archive per book first`,
    );
  return withArchive(file, config.archiveLimits, async (archive) => {
    if (archive.pages.length === 0)
      throw new AppError("translation_source_empty", "the archive holds no page image (image ZIP/CBZ only)");
    const ci = archive.comicInfoXml === null ? null : parseComicInfo(archive.comicInfoXml);
    if (ci && (namesPack(ci.title) || namesPack(ci.series))) {
      throw new AppError(
        "translation_pack_refused",
        "the archive's ComicInfo names several books or chapters: split it into one archive per book first",
      );
    }
    for (let i = 0; i < archive.pages.length; i++) await archive.readPage(i);
    return archive.pages.length;
  });
}

/** Moves a received archive into the attempt's own directory (durably). */
export async function placeSource(config: Config, received: string, jobKey: string, attempt: number): Promise<string> {
  const dir = translationStagingDir(config, jobKey, attempt);
  await mkdirStaging(dir);
  const target = path.join(dir, SOURCE_FILE_NAME);
  await rename(received, target);
  await fsyncDir(dir);
  return target;
}

/** A retry's copy of the previous attempt's source in its own directory. */
export async function copySource(config: Config, from: string, jobKey: string, attempt: number): Promise<string> {
  const dir = translationStagingDir(config, jobKey, attempt);
  await mkdirStaging(dir);
  const target = path.join(dir, SOURCE_FILE_NAME);
  await rm(target, { force: true });
  await copyFile(from, target);
  await fsyncFile(target);
  await fsyncDir(dir);
  return target;
}

/** Removes a received or placed source whose job could not be created. */
export async function discardSource(file: string): Promise<void> {
  await rm(file, { force: true });
}
