/**
 * The drop-folder provider: an import folder (config DROP_FOLDER) the operator fills by hand.
 *
 * Layout (decided; top-level files are ignored, so a half-sorted folder never invents a work):
 *   <drop>/<Work title>/                 a work; sourceId = the folder name
 *   <drop>/<Work title>/<name>.cbz|.zip  a chapter (externalId = the file name)
 *   <drop>/<Work title>/<name>/*.jpg…    a chapter as a folder of images (externalId = the folder name)
 * Numbers come from the name parser (domain/filename.ts, with the work title as the known series); a
 * language the name states in a bracket ("[fr]", "(French)") is the release's, else the mapping's.
 *
 * Safety: ids are single path segments (no separators, no "..", no dot-names); symbolic links are
 * refused at every level; every path is checked to stay inside the drop folder's real path. Archives
 * are read through the hardened reader only (never extracted); an archive that does not open (still
 * being copied, or refused) is left out of the listing until it does.
 *
 * What the listing leaves out it reports (listWithProblems): a link, an archive the reader refuses
 * (its archive_* code), an unreadable entry, a folder without images, a name naming a range, a
 * format the service does not read. A name without a number is offered as an unnumbered extra. Names are the entry's own segment; details are fixed sentences.
 */
import { lstat, readdir, readFile, realpath } from "node:fs/promises";
import type { Stats } from "node:fs";
import path from "node:path";
import { parseFileName, releaseLanguage } from "../domain/filename.ts";
import { AppError, ERRORS } from "../errors.ts";
import { ArchiveError } from "../library/archive/archive-error.ts";
import type { Label } from "../domain/labels.ts";
import { naturalCompare, openArchive, withArchive, type ArchiveOpenOptions } from "../library/archive-reader.ts";
import {
  ProviderError,
  type ChapterPages,
  type FetchedPage,
  type ListingProblem,
  type ListingProblemCode,
  type ListOptions,
  type ProviderChapter,
  type ProviderWork,
  type SourceProvider,
} from "./provider.ts";

export const DROP_FOLDER_PROVIDER_NAME = "drop-folder";

const ARCHIVE_RE = /\.(cbz|zip)$/i;
/** Formats a person may drop that the service does not read: worth a word, unlike a cover or a note. */
const UNSUPPORTED_RE = /\.(cbr|rar|cb7|7z|cbt|tar|pdf|epub)$/i;
const IMAGE_RE = /\.(jpe?g|png|webp|gif|avif)$/i;
const CONTENT_TYPES: Record<string, string> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  avif: "image/avif",
};

export interface DropFolderOptions {
  root: string;
  /** Language the chapters are offered in when nothing says otherwise (the mapping's language wins in refresh). */
  language?: string;
  archiveLimits?: ArchiveOpenOptions;
}

/** A name usable as one path segment inside the drop folder. */
export function safeSegment(name: string): boolean {
  return name.length > 0 && name.length <= 255 && !name.startsWith(".") && !/[/\\\0]/.test(name);
}

/** An unreadable entry in words: the system's error code only (a message may hold an absolute path). */
function unreadable(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return `Could not be read${typeof code === "string" && /^E[A-Z]+$/.test(code) ? ` (${code})` : ""}.`;
}

function refuse(message: string): ProviderError {
  return new ProviderError(message, false);
}

/** Archives whose page counts the drop folder keeps (a few hundred bytes each). */
const PAGE_COUNT_CACHE_SIZE = 20_000;

export class DropFolderProvider implements SourceProvider {
  readonly kind = "drop_folder" as const;
  readonly name = DROP_FOLDER_PROVIDER_NAME;
  readonly root: string;
  private readonly language: string;
  private readonly limits: ArchiveOpenOptions | undefined;
  /**
   * Page counts of archives already read, by path and the file's identity (inode, size, mtime):
   * every refresh (the scheduled pass's too) lists the whole work, and an unchanged archive need
   * not be opened again. A changed or replaced file misses; a file that failed is not kept, so one
   * still being copied is read again next time.
   */
  private readonly pageCounts = new Map<string, { identity: string; pages: number }>();

  constructor(options: DropFolderOptions) {
    this.root = path.resolve(options.root);
    this.language = options.language ?? "en";
    this.limits = options.archiveLimits;
  }

  /** The drop folder's real path, or null when it does not exist (nothing is offered then). */
  private async realRoot(): Promise<string | null> {
    try {
      return await realpath(this.root);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw refuse(`drop folder unreadable: ${(e as NodeJS.ErrnoException).code ?? "error"}`);
    }
  }

