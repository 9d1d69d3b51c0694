/**
 * Page signatures of one archive (domain/page-signature.ts computes each from a small grey raster):
 * every page image is read through the hardened archive reader and decoded by sharp straight to
 * DECODE_SIDE × DECODE_SIDE grey with shrink-on-load (libjpeg decodes at 1/8 scale, so a page
 * costs a fraction of a full decode). A spread is decoded at twice the width and hashed as its two
 * halves, right first. A page that cannot be decoded gives no signature (it is simply no evidence);
 * the archive itself must open.
 */
import sharp from "sharp";
import type { ArchiveLimitsConfig } from "../config.ts";
import { DECODE_SIDE, isSpread, signatureOf, type PageSignature } from "../domain/page-signature.ts";
import { sharpInputOptions, withArchive } from "./archive-reader.ts";

/** Grey rasters of one page image: one, or two for a spread (right half first). */
export async function pageRasters(image: Buffer, limits?: Partial<ArchiveLimitsConfig>): Promise<Uint8Array[]> {
  const input = sharp(image, sharpInputOptions(limits));
  const meta = await input.metadata();
  const width = meta.autoOrient?.width ?? meta.width ?? 0;
  const height = meta.autoOrient?.height ?? meta.height ?? 0;
  const spread = isSpread(width, height);
  const w = spread ? 2 * DECODE_SIDE : DECODE_SIDE;
  if (meta.hasAlpha) input.flatten({ background: "#ffffff" });
  const { data } = await input
    .rotate()
    .resize(w, DECODE_SIDE, { fit: "fill", fastShrinkOnLoad: true, kernel: "linear" })
    .greyscale()
    .raw({ depth: "uchar" })
    .toBuffer({ resolveWithObject: true });
  // One channel after greyscale(); stay safe if a decoder kept more.
  const channels = Math.max(1, Math.round(data.length / (w * DECODE_SIDE)));
  const grey = new Uint8Array(w * DECODE_SIDE);
  for (let i = 0; i < grey.length; i++) grey[i] = data[i * channels] as number;
  if (!spread) return [grey];
  const half = (from: number) => {
    const out = new Uint8Array(DECODE_SIDE * DECODE_SIDE);
    for (let y = 0; y < DECODE_SIDE; y++)
      out.set(grey.subarray(y * w + from, y * w + from + DECODE_SIDE), y * DECODE_SIDE);
    return out;
  };
  return [half(DECODE_SIDE), half(0)];
}

/** The signatures of one page image (1-based `page`). */
export async function pageSignatures(
  image: Buffer,
  page: number,
  limits?: Partial<ArchiveLimitsConfig>,
): Promise<PageSignature[]> {
  return (await pageRasters(image, limits)).map((grey) => signatureOf(grey, page));
}

export interface ArchiveSignatures {
  pageCount: number;
  signatures: PageSignature[];
  /** Pages that could not be decoded (no signature). */
  unreadable: number[];
}

/** Every page of the archive at `absPath`, in reading order (one archive open). */
export function archiveSignatures(absPath: string, limits: ArchiveLimitsConfig): Promise<ArchiveSignatures> {
  return withArchive(absPath, limits, async (archive) => {
    const signatures: PageSignature[] = [];
    const unreadable: number[] = [];
    for (let i = 0; i < archive.pages.length; i++) {
      try {
        signatures.push(...(await pageSignatures(await archive.readPage(i), i + 1, limits)));
      } catch {
        unreadable.push(i + 1);
      }
    }
    return { pageCount: archive.pages.length, signatures, unreadable };
  });
}
