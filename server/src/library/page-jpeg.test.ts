import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { pageAsJpeg, pageJpegWork } from "./page-jpeg.ts";

const png = (seed: number) =>
  sharp({ create: { width: 32, height: 48, channels: 3, background: { r: seed, g: 80, b: 120 } } })
    .png()
    .toBuffer();

describe("pageAsJpeg", () => {
  it("passes JPEG through untouched and converts the rest, at most two at a time", async () => {
    const jpeg = await sharp(await png(1)).jpeg().toBuffer();
    pageJpegWork.conversions = 0;
    pageJpegWork.peak = 0;
    expect(await pageAsJpeg(jpeg, "image/jpeg")).toBe(jpeg);
    expect(pageJpegWork.conversions).toBe(0);
    const pages = await Promise.all([1, 2, 3, 4, 5, 6].map(png));
    const out = await Promise.all(pages.map((p) => pageAsJpeg(p, "image/png")));
    for (const o of out) expect((await sharp(o).metadata()).format).toBe("jpeg");
    expect(pageJpegWork).toEqual({ conversions: 6, peak: 2 });
  });

  it("answers the reader's codes for what it cannot decode", async () => {
    await expect(pageAsJpeg(Buffer.from("not an image"), "image/png")).rejects.toMatchObject({
      code: "image_unreadable",
    });
    const big = await sharp({ create: { width: 200, height: 200, channels: 3, background: "#fff" } })
      .png()
      .toBuffer();
    await expect(pageAsJpeg(big, "image/png", { maxPixels: 100 })).rejects.toMatchObject({ code: "image_too_large" });
  });
});
