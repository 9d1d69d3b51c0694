/**
 * Audit thumbnails of a file's first and last page (spec "Audit": generated lazily by one bounded
 * archive worker, cached by file fingerprint).
 *
 * - One worker: renders run one at a time (a queue of concurrency one). One render opens the
 *   archive once and writes both sides, since the audit shows both; concurrent requests for the
 *   same file share that render.
 * - Back-pressure: at most `maxWaiting` renders wait behind the running one. Beyond that a request
 *   is refused at once with 503 `thumbnails_busy` (the route adds Retry-After) instead of piling up
 *   archive work and memory behind a slow disk; a cached thumbnail is always served.
 * - Cache: `<thumbnails dir>/<2 hex>/<fingerprint>-<side>.webp`, the fingerprint a digest of the
 *   file's recorded sha256, size and mtime, so a second request is one file read and a changed file
 *   (new hash or mtime after a scan) gets new thumbnails. Writes go to a temporary name and are
 *   renamed, so a reader never sees half a picture.
 * - A file whose bytes on disk no longer match its record (changed since the last scan) is rendered
 *   but not cached, and answered without a fingerprint (the record would name other bytes); the
 *   cached pictures of its record are not served for it either (one stat per request decides).
 * - 192 px wide WebP, never enlarged (docs/rules.md, "The audit").
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import type { ArchiveLimitsConfig } from "../config.ts";
import { AppError } from "../errors.ts";
import { sharpInputOptions, withArchive } from "./archive-reader.ts";

export type ThumbnailSide = "first" | "last";
export const THUMBNAIL_SIDES: readonly ThumbnailSide[] = ["first", "last"];
export const THUMBNAIL_WIDTH = 192;
export const THUMBNAIL_CONTENT_TYPE = "image/webp";
/** Renders allowed to wait behind the running one before requests are refused. */
export const DEFAULT_MAX_WAITING = 8;

/** What a file's record says about its bytes. */
export interface FileFingerprint {
  sha256: string;
  size: number;
  mtimeMs: number;
}

export interface EdgePages {
  first: Buffer;
  last: Buffer;
}

/** Reads the first and last page images of an archive (one open). */
export type EdgeReader = (absPath: string, limits: ArchiveLimitsConfig) => Promise<EdgePages>;

export interface Thumbnail {
  data: Buffer;
  contentType: string;
  /** The file fingerprint (cache key); null when the bytes on disk are not the recorded ones. */
  fingerprint: string | null;
  /** Served from the cache without opening the archive. */
  cached: boolean;
}

export interface ThumbnailOptions {
  dir: string;
  limits: ArchiveLimitsConfig;
  width?: number;
  maxWaiting?: number;
  /** The archive reading step; the hardened reader unless a test replaces it. */
  readEdges?: EdgeReader;
}

export function fingerprintOf(f: FileFingerprint): string {
  return createHash("sha256").update(`${f.sha256}:${f.size}:${f.mtimeMs}`).digest("hex").slice(0, 40);
}

/** First and last page through the hardened reader (its limits, one open). */
export const readEdgesFromArchive: EdgeReader = (absPath, limits) =>
  withArchive(absPath, limits, async (archive) => {
    const count = archive.pages.length;
    if (count === 0) throw new AppError("archive_unreadable", "the archive holds no page images");
    const first = await archive.readPage(0);
    const last = count === 1 ? first : await archive.readPage(count - 1);
    return { first, last };
  });

