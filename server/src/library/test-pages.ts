/**
 * Generated manga pages for the conformity tests, drawn into a raw RGB raster and encoded by sharp
 * (JPEG unless told): drawn pages (paper noise, panel borders, strokes, shadows, screentone, speech
 * bubbles with text-like marks), dark but drawn pages (night scenes with strong highlights), black
 * cards (pure, with JPEG noise, with a small notice) and tall webtoon strips with their slices.
 * Deterministic: the same seed gives the same bytes.
 */
import sharp from "sharp";

type RGB = readonly [number, number, number];
const BLACK: RGB = [0, 0, 0];
const INK: RGB = [22, 20, 24];
const WHITE: RGB = [255, 255, 255];

/** mulberry32: a small seeded generator, enough for pictures (these and the benchmarks' pages, bench/pages.ts). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Canvas {
  readonly px: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
    background: RGB,
  ) {
    this.px = new Uint8Array(width * height * 3);
    this.rect(0, 0, width, height, background);
  }
  private set(x: number, y: number, c: RGB) {
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    const i = (y * this.width + x) * 3;
    this.px[i] = c[0];
    this.px[i + 1] = c[1];
    this.px[i + 2] = c[2];
  }
  rect(x: number, y: number, w: number, h: number, c: RGB) {
    const x0 = Math.max(0, Math.round(x));
    const y0 = Math.max(0, Math.round(y));
    const x1 = Math.min(this.width, Math.round(x + w));
    const y1 = Math.min(this.height, Math.round(y + h));
    if (x1 <= x0 || y1 <= y0) return;
    // One row drawn pixel by pixel, the others copied from it.
    const row = y0 * this.width * 3;
    for (let xx = x0; xx < x1; xx++) this.set(xx, y0, c);
    for (let yy = y0 + 1; yy < y1; yy++) this.px.copyWithin(yy * this.width * 3 + x0 * 3, row + x0 * 3, row + x1 * 3);
  }
  frame(x: number, y: number, w: number, h: number, t: number, c: RGB) {
    this.rect(x, y, w, t, c);
    this.rect(x, y + h - t, w, t, c);
    this.rect(x, y, t, h, c);
    this.rect(x + w - t, y, t, h, c);
  }
  line(x0: number, y0: number, x1: number, y1: number, t: number, c: RGB) {
    const steps = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0)));
    for (let s = 0; s <= steps; s++) {
      const x = x0 + ((x1 - x0) * s) / steps;
      const y = y0 + ((y1 - y0) * s) / steps;
      this.rect(x - t / 2, y - t / 2, t, t, c);
    }
  }
  ellipse(cx: number, cy: number, rx: number, ry: number, c: RGB) {
    for (let y = Math.floor(cy - ry); y <= cy + ry; y++) {
      for (let x = Math.floor(cx - rx); x <= cx + rx; x++) {
        if (((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1) this.set(x, y, c);
      }
    }
  }
  /** Rows of word-like marks, as lettering looks from afar. */
  text(x: number, y: number, w: number, lines: number, r: () => number, c: RGB = INK, size = 14) {
    for (let l = 0; l < lines; l++) {
      let cx = x;
      const end = x + w * (0.6 + 0.4 * r());
      while (cx < end) {
        const word = size * (1 + 3 * r());
        for (let k = 0; k < word; k += size * 0.7) this.rect(cx + k, y + l * size * 1.6, size * 0.55, size, c);
        cx += word + size * 0.8;
      }
    }
  }
  bubble(cx: number, cy: number, rx: number, ry: number, r: () => number) {
    this.ellipse(cx, cy, rx + 3, ry + 3, INK);
    this.ellipse(cx, cy, rx, ry, WHITE);
    this.text(cx - rx * 0.6, cy - ry * 0.45, rx * 1.2, Math.max(1, Math.floor((ry * 0.9) / 22)), r);
  }
  screentone(x: number, y: number, w: number, h: number, spacing: number, c: RGB) {
    for (let yy = y; yy < y + h; yy += spacing) for (let xx = x; xx < x + w; xx += spacing) this.rect(xx, yy, 2, 2, c);
  }
  /** Uniform noise of ±amount on every sample (paper grain, sensor noise), from a seeded table. */
  noise(amount: number, r: () => number) {
    const table = Int16Array.from({ length: 4096 }, () => Math.round((r() * 2 - 1) * amount));
    let state = (r() * 0xffffffff) | 1;
    const px = this.px;
    for (let i = 0; i < px.length; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      const v = (px[i] as number) + (table[(state >>> 20) & 4095] as number);
      px[i] = v < 0 ? 0 : v > 255 ? 255 : v;
    }
  }
  /** JPEG (quality 82, greyscale unless `colour`), or PNG. */
  encode(options: { format?: "jpeg" | "png"; colour?: boolean; quality?: number } = {}): Promise<Buffer> {
    let img = sharp(Buffer.from(this.px.buffer, this.px.byteOffset, this.px.length), {
      raw: { width: this.width, height: this.height, channels: 3 },
    });
    if (!options.colour) img = img.toColourspace("b-w");
    return options.format === "png" ? img.png().toBuffer() : img.jpeg({ quality: options.quality ?? 82 }).toBuffer();
  }
}

