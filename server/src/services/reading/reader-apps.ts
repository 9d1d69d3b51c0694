/**
 * What the reader apps' APIs share (OPDS 1.2 and 2, KOReader sync, the Komga-compatible API): the
 * catalogue of series and files they may see — exactly what the REST API shows: every series and
 * its active files, nothing recycled or missing — file downloads, pages streamed from the archive
 * (through the same hardened reader and listing as the web reader) that record the reader's place,
 * and KOReader's document identities. The transports only translate these.
 */
import { createHash } from "node:crypto";
import { open, stat } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../../errors.ts";
import { compareLabels, parseLabel } from "../../domain/labels.ts";
import type { SeriesRow as Series } from "../../repositories/series-repo.ts";
import type { ReaderFileRow } from "../../repositories/reading-repo.ts";

/** The shapes the reader apps' routes present (rows as the repositories return them). */
export type { ReaderFileRow, Series as ReaderSeries };
import type { AppContext } from "../context.ts";
import type { FilePagesService, PageBytes } from "../series/file-pages-service.ts";
import { JPEG, pageAsJpeg } from "../../library/page-jpeg.ts";
import type { AuditService } from "../audit/audit-service.ts";
import { progressView, type FileProgress, type ReadingService } from "./reading-service.ts";

export interface SeriesSummary {
  series: Series;
  /** Active files. */
  fileCount: number;
  /** The file whose first page is the series' cover (first book, else first chapter); null when nothing is owned. */
  coverFileId: number | null;
  /** The newest change among the series and its active files. */
  lastModified: Date;
}

export interface SeriesPageQuery {
  search?: string | null;
  page: number;
  size: number;
}

/** A file's display name in the apps: "Volume 3", "Chapter 12", "Chapter 12 (part 2)", "Chapters 4–6". */
export function fileTitle(
  f: Pick<ReaderFileRow, "kind" | "volume" | "chapter" | "chapterEnd" | "part" | "path">,
): string {
  if (f.kind === "book")
    return f.volume !== null ? `Volume ${f.volume}` : path.posix.basename(f.path).replace(/\.[^.]+$/, "");
  if (f.chapter === null) return path.posix.basename(f.path).replace(/\.[^.]+$/, "");
  const range =
    f.chapterEnd !== null && f.chapterEnd !== f.chapter
      ? `Chapters ${f.chapter}–${f.chapterEnd}`
      : `Chapter ${f.chapter}`;
  return f.part !== null ? `${range} (part ${f.part})` : range;
}

export const fileName = (f: Pick<ReaderFileRow, "path">): string => path.posix.basename(f.path);

/** Media type of a library file for acquisition links and downloads. */
export function fileMediaType(f: Pick<ReaderFileRow, "path">): string {
  return /\.cbz$/i.test(f.path) ? "application/vnd.comicbook+zip" : "application/zip";
}

/** KOReader's partial MD5: 1 KiB samples at 0 and at 1024 × 4^i (i = 0…10), fed to one MD5, stopping at the file's end. */
export async function koreaderPartialMd5(absPath: string): Promise<string> {
  const fh = await open(absPath, "r");
  try {
    const hash = createHash("md5");
    const buf = Buffer.alloc(1024);
    for (let i = -1; i <= 10; i++) {
      // LuaJIT's bit.lshift(1024, -2) shifts by 30 (mod 32) and overflows to 0: the first sample is at 0.
      const offset = i < 0 ? 0 : 1024 * 4 ** i;
      const { bytesRead } = await fh.read(buf, 0, 1024, offset);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
    }
    return hash.digest("hex");
  } finally {
    await fh.close();
  }
}

