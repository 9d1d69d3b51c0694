import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZipFile } from "yazl";
import { archiveMedianAspect, samplePageIndexes } from "./archive-page-info.ts";
import { archiveOpenCount, ArchiveError } from "./archive-reader.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "archive-page-info-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const image = (width: number, height: number, format: "jpeg" | "png" = "jpeg") => {
  const img = sharp({ create: { width, height, channels: 3, background: { r: 240, g: 240, b: 240 } } });
  return (format === "png" ? img.png() : img.jpeg()).toBuffer();
};

async function cbz(name: string, pages: Buffer[], compress = false): Promise<string> {
  const zip = new ZipFile();
  pages.forEach((b, i) => zip.addBuffer(b, `p${String(i + 1).padStart(3, "0")}.jpg`, { compress }));
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  const file = join(dir, name);
  await writeFile(file, Buffer.concat(chunks));
  return file;
}

describe("samplePageIndexes", () => {
  it("spreads the sample over the pages", () => {
    expect(samplePageIndexes(20, 9)).toEqual([1, 3, 5, 7, 10, 12, 14, 16, 18]);
    expect(samplePageIndexes(3, 9)).toEqual([0, 1, 2]);
    expect(samplePageIndexes(0, 9)).toEqual([]);
    expect(samplePageIndexes(1, 9)).toEqual([0]);
  });
  it("every index is a page, ascending and distinct, and there are min(count, sample) of them", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 50 }), (count, sample) => {
        const picks = samplePageIndexes(count, sample);
        expect(picks).toHaveLength(Math.min(count, sample));
        picks.forEach((p, i) => {
          expect(p).toBeGreaterThanOrEqual(0);
          expect(p).toBeLessThan(count);
          if (i > 0) expect(p).toBeGreaterThan(picks[i - 1] as number);
        });
      }),
    );
  });
});

describe("archiveMedianAspect", () => {
  it("is the median of the sampled pages' header sizes, stored or deflated, one open each", async () => {
    const page = await image(400, 580);
    const strip = await image(400, 2400, "png");
    // 15 printed pages and 5 tall ones: the median is a printed page's.
    const pages = [...Array.from({ length: 15 }, () => page), ...Array.from({ length: 5 }, () => strip)];
    for (const compress of [false, true]) {
      const file = await cbz(`mixed-${compress}.cbz`, pages, compress);
      const before = archiveOpenCount();
      expect(await archiveMedianAspect(file)).toBeCloseTo(1.45, 10);
      expect(archiveOpenCount() - before).toBe(1);
    }
  });

  it("a chapter of strip slices measures as strips", async () => {
    const file = await cbz("strips.cbz", [await image(400, 1200), await image(400, 1200), await image(400, 1300)]);
    expect(await archiveMedianAspect(file)).toBe(3);
  });

  it("pages whose header gives no size are left out; none at all gives null", async () => {
    const garbage = Buffer.from("not an image, though its name says so");
    const some = await cbz("some.cbz", [garbage, await image(500, 1000), garbage]);
    expect(await archiveMedianAspect(some)).toBe(2);
    const none = await cbz("none.cbz", [garbage, garbage]);
    expect(await archiveMedianAspect(none)).toBeNull();
  });

  it("an archive the hardened reader refuses throws its error", async () => {
    const file = join(dir, "not-a-zip.cbz");
    await writeFile(file, "plain text");
    await expect(archiveMedianAspect(file)).rejects.toBeInstanceOf(ArchiveError);
  });
});
