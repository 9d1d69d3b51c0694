/**
 * sharp glue around the pure region finder: decodes a page to grayscale (within the archive pixel
 * limit, like every page we open), finds its text regions, and prepares OCR crops.
 */
import sharp from "sharp";
import { findTextRegions, glyphSize, type GrayImage } from "../domain/text-regions.ts";
import { sharpInputOptions } from "../library/archive-reader.ts";
import type { TextRegion } from "./types.ts";

/** Crops are scaled so glyphs are this many pixels high (horizontal) or wide (vertical). */
export const OCR_GLYPH_PX = 32;
/** White border around a crop: tesseract reads badly when ink touches the edge. */
export const OCR_PADDING_PX = 16;
/** Gray at or above this becomes white in the binarised crop. */
const BINARY_THRESHOLD = 150;

export async function decodeGray(page: Buffer): Promise<GrayImage> {
  const { data, info } = await sharp(page, sharpInputOptions())
    .flatten({ background: "#ffffff" })
    .grayscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels === 1)
    return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
  const one = new Uint8Array(info.width * info.height);
  for (let i = 0; i < one.length; i++) one[i] = data[i * info.channels]!;
  return { data: one, width: info.width, height: info.height };
}

export async function findRegions(page: Buffer): Promise<TextRegion[]> {
  return findTextRegions(await decodeGray(page));
}

/** The region's pixels (clamped to the page), outside its mask painted white. */
export function maskedCrop(gray: GrayImage, region: TextRegion): GrayImage {
  const x0 = Math.max(0, Math.floor(region.x)),
    y0 = Math.max(0, Math.floor(region.y));
  const x1 = Math.min(gray.width, Math.ceil(region.x + region.width)),
    y1 = Math.min(gray.height, Math.ceil(region.y + region.height));
  const w = Math.max(1, x1 - x0),
    h = Math.max(1, y1 - y0);
  const out = new Uint8Array(w * h).fill(255);
  const mask = region.mask && region.mask.length === region.width * region.height ? region.mask : null;
  for (let y = 0; y < y1 - y0; y++) {
    for (let x = 0; x < x1 - x0; x++) {
      const mx = x0 + x - region.x,
        my = y0 + y - region.y;
      if (mask && !mask[my * region.width + mx]) continue;
      out[y * w + x] = gray.data[(y0 + y) * gray.width + x0 + x]!;
    }
  }
  return { data: out, width: w, height: h };
}

/** An OCR-ready PNG of one region from an already decoded page (decode once per page). */
export async function cropGrayForOcr(gray: GrayImage, region: TextRegion): Promise<Buffer> {
  const crop = maskedCrop(gray, region);
  const size = glyphSize(crop, region.vertical);
  const scale = size > 0 ? Math.min(8, Math.max(0.25, OCR_GLYPH_PX / size)) : 1;
  const width = Math.max(1, Math.round(crop.width * scale)),
    height = Math.max(1, Math.round(crop.height * scale));
  return sharp(Buffer.from(crop.data.buffer, crop.data.byteOffset, crop.data.length), {
    raw: { width: crop.width, height: crop.height, channels: 1 },
  })
    .resize(width, height, { kernel: "lanczos3", fit: "fill" })
    .threshold(BINARY_THRESHOLD)
    .extend({
      top: OCR_PADDING_PX,
      bottom: OCR_PADDING_PX,
      left: OCR_PADDING_PX,
      right: OCR_PADDING_PX,
      background: "#ffffff",
    })
    .png()
    .toBuffer();
}

/** Crop, outside the mask white, binarised, glyphs scaled to ~32 px, padded white: a PNG. */
export async function cropForOcr(page: Buffer, region: TextRegion): Promise<Buffer> {
  return cropGrayForOcr(await decodeGray(page), region);
}