export function readerAppsServices(
  ctx: AppContext,
  deps: { reading: ReadingService; audit: AuditService; filePages: FilePagesService },
) {
  const { reading } = deps;
  const repo = reading.repo;
  const abs = (f: ReaderFileRow) => path.join(ctx.config.libraryRoot, ...f.path.split("/"));

  async function activeFile(fileId: number): Promise<ReaderFileRow> {
    const f = Number.isSafeInteger(fileId) ? await repo.activeFile(fileId) : null;
    if (!f) throw new AppError("file_not_found", `no library file ${fileId} on disk`);
    return f;
  }

  async function seriesRow(seriesId: number): Promise<Series> {
    const s = Number.isSafeInteger(seriesId) ? await repo.series(seriesId) : null;
    if (!s) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    return s;
  }

  /** Every series with its counts and cover (two selects, no archive opened). */
  async function summaries(): Promise<SeriesSummary[]> {
    const [all, facts] = await Promise.all([repo.allSeries(), repo.activeFileFacts()]);
    const bySeries = new Map<number, typeof facts>();
    for (const f of facts) bySeries.set(f.seriesId, [...(bySeries.get(f.seriesId) ?? []), f]);
    return all.map((series) => {
      const files = bySeries.get(series.id) ?? [];
      const pick = (kind: string, key: "volume" | "chapter") =>
        files
          .filter((f) => f.kind === kind && f[key] !== null && parseLabel(f[key]!) !== null)
          .sort(
            (a, b) =>
              compareLabels(parseLabel(a[key]!)!, parseLabel(b[key]!)!) || (a.part ?? 0) - (b.part ?? 0) || a.id - b.id,
          )[0];
      const cover = pick("book", "volume") ?? pick("chapter", "chapter") ?? files[0];
      const lastModified = new Date(Math.max(series.updatedAt.getTime(), ...files.map((f) => f.updatedAt.getTime())));
      return { series, fileCount: files.length, coverFileId: cover?.id ?? null, lastModified };
    });
  }

  return {
    summaries,

    async seriesPage(q: SeriesPageQuery): Promise<{ items: SeriesSummary[]; total: number }> {
      const needle = (q.search ?? "").trim().toLowerCase();
      const all = (await summaries()).filter((s) => !needle || s.series.title.toLowerCase().includes(needle));
      return { items: all.slice(q.page * q.size, q.page * q.size + q.size), total: all.length };
    },

    async seriesSummary(seriesId: number): Promise<SeriesSummary> {
      await seriesRow(seriesId);
      return (await summaries()).find((s) => s.series.id === seriesId)!;
    },

    /** The series' active files in reading order, each with the user's place. */
    async seriesFiles(
      user: string,
      seriesId: number,
    ): Promise<{ series: Series; files: { file: ReaderFileRow; progress: FileProgress }[] }> {
      const series = await seriesRow(seriesId);
      const order = await reading.readingOrder(seriesId);
      const places = await reading.many(user, order);
      return { series, files: order.map((file) => ({ file, progress: places.get(file.id)! })) };
    },

    /** Newest files first. */
    async recent(user: string, take: number, skip = 0) {
      const files = await repo.recentFiles(take, skip);
      const places = await reading.many(user, files);
      const titles = new Map((await repo.allSeries()).map((s) => [s.id, s.title]));
      return {
        total: await repo.countActiveFiles(),
        items: files.map((file) => ({
          file,
          seriesTitle: titles.get(file.seriesId) ?? "",
          progress: places.get(file.id)!,
        })),
      };
    },

    async file(user: string, fileId: number): Promise<{ file: ReaderFileRow; series: Series; progress: FileProgress }> {
      const file = await activeFile(fileId);
      const series = await seriesRow(file.seriesId);
      return { file, series, progress: progressView(file, await repo.progress(user, file.id)) };
    },

    /** The file on disk, for a byte-identical download. */
    async download(fileId: number): Promise<{ file: ReaderFileRow; absPath: string; size: number; mtime: Date }> {
      const file = await activeFile(fileId);
      const absPath = abs(file);
      try {
        const s = await stat(absPath);
        return { file, absPath, size: s.size, mtime: s.mtime };
      } catch {
        throw new AppError("file_not_found", `library file ${fileId} is not on disk`);
      }
    },

    /**
     * One page, from the archive (1-based `index`), as the web reader gets it. With `record`, the
     * reader's place becomes that page (page streaming apps say where they are only by what they ask
     * for). With `jpeg`, a page in another format is converted (OPDS links declare JPEG).
     */
    async page(
      user: string,
      fileId: number,
      index: number,
      options: { record?: "opds"; ifNoneMatch?: string | null; jpeg?: boolean } = {},
    ): Promise<PageBytes> {
      let bytes = await deps.filePages.page(fileId, index, options.ifNoneMatch);
      if (options.jpeg && !bytes.notModified && bytes.contentType !== JPEG)
        bytes = {
          ...bytes,
          data: await pageAsJpeg(bytes.data, bytes.contentType, ctx.config.archiveLimits),
          contentType: JPEG,
        };
      // The page exists (it was read): its place is stored once the page is on its way.
      if (options.record) {
        const file = await activeFile(fileId);
        reading.setLater(user, fileId, { page: index, completed: index >= file.pageCount }, options.record);
      }
      return bytes;
    },

    pages: (fileId: number) => deps.filePages.pages(fileId),

    /** The lazily cached first-page thumbnail of the audit (WebP, 192 px). */
    thumbnail: (fileId: number, ifNoneMatch?: string | null) => deps.audit.thumbnail(fileId, "first", ifNoneMatch),

    // ---- KOReader ----

    /** The active file KOReader means by `document` (its partial MD5, or the MD5 of the file name). */
    async koreaderDocument(document: string): Promise<ReaderFileRow | null> {
      const hash = document.trim().toLowerCase();
      if (!/^[0-9a-f]{32}$/.test(hash))
        throw new AppError("invalid_field", "document is KOReader's 32-hex MD5", { field: "document" });
      const find = async () => {
        for (const d of await repo.documentsByHash(hash)) {
          const f = await repo.activeFile(d.fileId);
          if (f && f.sha256 === d.sha256) return f;
        }
        return null;
      };
      const found = await find();
      if (found) return found;
      // Identities are computed once per content: the files added or changed since the last look.
      for (const f of await repo.activeFilesWithoutDocument()) {
        try {
          await repo.saveDocument({
            fileId: f.id,
            sha256: f.sha256,
            partialMd5: await koreaderPartialMd5(abs(f)),
            nameMd5: createHash("md5").update(fileName(f), "utf8").digest("hex"),
          });
        } catch (e) {
          ctx.log(`koreader: cannot hash ${f.path}: ${(e as Error).message}`);
        }
      }
      return find();
    },
  };
}

export type ReaderApps = ReturnType<typeof readerAppsServices>;
