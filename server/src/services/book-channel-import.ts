/**
 * Importing the requested books of a completed torrent. The client's paths are mapped through the
 * mount mapping and refused when they leave it (`..`, another prefix, a symbolic link anywhere on
 * the way). Each book file is COPIED into staging (the client keeps seeding its own bytes; nothing
 * of its is moved), opened through the hardened archive reader, every page header checked, and
 * published through the publication module. Files of books nobody asked for stay where they are.
 */
import { randomBytes } from "node:crypto";
import { constants, createWriteStream } from "node:fs";
import { lstat, mkdir, open, realpath, rm } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { stateDirs } from "../config.ts";
import { volumeTag } from "../domain/assembly.ts";
import { parseFileName } from "../domain/filename.ts";
import { labelEquals, type Label } from "../domain/labels.ts";
import { safeName } from "../domain/safe-names.ts";
import { AppError } from "../errors.ts";
import { openArchive } from "../library/archive-reader.ts";
import type { Publication } from "../library/publication.ts";
import type { QbtFile, QbtTorrent } from "../providers/qbittorrent.ts";
import type { TorrentJobRow } from "../repositories/torrent-repo.ts";
import type { MountMapping } from "./book-channel-settings.ts";
import type { AppContext } from "./context.ts";

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
    await mkdir(path.dirname(dest), { recursive: true });
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
  /** Books of the request found nowhere in the torrent, or already owned meanwhile. */
  notFound: Label[];
  alreadyOwned: Label[];
  /** Books whose file was refused (unreadable archive, a link, …): "v2: <code>: <why>". */
  failed: string[];
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
  const mountReal = await realpath(mount.localPath).catch(() =>
    outside(`the mount's local path ${mount.localPath} is not on disk`),
  );
  const contentLocal = mapClientPath(torrent.contentPath, mount);
  await checkLocal(contentLocal, mount, mountReal);
  const content = path.posix.normalize(torrent.contentPath);

  const requested = job.books as Label[];
  const found = new Map<Label, string>();
  for (const f of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
    if (!/\.(cbz|zip)$/i.test(f.name)) continue;
    const clientFile = path.posix.join(torrent.savePath, f.name);
    if (clientFile !== content && !clientFile.startsWith(`${content}/`))
      outside(`${JSON.stringify(f.name)} lies outside the torrent's content path`);
    const p = parseFileName(path.posix.basename(f.name), { series: series.title });
    if (p.kind !== "book" || p.volume === null || p.volumeEnd !== null || p.extra || p.special) continue;
    const book = requested.find((b) => labelEquals(b, p.volume as Label));
    if (book !== undefined && !found.has(book)) found.set(book, mapClientPath(clientFile, mount));
  }

  const out: ImportOutcome = {
    imported: [...job.imported],
    notFound: requested.filter((b) => !found.has(b)),
    alreadyOwned: [],
    failed: [],
  };
  const staging = path.join(stateDirs(ctx.config).staging, "torrents");
  for (const [book, local] of found) {
    // Owned meanwhile (another source, or this job before a restart): nothing to import twice.
    const owned = await ctx.db.libraryFile.findFirst({
      where: { seriesId: series.id, kind: "book", volume: book, state: "active" },
      select: { id: true },
    });
    if (owned) {
      out.alreadyOwned.push(book);
      continue;
    }
    const staged = path.join(staging, `${job.id}-${randomBytes(6).toString("hex")}.cbz`);
    try {
      await checkLocal(local, mount, mountReal);
      await copyIntoStaging(local, staged);
      const pageCount = await checkArchive(ctx, staged);
      const published = await publication.publish({
        seriesId: series.id,
        stagedPath: staged,
        targetRelPath: `${series.folder}/${safeName(`${series.title} v${volumeTag(book)}`, 170)}.cbz`,
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
      out.imported.push(published.fileId);
    } catch (e) {
      // Refused before the journal took it: the staged copy is ours to drop.
      await rm(staged, { force: true });
      const code = e instanceof AppError ? e.code : ((e as { code?: string }).code ?? "error");
      out.failed.push(`v${book}: ${code}: ${(e as Error).message}`);
    }
  }
  return out;
}