  /** Joins segments under the root, refusing unsafe names, symbolic links and anything escaping it. */
  private async inside(segments: string[]): Promise<{ abs: string; dir: boolean }> {
    const root = await this.realRoot();
    if (root === null) throw refuse("the drop folder does not exist");
    let abs = root;
    let dir = true;
    for (const seg of segments) {
      if (!safeSegment(seg)) throw refuse(`refused name in the drop folder: ${JSON.stringify(seg.slice(0, 80))}`);
      abs = path.join(abs, seg);
      let st;
      try {
        st = await lstat(abs);
      } catch {
        throw refuse(`not in the drop folder: ${segments.join("/")}`);
      }
      if (st.isSymbolicLink()) throw refuse(`symbolic links are refused in the drop folder: ${segments.join("/")}`);
      dir = st.isDirectory();
    }
    const real = await realpath(abs);
    if (real !== abs || !(real === root || real.startsWith(root + path.sep)))
      throw refuse("path escapes the drop folder");
    return { abs, dir };
  }

  /** Plain entries (no dot-names, no symbolic links) of a directory. */
  private async entries(dir: string) {
    const all = await readdir(dir, { withFileTypes: true });
    return all.filter((e) => safeSegment(e.name) && !e.isSymbolicLink());
  }

  async search(title: string, options: { language?: string; signal?: AbortSignal } = {}): Promise<ProviderWork[]> {
    const root = await this.realRoot();
    if (root === null) return [];
    const q = title.trim().toLowerCase();
    const works = (await this.entries(root)).filter((e) => e.isDirectory() && e.name.toLowerCase().includes(q));
    return works
      .map((e) => e.name)
      .sort(naturalCompare)
      .map((name) => ({
        sourceId: name,
        title: name,
        language: options.language ?? this.language,
        sourceName: "Drop folder",
        thumbnailUrl: null,
      }));
  }

  async listChapters(sourceId: string, options: ListOptions = {}): Promise<ProviderChapter[]> {
    return (await this.listWithProblems(sourceId, options)).chapters;
  }

  /**
   * The work's releases and, for every entry left out, why (names only: the entry's own segment,
   * never a path; details from fixed sentences, never file content). Nothing is changed on disk.
   */
  async listWithProblems(
    sourceId: string,
    options: ListOptions = {},
  ): Promise<{ chapters: ProviderChapter[]; problems: ListingProblem[] }> {
    const work = await this.inside([sourceId]);
    if (!work.dir) throw refuse(`not a work folder: ${sourceId}`);
    const chapters: ProviderChapter[] = [];
    const problems: ListingProblem[] = [];
    const skip = (name: string, code: ListingProblemCode, detail: string) => problems.push({ name, code, detail });
    let all;
    try {
      all = await readdir(work.abs, { withFileTypes: true });
    } catch (e) {
      throw refuse(`work folder unreadable: ${(e as NodeJS.ErrnoException).code ?? "error"}`);
    }
    // Dot-names (".DS_Store", a copy tool's temporary file) are hidden on purpose: never offered, never reported.
    for (const e of all.filter((x) => safeSegment(x.name))) {
      const abs = path.join(work.abs, e.name);
      let pageCount: number;
      // An archive's stat is taken once: it keys its page count and dates the release.
      let stat: Stats | undefined;
      if (e.isSymbolicLink()) {
        skip(e.name, "symbolic_link", "A symbolic link: links are never followed in the drop folder.");
        continue;
      } else if (e.isFile() && ARCHIVE_RE.test(e.name)) {
        try {
          stat = await lstat(abs);
          pageCount = await this.archivePageCount(abs, stat);
        } catch (err) {
          // Still being copied, or refused by the reader: reported now, listed once it opens.
          if (err instanceof ArchiveError) skip(e.name, err.code, `${ERRORS[err.code].title}.`);
          else skip(e.name, "unreadable", unreadable(err));
          continue;
        }
      } else if (e.isDirectory()) {
        try {
          pageCount = (await this.images(abs)).length;
        } catch (err) {
          skip(e.name, "unreadable", unreadable(err));
          continue;
        }
        if (pageCount === 0) {
          skip(e.name, "no_pages", "A folder without images (.jpg, .png, .webp, .gif, .avif).");
          continue;
        }
      } else {
        if (e.isFile() && UNSUPPORTED_RE.test(e.name))
          skip(e.name, "unsupported_format", "Only .cbz and .zip archives and folders of images are read.");
        continue; // covers, notes, ComicInfo beside the chapters: not releases, nothing to say
      }
      const parsed = parseFileName(e.name, { series: sourceId });
      const single = (l: Label | null, end: Label | null) => (end === null ? l : null);
      const number = single(parsed.chapter, parsed.chapterEnd);
      const volume = single(parsed.volume, parsed.volumeEnd);
      if (number === null && volume === null) {
        if (parsed.chapter !== null || parsed.volume !== null) {
          skip(
            e.name,
            "number_range",
            "Names a range of chapters or volumes; one file per chapter or volume is offered.",
          );
          continue;
        }
        // No number at all: an unnumbered release, offered as an extra (fetched on request), as a
        // source's unnumbered chapter is.
      }
      stat ??= await lstat(abs);
      chapters.push({
        externalId: e.name,
        number,
        volume,
        part: parsed.part,
        name: e.name,
        scanlator: parsed.group,
        // A language the name states ("[fr]", "(French)") wins over the mapping's.
        language: releaseLanguage(e.name, options.language ?? this.language, { series: sourceId }),
        uploadedAt: stat.mtime,
        pageCount,
      });
    }
    return {
      chapters: chapters.sort((a, b) => naturalCompare(a.externalId, b.externalId)),
      problems: problems.sort((a, b) => naturalCompare(a.name, b.name)),
    };
  }

