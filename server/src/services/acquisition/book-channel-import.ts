/**
 * Importing the requested books of a completed torrent. The client's paths are mapped through the
 * mount mapping and refused when they leave it (`..`, another prefix, a symbolic link anywhere on
 * the way). Each book file is COPIED into staging (the client keeps seeding its own bytes; nothing
 * of its is moved), opened through the hardened archive reader, every page header checked, and
 * published through the publication module. Files of books nobody asked for stay where they are.
 * A requested book no file is named for, or that several files are named for, waits for an
 * operator to assign it a file (`domain/torrent-assignment.ts`); the same import then publishes it.
 */
import { randomBytes } from "node:crypto";
import { constants, createWriteStream } from "node:fs";
import { lstat, open, realpath, rm } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { stateDirs } from "../../config.ts";
import { volumeTag } from "../../domain/assembly.ts";
import type { Label } from "../../domain/labels.ts";
import { matchRequestedBooks, type PendingBook } from "../../domain/torrent-assignment.ts";
import { safeNameWithTail } from "../../domain/safe-names.ts";
import { AppError } from "../../errors.ts";
import { openArchive } from "../../library/archive-reader.ts";
import type { Publication } from "../../library/publication.ts";
import type { QbtFile, QbtTorrent } from "../../providers/qbittorrent.ts";
import { torrentRepo, type TorrentJobRow } from "../../repositories/torrent-repo.ts";
import type { MountMapping } from "./book-channel-settings.ts";
import type { AppContext } from "../context.ts";
import { isLibraryFolderAway, mkdirStaging } from "../../library/library-root.ts";

const outside = (what: string): never => {
  throw new AppError("torrent_path_outside_mount", what);
};

/** A client path → the local path under the mount, refusing anything that is not strictly inside it. */
export function mapClientPath(clientPath: string, mount: MountMapping): string {
  if (!path.posix.isAbsolute(clientPath) || clientPath.split("/").includes("..") || clientPath.includes("\0"))
    outside(`${JSON.stringify(clientPath)} is not a plain absolute path`);
  const rel = path.posix.relative(mount.clientPath, path.posix.normalize(clientPath));
  if (rel.startsWith("..") || path.posix.isAbsolute(rel))
    outside(`${JSON.stringify(clientPath)} is outside the client's ${JSON.stringify(mount.clientPath)}`);
  return rel === "" ? mount.localPath : path.join(mount.localPath, ...rel.split("/"));
}

/**
 * The local path exists, neither it nor any folder between the mount and it is a symbolic link, and
 * its real path stays under the mount's real path.
 */
export async function checkLocal(local: string, mount: MountMapping, mountReal: string): Promise<void> {
  const rel = path.relative(mount.localPath, local);
  let at = mount.localPath;
  for (const part of rel === "" ? [] : rel.split(path.sep)) {
    at = path.join(at, part);
    const st = await lstat(at).catch(() => null);
    if (!st) throw new AppError("not_found", `${local} is not on disk (is the mount mapping right?)`);
    if (st.isSymbolicLink()) outside(`${at} is a symbolic link`);
  }
  const real = await realpath(local);
  if (real !== mountReal && !real.startsWith(mountReal + path.sep))
    outside(`${local} resolves outside the mount (${mountReal})`);
}

/** Copies without following a link at the last step (O_NOFOLLOW), only a regular file, never over an existing name. */
export async function copyIntoStaging(src: string, dest: string): Promise<void> {
  const fh = await open(src, constants.O_RDONLY | constants.O_NOFOLLOW).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ELOOP") outside(`${src} is a symbolic link`);
    throw e;
  });
  try {
    if (!(await fh.stat()).isFile()) outside(`${src} is not a regular file`);
    await mkdirStaging(path.dirname(dest));
    await pipeline(fh.createReadStream({ autoClose: false }), createWriteStream(dest, { flags: "wx", mode: 0o644 }));
  } finally {
    await fh.close();
  }
}

/** Opens the staged copy through the hardened reader; every page's header is read. Returns the page count. */
export async function checkArchive(ctx: AppContext, staged: string): Promise<number> {
  const archive = await openArchive(staged, ctx.config.archiveLimits);
  try {
    if (archive.pages.length === 0) throw new AppError("archive_unreadable", "the archive holds no page");
    for (let i = 0; i < archive.pages.length; i++) await archive.readPage(i);
    return archive.pages.length;
  } finally {
    await archive.close();
  }
}

export interface ImportOutcome {
  /** Library file ids published for this job. */
  imported: number[];
  /** Books owned meanwhile (another source, or this job before a restart). */
  alreadyOwned: Label[];
  /** Books whose file was refused (unreadable archive, a link, …): "v2: <code>: <why>". */
  failed: string[];
  /** Books waiting for an operator to assign them a file of the torrent. */
  pending: PendingBook[];
  /** The library folder went away during the import: the rest waits for it (the job is taken up again). */
  waitingForLibrary?: boolean;
}

