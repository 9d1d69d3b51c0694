/**
 * Lettering: each translated region is filled white and its text set in the sans-serif font file,
 * word-wrapped to the region's width, at the largest size that fits (binary search), centred.
 *
 * Text is rendered by sharp's `text` input (Pango) with `fontfile` + the font's family; at 72 dpi a
 * point is a pixel, so the size searched is the em size in page pixels. Sizes run from
 * MIN_FONT_PX (12 px, the smallest readable on a phone-sized page) to MAX_FONT_PX. When even the
 * minimum does not fit (a long translation in a small bubble) the text is set at the minimum and
 * clipped to the box: its top lines, centred horizontally, stay readable and nothing is drawn
 * outside the region. The page keeps its width, height and format (JPEG/WebP at quality 90).
 */
import sharp from "sharp";
import { fontFamily } from "./fonts.ts";
import type { Box, LetteringItem, PageLetterer } from "./types.ts";

export const MIN_FONT_PX = 12;
export const MAX_FONT_PX = 160;
/** Side margin of the rectangle inscribed in an ellipse: (1 − 1/√2) / 2 of the box on each side. */
const INSCRIBED_SHARE = (1 - Math.SQRT1_2) / 2;
/** Inner margin of the text inside its white box, as a share of the box's smaller side. */
const MARGIN_SHARE = 0.08;
const OUTPUT_QUALITY = 90;

/** Pango markup escaping: sharp's text input interprets `<`, `>` and `&`. */
export function escapeMarkup(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

interface Rendered {
  png: Buffer;
  width: number;
  height: number;
}

type Wrap = "word" | "word-char";

async function render(
  markup: string,
  fontFile: string,
  family: string,
  size: number,
  width: number,
  wrap: Wrap,
): Promise<Rendered> {
  const { data, info } = await sharp({
    text: {
      text: markup,
      fontfile: fontFile,
      font: `${family} ${size}`,
      width,
      wrap,
      align: "centre",
      dpi: 72,
      rgba: true,
    },
  })
    .png()
    .toBuffer({ resolveWithObject: true });
  return { png: data, width: info.width, height: info.height };
}

/**
 * The text at the largest size in [MIN_FONT_PX, MAX_FONT_PX] whose ink fits `width` × `height`
 * (sharp crops the rendering to its ink, so its size is what the reader sees), with that size and
 * whether it fits at all. Wrapped between words; only a word too wide for the box even at the
 * minimum size (a long compound) makes it break inside words.
 */
export async function fitText(
  text: string,
  fontFile: string,
  width: number,
  height: number,
  fontFamilyName?: string,
): Promise<Rendered & { size: number; fits: boolean }> {
  const family = fontFamilyName ?? (await fontFamily(fontFile));
  const markup = escapeMarkup(text);
  const fits = (r: Rendered) => r.width <= width && r.height <= height;
  let wrap: Wrap = "word";
  let best = await render(markup, fontFile, family, MIN_FONT_PX, width, wrap);
  if (best.width > width) {
    wrap = "word-char";
    best = await render(markup, fontFile, family, MIN_FONT_PX, width, wrap);
  }
  if (!fits(best)) return { ...best, size: MIN_FONT_PX, fits: false };
  let lo = MIN_FONT_PX;
  // Ink is shorter than the em size, so a size a bit above the height can still fit.
  let hi = Math.max(MIN_FONT_PX, Math.min(MAX_FONT_PX, Math.ceil(height * 1.5)));
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const candidate = await render(markup, fontFile, family, mid, width, wrap);
    if (fits(candidate)) {
      lo = mid;
      best = candidate;
    } else hi = mid - 1;
  }
  return { ...best, size: lo, fits: true };
}

/** The box clamped to the page, in whole pixels; null when nothing of it is on the page. */
function clamp(box: Box, pageWidth: number, pageHeight: number): Box | null {
  const x = Math.max(0, Math.floor(box.x));
  const y = Math.max(0, Math.floor(box.y));
  const right = Math.min(pageWidth, Math.ceil(box.x + box.width));
  const bottom = Math.min(pageHeight, Math.ceil(box.y + box.height));
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : null;
}

/**
 * The white fill: the whole box, or only the region's shape when its mask is known (a bubble's
 * interior), so the outline and the art around an oval bubble stay as drawn.
 */
async function whiteFill(item: LetteringItem, box: Box): Promise<Buffer> {
  const mask = item.mask;
  if (
    !mask ||
    mask.length !== box.width * box.height ||
    box.width !== item.region.width ||
    box.height !== item.region.height
  ) {
    return sharp({
      create: { width: box.width, height: box.height, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 1 } },
    })
      .png()
      .toBuffer();
  }
  const rgba = Buffer.alloc(box.width * box.height * 4, 255);
  for (let i = 0; i < mask.length; i++) rgba[i * 4 + 3] = mask[i] ? 255 : 0;
  return sharp(rgba, { raw: { width: box.width, height: box.height, channels: 4 } })
    .png()
    .toBuffer();
}

async function layers(
  item: LetteringItem,
  box: Box,
  font: { fontFile: string; fontFamily?: string },
): Promise<sharp.OverlayOptions[]> {
  const out: sharp.OverlayOptions[] = [{ input: await whiteFill(item, box), left: box.x, top: box.y }];
  const text = item.text.trim();
  // Inside a shaped (oval) region the text keeps to the inscribed rectangle, ~71 % of each side.
  const margin = item.mask ? 0 : Math.round(Math.min(box.width, box.height) * MARGIN_SHARE);
  const mx = item.mask ? Math.round(box.width * INSCRIBED_SHARE) : margin;
  const my = item.mask ? Math.round(box.height * INSCRIBED_SHARE) : margin;
  const inner = { x: box.x + mx, y: box.y + my, width: box.width - 2 * mx, height: box.height - 2 * my };
  if (text === "" || inner.width < 4 || inner.height < 4) return out;
  const fitted = await fitText(text, font.fontFile, inner.width, inner.height, font.fontFamily);
  let input = fitted.png;
  let { width, height } = fitted;
  if (!fitted.fits) {
    // Minimum size does not fit: keep the top lines, centred horizontally, inside the box.
    const left = Math.max(0, Math.floor((width - inner.width) / 2));
    width = Math.min(width, inner.width);
    height = Math.min(height, inner.height);
    input = await sharp(fitted.png).extract({ left, top: 0, width, height }).png().toBuffer();
  }
  out.push({
    input,
    left: inner.x + Math.floor((inner.width - width) / 2),
    top: inner.y + Math.floor((inner.height - height) / 2),
  });
  return out;
}

/** Letters the items onto the page; same width, height and format as the input. */
export const letterPage: PageLetterer = async (page, items, options) => {
  const meta = await sharp(page).metadata();
  const pageWidth = meta.width;
  const pageHeight = meta.height;
  const overlays: sharp.OverlayOptions[] = [];
  for (const item of items) {
    const box = clamp(item.region, pageWidth, pageHeight);
    if (box) overlays.push(...(await layers(item, box, options)));
  }
  const image = sharp(page).composite(overlays);
  if (meta.format === "jpeg") return image.jpeg({ quality: OUTPUT_QUALITY }).toBuffer();
  if (meta.format === "webp") return image.webp({ quality: OUTPUT_QUALITY }).toBuffer();
  if (meta.format === "png") return image.png().toBuffer();
  // Other inputs (gif, avif, tiff…) are rare in comic archives: written back in their own format.
  return image.toFormat(meta.format as keyof sharp.FormatEnum).toBuffer();
};
