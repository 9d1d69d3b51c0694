/**
 * Finds the places on a manga page that hold text, on the CPU, without a model (docs/rules.md, "Local
 * translation"): text regions. Pure: works on a grayscale raw buffer (one byte a pixel).
 *
 * 1. Bubbles and boxed captions: white connected components (4-connected, so a 1-px outline
 *    separates them) of bounded size, with ink in their holes. The component with its holes filled
 *    is the region's mask. A filled shape that covers most of its box (a rectangle) is a "caption",
 *    otherwise a "bubble". A component may touch the page border on one side, or on two adjacent
 *    sides (a bubble cut by the trim, or in a corner); one that reaches two opposite sides spans
 *    the page and is the paper around the panels.
 * 2. Text set straight on white paper: dark glyph-sized components whose surroundings are white
 *    (screentone dots and art strokes sit on grey or are too big), clustered by proximity into blocks
 *    ("caption", no mask).
 *
 * Vertical or horizontal comes from the layout of the glyph boxes (see isVerticalLayout).
 *
 * Order: manga reading order, right to left then top to bottom: regions are grouped into bands (a
 * region joins the band of the region above it when its top lies within the upper half of the band's
 * first region), bands top to bottom, inside a band by right edge, rightmost first.
 */

/** The same fields as translation/types.ts TextRegion (the domain may not import it). */
export interface FoundRegion {
  x: number;
  y: number;
  width: number;
  height: number;
  kind: "bubble" | "caption";
  vertical: boolean;
  /** 1 = inside the region, row-major width × height; absent = the whole box. */
  mask?: Uint8Array;
}

export interface GrayImage {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface TextRegionOptions {
  /** Gray at or above this is paper (bubble interior). */
  whiteLevel?: number;
  /** Gray below this is ink. */
  inkLevel?: number;
  /** Smallest region, as a fraction of the page area (and never under 256 px). */
  minAreaFraction?: number;
  /** Largest region, as a fraction of the page area (larger white shapes are paper, not bubbles). */
  maxAreaFraction?: number;
  /** Smallest glyph side in pixels (smaller dark specks are noise). */
  minGlyph?: number;
}

const DEFAULTS: Required<TextRegionOptions> = {
  whiteLevel: 200,
  inkLevel: 128,
  minAreaFraction: 0.0015,
  maxAreaFraction: 0.4,
  minGlyph: 5,
};

interface Rect {
  x0: number;
  y0: number;
  x1: number; // inclusive
  y1: number;
}

interface Component extends Rect {
  area: number;
  border: boolean;
}

/**
 * Labels the connected components of `on` pixels (4- or 8-connected) with an explicit stack.
 * Returns the label of each pixel (0 = not on, components numbered from 1) and their stats.
 */
function label(on: Uint8Array, w: number, h: number, eight: boolean): { labels: Int32Array; comps: Component[] } {
  const labels = new Int32Array(w * h);
  const comps: Component[] = [];
  const stack = new Int32Array(w * h);
  for (let start = 0; start < w * h; start++) {
    if (!on[start] || labels[start]) continue;
    const id = comps.length + 1;
    const c: Component = { x0: w, y0: h, x1: -1, y1: -1, area: 0, border: false };
    let sp = 0;
    stack[sp++] = start;
    labels[start] = id;
    while (sp > 0) {
      const p = stack[--sp]!;
      const x = p % w,
        y = (p - x) / w;
      c.area++;
      if (x < c.x0) c.x0 = x;
      if (x > c.x1) c.x1 = x;
      if (y < c.y0) c.y0 = y;
      if (y > c.y1) c.y1 = y;
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) c.border = true;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          if ((dx === 0 && dy === 0) || (!eight && dx !== 0 && dy !== 0)) continue;
          const nx = x + dx;
          if (nx < 0 || nx >= w) continue;
          const q = ny * w + nx;
          if (on[q] && !labels[q]) {
            labels[q] = id;
            stack[sp++] = q;
          }
        }
      }
    }
    comps.push(c);
  }
  return { labels, comps };
}

const median = (xs: number[]): number => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** Occupied runs of a projection of boxes onto one axis (gaps below `merge` bridged), and the gaps between them. */
function runs(intervals: [number, number][], merge: number): { lengths: number[]; gaps: number[] } {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  const lengths: number[] = [];
  const gaps: number[] = [];
  let cur: [number, number] | undefined;
  for (const [a, b] of sorted) {
    if (cur && a - cur[1] - 1 < merge) cur[1] = Math.max(cur[1], b);
    else {
      if (cur) {
        lengths.push(cur[1] - cur[0] + 1);
        gaps.push(a - cur[1] - 1);
      }
      cur = [a, b];
    }
  }
  if (cur) lengths.push(cur[1] - cur[0] + 1);
  return { lengths, gaps };
}