/**
 * A book that could not be imported, noted in the outcome; false when the import stops there: the
 * library folder is gone (library-root.ts), which is no fault of the torrent, so the rest waits.
 */
export function noteBookFailure(out: ImportOutcome, book: Label, e: unknown): boolean {
  if (isLibraryFolderAway(e)) {
    out.waitingForLibrary = true;
    return false;
  }
  const code = e instanceof AppError ? e.code : ((e as { code?: string }).code ?? "error");
  out.failed.push(`v${book}: ${code}: ${(e as Error).message}`);
  return true;
}

/** Where the torrent's content is, on this side of the mount, checked. */
export interface TorrentPlace {
  mount: MountMapping;
  mountReal: string;
  /** The client's content path, normalised. */
  content: string;
  savePath: string;
}

export async function placeOf(torrent: QbtTorrent, mount: MountMapping): Promise<TorrentPlace> {
  const mountReal = await realpath(mount.localPath).catch(() =>
    outside(`the mount's local path ${mount.localPath} is not on disk`),
  );
  await checkLocal(mapClientPath(torrent.contentPath, mount), mount, mountReal);
  return { mount, mountReal, content: path.posix.normalize(torrent.contentPath), savePath: torrent.savePath };
}

/** A file of the torrent (its name as the client lists it) → its local path, refused outside the content path. */
export function localFileOf(place: TorrentPlace, name: string): string {
  const clientFile = path.posix.join(place.savePath, name);
  if (clientFile !== place.content && !clientFile.startsWith(`${place.content}/`))
    outside(`${JSON.stringify(name)} lies outside the torrent's content path`);
  return mapClientPath(clientFile, place.mount);
}

/**
 * One file of the torrent published as book `book` of the series: checked on the way (mount, links),
 * copied into staging, read through the hardened reader, published. The library file's id.
 */
export async function importBookFile(
  ctx: AppContext,
  publication: Pick<Publication, "publish">,
  job: TorrentJobRow,
  series: { id: number; title: string; folder: string; language: string },
  book: Label,
  local: string,
  place: TorrentPlace,
): Promise<number> {
  const staging = path.join(stateDirs(ctx.config).staging, "torrents");
  const staged = path.join(staging, `${job.id}-${randomBytes(6).toString("hex")}.cbz`);
  try {
    await checkLocal(local, place.mount, place.mountReal);
    await copyIntoStaging(local, staged);
    const pageCount = await checkArchive(ctx, staged);
    const published = await publication.publish({
      seriesId: series.id,
      stagedPath: staged,
      targetRelPath: `${series.folder}/${safeNameWithTail(series.title, " ", `v${volumeTag(book)}`, 170)}.cbz`,
      file: {
        kind: "book",
        volume: book,
        chapter: null,
        chapterEnd: null,
        part: null,
        pageCount,
        language: series.language,
        origin: "download",
        tagSource: "filename",
      },
      release: {
        kind: "volume",
        volume: book,
        chapter: null,
        part: null,
        language: series.language,
        assembledFrom: null,
        externalId: `btih:${job.infoHash}`,
      },
    });
    return published.fileId;
  } catch (e) {
    // Refused before the journal took it: the staged copy is ours to drop.
    await rm(staged, { force: true });
    throw e;
  }
}

export async function importTorrentBooks(
  ctx: AppContext,
  publication: Pick<Publication, "publish">,
  job: TorrentJobRow,
  torrent: QbtTorrent,
  files: QbtFile[],
  mount: MountMapping,
): Promise<ImportOutcome> {
  const series = await ctx.repos.series.get(job.seriesId);
  if (!series) throw new AppError("series_not_found", `series ${job.seriesId} does not exist`);
  const place = await placeOf(torrent, mount);
  // Every file must lie under the content path, whether it is imported or not.
  const locals = new Map(files.map((f) => [f.name, localFileOf(place, f.name)]));
  const requested = job.books as Label[];
  const { found, pending } = matchRequestedBooks(requested, files, series.title);
  const repo = torrentRepo(ctx.db);

  const out: ImportOutcome = { imported: [...job.imported], alreadyOwned: [], failed: [], pending: [] };
  // A book owned meanwhile (another source) waits for nothing.
  for (const p of pending) if ((await repo.ownedBook(series.id, p.book)) === null) out.pending.push(p);
  for (const [book, name] of found) {
    // Owned meanwhile (another source, or this job before a restart): nothing to import twice.
    if ((await repo.ownedBook(series.id, book)) !== null) {
      out.alreadyOwned.push(book);
      continue;
    }
    try {
      out.imported.push(await importBookFile(ctx, publication, job, series, book, locals.get(name)!, place));
    } catch (e) {
      if (!noteBookFailure(out, book, e)) break;
    }
  }
  return out;
}
