/**
 * Measures downloaded pages for the conformity rules (domain/conformity.ts): dimensions from the
 * image header, luminance mean and standard deviation from a 32 px greyscale decode. JPEG pages
 * are decoded by libjpeg at 1/8 scale (shrink-on-load), so a page costs a fraction of a full decode;
 * a page whose top rows alone rule a black card out stops there (FIRST_LOOK_ROWS). The statistics
 * are computed here over one raw channel because sharp's `.stats()` also computes entropy and
 * sharpness for every band, which this does not need.
 */
import sharp from "sharp";
import type { ArchiveLimitsConfig } from "../config.ts";
import { rulesOutCard, type PageStats } from "../domain/conformity.ts";
import { AppError } from "../errors.ts";
import { IMAGE_HEADER_PREFIX_BYTES, jpegFrame, sniffImageType } from "./image-header.ts";
import { sharpInputOptions } from "./archive-reader.ts";

export type { PageStats };

/** The side of the decode the thresholds were calibrated on (conformity.ts DEFAULT_THRESHOLDS). */
export const STATS_SIZE = 32;

/** sharp's failure as the service's code: its pixel-limit message, or any other decoder error. */
function imageError(e: unknown): AppError {
  const message = e instanceof Error ? e.message : String(e);
  if (/pixel limit/i.test(message)) return new AppError("image_too_large", "the page is larger than the pixel limit");
  return new AppError("image_unreadable", `the page is not a readable image: ${message}`);
}

/**
 * What the measurements cost, for the tests that hold it (a regression adds a pass per page):
 * `headerReads` counts sharp's header-only reads, `firstLooks` the decodes of the top rows alone,
 * `decodes` the whole 32 px decodes.
 */
export const pageStatsWork = { headerReads: 0, firstLooks: 0, decodes: 0 };

/**
 * The first look decodes the top FIRST_LOOK_ROWS of the STATS_SIZE rows. Decoding a JPEG costs
 * about its whole entropy decoding even at 1/8 scale (libjpeg reads every coefficient), and a page
 * can only be a black card when its mean is low: the top rows' pixels, counted against the whole
 * decode, give a lower bound of that mean (the other pixels are at least 0), and a bound at or
 * above the card limit settles the page. The top 9 rows are about a third of the decode (libvips
 * fetches what the resize needs for them and stops); a usual page, white paper around the ink,
 * passes (the benchmark's pages: bound 43–60 for means of 180–216), a dark page gets the whole
 * decode after it. Fewer rows cost the same (libvips reads in strips), more rows cost more.
 * Measured: 3.9 ms against 6.2 ms of CPU per 356 KB 1400×2000 page (docs/benchmarks.md, "Downloads").
 */
const FIRST_LOOK_ROWS = 9;

/**
 * The size of the statistics' decode: STATS_SIZE on the long side, the short side rounded from
 * the page's own aspect (stored orientation, as the decoder reads the pixels).
 */
export function statsDecodeSize(width: number, height: number): { width: number; height: number } {
  const scale = STATS_SIZE / Math.max(width, height);
  return {
    width: Math.max(1, Math.min(STATS_SIZE, Math.round(width * scale))),
    height: Math.max(1, Math.min(STATS_SIZE, Math.round(height * scale))),
  };
}

export interface PageStatsOptions {
  /** Decode the whole page even when the first look settles it (the calibration's figures). */
  full?: boolean;
}