/**
 * Vertical writing when the glyphs form columns. With s the glyph size and the projections' runs
 * (gaps under 0.3 s bridged, so the spacing between characters of a word, line or column vanishes):
 * one run on both axes → the taller shape; one y-run → a single line (run ≈ s) unless that run
 * is a column several glyphs long; one x-run → a single column (run ≈ s) unless it is a line
 * several glyphs wide; runs on both axes (characters not bridged) → the axis with the wider gaps
 * separates lines (y) or columns (x).
 */
export function isVerticalLayout(glyphs: readonly Rect[]): boolean {
  if (glyphs.length === 0) return false;
  const sizes = glyphs.map((g) => Math.max(g.x1 - g.x0, g.y1 - g.y0) + 1);
  const big = Math.max(...sizes);
  // Glyph size from the full-size glyphs: dakuten, dots and commas would shrink it.
  const s = median(sizes.filter((v) => v >= big * 0.4));
  const merge = Math.max(1, s * 0.3);
  const xr = runs(
    glyphs.map((g) => [g.x0, g.x1]),
    merge,
  );
  const yr = runs(
    glyphs.map((g) => [g.y0, g.y1]),
    merge,
  );
  const width = Math.max(...glyphs.map((g) => g.x1)) - Math.min(...glyphs.map((g) => g.x0)) + 1;
  const height = Math.max(...glyphs.map((g) => g.y1)) - Math.min(...glyphs.map((g) => g.y0)) + 1;
  const oneX = xr.lengths.length === 1,
    oneY = yr.lengths.length === 1;
  if (oneX && oneY) return height > width * 1.2;
  if (oneY) return height > 1.7 * s;
  if (oneX) return width < 1.7 * s;
  const gx = median(xr.gaps),
    gy = median(yr.gaps);
  if (gx !== gy) return gx > gy;
  return median(yr.lengths) > median(xr.lengths);
}

/** Ink components inside the holes of one white component, and its filled mask. */
function analyseCandidate(
  gray: GrayImage,
  labels: Int32Array,
  id: number,
  c: Component,
  o: Required<TextRegionOptions>,
): { mask: Uint8Array; glyphs: Rect[]; fill: number; inkFraction: number } {
  const { width: W } = gray;
  const bw = c.x1 - c.x0 + 1,
    bh = c.y1 - c.y0 + 1;
  const inComp = new Uint8Array(bw * bh);
  for (let y = 0; y < bh; y++)
    for (let x = 0; x < bw; x++) inComp[y * bw + x] = labels[(c.y0 + y) * W + c.x0 + x] === id ? 1 : 0;
  // Outside = not the component and reachable from the box edge; holes = the rest.
  const outside = new Uint8Array(bw * bh);
  const stack: number[] = [];
  for (let x = 0; x < bw; x++) for (const y of [0, bh - 1]) stack.push(y * bw + x);
  for (let y = 0; y < bh; y++) for (const x of [0, bw - 1]) stack.push(y * bw + x);
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (inComp[p] || outside[p]) continue;
    outside[p] = 1;
    const x = p % bw,
      y = (p - x) / bw;
    if (x > 0) stack.push(p - 1);
    if (x < bw - 1) stack.push(p + 1);
    if (y > 0) stack.push(p - bw);
    if (y < bh - 1) stack.push(p + bw);
  }
  const mask = new Uint8Array(bw * bh);
  const ink = new Uint8Array(bw * bh);
  let filled = 0,
    inkCount = 0;
  for (let i = 0; i < bw * bh; i++) {
    if (outside[i]) continue;
    mask[i] = 1;
    filled++;
    if (!inComp[i]) {
      const x = i % bw,
        y = (i - x) / bw;
      if (gray.data[(c.y0 + y) * W + c.x0 + x]! < o.inkLevel) {
        ink[i] = 1;
        inkCount++;
      }
    }
  }
  const glyphs = label(ink, bw, bh, true)
    .comps.filter((g) => Math.max(g.x1 - g.x0, g.y1 - g.y0) + 1 >= 2)
    .map((g) => ({ x0: g.x0 + c.x0, y0: g.y0 + c.y0, x1: g.x1 + c.x0, y1: g.y1 + c.y0 }));
  return { mask, glyphs, fill: filled / (bw * bh), inkFraction: filled > 0 ? inkCount / filled : 0 };
}

