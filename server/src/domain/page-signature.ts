/**
 * Perceptual page signatures (page evidence): from a small grey raster of a page — the library
 * decodes it with shrink-on-load — a 64-bit DCT hash that survives re-encoding, resizing and a
 * small crop, and whether the page is blank or near-uniform (such a page is never evidence: every
 * book has white and black pages). Pure: the raster comes in, the signature goes out.
 *
 * The hash (the well-known "pHash" construction, widened to 128 bits): the raster is RASTER_SIDE +
 * 2·BORDER pixels a side; the border is dropped (scan margins and trimmed edges are where two copies
 * of one page differ most), a 2-D DCT-II of the RASTER_SIDE² rest is taken, and of its 128 lowest
 * frequencies in zig-zag order (DC excluded) each bit says whether the coefficient is above their
 * median. Coarse structure only: JPEG noise, scaling and a trim of a few percent move a small share
 * of the bits (measured on generated pages: at most 13 % for a 2 % crop a side, 24 % for 4 %);
 * unrelated pages differ in a third to a half of them (never under 25 % there). 128 bits rather
 * than 64 widen that gap: the same measurement with 8×8 frequencies overlapped at a 4 % crop.
 *
 * A spread (a landscape page, wider than SPREAD_RATIO × its height) is hashed as its two halves,
 * right half first (right-to-left reading), so a book of spreads still matches chapters of single
 * pages. That is the library's job: it hands this module one raster per half.
 */

/** Version of the algorithm; stored signatures of another version are computed again. */
export const SIGNATURE_VERSION = 1;
/** Side of the hashed raster, and the border dropped around it (the decode is 36×36). */
export const RASTER_SIDE = 32;
export const BORDER = 2;
export const DECODE_SIDE = RASTER_SIDE + 2 * BORDER;
/** A page wider than this multiple of its height is a spread, hashed as two halves. */
export const SPREAD_RATIO = 1.15;
/** Standard deviation of the grey decode below which a page is blank or near-uniform. */
export const BLANK_STDEV = 6;
/** Black card (as the download judgement calibrates it): mean luminance and spread below these. */
export const BLACK_MEAN = 40;
export const BLACK_STDEV = 30;

export const FLAG_BLANK = 1;

/** One hashed page (or half of a spread), in reading order. */
export interface PageSignature {
  /** 1-based page number in the archive (both halves of a spread share it). */
  page: number;
  /** SIGNATURE_BITS / 4 lowercase hex digits. */
  hash: string;
  /** Blank or near-uniform: never evidence. */
  blank: boolean;
  /** Mean and standard deviation of the grey decode (0–255), for the audit's black last page. */
  mean: number;
  stdev: number;
}

/** Mean and population standard deviation of 8-bit grey pixels. */
export function greyStats(grey: Uint8Array): { mean: number; stdev: number } {
  const n = grey.length;
  if (n === 0) return { mean: 0, stdev: 0 };
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < n; i++) {
    const v = grey[i] as number;
    sum += v;
    sumSq += v * v;
  }
  const mean = sum / n;
  return { mean, stdev: Math.sqrt(Math.max(0, sumSq / n - mean * mean)) };
}

// cos((2x + 1)uπ / 2N) for the N-point DCT-II, computed once.
const COS: Float64Array = (() => {
  const t = new Float64Array(RASTER_SIDE * RASTER_SIDE);
  for (let u = 0; u < RASTER_SIDE; u++)
    for (let x = 0; x < RASTER_SIDE; x++)
      t[u * RASTER_SIDE + x] = Math.cos(((2 * x + 1) * u * Math.PI) / (2 * RASTER_SIDE));
  return t;
})();

/** Bits of a signature. */
export const SIGNATURE_BITS = 128;
/** Lowest frequency band the hash reads from (12 × 12 holds the first 128 in zig-zag order). */
const BAND = 12;

/** The low-frequency coefficients the hash reads, (row, column) of the 2-D DCT, in zig-zag order. */
const LOW: [number, number][] = (() => {
  const out: [number, number][] = [];
  for (let d = 1; out.length < SIGNATURE_BITS; d++)
    for (let u = 0; u <= d && out.length < SIGNATURE_BITS; u++) {
      const v = d - u;
      if (u < BAND && v < BAND) out.push(d % 2 === 0 ? [u, v] : [v, u]);
    }
  return out;
})();

/**
 * The signature of one page from its DECODE_SIDE × DECODE_SIDE grey raster (row-major, one byte a
 * pixel). `page` is the archive's page number.
 */