export async function pageStats(
  buf: Buffer,
  limits?: Partial<ArchiveLimitsConfig>,
  opts: PageStatsOptions = {},
): Promise<PageStats> {
  let width: number;
  let height: number;
  const options = sharpInputOptions(limits);
  // A JPEG (never transparent) takes its displayed size from our own header reader (the SOF, turned
  // by the EXIF orientation, as sharp's autoOrient): no header-only sharp call. Other formats, or a
  // JPEG whose header the reader cannot size, ask sharp's header read.
  const prefix = buf.subarray(0, IMAGE_HEADER_PREFIX_BYTES);
  const frame = sniffImageType(prefix) === "image/jpeg" ? jpegFrame(prefix) : null;
  if (frame && frame.width * frame.height > options.limitInputPixels)
    throw new AppError("image_too_large", "the page is larger than the pixel limit");
  try {
    let stored: { width: number; height: number };
    let flatten = false;
    if (frame) {
      stored = frame;
      width = frame.turned ? frame.height : frame.width;
      height = frame.turned ? frame.width : frame.height;
    } else {
      // Header only: no pixel is decoded for the size.
      pageStatsWork.headerReads += 1;
      const meta = await sharp(buf, options).metadata();
      stored = { width: meta.width, height: meta.height };
      // Orientation as displayed: a page stored sideways with an EXIF rotation reads upright.
      width = meta.autoOrient?.width ?? meta.width;
      height = meta.autoOrient?.height ?? meta.height;
      flatten = meta.hasAlpha === true;
    }
    if (!(width > 0 && height > 0)) throw new AppError("image_unreadable", "the page has no size");
    const size = statsDecodeSize(stored.width, stored.height);
    // The service's decoder options: the pixel limit is checked on the header, before decoding.
    // The same operations for the first look and the whole decode, so that the first look's rows
    // are the very pixels of the whole decode's top rows (page-stats.test.ts checks it).
    const decode = () => {
      const image = sharp(buf, options);
      if (flatten) image.flatten({ background: "#ffffff" });
      return image.resize(size.width, size.height, { fit: "fill", fastShrinkOnLoad: true });
    };
    const rows = Math.max(1, Math.floor((size.height * FIRST_LOOK_ROWS) / STATS_SIZE));
    if (!opts.full && rows < size.height) {
      pageStatsWork.firstLooks += 1;
      const top = await decode()
        .extract({ left: 0, top: 0, width: size.width, height: rows })
        .greyscale()
        .raw({ depth: "uchar" })
        .toBuffer({ resolveWithObject: true });
      const atLeast = luminanceSum(top.data, top.info.channels) / (size.width * size.height);
      if (rulesOutCard(atLeast)) return { width, height, mean: atLeast, stdev: null };
    }
    pageStatsWork.decodes += 1;
    const out = await decode().greyscale().raw({ depth: "uchar" }).toBuffer({ resolveWithObject: true });
    return { width, height, ...luminance(out.data, out.info.channels) };
  } catch (e) {
    throw e instanceof AppError ? e : imageError(e);
  }
}

/** Sum of the first channel of interleaved 8-bit pixels. */
function luminanceSum(data: Uint8Array, channels: number): number {
  let sum = 0;
  for (let i = 0; i < data.length; i += channels) sum += data[i] as number;
  return sum;
}

/** Mean and population standard deviation of the first channel of interleaved 8-bit pixels. */
export function luminance(data: Uint8Array, channels: number): { mean: number; stdev: number } {
  const n = Math.floor(data.length / channels);
  if (n === 0) return { mean: 0, stdev: 0 };
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < data.length; i += channels) {
    const v = data[i] as number;
    sum += v;
    sumSq += v * v;
  }
  const mean = sum / n;
  return { mean, stdev: Math.sqrt(Math.max(0, sumSq / n - mean * mean)) };
}

/**
 * `fn` over every item with at most `concurrency` calls in flight, results in item order. After the
 * first failure no new call starts and the failure is what rejects.
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i] as T, i);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(Math.floor(concurrency) || 1, items.length)) }, worker));
  return results;
}

/**
 * A limit of `n` calls in flight: `run(fn)` waits for a free place, then calls `fn`; the place is
 * free again when `fn` settles. Waiters are served in order.
 */
export function limiter(n: number): { run<R>(fn: () => Promise<R>): Promise<R> } {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    async run<R>(fn: () => Promise<R>): Promise<R> {
      if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
      else active += 1;
      try {
        return await fn();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else active -= 1;
      }
    },
  };
}

/**
 * Stats of every page, in page order, two pages in flight by default: enough to keep the decoder
 * busy without holding a chapter's decodes at once. The first bad page rejects with its number.
 */
export function statsOfPages(
  buffers: readonly Buffer[],
  concurrency = 2,
  limits?: Partial<ArchiveLimitsConfig>,
): Promise<PageStats[]> {
  return mapConcurrent(buffers, concurrency, async (buf, i) => {
    try {
      return await pageStats(buf, limits);
    } catch (e) {
      const err = e instanceof AppError ? e : imageError(e);
      throw new AppError(err.code, `page ${i + 1}: ${err.message}`, { ...err.extra, page: i + 1 });
    }
  });
}
