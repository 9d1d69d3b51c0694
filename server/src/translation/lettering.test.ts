/** Lettering on pages rendered by the test, checked by pixels and read back with tesseract.js. */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import sharp from "sharp";
import { createWorker, OEM, PSM, type Worker } from "tesseract.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSansFont } from "./fonts.ts";
import { escapeMarkup, fitText, letterPage, MIN_FONT_PX } from "./lettering.ts";
import type { Box } from "./types.ts";

const W = 640;
const H = 420;
const GREY = 150;
const BOX: Box = { x: 60, y: 50, width: 320, height: 180 };
let fontFile: string;

/** A grey page with a darker stripe pattern, so painted-over and untouched pixels are told apart. */
async function page(format: "png" | "jpeg" | "webp"): Promise<Buffer> {
  const stripes = Array.from(
    { length: 20 },
    (_, i) => `<rect x="${i * 32}" y="0" width="8" height="${H}" fill="rgb(90,90,90)"/>`,
  ).join("");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="100%" height="100%" fill="rgb(${GREY},${GREY},${GREY})"/>${stripes}</svg>`;
  return sharp(Buffer.from(svg)).toFormat(format).toBuffer();
}

/** Greyscale pixels of a box of an image. */
async function grey(image: Buffer, box: Box): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(image)
    .extract({ left: box.x, top: box.y, width: box.width, height: box.height })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Rows and columns holding dark ink (< 128), as a bounding box, plus the ink pixel count. */
function ink(img: { data: Buffer; width: number; height: number }): {
  count: number;
  top: number;
  bottom: number;
  left: number;
  right: number;
  firstLineHeight: number;
} {
  let count = 0;
  let top = Infinity;
  let bottom = -1;
  let left = Infinity;
  let right = -1;
  const rows: boolean[] = [];
  for (let y = 0; y < img.height; y++) {
    rows[y] = false;
    for (let x = 0; x < img.width; x++) {
      if ((img.data[y * img.width + x] ?? 255) < 128) {
        count++;
        rows[y] = true;
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
        left = Math.min(left, x);
        right = Math.max(right, x);
      }
    }
  }
  let firstLineHeight = 0;
  for (let y = top; y < img.height && rows[y]; y++) firstLineHeight++;
  return { count, top, bottom, left, right, firstLineHeight };
}

beforeAll(async () => {
  fontFile = await findSansFont().catch(() => {
    throw new Error("No sans-serif font: install the Debian package fonts-dejavu-core");
  });
});

describe("letterPage", () => {
  it.each(["png", "jpeg", "webp"] as const)("keeps the geometry and format of a %s page", async (format) => {
    const out = await letterPage(await page(format), [{ region: BOX, text: "Hello there!" }], { fontFile });
    const meta = await sharp(out).metadata();
    expect(meta.format).toBe(format);
    expect([meta.width, meta.height]).toEqual([W, H]);
  });

  it("paints the region white except where text is drawn, and nothing outside it", async () => {
    const source = await page("png");
    const out = await letterPage(source, [{ region: BOX, text: "Hello there!" }], { fontFile });
    const region = await grey(out, BOX);
    const values = [...region.data];
    // Only white, black ink and its antialiased edge: no trace of the grey page or its stripes.
    const inkBox = ink(region);
    expect(inkBox.count).toBeGreaterThan(200);
    let background = 0;
    for (let y = 0; y < region.height; y++) {
      for (let x = 0; x < region.width; x++) {
        const inside = x >= inkBox.left - 2 && x <= inkBox.right + 2 && y >= inkBox.top - 2 && y <= inkBox.bottom + 2;
        if (!inside && (region.data[y * region.width + x] ?? 0) < 250) background++;
      }
    }
    expect(background).toBe(0);
    expect(values.length).toBe(BOX.width * BOX.height);
    // Centred: equal margins left/right and top/bottom within a few pixels.
    expect(Math.abs(inkBox.left - (region.width - 1 - inkBox.right))).toBeLessThanOrEqual(4);
    expect(Math.abs(inkBox.top - (region.height - 1 - inkBox.bottom))).toBeLessThanOrEqual(4);
    // Outside the box the page is untouched.
    const before = await sharp(source).raw().toBuffer();
    const after = await sharp(out).raw().toBuffer();
    const channels = before.length / (W * H);
    let changedOutside = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const inBox = x >= BOX.x && x < BOX.x + BOX.width && y >= BOX.y && y < BOX.y + BOX.height;
        if (!inBox && before[(y * W + x) * channels] !== after[(y * W + x) * channels]) changedOutside++;
      }
    }
    expect(changedOutside).toBe(0);
  });

  it("sets a long text in a smaller size than a short one in the same box", async () => {
    const source = await page("png");
    const short = ink(await grey(await letterPage(source, [{ region: BOX, text: "HI" }], { fontFile }), BOX));
    const long = ink(
      await grey(await letterPage(source, [{ region: BOX, text: "HI THERE ".repeat(12) }], { fontFile }), BOX),
    );
    // Capital letters only: the first ink band is one line's cap height.
    expect(long.firstLineHeight).toBeGreaterThan(5);
    expect(short.firstLineHeight).toBeGreaterThan(2 * long.firstLineHeight);
    const fittedShort = await fitText("HI", fontFile, 300, 160);
    const fittedLong = await fitText("HI THERE ".repeat(12), fontFile, 300, 160);
    expect(fittedShort.fits && fittedLong.fits).toBe(true);
    expect(fittedShort.size).toBeGreaterThan(fittedLong.size);
    expect(fittedLong.width).toBeLessThanOrEqual(300);
    expect(fittedLong.height).toBeLessThanOrEqual(160);
  });

  it("clips a text that does not fit even at the minimum size to the box", async () => {
    const small: Box = { x: 400, y: 300, width: 60, height: 30 };
    const fitted = await fitText("An extraordinarily long sentence that cannot possibly fit", fontFile, 56, 26);
    expect(fitted.fits).toBe(false);
    expect(fitted.size).toBe(MIN_FONT_PX);
    const source = await page("png");
    const out = await letterPage(
      source,
      [{ region: small, text: "An extraordinarily long sentence that cannot possibly fit" }],
      { fontFile },
    );
    expect(ink(await grey(out, small)).count).toBeGreaterThan(20);
    const around: Box = { x: small.x - 10, y: small.y - 10, width: small.width + 20, height: small.height + 20 };
    const [a, b] = await Promise.all([grey(source, around), grey(out, around)]);
    for (let y = 0; y < around.height; y++) {
      for (let x = 0; x < around.width; x++) {
        const inBox = x >= 10 && x < 10 + small.width && y >= 10 && y < 10 + small.height;
        if (!inBox) expect(b.data[y * around.width + x]).toBe(a.data[y * around.width + x]);
      }
    }
  });

  it("breaks a word too long for the box even at the minimum size inside the word", async () => {
    const word = "Donaudampfschifffahrtsgesellschaft";
    const fitted = await fitText(word, fontFile, 120, 200);
    expect(fitted.fits).toBe(true);
    expect(fitted.width).toBeLessThanOrEqual(120);
    expect(fitted.size).toBeGreaterThanOrEqual(MIN_FONT_PX);
  });

  it("renders Greek and Cyrillic text and markup characters", async () => {
    const source = await page("png");
    for (const text of ["Γειά σου, κόσμε!", "Привет, мир!", "a < b && c > d <b>bold</b> &amp;"]) {
      const out = await letterPage(source, [{ region: BOX, text }], { fontFile });
      expect(ink(await grey(out, BOX)).count, text).toBeGreaterThan(200);
    }
    expect(escapeMarkup("<b>&</b>")).toBe("&lt;b&gt;&amp;&lt;/b&gt;");
  });

  it("with a region mask (an oval bubble) fills only the shape and keeps the text inside it", async () => {
    const src = await page("png");
    const mask = new Uint8Array(BOX.width * BOX.height);
    const [rx, ry] = [BOX.width / 2, BOX.height / 2];
    for (let y = 0; y < BOX.height; y++)
      for (let x = 0; x < BOX.width; x++)
        mask[y * BOX.width + x] = ((x + 0.5 - rx) / rx) ** 2 + ((y + 0.5 - ry) / ry) ** 2 <= 1 ? 1 : 0;
    const out = await letterPage(src, [{ region: BOX, text: "Where are you going tonight?", mask }], { fontFile });
    const [before, after] = [await grey(src, BOX), await grey(out, BOX)];
    let changedOutside = 0,
      inkInside = 0,
      whiteInside = 0,
      inside = 0;
    for (let i = 0; i < mask.length; i++) {
      if (!mask[i]) changedOutside += Math.abs((after.data[i] ?? 0) - (before.data[i] ?? 0)) > 8 ? 1 : 0;
      else {
        inside++;
        if ((after.data[i] ?? 0) < 128) inkInside++;
        if ((after.data[i] ?? 0) > 240) whiteInside++;
      }
    }
    expect(changedOutside).toBe(0); // the corners of the box (outline, art) stay as drawn
    expect(inkInside).toBeGreaterThan(100);
    expect(whiteInside / inside).toBeGreaterThan(0.6);
  });

  it("letters several regions, ignores empty texts and boxes off the page", async () => {
    const source = await page("jpeg");
    const second: Box = { x: 420, y: 260, width: 180, height: 120 };
    const out = await letterPage(
      source,
      [
        { region: BOX, text: "One" },
        { region: second, text: "   " },
        { region: { x: W + 10, y: 0, width: 50, height: 50 }, text: "nowhere" },
        { region: { x: W - 30, y: H - 30, width: 100, height: 100 }, text: "edge" },
      ],
      { fontFile },
    );
    expect(ink(await grey(out, BOX)).count).toBeGreaterThan(50);
    const blank = await grey(out, second);
    expect(Math.min(...blank.data)).toBeGreaterThan(240); // white, no text
    expect((await sharp(out).metadata()).width).toBe(W);
  });
});

describe("the lettering reads back", () => {
  let worker: Worker;
  beforeAll(async () => {
    const langPath = path.join(
      path.dirname(createRequire(import.meta.url).resolve("@tesseract.js-data/eng/package.json")),
      "4.0.0_best_int",
    );
    expect(existsSync(path.join(langPath, "eng.traineddata.gz")), "the @tesseract.js-data/eng model").toBe(true);
    worker = await createWorker("eng", OEM.LSTM_ONLY, { langPath, gzip: true, cacheMethod: "none" });
    await worker.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_BLOCK, user_defined_dpi: "300" });
  });
  afterAll(async () => {
    await worker.terminate();
  });

  it.each([
    ["a short line", "Where are you going?", BOX],
    [
      "a wrapped sentence in a narrow box",
      "I told you already, we must leave before the storm arrives tonight.",
      { x: 100, y: 40, width: 220, height: 300 },
    ],
  ])("OCR reads %s", async (_label, text, box) => {
    const out = await letterPage(await page("png"), [{ region: box, text }], { fontFile });
    const crop = await sharp(out)
      .extract({ left: box.x, top: box.y, width: box.width, height: box.height })
      .png()
      .toBuffer();
    const { data } = await worker.recognize(crop);
    const words = (s: string) => s.toLowerCase().match(/[a-z]+/g) ?? [];
    const read = new Set(words(data.text));
    const expected = words(text);
    const found = expected.filter((w) => read.has(w));
    expect(found.length, `read: ${data.text}`).toBeGreaterThanOrEqual(expected.length - 1);
  });
});
