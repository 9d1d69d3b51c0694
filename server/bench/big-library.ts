/**
 * The big library of the scale benchmarks: real small CBZ files, cached between runs.
 *
 * - 200 series of 50 chapter files each ("<Title>/<Title> c001.cbz" … "c050.cbz");
 * - one series of 10,000 chapter files ("Endless Voyage/Endless Voyage c00001.cbz" …).
 *
 * Every archive is a stored ZIP as CBZ tools write them: a ComicInfo.xml (Series, Number, Title,
 * PageCount, LanguageISO) and 4 tiny JPEG pages. The ComicInfo makes each file's bytes (and so its
 * SHA-256) unique. Entry times and file mtimes are fixed, so two generations give the same bytes.
 *
 * The library is generated once under `BENCH_CACHE` (default `~/.cache/manga-library-bench`) in
 * `big-library-v1/library/`, written into a `.partial` directory and renamed when complete (an
 * interrupted generation is started again). `materialize` gives a benchmark its own copy made of hard
 * links (seconds instead of a rewrite); a benchmark that changes a file writes a new file and renames
 * it over the link, so the cache keeps its bytes.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, open, readFile, rename, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import sharp from "sharp";
import { StoredZipWriter } from "../src/library/stored-zip-writer.ts";

export const VERSION = "big-library-v1";
export const SMALL_SERIES = 200;
export const SMALL_CHAPTERS = 50;
export const LONG_TITLE = "Endless Voyage";
export const LONG_CHAPTERS = 10_000;
export const TOTAL_FILES = SMALL_SERIES * SMALL_CHAPTERS + LONG_CHAPTERS;
const PAGES = 4;
/** Fixed entry time and file mtime: the same bytes and stats on every generation. */
const FIXED_TIME = new Date(Date.UTC(2025, 0, 1));

const ADJECTIVES = [
  "Amber",
  "Silent",
  "Crimson",
  "Hollow",
  "Iron",
  "Paper",
  "Velvet",
  "Distant",
  "Frozen",
  "Golden",
  "Quiet",
  "Broken",
  "Hidden",
  "Scarlet",
  "Wandering",
  "Lunar",
  "Bitter",
  "Gentle",
  "Restless",
  "Emerald",
];
const NOUNS = ["Harbor", "Lantern", "Garden", "Tide", "Crown", "Meadow", "Circuit", "Falcon", "Archive", "Summit"];

/** The 200 small series' titles: distinct, without digits (a digit in a title is not a chapter number). */
export function smallTitles(): string[] {
  const out: string[] = [];
  for (const a of ADJECTIVES) for (const n of NOUNS) out.push(`${a} ${n}`);
  return out.slice(0, SMALL_SERIES);
}

export interface LibraryFile {
  /** Relative to the library root, forward slashes (as library_file.path). */
  rel: string;
  series: string;
  chapter: number;
}

/** Every file of the library in a fixed order (the small series by title, then the long one). */
export function libraryFiles(): LibraryFile[] {
  const out: LibraryFile[] = [];
  for (const title of smallTitles())
    for (let c = 1; c <= SMALL_CHAPTERS; c++)
      out.push({ rel: `${title}/${title} c${String(c).padStart(3, "0")}.cbz`, series: title, chapter: c });
  for (let c = 1; c <= LONG_CHAPTERS; c++)
    out.push({ rel: `${LONG_TITLE}/${LONG_TITLE} c${String(c).padStart(5, "0")}.cbz`, series: LONG_TITLE, chapter: c });
  return out;
}

export function cacheRoot(): string {
  return process.env.BENCH_CACHE || path.join(os.homedir(), ".cache", "manga-library-bench");
}

function comicInfo(f: LibraryFile, note: string): Buffer {
  const xml =
    `<?xml version="1.0" encoding="utf-8"?>\n<ComicInfo>\n  <Series>${f.series}</Series>\n` +
    `  <Number>${f.chapter}</Number>\n  <Title>Chapter ${f.chapter}${note}</Title>\n` +
    `  <PageCount>${PAGES}</PageCount>\n  <LanguageISO>en</LanguageISO>\n</ComicInfo>\n`;
  return Buffer.from(xml, "utf8");
}