  private async archivePageCount(abs: string, st: Stats): Promise<number> {
    const identity = `${st.ino}:${st.size}:${st.mtimeMs}`;
    const known = this.pageCounts.get(abs);
    if (known?.identity === identity) return known.pages;
    const pages = await withArchive(abs, this.limits, async (a) => a.pages.length);
    this.pageCounts.delete(abs);
    // Bounded: the oldest entry goes first (a Map iterates in insertion order).
    if (this.pageCounts.size >= PAGE_COUNT_CACHE_SIZE)
      this.pageCounts.delete(this.pageCounts.keys().next().value as string);
    this.pageCounts.set(abs, { identity, pages });
    return pages;
  }

  /** Image files of a chapter folder in natural order; symbolic links and sub-folders are left out. */
  private async images(dir: string): Promise<string[]> {
    return (await this.entries(dir))
      .filter((e) => e.isFile() && IMAGE_RE.test(e.name))
      .map((e) => e.name)
      .sort(naturalCompare);
  }

  async pages(sourceId: string, externalId: string): Promise<ChapterPages> {
    const chapter = await this.inside([sourceId, externalId]);
    if (chapter.dir) {
      const names = await this.images(chapter.abs);
      return {
        count: names.length,
        fetch: async (index: number): Promise<FetchedPage> => {
          const name = names[index - 1];
          if (name === undefined) throw refuse(`page ${index} out of range 1..${names.length}`);
          const { abs } = await this.inside([sourceId, externalId, name]);
          const ext = (path.extname(name).slice(1) || "").toLowerCase();
          return { index, bytes: await readFile(abs), contentType: CONTENT_TYPES[ext] ?? null };
        },
      };
    }
    if (!ARCHIVE_RE.test(externalId)) throw refuse(`not a chapter archive or folder: ${externalId}`);
    let count: number;
    try {
      count = await withArchive(chapter.abs, this.limits, async (a) => a.pages.length);
    } catch (e) {
      throw refuse(`archive refused: ${(e as Error).message}`);
    }
    return {
      count,
      fetch: async (index: number): Promise<FetchedPage> => {
        if (!Number.isInteger(index) || index < 1 || index > count)
          throw refuse(`page ${index} out of range 1..${count}`);
        const { abs } = await this.inside([sourceId, externalId]);
        // One open per page keeps no handle alive between pages; the reader checks the directory again.
        const a = await openArchive(abs, this.limits).catch((e: unknown) => {
          throw refuse(`archive refused: ${(e as Error).message}`);
        });
        try {
          if (a.pages.length !== count) throw refuse("the archive changed while it was being read");
          const entry = a.pages[index - 1];
          const bytes = await a.readPage(index - 1);
          const ext = (entry ? path.extname(entry.name).slice(1) : "").toLowerCase();
          return { index, bytes, contentType: CONTENT_TYPES[ext] ?? null };
        } catch (e) {
          if (e instanceof ProviderError) throw e;
          // A page that is no image, or over the pixel limit, keeps the image check's code, as the
          // same page in a folder of images would: the download fails with it, never retried.
          if (e instanceof ArchiveError && (e.code === "image_unreadable" || e.code === "image_too_large"))
            throw new AppError(e.code, `page ${index}: ${e.message}`, { page: index });
          throw refuse(`page ${index} unreadable: ${(e as Error).message}`);
        } finally {
          await a.close();
        }
      },
    };
  }
}
