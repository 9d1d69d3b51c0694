/**
 * The pages of the demo library, drawn as SVG and encoded by sharp: panels, speech bubbles and
 * captions in the series palette, deterministic from their seed so the demo is the same everywhere.
 */
import sharp from "sharp";
import { escapeXml } from "./comicinfo-writer.ts";

export interface DemoPalette {
  bg: string;
  paper: string;
  ink: string;
  accent: string;
  accent2: string;
}

/** Small deterministic hash, so that the demo is the same on every machine. */
export const hash = (s: string): number => [...s].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);
/** The hash mixed (murmur3's finaliser), so that pages 5 and 6 draw unlike scenes. */
export const mixed = (s: string): number => {
  let h = hash(s);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) & 0x7fffffff; // non-negative: the scene reads it with `>>` and `%`
};

const FONT = `font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif"`;
/** Panel layouts as fractions of the panel area; pages cycle through them. */
const LAYOUTS: [number, number, number, number][][] = [
  [
    [0, 0, 1, 0.42],
    [0, 0.42, 0.5, 0.58],
    [0.5, 0.42, 0.5, 0.58],
  ],
  [
    [0, 0, 0.6, 0.5],
    [0.6, 0, 0.4, 0.5],
    [0, 0.5, 0.4, 0.5],
    [0.4, 0.5, 0.6, 0.5],
  ],
  [
    [0, 0, 1, 0.3],
    [0, 0.3, 1, 0.4],
    [0, 0.7, 1, 0.3],
  ],
  [
    [0, 0, 0.5, 1],
    [0.5, 0, 0.5, 0.5],
    [0.5, 0.5, 0.5, 0.5],
  ],
];

function text(
  x: number,
  y: number,
  size: number,
  fill: string,
  s: string,
  anchor = "middle",
  weight = "normal",
): string {
  return `<text x="${x}" y="${y}" ${FONT} font-size="${size}" font-weight="${weight}" text-anchor="${anchor}" fill="${fill}">${escapeXml(s)}</text>`;
}

/** Font size that keeps a line inside the width (DejaVu Sans averages ~0.6 em per glyph). */
const fit = (s: string, width: number, max: number): number =>
  Math.max(10, Math.min(max, Math.floor(width / (0.6 * s.length))));

/**
 * A panel with a small scene (sun, hills, a figure), varied by seed; shapes only, no text. Night
 * panels and the horizon's height differ from page to page, as drawn pages do: that coarse
 * structure is what page signatures compare. Translucent shapes use `fill-opacity`: an element's
 * `opacity` makes librsvg draw it on a layer of its own, which doubled the time of a page.
 */
function panel(x: number, y: number, w: number, h: number, p: DemoPalette, seed: number): string {
  const night = seed % 3 === 0;
  const r = Math.max(8, Math.min(w, h) * (0.12 + (seed % 5) * 0.04));
  const cx = x + w * (0.15 + ((seed >> 3) % 8) * 0.1);
  const cy = y + h * (0.2 + ((seed >> 11) % 4) * 0.08);
  const hy = y + h * (0.45 + ((seed >> 6) % 5) * 0.1);
  const fx = x + w * (0.2 + ((seed >> 9) % 7) * 0.1);
  return [
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${night ? p.ink : p.paper}" stroke="${p.ink}" stroke-width="4"/>`,
    `<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="${r.toFixed(1)}" fill="${night ? p.paper : p.accent}" fill-opacity="0.85"/>`,
    `<path d="M${x + 2} ${hy.toFixed(1)} Q${(x + w * (0.2 + ((seed >> 4) % 7) * 0.1)).toFixed(1)} ${(hy - h * 0.3).toFixed(1)} ${x + w - 2} ${hy.toFixed(1)}` +
      ` L${x + w - 2} ${y + h - 2} L${x + 2} ${y + h - 2} Z" fill="${p.accent2}" fill-opacity="0.8"/>`,
    `<rect x="${(fx - 6).toFixed(1)}" y="${(hy - h * 0.18).toFixed(1)}" width="12" height="${(h * 0.18).toFixed(1)}" rx="5" fill="${night ? p.bg : p.ink}"/>`,
    `<circle cx="${fx.toFixed(1)}" cy="${(hy - h * 0.2).toFixed(1)}" r="9" fill="${night ? p.bg : p.ink}"/>`,
  ].join("");
}