const overlapArea = (a: Rect, b: Rect): number =>
  Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) + 1) *
  Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) + 1);
const rectArea = (r: Rect): number => (r.x1 - r.x0 + 1) * (r.y1 - r.y0 + 1);

/** A white component reaching two opposite page sides is paper, not a bubble cut by the border. */
function spansPage(c: Component, W: number, H: number): boolean {
  if (!c.border) return false;
  return (c.x0 === 0 && c.x1 === W - 1) || (c.y0 === 0 && c.y1 === H - 1);
}

function bubblesAndBoxes(gray: GrayImage, o: Required<TextRegionOptions>): { found: (FoundRegion & { rect: Rect })[] } {
  const { width: W, height: H, data } = gray;
  const white = new Uint8Array(W * H);
  for (let i = 0; i < W * H; i++) white[i] = data[i]! >= o.whiteLevel ? 1 : 0;
  const { labels, comps } = label(white, W, H, false);
  const minArea = Math.max(256, o.minAreaFraction * W * H);
  const order = comps
    .map((c, i) => ({ c, id: i + 1 }))
    .filter(({ c }) => !spansPage(c, W, H) && c.area >= minArea && c.area <= o.maxAreaFraction * W * H)
    .sort((a, b) => b.c.area - a.c.area);
  const found: (FoundRegion & { rect: Rect })[] = [];
  for (const { c, id } of order) {
    if (found.some((f) => overlapArea(f.rect, c) > 0.5 * rectArea(c))) continue; // nested in a region taken
    const a = analyseCandidate(gray, labels, id, c, o);
    const bw = c.x1 - c.x0 + 1,
      bh = c.y1 - c.y0 + 1;
    // Text, not a drawing framed in white: some ink but not mostly ink, every glyph smaller than the shape.
    if (a.fill < 0.5 || a.inkFraction < 0.003 || a.inkFraction > 0.45) continue;
    const glyphs = a.glyphs.filter((g) => Math.max(g.x1 - g.x0, g.y1 - g.y0) + 1 >= o.minGlyph);
    if (glyphs.length === 0) continue;
    if (glyphs.some((g) => g.x1 - g.x0 + 1 > 0.8 * bw || g.y1 - g.y0 + 1 > 0.8 * bh)) continue;
    found.push({
      x: c.x0,
      y: c.y0,
      width: bw,
      height: bh,
      kind: a.fill >= 0.92 ? "caption" : "bubble",
      vertical: isVerticalLayout(glyphs),
      mask: a.mask,
      rect: c,
    });
  }
  return { found };
}

