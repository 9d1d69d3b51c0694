/**
 * Renders test manga pages with sharp from SVG: a manga-like "art" background (grey gradient,
 * screentone dots, dark strokes and shapes: nothing white, nothing glyph-like on white) or a white
 * page, speech bubbles (white ellipses, black outline, horizontal lines or vertical columns read
 * right to left) and captions (white rectangles, thin border, horizontal lines). Deterministic: the
 * same page description gives the same pixels. Fonts are system fonts found with fontconfig (never a fixed path).
 */
import { execFileSync } from "node:child_process";
import sharp from "sharp";
import { ZipFile } from "yazl";

export interface BubbleSpec {
  x: number;
  y: number;
  width: number;
  height: number;
  /** One line (column when vertical) per element; a string is one line. */
  text: string | string[];
  /** Vertical writing: columns top to bottom, the first column on the right. */
  vertical?: boolean;
  font?: string;
  fontSize?: number;
  /** Bold lettering (comic lettering is often bold capitals). */
  bold?: boolean;
}

export interface CaptionSpec {
  x: number;
  y: number;
  width: number;
  height: number;
  text: string | string[];
  font?: string;
  fontSize?: number;
}

export interface MangaPageSpec {
  width: number;
  height: number;
  format?: "png" | "jpeg" | "webp";
  background?: "art" | "white";
  bubbles?: BubbleSpec[];
  captions?: CaptionSpec[];
}

function firstFamily(out: string, prefer: (family: string) => boolean): string | undefined {
  const families = out
    .split("\n")
    .map((l) => l.split(",")[0]!.trim())
    .filter((f) => f.length > 0)
    .sort();
  return families.find(prefer) ?? families[0];
}

function fcList(pattern: string): string {
  try {
    return execFileSync("fc-list", [pattern, "family"], { encoding: "utf8" });
  } catch {
    return "";
  }
}

let cjk: string | undefined;
/** A font family with Japanese glyphs (a sans one when there is one). */
export function cjkFont(): string {
  const found = fcList(":lang=ja");
  // A Japanese sans face first (its glyph forms are the ones jpn models learnt), then any sans, any.
  cjk ??=
    firstFamily(found, (f) => /sans/i.test(f) && /jp|japan/i.test(f) && !/mono/i.test(f)) ??
    firstFamily(found, (f) => /sans/i.test(f) && !/mono/i.test(f));
  if (cjk === undefined)
    throw new Error("No font with Japanese glyphs found by fc-list: install the Debian package fonts-noto-cjk");
  return cjk;
}