export interface PageSize {
  width?: number;
  height?: number;
}

/** Panels of a printed page: rows of one or two panels between white gutters. */
function panels(width: number, height: number, r: () => number): { x: number; y: number; w: number; h: number }[] {
  const out = [];
  const margin = Math.round(width * 0.05);
  const gutter = Math.round(width * 0.02);
  const rows = 3 + Math.floor(r() * 2);
  let y = margin;
  const rowH = (height - 2 * margin - (rows - 1) * gutter) / rows;
  for (let row = 0; row < rows; row++) {
    const split = r() < 0.6;
    const cut = split ? 0.35 + r() * 0.3 : 1;
    const inner = width - 2 * margin;
    out.push({ x: margin, y, w: split ? inner * cut - gutter / 2 : inner, h: rowH });
    if (split) out.push({ x: margin + inner * cut + gutter / 2, y, w: inner * (1 - cut) - gutter / 2, h: rowH });
    y += rowH + gutter;
  }
  return out;
}

function drawPanelContent(c: Canvas, p: { x: number; y: number; w: number; h: number }, r: () => number, ink: RGB) {
  for (let s = 0; s < 8 + r() * 8; s++) {
    const x0 = p.x + r() * p.w;
    const y0 = p.y + r() * p.h;
    c.line(x0, y0, x0 + (r() - 0.5) * p.w * 0.6, y0 + (r() - 0.5) * p.h * 0.6, 2 + r() * 3, ink);
  }
  if (r() < 0.6) c.ellipse(p.x + p.w * (0.3 + r() * 0.4), p.y + p.h * (0.4 + r() * 0.3), p.w * 0.12, p.h * 0.18, ink);
}

/** A drawn page on white paper: panel borders, strokes, shadows, screentone, bubbles with lettering. */
export function drawnPage(seed: number, size: PageSize = {}): Promise<Buffer> {
  const r = rng(seed);
  const c = new Canvas(size.width ?? 800, size.height ?? 1160, [246, 244, 240]);
  const ps = panels(c.width, c.height, r);
  ps.forEach((p, i) => {
    if (i % 3 === 1) c.screentone(p.x + p.w * 0.5, p.y, p.w * 0.5, p.h, 6, [120, 120, 120]);
    drawPanelContent(c, p, r, INK);
    if (r() < 0.7)
      c.bubble(p.x + p.w * (0.25 + r() * 0.5), p.y + p.h * 0.3, Math.min(110, p.w * 0.3), Math.min(70, p.h * 0.25), r);
    c.frame(p.x, p.y, p.w, p.h, 4, INK);
  });
  c.noise(8, r);
  return c.encode();
}

/**
 * A night scene: dark from edge to edge, yet drawn — a moon, lit windows, rain and white speech
 * bubbles. `sparse` keeps only the moon and one bubble (the darkest page that is still drawn).
 */
export function nightPage(seed: number, options: PageSize & { sparse?: boolean } = {}): Promise<Buffer> {
  const r = rng(seed);
  const c = new Canvas(options.width ?? 800, options.height ?? 1160, [14, 16, 30]);
  const w = c.width;
  const h = c.height;
  c.ellipse(w * (0.2 + r() * 0.6), h * 0.12, w * 0.07, w * 0.07, [236, 232, 210]);
  if (!options.sparse) {
    // Buildings with lit windows.
    for (let b = 0; b < 5; b++) {
      const bx = (b * w) / 5;
      const top = h * (0.45 + r() * 0.2);
      c.rect(bx + 6, top, w / 5 - 12, h - top, [6, 6, 12]);
      for (let k = 0; k < 10; k++)
        c.rect(bx + 14 + r() * (w / 5 - 40), top + 20 + r() * (h - top - 60), 16, 22, [250, 220, 140]);
    }
    for (let k = 0; k < 40; k++) {
      const x = r() * w;
      const y = r() * h;
      c.line(x, y, x - 12, y + 50, 1, [120, 130, 160]);
    }
    c.bubble(w * 0.7, h * 0.32, 130, 80, r);
  }
  c.bubble(w * 0.3, h * 0.3, 120, 75, r);
  c.noise(6, r);
  return c.encode({ colour: true });
}

