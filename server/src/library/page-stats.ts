/**
 * Measures downloaded pages for the conformity rules (domain/conformity.ts): dimensions from the
 * image header, luminance mean and standard deviation from a 32 px greyscale decode. JPEG pages
 * are decoded by libjpeg at 1/8 scale (shrink-on-load), so a page costs a fraction of a full decode;
 * the statistics are computed here over one raw channel because sharp's `.stats()` also computes
 * entropy and sharpness for every band, which this does not need.
 */
import sharp from "sharp";
import type { ArchiveLimitsConfig } from "../config.ts";
import type { PageStats } from "../domain/conformity.ts";
import { AppError } from "../errors.ts";
import { imageInfo, IMAGE_HEADER_PREFIX_BYTES } from "./image-header.ts";
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
 * `headerReads` counts sharp's header-only reads, `decodes` the 32 px decodes.
 */
export const pageStatsWork = { headerReads: 0, decodes: 0 };

export async function pageStats(buf: Buffer, limits?: Partial<ArchiveLimitsConfig>): Promise<PageStats> {
  let width: number;
  let height: number;
  let data: Buffer;
  let channels: number;
  const options = sharpInputOptions(limits);
  // A JPEG (never transparent) takes its displayed size from our own header reader (the SOF, turned
  // by the EXIF orientation, as sharp's autoOrient): one sharp call per page instead of two. Other
  // formats, or a JPEG whose header the reader cannot size, ask sharp's header read.
  const header = imageInfo(buf.subarray(0, IMAGE_HEADER_PREFIX_BYTES));
  const known = header?.contentType === "image/jpeg" && header.width !== null && header.height !== null;
  if (known && header.width! * header.height! > options.limitInputPixels)
    throw new AppError("image_too_large", "the page is larger than the pixel limit");
  try {
    // The service's decoder options: the pixel limit is checked on the header, before decoding.
    const image = sharp(buf, options);
    if (known) {
      width = header.width!;
      height = header.height!;
    } else {
      // Header only: no pixel is decoded for the size.
      pageStatsWork.headerReads += 1;
      const meta = await image.metadata();
      // Orientation as displayed: a page stored sideways with an EXIF rotation reads upright.
      width = meta.autoOrient?.width ?? meta.width;
      height = meta.autoOrient?.height ?? meta.height;
      if (meta.hasAlpha) image.flatten({ background: "#ffffff" });
    }
    pageStatsWork.decodes += 1;
    const out = await image
      .resize(STATS_SIZE, STATS_SIZE, { fit: "inside", fastShrinkOnLoad: true })
      .greyscale()
      .raw({ depth: "uchar" })
      .toBuffer({ resolveWithObject: true });
    data = out.data;
    channels = out.info.channels;
  } catch (e) {
    throw imageError(e);
  }
  if (!(width > 0 && height > 0)) throw new AppError("image_unreadable", "the page has no size");
  return { width, height, ...luminance(data, channels) };
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
