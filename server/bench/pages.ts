/**
 * Realistic manga pages for the benchmarks: 1400×2000 JPEGs of about 350 KB that compress like
 * scans. A clean synthetic drawing is far lighter and decodes faster than a real page, flattering
 * us and the native tools alike; what makes a scan expensive is paper grain, ink edges and tone.
 *
 * Each page is deterministic in its seed: panel borders, speed lines and strokes, solid ink areas
 * and speech balloons holding columns of text-like marks are drawn as SVG and rendered by sharp;
 * screentone (dot grids, some fading) is drawn on that raster outside the balloons; both go under a
 * little scanner blur; then paper grain, a warm tint and a slow tone drift are added per pixel and
 * the page is encoded as JPEG (RGB, 4:2:0, like most scans).
 */
import sharp from "sharp";
import { rng } from "../src/library/test-pages.ts";

export const PAGE_WIDTH = 1400;
export const PAGE_HEIGHT = 2000;
/**
 * Picked so that a page lands near 350 KB (every benchmark prints the sizes it generated):
 * 200 pages measured median 356 KB, 284–447 KB. Screentone is what makes a page heavy, as in
 * real scans; grain σ ≈ 2 grey levels (triangular, ±5) is a clean flatbed scan's.
 */
export const PAGE_QUALITY = 85;
const GRAIN = 5;
const CURVES = 6;
const BLUR = 0.8;
const TONE_CHANCE = 0.6;
const TONE_AREA = 0.7;

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Splits the page into 4–7 panels: rows of 1–3 panels with gutters, like a typical layout. */
function panels(r: () => number): Rect[] {
  const margin = 70;
  const gutter = 24;
  const rows = 3 + Math.floor(r() * 2);
  const out: Rect[] = [];
  let y = margin;
  const usable = PAGE_HEIGHT - 2 * margin - (rows - 1) * gutter;
  const weights = Array.from({ length: rows }, () => 0.7 + r());
  const total = weights.reduce((a, b) => a + b, 0);
  for (const wgt of weights) {
    const h = Math.round((usable * wgt) / total);
    const cols = 1 + Math.floor(r() * 2.4);
    let x = margin;
    const usableW = PAGE_WIDTH - 2 * margin - (cols - 1) * gutter;
    const cw = Array.from({ length: cols }, () => 0.6 + r());
    const ct = cw.reduce((a, b) => a + b, 0);
    for (const c of cw) {
      const w = Math.round((usableW * c) / ct);
      out.push({ x, y, w, h });
      x += w + gutter;
    }
    y += h + gutter;
  }
  return out;
}

const f = (x: number) => x.toFixed(1);

/** Text-like marks: vertical columns of small stroked glyphs, right to left, inside a balloon. */
function balloon(r: () => number, p: Rect, out: Layout): string {
  const cols = 2 + Math.floor(r() * 4);
  const glyph = 26;
  const rows = 3 + Math.floor(r() * 5);
  const bw = cols * (glyph + 8) + 50;
  const bh = rows * (glyph + 4) + 60;
  const cx = p.x + 40 + r() * Math.max(1, p.w - bw - 80) + bw / 2;
  const cy = p.y + 40 + r() * Math.max(1, p.h - bh - 80) + bh / 2;
  out.holes.push({ cx, cy, rx: bw / 2 + 12, ry: bh / 2 + 12 });
  let s = `<ellipse cx="${f(cx)}" cy="${f(cy)}" rx="${f(bw / 2 + 12)}" ry="${f(bh / 2 + 12)}" fill="#fff" stroke="#111" stroke-width="3"/>`;
  s += `<g stroke="#161616" stroke-width="3" stroke-linecap="round" fill="none">`;
  for (let c = 0; c < cols; c++) {
    const gx = cx + bw / 2 - 35 - c * (glyph + 8);
    const n = rows - Math.floor(r() * 3);
    for (let k = 0; k < n; k++) {
      const gy = cy - bh / 2 + 30 + k * (glyph + 4);
      let d = "";
      const strokes = 2 + Math.floor(r() * 4);
      for (let q = 0; q < strokes; q++) {
        const x1 = gx + r() * glyph;
        const y1 = gy + r() * glyph;
        const horizontal = r() < 0.5;
        const x2 = horizontal ? gx + r() * glyph : x1 + (r() - 0.5) * 8;
        const y2 = horizontal ? y1 + (r() - 0.5) * 8 : gy + r() * glyph;
        d += `M${f(x1)} ${f(y1)}L${f(x2)} ${f(y2)}`;
      }
      s += `<path d="${d}"/>`;
    }
  }
  return `${s}</g>`;
}

/** A screentone: a dot grid at a halftone angle over a rectangle, optionally fading (gradient tone). */
interface Tone {
  rect: Rect;
  pitch: number;
  radius: number;
  angle: number;
  fade: boolean;
}
/** Balloons are white: tone never shows through them. */
interface Hole {
  cx: number;
  cy: number;
  rx: number;
  ry: number;
}
interface Layout {
  svg: string;
  tones: Tone[];
  holes: Hole[];
}

