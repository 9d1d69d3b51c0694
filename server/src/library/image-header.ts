/**
 * The type and size of a page image from its first bytes, without decoding: the reader's content
 * type and its layout hints (width/height before the image arrives). Sizes are hints only — the
 * hardened reader still checks every served page against the pixel limit — so anything unusual
 * answers null rather than a guess.
 *
 * JPEG: the first SOF marker, swapped when the EXIF orientation turns the picture (browsers apply
 * it). PNG: IHDR. GIF: the logical screen. WebP: VP8, VP8L or VP8X. AVIF: the `ispe` property when
 * it lies within the prefix.
 */

export type PageImageType = "image/jpeg" | "image/png" | "image/gif" | "image/webp" | "image/avif";

export interface PageImageInfo {
  contentType: PageImageType;
  width: number | null;
  height: number | null;
}

/** Bytes read from the start of an entry to find its size; JPEG EXIF/ICC blocks can push SOF this far. */
export const IMAGE_HEADER_PREFIX_BYTES = 64 * 1024;

const ascii = (b: Buffer, at: number, len: number): string =>
  at + len <= b.length ? b.toString("latin1", at, at + len) : "";

/** The content type from the magic bytes; null when the bytes are none of the page formats. */
export function sniffImageType(b: Buffer): PageImageType | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) return "image/png";
  if (ascii(b, 0, 6) === "GIF87a" || ascii(b, 0, 6) === "GIF89a") return "image/gif";
  if (ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WEBP") return "image/webp";
  if (ascii(b, 4, 4) === "ftyp" && /^avi[fs]$/.test(ascii(b, 8, 4))) return "image/avif";
  return null;
}

const size = (width: number, height: number): { width: number; height: number } | null =>
  width > 0 && height > 0 ? { width, height } : null;

/** EXIF orientation 5–8 turns the picture a quarter: width and height swap. */
function exifTurns(b: Buffer, start: number, end: number): boolean {
  if (ascii(b, start, 6) !== "Exif\0\0") return false;
  const tiff = start + 6;
  const order = ascii(b, tiff, 2);
  if (order !== "II" && order !== "MM") return false;
  const le = order === "II";
  const u16 = (at: number) => (at + 2 <= end ? (le ? b.readUInt16LE(at) : b.readUInt16BE(at)) : -1);
  const u32 = (at: number) => (at + 4 <= end ? (le ? b.readUInt32LE(at) : b.readUInt32BE(at)) : -1);
  const ifd = u32(tiff + 4);
  if (ifd < 0) return false;
  const count = u16(tiff + ifd);
  for (let i = 0; i < count && i < 512; i++) {
    const entry = tiff + ifd + 2 + i * 12;
    if (u16(entry) === 0x0112) return u16(entry + 8) >= 5 && u16(entry + 8) <= 8;
  }
  return false;
}

/** The JPEG frame's size as stored, and whether the EXIF orientation turns it a quarter for display. */
export function jpegFrame(b: Buffer): { width: number; height: number; turned: boolean } | null {
  let at = 2;
  let turned = false;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    const len = b.readUInt16BE(at + 2);
    if (len < 2) return null;
    if (marker === 0xe1 && exifTurns(b, at + 4, Math.min(b.length, at + 2 + len))) turned = true;
    // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > b.length) return null;
      const height = b.readUInt16BE(at + 5);
      const width = b.readUInt16BE(at + 7);
      const s = size(width, height);
      return s && { ...s, turned };
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image, or scan data before any frame header
    at += 2 + len;
  }
  return null;
}

function webpSize(b: Buffer): { width: number; height: number } | null {
  const chunk = ascii(b, 12, 4);
  if (chunk === "VP8X" && b.length >= 30) return size(b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1);
  if (chunk === "VP8L" && b.length >= 25 && b[20] === 0x2f) {
    const bits = b.readUInt32LE(21);
    return size((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === "VP8 " && b.length >= 30 && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) {
    return size(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
  }
  return null;
}

/** The first `ispe` (image spatial extent) property inside the prefix; the primary item's in practice. */
function avifSize(b: Buffer): { width: number; height: number } | null {
  const at = b.indexOf("ispe", 0, "latin1");
  if (at < 4 || at + 16 > b.length) return null;
  return size(b.readUInt32BE(at + 8), b.readUInt32BE(at + 12));
}

function jpegSize(b: Buffer): { width: number; height: number } | null {
  const frame = jpegFrame(b);
  return frame && (frame.turned ? { width: frame.height, height: frame.width } : { width: frame.width, height: frame.height });
}

/** Type and size from the first bytes of an image; null when it is none of the page formats. */
export function imageInfo(prefix: Buffer): PageImageInfo | null {
  const contentType = sniffImageType(prefix);
  if (contentType === null) return null;
  let s: { width: number; height: number } | null;
  try {
    if (contentType === "image/jpeg") s = jpegSize(prefix);
    else if (contentType === "image/png")
      s =
        prefix.length >= 24 && ascii(prefix, 12, 4) === "IHDR"
          ? size(prefix.readUInt32BE(16), prefix.readUInt32BE(20))
          : null;
    else if (contentType === "image/gif")
      s = prefix.length >= 10 ? size(prefix.readUInt16LE(6), prefix.readUInt16LE(8)) : null;
    else if (contentType === "image/webp") s = webpSize(prefix);
    else s = avifSize(prefix);
  } catch {
    // A truncated or odd header: no hint rather than a wrong one.
    s = null;
  }
  return { contentType, width: s?.width ?? null, height: s?.height ?? null };
}