/** A decoder's failure as the coded error the reader's routes answer (also for pages converted elsewhere). */
export function imageError(e: unknown): AppError {
  if (e instanceof AppError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (/pixel limit/i.test(message)) return new AppError("image_too_large", "the page is larger than the pixel limit");
  return new AppError("image_unreadable", `the page is not a readable image: ${message}`);
}

async function readOrNull(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

async function statOrNull(file: string): Promise<{ size: number; mtimeMs: number } | null> {
  try {
    const s = await stat(file);
    return { size: s.size, mtimeMs: Math.trunc(s.mtimeMs) };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

/**
 * Whether the bytes on disk are still the recorded ones (size and whole-millisecond mtime, as the
 * scan records them): a cached thumbnail, or a client's copy of it, shows them only then.
 */
export async function onDiskAsRecorded(absPath: string, fp: FileFingerprint): Promise<boolean> {
  const s = await statOrNull(absPath);
  return s !== null && s.size === fp.size && s.mtimeMs === fp.mtimeMs;
}

export function createThumbnails(options: ThumbnailOptions) {
  const width = options.width ?? THUMBNAIL_WIDTH;
  const maxWaiting = options.maxWaiting ?? DEFAULT_MAX_WAITING;
  const readEdges = options.readEdges ?? readEdgesFromArchive;
  const waiting: (() => Promise<void>)[] = [];
  const inFlight = new Map<string, Promise<{ pages: EdgePages; cacheable: boolean }>>();
  let running = false;
  let renders = 0;

  const cachePath = (key: string, side: ThumbnailSide) =>
    path.join(options.dir, key.slice(0, 2), `${key}-${side}.webp`);

  async function pump(): Promise<void> {
    if (running) return;
    running = true;
    try {
      for (let task = waiting.shift(); task; task = waiting.shift()) await task();
    } finally {
      running = false;
    }
  }

  /** Runs `task` on the worker after those already waiting; refuses when the waiting list is full. */
  function enqueue<T>(task: () => Promise<T>): Promise<T> {
    if (waiting.length >= maxWaiting) {
      return Promise.reject(
        new AppError("thumbnails_busy", `${waiting.length} thumbnails are waiting to be made: retry shortly`, {
          retry_after: 1,
        }),
      );
    }
    return new Promise<T>((resolve, reject) => {
      waiting.push(() => task().then(resolve, reject));
      void pump();
    });
  }

  async function shrink(page: Buffer): Promise<Buffer> {
    try {
      return await sharp(page, sharpInputOptions(options.limits))
        .rotate()
        .resize({ width, withoutEnlargement: true })
        .webp({ quality: 72, effort: 0 }) // effort 0: a third of the encode time for ~2 KB more per thumbnail
        .toBuffer();
    } catch (e) {
      throw imageError(e);
    }
  }

  async function store(key: string, side: ThumbnailSide, data: Buffer): Promise<void> {
    const target = cachePath(key, side);
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await writeFile(tmp, data);
      await rename(tmp, target);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  }

  async function render(
    absPath: string,
    fp: FileFingerprint,
    key: string,
  ): Promise<{ pages: EdgePages; cacheable: boolean }> {
    const matches = (s: { size: number; mtimeMs: number } | null) =>
      s !== null && s.size === fp.size && s.mtimeMs === fp.mtimeMs;
    const before = await statOrNull(absPath);
    if (before === null)
      throw new AppError("archive_not_found", "the file is not on disk (a scan will mark it missing)");
    renders += 1;
    const edges = await readEdges(absPath, options.limits);
    const first = await shrink(edges.first);
    const last = edges.last === edges.first ? first : await shrink(edges.last);
    // Cached only when the bytes read are the recorded ones, before and after the read.
    const cacheable = matches(before) && matches(await statOrNull(absPath));
    if (cacheable) {
      await store(key, "first", first);
      await store(key, "last", last);
    }
    return { pages: { first, last }, cacheable };
  }

  return {
    /** The thumbnail of one side of the file at `absPath`, whose record says `fp`. */
    async get(absPath: string, fp: FileFingerprint, side: ThumbnailSide): Promise<Thumbnail> {
      const key = fingerprintOf(fp);
      // A file changed since the last scan is not what the cached pictures show.
      const hit = (await onDiskAsRecorded(absPath, fp)) ? await readOrNull(cachePath(key, side)) : null;
      if (hit) return { data: hit, contentType: THUMBNAIL_CONTENT_TYPE, fingerprint: key, cached: true };
      let job = inFlight.get(key);
      if (!job) {
        job = enqueue(() => render(absPath, fp, key));
        inFlight.set(key, job);
        const forget = () => inFlight.delete(key);
        job.then(forget, forget);
      }
      const { pages, cacheable } = await job;
      return {
        data: pages[side],
        contentType: THUMBNAIL_CONTENT_TYPE,
        fingerprint: cacheable ? key : null,
        cached: false,
      };
    },
    /** The worker's state, for tests and diagnostics. */
    stats: () => ({ running, waiting: waiting.length, renders }),
  };
}

export type Thumbnails = ReturnType<typeof createThumbnails>;
