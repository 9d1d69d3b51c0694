import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { DEFAULT_THRESHOLDS, isBlackCard } from "../domain/conformity.ts";
import { appErrorOf } from "../../test/fixtures.ts";
import {
  limiter,
  luminance,
  mapConcurrent,
  pageStats,
  pageStatsWork,
  statsDecodeSize,
  statsOfPages,
} from "./page-stats.ts";
import {
  blackCard,
  darkPanelsPage,
  drawnPage,
  nightPage,
  stripPage,
  stripSlices,
  type CardKind,
} from "./test-pages.ts";

/** Luminance statistics of the full-size decode, to compare with the shrunk one. */
async function fullSize(buf: Buffer): Promise<{ mean: number; stdev: number }> {
  const { data, info } = await sharp(buf).greyscale().raw().toBuffer({ resolveWithObject: true });
  return luminance(data, info.channels);
}

const SEEDS = [1, 2, 3, 4];

/** The whole 32 px decode's figures (the calibration's). */
const whole = (buf: Buffer) => pageStats(buf, undefined, { full: true });

describe("pageStats", () => {
  it("reads the size from the header and the luminance from a 32 px decode", async () => {
    const s = await whole(await drawnPage(1, { width: 1400, height: 2000 }));
    expect(s.width).toBe(1400);
    expect(s.height).toBe(2000);
    expect(s.mean).toBeGreaterThan(200);
    expect(s.stdev).toBeGreaterThan(DEFAULT_THRESHOLDS.cardMaxStdev);
  });

  it("measures a pure black card as mean 0, stdev 0", async () => {
    expect(await pageStats(await blackCard(1, "pure"))).toEqual({ width: 800, height: 1160, mean: 0, stdev: 0 });
  });

  it("measures strips and slices by their real size", async () => {
    expect(await pageStats(await stripPage(5, { width: 800, height: 2600 }))).toMatchObject({
      width: 800,
      height: 2600,
    });
    const slices = await stripSlices(5, 3, { width: 800, height: 7200 });
    for (const s of await statsOfPages(slices)) expect(s).toMatchObject({ width: 800, height: 2400 });
  });

  it("uses the displayed orientation (EXIF rotation)", async () => {
    const sideways = await sharp(await drawnPage(2))
      .rotate(90)
      .jpeg()
      .withMetadata({ orientation: 8 })
      .toBuffer();
    expect((await sharp(sideways).metadata()).width).toBe(1160);
    expect(await pageStats(sideways)).toMatchObject({ width: 800, height: 1160 });
  });

  it("puts a transparent page on white paper: a transparent PNG is not a black card", async () => {
    const clear = await sharp({
      create: { width: 400, height: 580, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toBuffer();
    const s = await whole(clear);
    expect(s.mean).toBeGreaterThan(250);
    expect(isBlackCard(await pageStats(clear))).toBe(false);
    expect(isBlackCard(s)).toBe(false);
  });

  it("scales 16-bit pages to 0–255", async () => {
    const grey16 = await sharp({
      create: { width: 300, height: 400, channels: 3, background: { r: 128, g: 128, b: 128 } },
    })
      .toColourspace("grey16")
      .png()
      .toBuffer();
    expect((await sharp(grey16).metadata()).depth).toBe("ushort");
    const s = await whole(grey16);
    expect(s.mean).toBeGreaterThan(120);
    expect(s.mean).toBeLessThan(136);
  });

  it("refuses a page over the pixel limit from its header, and bytes that are no image", async () => {
    expect((await appErrorOf(pageStats(await drawnPage(3), { maxPixels: 800 * 1160 - 1 }))).code).toBe(
      "image_too_large",
    );
    expect(await pageStats(await drawnPage(3), { maxPixels: 800 * 1160 })).toMatchObject({ width: 800 });
    expect((await appErrorOf(pageStats(randomBytes(2000)))).code).toBe("image_unreadable");
    expect((await appErrorOf(pageStats(Buffer.alloc(0)))).code).toBe("image_unreadable");
  });

  it("settles a bright page on its top rows: a lower bound of the mean that rules a card out", async () => {
    for (const page of [await drawnPage(1, { width: 1400, height: 2000 }), await stripPage(2), await drawnPage(3)]) {
      const first = await pageStats(page);
      const all = await whole(page);
      expect(first.stdev).toBeNull();
      expect(first.mean).toBeGreaterThanOrEqual(DEFAULT_THRESHOLDS.cardMaxMean);
      expect(first.mean).toBeLessThanOrEqual(all.mean);
      expect(isBlackCard(first)).toBe(isBlackCard(all));
      expect({ width: first.width, height: first.height }).toEqual({ width: all.width, height: all.height });
    }
  });

  it("the first look's rows are the whole decode's top rows, pixel for pixel", async () => {
    const pages = [await drawnPage(2), await nightPage(1), await stripPage(1), await darkPanelsPage(1)];
    pages.push(await sharp(pages[0]).rotate(90).jpeg().toBuffer()); // landscape
    for (const page of pages) {
      const meta = await sharp(page).metadata();
      const size = statsDecodeSize(meta.width, meta.height);
      const decode = () => sharp(page).resize(size.width, size.height, { fit: "fill", fastShrinkOnLoad: true });
      const all = await decode().greyscale().raw().toBuffer({ resolveWithObject: true });
      expect(all.info).toMatchObject(size);
      for (const rows of [1, 9, size.height - 1]) {
        const top = await decode()
          .extract({ left: 0, top: 0, width: size.width, height: rows })
          .greyscale()
          .raw()
          .toBuffer();
        expect(top.equals(all.data.subarray(0, top.length)), `${size.width}×${size.height}, ${rows} rows`).toBe(true);
      }
    }
  });

  it("decodes a dark page whole after the first look: the bound does not settle it", async () => {
    for (const page of [await nightPage(2), await blackCard(3, "notice")]) {
      expect(await pageStats(page)).toEqual(await whole(page));
    }
  });
});

/**
 * Calibration of the black-card thresholds on the shrunk decode. Figures measured on these pages
 * (mean / stdev on 32 px; full-size stdev in brackets):
 *   drawn pages          mean 215–232   stdev 20–40  [48–76]
 *   night scene          mean 33        stdev 52     [65]
 *   sparse night scene   mean 25        stdev 38     [43]   the darkest drawn page: moon and one bubble
 *   dark panels          mean 78–96     stdev 81–84  [101–108]
 *   cards: pure 0/0, noisy 9/0.3 [2.6], with a notice 10/10 [17], dark grey 31/0.4 [3.9]
 * The shrink lowers every stdev (averaging removes fine detail), so thresholds taken from
 * full-size decodes would be off; mean < 40 and stdev < 30 sit between the populations here.
 */
describe("calibration on generated pages", () => {
  const cards: CardKind[] = ["pure", "noisy", "notice", "dark-grey"];

  it.each(cards)("%s black cards are cards, with room to spare", async (kind) => {
    for (const seed of SEEDS) {
      const s = await whole(await blackCard(seed, kind));
      expect(isBlackCard(s), `${kind} ${seed}: ${JSON.stringify(s)}`).toBe(true);
      expect(isBlackCard(await pageStats(await blackCard(seed, kind)))).toBe(true);
      expect(s.stdev).toBeLessThan(DEFAULT_THRESHOLDS.cardMaxStdev - 15);
      expect(s.mean).toBeLessThan(DEFAULT_THRESHOLDS.cardMaxMean - 5);
    }
  });

  const drawnKinds: [string, (seed: number) => Promise<Buffer>][] = [
    ["drawn page", (seed) => drawnPage(seed)],
    ["night scene with highlights", (seed) => nightPage(seed)],
    ["sparse night scene", (seed) => nightPage(seed, { sparse: true })],
    ["dark panels with white gutters", (seed) => darkPanelsPage(seed)],
    ["webtoon strip", (seed) => stripPage(seed)],
  ];
  it.each(drawnKinds)("a %s is not a card (the whole decode and the first look agree)", async (name, make) => {
    for (const seed of SEEDS) {
      const page = await make(seed);
      const s = await whole(page);
      expect(isBlackCard(s), `${name} ${seed}: ${JSON.stringify(s)}`).toBe(false);
      expect(isBlackCard(await pageStats(page))).toBe(false);
    }
  });

  it("night scenes are dark (mean under the card limit) and still drawn: their stdev decides", async () => {
    for (const seed of SEEDS) {
      for (const page of [await nightPage(seed), await nightPage(seed, { sparse: true })]) {
        const s = await pageStats(page);
        expect(s.stdev).not.toBeNull();
        expect(s.mean).toBeLessThan(DEFAULT_THRESHOLDS.cardMaxMean);
        expect(s.stdev).toBeGreaterThan(DEFAULT_THRESHOLDS.cardMaxStdev + 5);
      }
    }
  });

  it("the shrunk decode has a lower stdev than the full-size one (why the thresholds are calibrated on it)", async () => {
    for (const page of [await drawnPage(1), await nightPage(1), await blackCard(1, "notice")]) {
      const small = await whole(page);
      const full = await fullSize(page);
      expect(Math.abs(small.mean - full.mean)).toBeLessThan(3);
      expect(small.stdev).toBeLessThan(full.stdev);
    }
  });
});

describe("what a page costs", () => {
  it("a bright JPEG page costs its first look alone (the size from our header reader, equal to sharp's); a dark one the whole decode after it; other formats a header read more", async () => {
    const jpegs = [await drawnPage(4), await blackCard(2, "pure")];
    const sideways = await sharp(jpegs[0]!).rotate(90).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const png = await sharp(jpegs[0]!).png().toBuffer();
    pageStatsWork.headerReads = 0;
    pageStatsWork.firstLooks = 0;
    pageStatsWork.decodes = 0;
    const measured = await statsOfPages([...jpegs, sideways]);
    expect(pageStatsWork).toEqual({ headerReads: 0, firstLooks: 3, decodes: 1 });
    for (const [i, b] of [...jpegs, sideways].entries()) {
      const meta = await sharp(b).metadata();
      expect(measured[i]).toMatchObject({
        width: meta.autoOrient?.width ?? meta.width,
        height: meta.autoOrient?.height ?? meta.height,
      });
    }
    await pageStats(png);
    expect(pageStatsWork).toEqual({ headerReads: 1, firstLooks: 4, decodes: 1 });
  });
});

describe("limiter", () => {
  it("keeps at most n calls in flight, serves waiters in order, frees a place on failure", async () => {
    const lim = limiter(2);
    let inFlight = 0;
    let peak = 0;
    const started: number[] = [];
    const gates: (() => void)[] = [];
    const call = (i: number, fail = false) =>
      lim.run(async () => {
        started.push(i);
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise<void>((r) => gates.push(r));
        inFlight -= 1;
        if (fail) throw new Error(`call ${i}`);
        return i;
      });
    const all = [call(1, true), call(2), call(3), call(4)].map((p) => p.catch((e: Error) => e.message));
    const settle = async () => {
      for (let i = 0; i < 20; i++) await Promise.resolve();
    };
    while (started.length < 4 || gates.length > 0) {
      await settle();
      gates.shift()?.();
    }
    expect(await Promise.all(all)).toEqual(["call 1", 2, 3, 4]);
    expect(started).toEqual([1, 2, 3, 4]);
    expect(peak).toBe(2);
  });
});

describe("statsOfPages and mapConcurrent", () => {
  it("gives each page's stats in page order", async () => {
    const pages = [
      await drawnPage(1),
      await blackCard(1, "pure"),
      await stripPage(1, { height: 2800 }),
      await nightPage(1),
    ];
    const all = await statsOfPages(pages);
    expect(all.map((s) => [s.width, s.height])).toEqual([
      [800, 1160],
      [800, 1160],
      [800, 2800],
      [800, 1160],
    ]);
    for (const [i, page] of pages.entries()) expect(all[i]).toEqual(await pageStats(page));
    expect(await statsOfPages([])).toEqual([]);
  });

  it("names the first bad page", async () => {
    const e = await appErrorOf(statsOfPages([await drawnPage(1), await drawnPage(2), randomBytes(500)]));
    expect(e.code).toBe("image_unreadable");
    expect(e.extra.page).toBe(3);
    expect(e.message).toMatch(/^page 3: /);
  });

  it("keeps at most `concurrency` calls in flight, results in order", async () => {
    for (const concurrency of [1, 2, 3]) {
      let inFlight = 0;
      let most = 0;
      const out = await mapConcurrent([50, 5, 30, 1, 20, 10, 2], concurrency, async (ms, i) => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, ms));
        inFlight--;
        return i;
      });
      expect(out).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(most).toBe(concurrency);
    }
  });

  it("starts nothing after a failure", async () => {
    const started: number[] = [];
    const run = mapConcurrent([0, 1, 2, 3, 4, 5], 2, async (i) => {
      started.push(i);
      if (i === 1) throw new Error("bad page");
      await new Promise((r) => setTimeout(r, 5));
      return i;
    });
    await expect(run).rejects.toThrow("bad page");
    await new Promise((r) => setTimeout(r, 30));
    expect(started).toEqual([0, 1]);
  });
});

describe("luminance", () => {
  it("is the mean and population stdev of the first channel", () => {
    expect(luminance(Uint8Array.from([0, 255, 0, 255]), 1)).toEqual({ mean: 127.5, stdev: 127.5 });
    expect(luminance(Uint8Array.from([10, 99, 30, 99]), 2)).toEqual({ mean: 20, stdev: 10 });
    expect(luminance(new Uint8Array(0), 1)).toEqual({ mean: 0, stdev: 0 });
  });
});
