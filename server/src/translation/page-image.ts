/**
 * sharp glue around the pure region finder: turns a page upright (EXIF orientation), decodes it to
 * grayscale (within the archive pixel limit, like every page we open), finds its text regions, and
 * prepares OCR crops.
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

/** A page as a reader shows it, and the EXIF orientation (1–8) it was stored with. */
export interface UprightPage {
  image: Buffer;
  orientation: number;
}

/** Output quality of a page re-encoded after lettering (the same as lettering's). */
const OUTPUT_QUALITY = 90;

/**
 * The page turned as its EXIF orientation says (a lossless PNG without the tag), or the page itself
 * when it is stored upright: regions, OCR and lettering then work on what the reader sees.
 */
export async function uprightPage(page: Buffer): Promise<UprightPage> {
  const { orientation } = await sharp(page, sharpInputOptions()).metadata();
  if (!orientation || orientation === 1 || orientation > 8) return { image: page, orientation: 1 };
  return { image: await sharp(page, sharpInputOptions()).autoOrient().png().toBuffer(), orientation };
}

/** The inverse of each EXIF orientation: from the upright picture back to the stored pixels. */
const STORED: Readonly<Record<number, (s: sharp.Sharp) => sharp.Sharp>> = {
  2: (s) => s.flop(),
  3: (s) => s.rotate(180),
  4: (s) => s.flip(),
  5: (s) => s.rotate(90).flip(),
  6: (s) => s.rotate(270),
  7: (s) => s.rotate(90).flop(),
  8: (s) => s.rotate(90),
};

/**
 * A lettered upright page stored as the source page was: the same pixel layout, orientation tag
 * and format, so its stored width and height are the source's. An upright source is returned as is.
 */
export async function restoreOrientation(lettered: Buffer, orientation: number, source: Buffer): Promise<Buffer> {
  const turn = STORED[orientation];
  if (!turn) return lettered;
  const { format } = await sharp(source, sharpInputOptions()).metadata();
  const image = turn(sharp(lettered, sharpInputOptions())).withMetadata({ orientation });
  if (format === "jpeg") return image.jpeg({ quality: OUTPUT_QUALITY }).toBuffer();
  if (format === "webp") return image.webp({ quality: OUTPUT_QUALITY }).toBuffer();
  if (format === "png") return image.png().toBuffer();
  return image.toFormat(format as keyof sharp.FormatEnum).toBuffer();
}

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