/**
 * The ink of one panel: speed lines, figure strokes, solid areas and a balloon, clipped to it;
 * its screentone is returned as a region, drawn on the raster (as SVG patterns, librsvg took about
 * 1 s more per page).
 */
function panelArt(r: () => number, p: Rect, i: number, out: Layout): string {
  let s = `<clipPath id="c${i}"><rect x="${p.x}" y="${p.y}" width="${p.w}" height="${p.h}"/></clipPath><g clip-path="url(#c${i})">`;
  if (r() < TONE_CHANCE) {
    const pitch = 6 + Math.floor(r() * 5);
    const x = p.x + r() * p.w * 0.4;
    const y = p.y + r() * p.h * 0.3;
    const w = Math.min(p.w * TONE_AREA * (0.4 + r() * 0.6), p.x + p.w - x);
    const h = Math.min(p.h * TONE_AREA * (0.3 + r() * 0.7), p.y + p.h - y);
    out.tones.push({
      rect: { x, y, w, h },
      pitch,
      radius: (0.2 + r() * 0.25) * pitch,
      angle: ((30 + r() * 30) * Math.PI) / 180,
      fade: r() < 0.4,
    });
  }
  // Speed lines converging from a point outside the panel.
  const lines = r() < 0.5 ? 10 + Math.floor(r() * 30) : 0;
  const ox = p.x + (r() < 0.5 ? -p.w * 0.3 : p.w * 1.3);
  const oy = p.y + r() * p.h;
  s += `<g stroke="#141414" fill="none" stroke-linecap="round">`;
  for (let k = 0; k < lines; k++) {
    const ex = p.x + r() * p.w;
    const ey = p.y + r() * p.h;
    const mx = ox + (ex - ox) * (0.4 + r() * 0.4);
    const my = oy + (ey - oy) * (0.4 + r() * 0.4);
    s += `<path d="M${f(mx)} ${f(my)}L${f(ex)} ${f(ey)}" stroke-width="${f(0.8 + r() * 2.2)}"/>`;
  }
  // Figure-like strokes: cubic curves of varying weight.
  const curves = CURVES + Math.floor(r() * CURVES);
  for (let k = 0; k < curves; k++) {
    const pt = () => `${f(p.x + r() * p.w)} ${f(p.y + r() * p.h)}`;
    s += `<path d="M${pt()}C${pt()} ${pt()} ${pt()}" stroke-width="${f(1.5 + r() * 4)}"/>`;
  }
  s += `</g>`;
  // Solid ink (hair, shadows).
  const blobs = Math.floor(r() * 3);
  for (let k = 0; k < blobs; k++) {
    const pt = () => `${f(p.x + r() * p.w)} ${f(p.y + r() * p.h)}`;
    s += `<path d="M${pt()}Q${pt()} ${pt()}T${pt()}Z" fill="#0c0c0c"/>`;
  }
  if (r() < 0.8) s += balloon(r, p, out);
  s += `</g><rect x="${p.x}" y="${p.y}" width="${p.w}" height="${p.h}" fill="none" stroke="#0a0a0a" stroke-width="${f(4 + r() * 3)}"/>`;
  return s;
}

function layout(seed: number): Layout {
  const r = rng(seed * 7919 + 17);
  const out: Layout = { svg: "", tones: [], holes: [] };
  const body = panels(r)
    .map((p, i) => panelArt(r, p, i, out))
    .join("");
  out.svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${PAGE_WIDTH}" height="${PAGE_HEIGHT}"><rect width="100%" height="100%" fill="#fff"/>${body}</svg>`;
  return out;
}

/** Multiplies screentone dots into the raster (1 channel, 255 = paper), outside the balloons. */
function applyTones(px: Buffer, tones: readonly Tone[], holes: readonly Hole[]): void {
  for (const t of tones) {
    const cos = Math.cos(t.angle);
    const sin = Math.sin(t.angle);
    const x0 = Math.max(0, Math.floor(t.rect.x));
    const y0 = Math.max(0, Math.floor(t.rect.y));
    const x1 = Math.min(PAGE_WIDTH, Math.ceil(t.rect.x + t.rect.w));
    const y1 = Math.min(PAGE_HEIGHT, Math.ceil(t.rect.y + t.rect.h));
    for (let y = y0; y < y1; y++) {
      const radius = t.fade ? t.radius * (1 - (y - y0) / (y1 - y0)) : t.radius;
      for (let x = x0; x < x1; x++) {
        if (holes.some((h) => ((x - h.cx) / h.rx) ** 2 + ((y - h.cy) / h.ry) ** 2 < 1)) continue;
        const u = (x * cos + y * sin) / t.pitch;
        const v = (y * cos - x * sin) / t.pitch;
        const du = u - Math.round(u);
        const dv = v - Math.round(v);
        const d = Math.sqrt(du * du + dv * dv) * t.pitch;
        const cover = Math.min(1, Math.max(0, radius + 0.5 - d));
        const i = y * PAGE_WIDTH + x;
        px[i] = Math.round(px[i]! * (1 - 0.9 * cover));
      }
    }
  }
}