/** Text set directly on white paper: glyph-sized dark components with white around them, clustered. */
function textOnPaper(
  gray: GrayImage,
  taken: readonly Rect[],
  o: Required<TextRegionOptions>,
): (FoundRegion & { rect: Rect })[] {
  const { width: W, height: H, data } = gray;
  const dark = new Uint8Array(W * H);
  for (let i = 0; i < W * H; i++) dark[i] = data[i]! < o.inkLevel ? 1 : 0;
  const maxGlyph = Math.max(o.minGlyph * 2, Math.min(W, H) * 0.08);
  const glyphs: Rect[] = [];
  for (const g of label(dark, W, H, true).comps) {
    const size = Math.max(g.x1 - g.x0, g.y1 - g.y0) + 1;
    if (size < o.minGlyph || size > maxGlyph) continue;
    if (taken.some((t) => overlapArea(t, g) > 0)) continue;
    // The ring around the glyph box must be paper (or other ink), not grey art.
    const pad = Math.max(2, Math.round(size * 0.3));
    let ring = 0,
      paper = 0;
    for (let y = Math.max(0, g.y0 - pad); y <= Math.min(H - 1, g.y1 + pad); y++) {
      for (let x = Math.max(0, g.x0 - pad); x <= Math.min(W - 1, g.x1 + pad); x++) {
        if (x >= g.x0 && x <= g.x1 && y >= g.y0 && y <= g.y1) continue;
        ring++;
        const v = data[y * W + x]!;
        if (v >= o.whiteLevel || v < o.inkLevel) paper++;
      }
    }
    if (ring > 0 && paper / ring >= 0.9) glyphs.push(g);
    if (glyphs.length > 4000) break; // a page of noise, not text: bound the clustering below
  }
  // Single-link clustering: glyphs closer than their size join one block.
  const parent = glyphs.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (let i = 0; i < glyphs.length; i++) {
    const a = glyphs[i]!;
    const sa = Math.max(a.x1 - a.x0, a.y1 - a.y0) + 1;
    for (let j = i + 1; j < glyphs.length; j++) {
      const b = glyphs[j]!;
      const reach = 0.9 * Math.max(sa, Math.max(b.x1 - b.x0, b.y1 - b.y0) + 1);
      const gx = Math.max(0, Math.max(a.x0, b.x0) - Math.min(a.x1, b.x1));
      const gy = Math.max(0, Math.max(a.y0, b.y0) - Math.min(a.y1, b.y1));
      if (gx <= reach && gy <= reach) parent[find(i)] = find(j);
    }
  }
  const blocks = new Map<number, Rect[]>();
  glyphs.forEach((g, i) => {
    const r = find(i);
    blocks.set(r, [...(blocks.get(r) ?? []), g]);
  });
  const out: (FoundRegion & { rect: Rect })[] = [];
  for (const members of blocks.values()) {
    if (members.length < 2) continue; // a lone mark is not a caption
    const s = median(members.map((g) => Math.max(g.x1 - g.x0, g.y1 - g.y0) + 1));
    const pad = Math.round(s * 0.4);
    const rect: Rect = {
      x0: Math.max(0, Math.min(...members.map((g) => g.x0)) - pad),
      y0: Math.max(0, Math.min(...members.map((g) => g.y0)) - pad),
      x1: Math.min(W - 1, Math.max(...members.map((g) => g.x1)) + pad),
      y1: Math.min(H - 1, Math.max(...members.map((g) => g.y1)) + pad),
    };
    if (rectArea(rect) < Math.max(256, o.minAreaFraction * W * H * 0.25)) continue;
    out.push({
      x: rect.x0,
      y: rect.y0,
      width: rect.x1 - rect.x0 + 1,
      height: rect.y1 - rect.y0 + 1,
      kind: "caption",
      vertical: isVerticalLayout(members),
      rect,
    });
  }
  return out;
}

/** Manga reading order: bands top to bottom, right to left inside a band (see the file comment). */
export function readingOrder<T extends { x: number; y: number; width: number; height: number }>(
  regions: readonly T[],
): T[] {
  const byTop = [...regions].sort((a, b) => a.y - b.y || b.x + b.width - (a.x + a.width));
  const bands: T[][] = [];
  for (const r of byTop) {
    const band = bands[bands.length - 1];
    const first = band?.[0];
    if (band && first && r.y < first.y + first.height / 2) band.push(r);
    else bands.push([r]);
  }
  return bands.flatMap((b) => b.sort((a, c) => c.x + c.width - (a.x + a.width) || a.y - c.y));
}

export function findTextRegions(gray: GrayImage, options?: TextRegionOptions): FoundRegion[] {
  const o = { ...DEFAULTS, ...options };
  if (gray.data.length < gray.width * gray.height) throw new RangeError("gray buffer smaller than width × height");
  if (gray.width < 8 || gray.height < 8) return [];
  const { found } = bubblesAndBoxes(gray, o);
  const loose = textOnPaper(
    gray,
    found.map((f) => f.rect),
    o,
  ).filter((l) => !found.some((f) => overlapArea(f.rect, l.rect) > 0));
  return readingOrder([...found, ...loose]).map(({ rect: _rect, ...r }) => r);
}

/**
 * The typical glyph size of a crop (gray, already masked): the median height (horizontal text) or
 * width (vertical text) of the full-size ink components; 0 when there is no ink. OCR scales crops so
 * this is ~32 px.
 */
export function glyphSize(crop: GrayImage, vertical: boolean, inkLevel = DEFAULTS.inkLevel): number {
  const { width: W, height: H, data } = crop;
  const ink = new Uint8Array(W * H);
  for (let i = 0; i < W * H; i++) ink[i] = data[i]! < inkLevel ? 1 : 0;
  const sizes = label(ink, W, H, true)
    .comps.map((g) => (vertical ? g.x1 - g.x0 : g.y1 - g.y0) + 1)
    .filter((v) => v >= 3);
  if (sizes.length === 0) return 0;
  const big = Math.max(...sizes);
  return median(sizes.filter((v) => v >= big * 0.5));
}