export function signatureOf(grey: Uint8Array, page: number): PageSignature {
  if (grey.length !== DECODE_SIDE * DECODE_SIDE)
    throw new RangeError(`a raster of ${DECODE_SIDE}×${DECODE_SIDE} is expected, not ${grey.length} pixels`);
  const { mean, stdev } = greyStats(grey);
  const n = RASTER_SIDE;
  // The inner raster, centred, as floats.
  const px = new Float64Array(n * n);
  for (let y = 0; y < n; y++)
    for (let x = 0; x < n; x++) px[y * n + x] = grey[(y + BORDER) * DECODE_SIDE + x + BORDER] as number;
  // Separable DCT-II: rows (only the BAND lowest frequencies are needed), then columns.
  const rows = new Float64Array(n * BAND);
  for (let y = 0; y < n; y++)
    for (let v = 0; v < BAND; v++) {
      let acc = 0;
      for (let x = 0; x < n; x++) acc += (px[y * n + x] as number) * (COS[v * n + x] as number);
      rows[y * BAND + v] = acc;
    }
  const coeff = new Float64Array(LOW.length);
  LOW.forEach(([u, v], i) => {
    let acc = 0;
    for (let y = 0; y < n; y++) acc += (rows[y * BAND + v] as number) * (COS[u * n + y] as number);
    coeff[i] = acc;
  });
  const median = [...coeff].sort((a, b) => a - b)[coeff.length >> 1] as number;
  const words = new Uint32Array(SIGNATURE_BITS / 32);
  for (let i = 0; i < SIGNATURE_BITS; i++)
    if ((coeff[i] as number) > median) words[i >> 5] = ((words[i >> 5] as number) | (1 << (31 - (i & 31)))) >>> 0;
  const hash = [...words].map((w) => w.toString(16).padStart(8, "0")).join("");
  return { page, hash, blank: stdev < BLANK_STDEV, mean, stdev };
}

/** Whether a page (its whole-page statistics) is a black card. */
export function isBlackPage(s: Pick<PageSignature, "mean" | "stdev">): boolean {
  return s.mean < BLACK_MEAN && s.stdev < BLACK_STDEV;
}

/** Whether a page of this size is a spread, hashed as two halves. */
export function isSpread(width: number, height: number): boolean {
  return height > 0 && width > SPREAD_RATIO * height;
}

const HEX = new RegExp(`^[0-9a-f]{${SIGNATURE_BITS / 4}}$`);

/** A hash as unsigned 32-bit words (for Hamming distances). */
export function hashWords(hash: string): Uint32Array {
  if (!HEX.test(hash)) throw new RangeError(`not a ${SIGNATURE_BITS}-bit signature: ${JSON.stringify(hash)}`);
  const out = new Uint32Array(SIGNATURE_BITS / 32);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hash.slice(8 * i, 8 * i + 8), 16);
  return out;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Bits in which two signatures differ (0–SIGNATURE_BITS). */
export function hamming(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += popcount(((a[i] as number) ^ (b[i] as number)) >>> 0);
  return d;
}

/** Signatures as stored: [page, hash, flags, mean, stdev] tuples (compact JSON). */
export type StoredSignature = [number, string, number, number, number];

export function toStored(s: PageSignature): StoredSignature {
  return [s.page, s.hash, s.blank ? FLAG_BLANK : 0, Math.round(s.mean * 10) / 10, Math.round(s.stdev * 10) / 10];
}

/** The stored tuples back; malformed ones are dropped. */
export function fromStored(rows: unknown): PageSignature[] {
  if (!Array.isArray(rows)) return [];
  const out: PageSignature[] = [];
  for (const r of rows) {
    if (!Array.isArray(r) || r.length < 5) continue;
    const [page, hash, flags, mean, stdev] = r as unknown[];
    if (typeof page !== "number" || typeof hash !== "string" || !HEX.test(hash)) continue;
    out.push({
      page,
      hash,
      blank: typeof flags === "number" && (flags & FLAG_BLANK) !== 0,
      mean: typeof mean === "number" ? mean : 0,
      stdev: typeof stdev === "number" ? stdev : 0,
    });
  }
  return out;
}

/**
 * The grey statistics of the archive's last page (both halves of a spread: the darker mean, the
 * larger spread, so a spread is black only when both halves are); null when it has no signature.
 */
export function lastPageStats(
  signatures: readonly PageSignature[],
  pageCount: number,
): { mean: number; stdev: number } | null {
  const last = signatures.filter((s) => s.page === pageCount);
  if (last.length === 0) return null;
  return { mean: Math.max(...last.map((s) => s.mean)), stdev: Math.max(...last.map((s) => s.stdev)) };
}
