/**
 * The book builder: writes an assembly plan (domain/assembly.ts) as one CBZ in the staging folder.
 * Pages are copied in the plan's order under fresh sequential names, stored (no recompression, so
 * the bytes are the chapter files' own), one entry in memory at a time; a volume-level
 * ComicInfo.xml with the page list closes the archive. The chapter files are only read, through
 * the hardened archive reader (local header, size and CRC checked on every entry).
 *
 * The book is written by our own stored-only writer (stored-zip-writer.ts), not yazl like the
 * rest of the stack: a page is copied from its chapter's file through one reused buffer, its CRC
 * computed as it goes, so a 1 GB book makes no per-page garbage (yazl wanted a stream per entry,
 * i.e. a fresh Buffer per page, which V8 frees only after tens of MB pile up).
 */
import { randomBytes } from "node:crypto";
import { open, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import zlib from "node:zlib";
import { pageName, type AssemblyPlan } from "../domain/assembly.ts";
import type { Label } from "../domain/labels.ts";
import { AppError } from "../errors.ts";
import { comicInfoXml, type ComicInfoFields, type ComicInfoPage } from "./comicinfo-writer.ts";
import { ArchiveError, openArchive, type ArchiveHandle, type ArchiveOpenOptions } from "./archive-reader.ts";
import { sha256File } from "./durable-fs.ts";
import { libraryAbs } from "./library-paths.ts";
import { StoredZipWriter } from "./stored-zip-writer.ts";
import { mkdirStaging } from "./library-root.ts";

/**
 * yazl computes every entry's CRC-32 with the pure-JS `buffer-crc32` (a byte loop, ~250 MB/s),
 * which made a stored book slower than `unzip` + `zip -0` (docs/benchmarks.md, "Assembly").
 * Node ≥ 20.15 has a native `zlib.crc32`: yazl's own instance of that module is given it, once,
 * here (same results; yazl only calls `unsigned(buffer, previous)`, both numbers unsigned). The
 * book itself no longer goes through yazl (see above); the other yazl writers of the process do.
 */
const yazlCrc32 = createRequire(createRequire(import.meta.url).resolve("yazl"))("buffer-crc32") as {
  unsigned: (data: Buffer, previous?: number) => number;
};
if (typeof zlib.crc32 === "function") yazlCrc32.unsigned = (data, previous) => zlib.crc32(data, previous ?? 0) >>> 0;

/** Entries carry one fixed time: the same chapters give the same bytes. */
const ENTRY_MTIME = new Date(Date.UTC(2024, 0, 1));

export interface BuildInput {
  plan: AssemblyPlan;
  libraryRoot: string;
  staging: string;
  limits?: ArchiveOpenOptions;
  /** ComicInfo fields beyond what the plan gives (Series, Count, Manga, Notes …). */
  comicInfo: Omit<ComicInfoFields, "PageCount" | "Pages" | "LanguageISO">;
  /** Called after each chapter's pages are written. */
  onProgress?: (step: "hashing" | "writing", done: number, total: number) => void;
}

export interface BuiltBook {
  stagedPath: string;
  pageCount: number;
  /** First page index (0-based) and page count of each chapter, in order. */
  chapters: { number: Label; firstPage: number; pages: number }[];
  comicInfoXml: string;
}

interface PageRef {
  archive: ArchiveHandle;
  entry: string;
  size: number;
  name: string;
}

/** The one buffer every page is copied through (pages are ~350 KB; larger ones take several reads). */
const COPY_BUFFER_BYTES = 1024 * 1024;

/**
 * One page into the book, stored, its bytes the chapter's own. A stored page is copied through
 * `buf` (each write awaited before the buffer is refilled) with its CRC-32 computed on the way and
 * compared with the one its chapter declares, as the reader's `readEntry` does; the local header
 * carries the declared CRC, and a mismatch refuses the book (the caller removes the staged file).
 * A deflated page is inflated and checked by `readEntry`, then written stored.
 */
async function copyPage(zip: StoredZipWriter, p: PageRef, buf: Buffer): Promise<void> {
  const span = await p.archive.entrySpan(p.entry);
  if (span.method !== 0) {
    await zip.addBuffer(p.name, await p.archive.readEntry(p.entry));
    return;
  }
  await zip.beginEntry(p.name, span.size, span.crc32);
  let crc = 0;
  for (let done = 0; done < span.size;) {
    const n = Math.min(buf.length, span.size - done);
    const chunk = n === buf.length ? buf : buf.subarray(0, n);
    await span.read(chunk, done, n);
    crc = zlib.crc32(chunk, crc);
    await zip.write(chunk);
    done += n;
  }
  if (crc >>> 0 !== span.crc32) {
    throw new ArchiveError({
      code: "archive_crc_mismatch",
      detail: `${JSON.stringify(p.entry)}: the data does not match its CRC-32`,
      entry: p.entry,
    });
  }
  zip.endEntry();
}

/**
 * Hashes each source file (409 assembly_changed_files when its bytes are not the planned ones),
 * then writes the book. Removes its staged file on any failure.
 */
export async function buildBook(input: BuildInput): Promise<BuiltBook> {
  const { plan } = input;
  const sources = plan.chapters.flatMap((c) => c.sources);
  let hashed = 0;
  const hashBuffer = Buffer.allocUnsafe(COPY_BUFFER_BYTES);
  for (const s of sources) {
    const abs = libraryAbs(input.libraryRoot, s.path);
    let actual: string | null = null;
    try {
      actual = await sha256File(abs, hashBuffer);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    if (actual !== s.sha256) {
      throw new AppError(
        "assembly_changed_files",
        `chapter file ${s.path} ${actual === null ? "is gone" : "changed"} since it was recorded`,
        { file_id: s.fileId },
      );
    }
    input.onProgress?.("hashing", ++hashed, sources.length);
  }

  const handles: ArchiveHandle[] = [];
  const stagedPath = path.join(input.staging, "assembly", `${randomBytes(8).toString("hex")}.cbz`);
  try {
    const perChapter: { number: Label; pages: PageRef[] }[] = [];
    for (const c of plan.chapters) {
      const pages: PageRef[] = [];
      for (const s of c.sources) {
        const archive = await openArchive(libraryAbs(input.libraryRoot, s.path), input.limits);
        handles.push(archive);
        for (const p of archive.pages) pages.push({ archive, entry: p.name, size: p.size, name: "" });
      }
      perChapter.push({ number: c.number, pages });
    }
    const all = perChapter.flatMap((c) => c.pages);
    if (all.length === 0)
      throw new AppError("archive_unreadable", `the chapter files of book ${plan.volume} hold no pages`);
    all.forEach((p, i) => (p.name = pageName(i, all.length, p.entry)));

    const chapters: BuiltBook["chapters"] = [];
    const pagesXml: ComicInfoPage[] = all.map((_, i) => ({ Image: i }));
    let first = 0;
    for (const c of perChapter) {
      chapters.push({ number: c.number, firstPage: first, pages: c.pages.length });
      const page = pagesXml[first];
      if (page && c.pages.length > 0) page.Bookmark = `Chapter ${c.number}`;
      first += c.pages.length;
    }
    const cover = pagesXml[0] as ComicInfoPage;
    cover.Type = "FrontCover";
    const xml = comicInfoXml({
      ...input.comicInfo,
      PageCount: all.length,
      LanguageISO: plan.language,
      Pages: pagesXml,
    });

    await mkdirStaging(path.dirname(stagedPath));
    const out = await open(stagedPath, "wx");
    try {
      const zip = new StoredZipWriter(out, { mtime: ENTRY_MTIME });
      const chapterEnds = new Set(chapters.map((c) => c.firstPage + c.pages - 1));
      let chaptersDone = 0;
      const copyBuffer = Buffer.allocUnsafe(COPY_BUFFER_BYTES);
      for (const [i, p] of all.entries()) {
        await copyPage(zip, p, copyBuffer);
        if (chapterEnds.has(i)) input.onProgress?.("writing", ++chaptersDone, chapters.length);
      }
      await zip.addBuffer("ComicInfo.xml", Buffer.from(xml, "utf8"));
      await zip.finish();
    } finally {
      await out.close();
    }
    return { stagedPath, pageCount: all.length, chapters, comicInfoXml: xml };
  } catch (e) {
    await rm(stagedPath, { force: true });
    throw e;
  } finally {
    for (const h of handles) await h.close();
  }
}