let sans: string | undefined;
/** A sans-serif Latin font family (DejaVu Sans when installed). */
export function sansFont(): string {
  sans ??= firstFamily(fcList(":lang=en"), (f) => f === "DejaVu Sans") ?? undefined;
  if (sans === undefined || !/sans/i.test(sans)) {
    sans = undefined;
    throw new Error("No sans-serif font found by fc-list: install the Debian package fonts-dejavu-core");
  }
  return sans;
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function lines(text: string | string[]): string[] {
  return typeof text === "string" ? [text] : text;
}

/** A fixed-seed generator so the art is the same on every run. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function artSvg(w: number, h: number): string {
  const rnd = lcg(w * 31 + h);
  const strokes: string[] = [];
  for (let i = 0; i < 6; i++) {
    const x0 = rnd() * w,
      y0 = rnd() * h,
      x1 = rnd() * w,
      y1 = rnd() * h;
    strokes.push(
      `<path d="M${x0.toFixed(0)},${y0.toFixed(0)} Q${(rnd() * w).toFixed(0)},${(rnd() * h).toFixed(0)} ${x1.toFixed(0)},${y1.toFixed(0)}" stroke="#141414" stroke-width="${(4 + rnd() * 8).toFixed(0)}" fill="none"/>`,
    );
  }
  for (let i = 0; i < 3; i++) {
    strokes.push(
      `<circle cx="${(rnd() * w).toFixed(0)}" cy="${(rnd() * h).toFixed(0)}" r="${(20 + rnd() * Math.min(w, h) * 0.08).toFixed(0)}" fill="#2a2a2a"/>`,
    );
  }
  return `
  <defs>
    <linearGradient id="g" x1="0" y1="0" x2="0.4" y2="1"><stop offset="0" stop-color="#9a9a9a"/><stop offset="1" stop-color="#b4b4b4"/></linearGradient>
    <pattern id="tone" width="9" height="9" patternUnits="userSpaceOnUse"><rect width="9" height="9" fill="#b0b0b0"/><circle cx="4.5" cy="4.5" r="2.2" fill="#505050"/></pattern>
  </defs>
  <rect width="${w}" height="${h}" fill="url(#g)"/>
  <rect x="${(w * 0.05).toFixed(0)}" y="${(h * 0.55).toFixed(0)}" width="${(w * 0.5).toFixed(0)}" height="${(h * 0.35).toFixed(0)}" fill="url(#tone)"/>
  <polygon points="${(w * 0.6).toFixed(0)},${(h * 0.95).toFixed(0)} ${(w * 0.95).toFixed(0)},${(h * 0.6).toFixed(0)} ${(w * 0.95).toFixed(0)},${(h * 0.95).toFixed(0)}" fill="#3c3c3c"/>
  ${strokes.join("\n  ")}`;
}

function bubbleSvg(b: BubbleSpec): string {
  const vertical = b.vertical ?? false;
  const size = b.fontSize ?? (vertical ? 30 : 26);
  const font = b.font ?? (vertical ? cjkFont() : sansFont());
  const cx = b.x + b.width / 2,
    cy = b.y + b.height / 2;
  const ls = lines(b.text);
  const out = [
    `<ellipse cx="${cx}" cy="${cy}" rx="${b.width / 2 - 2}" ry="${b.height / 2 - 2}" fill="#ffffff" stroke="#000000" stroke-width="3"/>`,
  ];
  if (vertical) {
    // Columns right to left, top-aligned as manga letterers do; x is the column's centre line.
    const step = size * 1.5;
    const longest = Math.max(...ls.map((l) => [...l].length));
    const top = cy - (longest * size) / 2;
    ls.forEach((l, i) => {
      const x = cx + ((ls.length - 1) / 2) * step - i * step;
      out.push(
        `<text x="${x.toFixed(1)}" y="${top.toFixed(1)}" writing-mode="tb" font-family="${esc(font)}" font-size="${size}" fill="#000000">${esc(l)}</text>`,
      );
    });
  } else {
    out.push(...horizontalLines(ls, cx, cy, size, font, b.bold ?? false));
  }
  return out.join("\n  ");
}

function horizontalLines(ls: string[], cx: number, cy: number, size: number, font: string, bold = false): string[] {
  const step = size * 1.45;
  const weight = bold ? ` font-weight="bold"` : "";
  return ls.map((l, i) => {
    const baseline = cy + (i - (ls.length - 1) / 2) * step + size * 0.35;
    return `<text x="${cx.toFixed(1)}" y="${baseline.toFixed(1)}" text-anchor="middle" font-family="${esc(font)}" font-size="${size}"${weight} fill="#000000">${esc(l)}</text>`;
  });
}

function captionSvg(c: CaptionSpec): string {
  const size = c.fontSize ?? 22;
  const font = c.font ?? sansFont();
  return [
    `<rect x="${c.x + 1}" y="${c.y + 1}" width="${c.width - 2}" height="${c.height - 2}" fill="#ffffff" stroke="#000000" stroke-width="2"/>`,
    ...horizontalLines(lines(c.text), c.x + c.width / 2, c.y + c.height / 2, size, font),
  ].join("\n  ");
}

/** The SVG source of a page (exported for debugging a test that fails). */
export function mangaPageSvg(spec: MangaPageSpec): string {
  const { width: w, height: h } = spec;
  const bg = (spec.background ?? "art") === "art" ? artSvg(w, h) : `<rect width="${w}" height="${h}" fill="#ffffff"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">
  ${bg}
  ${(spec.bubbles ?? []).map(bubbleSvg).join("\n  ")}
  ${(spec.captions ?? []).map(captionSvg).join("\n  ")}
</svg>`;
}

/** Renders a page as PNG (default), JPEG or WebP, flattened on white (no alpha). */
export async function renderMangaPage(spec: MangaPageSpec): Promise<Buffer> {
  const img = sharp(Buffer.from(mangaPageSvg(spec)), { density: 72 }).flatten({ background: "#ffffff" });
  switch (spec.format ?? "png") {
    case "jpeg":
      return img.jpeg({ quality: 92 }).toBuffer();
    case "webp":
      return img.webp({ quality: 92 }).toBuffer();
    case "png":
      return img.png().toBuffer();
  }
}

const ENTRY_MTIME = new Date("2024-01-01T00:00:00Z");

/** A CBZ (ZIP, entries stored in the given order with a fixed date) of the given pages. */
export async function makeCbz(pages: { name: string; data: Buffer }[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const p of pages) zip.addBuffer(p.data, p.name, { mtime: ENTRY_MTIME, compress: false });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}