/** Four distinct tiny greyscale JPEG pages (a real decoder reads them). */
async function tinyPages(): Promise<Buffer[]> {
  const pages: Buffer[] = [];
  for (let i = 0; i < PAGES; i++) {
    const w = 24;
    const h = 34;
    const raw = Buffer.alloc(w * h);
    for (let p = 0; p < raw.length; p++) raw[p] = (p * (7 + i * 13) + i * 31) % 256;
    pages.push(
      await sharp(raw, { raw: { width: w, height: h, channels: 1 } })
        .jpeg({ quality: 70 })
        .toBuffer(),
    );
  }
  return pages;
}

/**
 * Writes one CBZ at `abs` (ComicInfo.xml then page001.jpg … page004.jpg, stored), mtime fixed.
 * `note` changes the ComicInfo title, so a rewritten file has new bytes of about the same size.
 */
export async function writeLibraryFile(
  abs: string,
  f: LibraryFile,
  pages: readonly Buffer[],
  note = "",
): Promise<void> {
  const fh = await open(abs, "w");
  try {
    const zip = new StoredZipWriter(fh, { mtime: FIXED_TIME });
    await zip.addBuffer("ComicInfo.xml", comicInfo(f, note));
    for (let i = 0; i < pages.length; i++) await zip.addBuffer(`page${String(i + 1).padStart(3, "0")}.jpg`, pages[i]!);
    await zip.finish();
  } finally {
    await fh.close();
  }
  await utimes(abs, FIXED_TIME, FIXED_TIME);
}

let pagesOnce: Promise<Buffer[]> | null = null;
export const libraryPages = (): Promise<Buffer[]> => (pagesOnce ??= tinyPages());

export interface BigLibrary {
  /** The cached library root (do not modify: `materialize` a copy). */
  root: string;
  files: LibraryFile[];
  /** Seconds spent generating in this run (0 when it came from the cache). */
  generatedSeconds: number;
  bytes: number;
}

/** The cached library, generated first when it is not there (about a minute on a quiet machine). */
export async function bigLibrary(log: (line: string) => void = console.log): Promise<BigLibrary> {
  const dir = path.join(cacheRoot(), VERSION);
  const root = path.join(dir, "library");
  const manifestPath = path.join(dir, "manifest.json");
  const files = libraryFiles();
  if (existsSync(manifestPath)) {
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { files: number; bytes: number };
    if (manifest.files === files.length) return { root, files, generatedSeconds: 0, bytes: manifest.bytes };
  }
  log(`generating the big library (${files.length} CBZ files) into ${dir} …`);
  const t0 = performance.now();
  const partial = path.join(cacheRoot(), `${VERSION}.partial`);
  await rm(partial, { recursive: true, force: true });
  const pages = await libraryPages();
  const folders = new Set(files.map((f) => f.series));
  for (const s of folders) await mkdir(path.join(partial, "library", s), { recursive: true });
  let done = 0;
  for (const f of files) {
    await writeLibraryFile(path.join(partial, "library", f.rel), f, pages);
    done += 1;
    if (done % 5000 === 0) log(`  ${done} / ${files.length}`);
  }
  const bytes = Number(execFileSync("du", ["-sb", path.join(partial, "library")], { encoding: "utf8" }).split("\t")[0]);
  await writeFile(
    path.join(partial, "manifest.json"),
    JSON.stringify({ version: VERSION, files: files.length, bytes }),
  );
  await rm(dir, { recursive: true, force: true });
  await rename(partial, dir);
  const generatedSeconds = (performance.now() - t0) / 1000;
  log(`  generated in ${generatedSeconds.toFixed(1)} s (${(bytes / 1e6).toFixed(1)} MB)`);
  return { root, files, generatedSeconds, bytes };
}

/** A copy of the cached library at `dest` made of hard links (falls back to a real copy across disks). */
export function materialize(cachedRoot: string, dest: string): void {
  try {
    execFileSync("cp", ["-al", cachedRoot, dest]);
  } catch {
    execFileSync("cp", ["-a", cachedRoot, dest]);
  }
}

/** Rewrites a file with new bytes through a new inode (the cached hard link keeps the old bytes). */
export async function rewriteLibraryFile(root: string, f: LibraryFile, note: string): Promise<void> {
  const abs = path.join(root, f.rel);
  const tmp = `${abs}.rewrite`;
  await writeLibraryFile(tmp, f, await libraryPages(), note);
  const now = new Date();
  await utimes(tmp, now, now);
  await rename(tmp, abs);
}