/** A dark page with white gutters: every panel a night interior, lettering in bubbles. */
export function darkPanelsPage(seed: number, size: PageSize = {}): Promise<Buffer> {
  const r = rng(seed);
  const c = new Canvas(size.width ?? 800, size.height ?? 1160, WHITE);
  for (const p of panels(c.width, c.height, r)) {
    c.rect(p.x, p.y, p.w, p.h, [18, 18, 22]);
    drawPanelContent(c, p, r, [200, 200, 210]);
    if (r() < 0.5) c.bubble(p.x + p.w * 0.5, p.y + p.h * 0.35, Math.min(90, p.w * 0.3), Math.min(55, p.h * 0.25), r);
  }
  c.noise(6, r);
  return c.encode();
}

export type CardKind = "pure" | "noisy" | "notice" | "dark-grey";

/**
 * A black card: a piracy notice, a studio splash or an "end" slate. `noisy` and `dark-grey` carry
 * strong JPEG noise; `notice` has two lines of small white text in the middle.
 */
export function blackCard(seed: number, kind: CardKind = "noisy", size: PageSize = {}): Promise<Buffer> {
  const r = rng(seed);
  const base: RGB = kind === "pure" ? BLACK : kind === "dark-grey" ? [30, 30, 32] : [9, 9, 11];
  const c = new Canvas(size.width ?? 800, size.height ?? 1160, base);
  if (kind === "notice") c.text(c.width * 0.3, c.height * 0.47, c.width * 0.4, 2, r, [235, 235, 235], 12);
  if (kind !== "pure") c.noise(kind === "dark-grey" ? 14 : 10, r);
  return c.encode({ quality: kind === "pure" ? 90 : 60 });
}

/** A webtoon strip: full-width colour panels stacked with wide gutters, bubbles between them. */
export function stripPage(seed: number, size: PageSize = {}): Promise<Buffer> {
  const r = rng(seed);
  const c = new Canvas(size.width ?? 800, size.height ?? 2400, [252, 252, 252]);
  let y = 60;
  while (y < c.height - 200) {
    const h = 300 + r() * 500;
    const fill: RGB = [Math.round(120 + r() * 120), Math.round(120 + r() * 120), Math.round(120 + r() * 120)];
    c.rect(40, y, c.width - 80, Math.min(h, c.height - y - 40), fill);
    drawPanelContent(c, { x: 40, y, w: c.width - 80, h: Math.min(h, c.height - y - 40) }, r, INK);
    y += h + 120 + r() * 200;
    if (y < c.height - 150) c.bubble(c.width * (0.3 + r() * 0.4), y - 80, 150, 55, r);
  }
  c.noise(5, r);
  return c.encode({ colour: true });
}

/** A tall strip cut into `parts` slices of equal height (how some sources serve a webtoon). */
export async function stripSlices(seed: number, parts = 3, size: PageSize = {}): Promise<Buffer[]> {
  const width = size.width ?? 800;
  const height = size.height ?? 7200;
  const strip = await stripPage(seed, { width, height });
  const sliceH = Math.floor(height / parts);
  return Promise.all(
    Array.from({ length: parts }, (_, i) =>
      sharp(strip)
        .extract({ left: 0, top: i * sliceH, width, height: sliceH })
        .jpeg({ quality: 82 })
        .toBuffer(),
    ),
  );
}

/** `count` drawn pages, seeds from `seed` on, generated two at a time. */
export async function drawnPages(count: number, seed = 1, size: PageSize = {}): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (let i = 0; i < count; i += 2)
    out.push(
      ...(await Promise.all([drawnPage(seed + i, size), ...(i + 1 < count ? [drawnPage(seed + i + 1, size)] : [])])),
    );
  return out;
}