/** Distinct drawings: pages share them (see makePage), which keeps 200 pages near 12 s on 2 cores. */
export const ART_VARIANTS = 16;
const artCache = new Map<number, Promise<Buffer>>();

/** The ink of drawing `k` as one raw 8-bit channel (255 = paper), slightly blurred like a scan. */
function art(k: number): Promise<Buffer> {
  let hit = artCache.get(k);
  if (!hit) {
    const l = layout(k);
    // Tone is printed dots: it goes under the same scanner blur as the line art.
    hit = sharp(Buffer.from(l.svg), { density: 72 })
      .flatten({ background: "#ffffff" })
      .extractChannel(0)
      .raw()
      .toBuffer()
      .then((px) => {
        applyTones(px, l.tones, l.holes);
        return sharp(px, { raw: { width: PAGE_WIDTH, height: PAGE_HEIGHT, channels: 1 } })
          .blur(BLUR)
          .extractChannel(0) // blur of a 1-channel raw input comes out as sRGB
          .raw()
          .toBuffer();
      });
    artCache.set(k, hit);
  }
  return hit;
}

/**
 * One page as JPEG bytes. Pages share ART_VARIANTS drawings, but each seed gets its own grain,
 * paper tint, drift, offset and mirroring, so no two pages have the same pixels (nor bytes): a
 * decoder or a cache gains nothing from the sharing. The grain is what makes the file a scan's
 * size and not a synthetic drawing's.
 */
export async function makePage(seed: number, quality = PAGE_QUALITY): Promise<Buffer> {
  const ink = await art(seed % ART_VARIANTS);
  const r = rng(seed ^ 0x9e3779b9);
  const out = Buffer.allocUnsafe(PAGE_WIDTH * PAGE_HEIGHT * 3);
  const tint = [244 + r() * 6, 238 + r() * 6, 226 + r() * 8];
  const mirror = Math.floor(seed / ART_VARIANTS) % 2 === 1;
  const dx = Math.floor(r() * 9) - 4;
  const dy = Math.floor(r() * 9) - 4;
  const phase = r() * Math.PI;
  for (let y = 0; y < PAGE_HEIGHT; y++) {
    // A slow vertical drift of the paper tone, as a flatbed scan of newsprint shows.
    const drift = Math.sin((y / PAGE_HEIGHT) * Math.PI + phase) * 5;
    const sy = Math.min(PAGE_HEIGHT - 1, Math.max(0, y + dy));
    for (let x = 0; x < PAGE_WIDTH; x++) {
      const sx = Math.min(PAGE_WIDTH - 1, Math.max(0, (mirror ? PAGE_WIDTH - 1 - x : x) + dx));
      const a = ink[sy * PAGE_WIDTH + sx]! / 255; // 1 = paper, 0 = ink
      // Sum of two uniforms: cheap triangular noise, weaker in the ink, which saturates.
      const grain = (r() + r() - 1) * GRAIN * (0.35 + 0.65 * a);
      const i = (y * PAGE_WIDTH + x) * 3;
      for (let c = 0; c < 3; c++) {
        const v = 18 + (tint[c]! - drift - 18) * a + grain;
        out[i + c] = v < 0 ? 0 : v > 255 ? 255 : v;
      }
    }
  }
  return sharp(out, { raw: { width: PAGE_WIDTH, height: PAGE_HEIGHT, channels: 3 } })
    .jpeg({ quality, chromaSubsampling: "4:2:0" })
    .toBuffer();
}

/** Pages for seeds first..first+count-1, `concurrency` at a time (generation is CPU-bound). */
export async function makePages(first: number, count: number, concurrency = 2): Promise<Buffer[]> {
  const out: Buffer[] = new Array<Buffer>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const k = next++;
      out[k] = await makePage(first + k);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return out;
}

/** "n pages, median 351 KB (min … max)": printed by each benchmark so the size is always checked. */
export function pageSizeReport(pages: readonly Buffer[]): string {
  const kb = pages.map((p) => p.length / 1024).sort((a, b) => a - b);
  const mid = kb[kb.length >> 1] ?? NaN;
  return `${pages.length} pages ${PAGE_WIDTH}×${PAGE_HEIGHT} JPEG q${PAGE_QUALITY}, median ${mid.toFixed(0)} KB (min ${kb[0]?.toFixed(0)} KB, max ${kb[kb.length - 1]?.toFixed(0)} KB)`;
}