export interface DemoPageSpec {
  title: string;
  heading: string;
  page: number;
  pages: number;
  width: number;
  height: number;
  palette: DemoPalette;
  strip: boolean;
}

/** The SVG of one page. Every text is decoration: without fonts the page still reads by its shapes. */
export function pageSvg(s: DemoPageSpec): string {
  const { width: W, height: H, palette: p } = s;
  const seed = mixed(`${s.title}|${s.heading}|${s.page}`);
  const parts: string[] = [];
  if (s.strip) {
    parts.push(
      `<defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${p.bg}"/><stop offset="1" stop-color="${p.accent}"/></linearGradient></defs>`,
    );
    parts.push(`<rect width="${W}" height="${H}" fill="url(#g)"/>`);
    let y = 60;
    if (s.page === 1) {
      parts.push(
        text(W / 2, 110, fit(s.title, W - 80, 56), p.ink, s.title, "middle", "bold"),
        text(W / 2, 170, 36, p.ink, s.heading),
      );
      y = 230;
    }
    for (let i = 0; y < H - 200; i++) {
      const h = Math.min(H - 140 - y, 480 + ((seed >> i) % 4) * 90);
      parts.push(panel(60, y, W - 120, h, p, seed >> i));
      y += h + 150; // webtoon gutters are wide: the scroll is the pacing
    }
  } else if (s.page === 1) {
    parts.push(`<rect width="${W}" height="${H}" fill="${p.accent2}"/>`, panel(40, 200, W - 80, H - 360, p, seed));
    parts.push(`<rect x="0" y="40" width="${W}" height="120" fill="${p.bg}"/>`);
    parts.push(
      text(W / 2, 112, fit(s.title, W - 60, 44), p.ink, s.title, "middle", "bold"),
      text(W / 2, H - 90, 48, p.paper, s.heading, "middle", "bold"),
    );
  } else {
    parts.push(`<rect width="${W}" height="${H}" fill="${p.bg}"/>`);
    parts.push(
      text(30, 56, fit(s.title, W * 0.62, 26), p.ink, s.title, "start"),
      text(W - 30, 56, 24, p.ink, s.heading, "end", "bold"),
    );
    const layout = LAYOUTS[(seed >> 2) % LAYOUTS.length] ?? [];
    const [ax, ay, aw, ah, gap] = [30, 80, W - 60, H - 170, 14];
    layout.forEach(([fx, fy, fw, fh], i) =>
      parts.push(panel(ax + fx * aw + gap / 2, ay + fy * ah + gap / 2, fw * aw - gap, fh * ah - gap, p, seed >> i)),
    );
  }
  // Reading progress as a bar: the page position shows even when no font is installed.
  const barW = W - 60;
  parts.push(`<rect x="30" y="${H - 36}" width="${barW}" height="10" fill="${p.ink}" fill-opacity="0.25"/>`);
  parts.push(
    `<rect x="30" y="${H - 36}" width="${((barW * s.page) / s.pages).toFixed(1)}" height="10" fill="${p.ink}"/>`,
  );
  parts.push(text(W - 30, H - 46, 18, p.ink, `${s.page} / ${s.pages}`, "end"));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">${parts.join("")}</svg>`;
}

export async function renderPage(s: DemoPageSpec): Promise<Buffer> {
  // Every page paints an opaque background, so dropping alpha is exact and cheaper than flatten;
  // Huffman optimisation would cost a third of the encode for a few percent of size.
  return sharp(Buffer.from(pageSvg(s)))
    .removeAlpha()
    .jpeg({ quality: 70, optimiseCoding: false })
    .toBuffer();
}
