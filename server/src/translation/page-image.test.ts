/** EXIF orientation: pages are read and lettered upright, and stored back as they came. */
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { findRegions, restoreOrientation, uprightPage } from "./page-image.ts";

const W = 240;
const H = 160;

/** An upright page: grey, a white box with black "glyphs" in its top-left quarter (asymmetric). */
async function upright(): Promise<Buffer> {
  const glyphs = [0, 1, 2, 3, 4]
    .map((i) => `<rect x="${30 + i * 14}" y="34" width="10" height="10" fill="#000"/>`)
    .join("");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
    <rect width="${W}" height="${H}" fill="#a0a0a0"/>
    <rect x="20" y="20" width="100" height="40" fill="#fff" stroke="#000" stroke-width="2"/>${glyphs}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** From the upright picture to the pixels a camera stores with each orientation tag. */
const STORE: Record<number, (s: sharp.Sharp) => sharp.Sharp> = {
  1: (s) => s,
  2: (s) => s.flop(),
  3: (s) => s.rotate(180),
  4: (s) => s.flip(),
  5: (s) => s.rotate(90).flip(),
  6: (s) => s.rotate(270),
  7: (s) => s.rotate(90).flop(),
  8: (s) => s.rotate(90),
};

const gray = async (b: Buffer) => sharp(b).autoOrient().grayscale().raw().toBuffer({ resolveWithObject: true });

describe("EXIF orientation", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])("orientation %i: read upright, stored back as it came", async (o) => {
    const u = await upright();
    const stored = await STORE[o]!(sharp(u)).withMetadata({ orientation: o }).jpeg({ quality: 95 }).toBuffer();
    const meta = await sharp(stored).metadata();
    const page = await uprightPage(stored);
    expect(page.orientation).toBe(o);
    // Regions are found where a reader sees them.
    const [region, ...rest] = await findRegions(page.image);
    expect(rest).toEqual([]);
    expect(region).toMatchObject({ x: 21, y: 21 });
    if (o === 1) expect(page.image).toBe(stored);
    else expect(await sharp(page.image).metadata()).toMatchObject({ width: W, height: H });

    // Lettering works upright (here: blacken the top-left corner) and the page is stored back.
    const lettered = await sharp(page.image)
      .composite([{ input: { create: { width: 10, height: 10, channels: 3, background: "#000" } }, left: 0, top: 0 }])
      .png()
      .toBuffer();
    const back = await restoreOrientation(lettered, page.orientation, stored);
    if (o === 1) {
      expect(back).toBe(lettered);
      return;
    }
    const backMeta = await sharp(back).metadata();
    expect(backMeta).toMatchObject({ width: meta.width, height: meta.height, orientation: o, format: "jpeg" });
    // Shown upright, the mark is in the top-left corner, as it was drawn.
    const shown = await gray(back);
    expect(shown.info).toMatchObject({ width: W, height: H });
    expect(shown.data[2 * W + 2]).toBeLessThan(60);
    expect(shown.data[2 * W + W - 3]).toBeGreaterThan(100);
  });
});
