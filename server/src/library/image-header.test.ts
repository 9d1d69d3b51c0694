import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { imageInfo, sniffImageType } from "./image-header.ts";

const base = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } });

describe("imageInfo from the first bytes", () => {
  it("reads type and size of JPEG, PNG, GIF, WebP (lossy and lossless) and AVIF as sharp decodes them", async () => {
    const cases: [string, Buffer][] = [
      ["image/jpeg", await base(601, 903).jpeg().toBuffer()],
      ["image/jpeg", await base(640, 480).jpeg({ progressive: true }).toBuffer()],
      ["image/png", await base(333, 777).png().toBuffer()],
      ["image/gif", await base(120, 45).gif().toBuffer()],
      ["image/webp", await base(800, 2400).webp().toBuffer()],
      ["image/webp", await base(77, 99).webp({ lossless: true }).toBuffer()],
      ["image/webp", await base(64, 32).ensureAlpha().webp({ alphaQuality: 50 }).toBuffer()],
      ["image/avif", await base(200, 300).avif({ effort: 0 }).toBuffer()],
    ];
    for (const [type, data] of cases) {
      const meta = await sharp(data).metadata();
      expect(imageInfo(data.subarray(0, 8192)), `${type} ${meta.width}x${meta.height}`).toEqual({
        contentType: type,
        width: meta.width,
        height: meta.height,
      });
    }
  });

  it("a JPEG turned by its EXIF orientation reports the size as displayed", async () => {
    const turned = await base(300, 100).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect(imageInfo(turned)).toEqual({ contentType: "image/jpeg", width: 100, height: 300 });
    const upright = await base(300, 100).jpeg().withMetadata({ orientation: 3 }).toBuffer();
    expect(imageInfo(upright)).toEqual({ contentType: "image/jpeg", width: 300, height: 100 });
  });

  it("a header cut short gives the type without a size; other bytes give null", async () => {
    const jpeg = await base(50, 60).jpeg().withMetadata({ orientation: 1 }).toBuffer();
    expect(imageInfo(jpeg.subarray(0, 40))).toEqual({ contentType: "image/jpeg", width: null, height: null });
    expect(imageInfo((await base(10, 10).png().toBuffer()).subarray(0, 12))).toEqual({
      contentType: "image/png",
      width: null,
      height: null,
    });
    expect(imageInfo(Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"))).toBeNull();
    expect(sniffImageType(Buffer.alloc(0))).toBeNull();
    expect(sniffImageType(Buffer.from("II*\0"))).toBeNull(); // TIFF is not a page format
  });
});
