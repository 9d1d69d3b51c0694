/**
 * Pages as JPEG for the OPDS apps: an OPDS-PSE stream link declares one image type for every page
 * (JPEG, GIF or PNG only), and an OPDS cover link says JPEG, while an archive may hold PNG, WebP,
 * AVIF… JPEG pages pass through untouched (the usual case: no decode at all); any other page is
 * decoded under the archive reader's pixel limit, flattened on white and encoded as JPEG. At most
 * CONVERSIONS_AT_ONCE run together, the others wait their turn, so a reader prefetching pages of a
 * PNG book cannot pile up full-page decodes.
 */
import sharp from "sharp";
import type { ArchiveLimitsConfig } from "../config.ts";
import { sharpInputOptions } from "./archive-reader.ts";
import { imageError } from "./thumbnails.ts";

export const JPEG = "image/jpeg";
const CONVERSIONS_AT_ONCE = 2;
const QUALITY = 90;

let running = 0;
const waiting: (() => void)[] = [];

/** What the conversions cost, for the tests that hold it: how many ran, and the most at once. */
export const pageJpegWork = { conversions: 0, peak: 0 };

async function inTurn<T>(task: () => Promise<T>): Promise<T> {
  // A finishing conversion hands its turn straight to the next waiter, so none can slip in between.
  if (running >= CONVERSIONS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  pageJpegWork.conversions += 1;
  pageJpegWork.peak = Math.max(pageJpegWork.peak, running);
  try {
    return await task();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

/** The page as JPEG bytes: itself when it is JPEG already, converted otherwise. */
export async function pageAsJpeg(
  data: Buffer,
  contentType: string,
  limits?: Partial<ArchiveLimitsConfig>,
): Promise<Buffer> {
  if (contentType === JPEG) return data;
  return inTurn(async () => {
    try {
      return await sharp(data, sharpInputOptions(limits))
        .flatten({ background: "#ffffff" })
        .jpeg({ quality: QUALITY })
        .toBuffer();
    } catch (e) {
      throw imageError(e);
    }
  });
}
