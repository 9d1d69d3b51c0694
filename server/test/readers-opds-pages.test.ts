/**
 * OPDS page streaming of books whose pages are not JPEG, from an empty service: OPDS-PSE lets a
 * stream link declare one image type (JPEG, PNG or GIF) and the pages must be of that type, so the
 * streamed pages and the cover are JPEG whatever the archive holds; JPEG pages go out untouched, and
 * the web reader and the Komga-compatible API keep the archive's own pages.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { expectJson, scanLibrary, zipBuffer } from "./fixtures.ts";
import { asReader, jpegPage, unitFileIds } from "./readers-fixtures.ts";
import { shareTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
shareTestApp((a) => (app = a));

/** A page of the given format with a transparent corner (PNG and WebP keep alpha; JPEG cannot). */
async function page(format: "png" | "webp", seed: number): Promise<Buffer> {
  const img = sharp({
    create: { width: 40, height: 56, channels: 4, background: { r: seed * 40, g: 90, b: 160, alpha: 1 } },
  }).composite([
    {
      // Punches a transparent hole: dest-out keeps the page only where the square is not.
      input: { create: { width: 8, height: 8, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 1 } } },
      left: 0,
      top: 0,
      blend: "dest-out",
    },
  ]);
  return format === "png" ? img.png().toBuffer() : img.webp({ lossless: true }).toBuffer();
}

let series: { id: number; dir: string };
let mixed: number;
let jpegOnly: number;
let jpegPages: Buffer[];

beforeAll(async () => {
  const s = await expectJson<{ id: number; folder: string }>(
    await app.api("/api/manga", { method: "POST", json: { title: "Png Pages" } }),
    201,
  );
  const dir = path.join(app.config.libraryRoot, s.folder);
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, "Png Pages c001.cbz"),
    await zipBuffer([
      { name: "001.png", data: await page("png", 1) },
      { name: "002.webp", data: await page("webp", 2) },
      { name: "003.png", data: await page("png", 3) },
    ]),
  );
  jpegPages = [await jpegPage(7, 1), await jpegPage(7, 2)];
  await writeFile(
    path.join(dir, "Png Pages c002.cbz"),
    await zipBuffer(jpegPages.map((data, i) => ({ name: `00${i + 1}.jpg`, data }))),
  );
  await scanLibrary(app);
  series = { id: s.id, dir };
  mixed = (await unitFileIds(app, s.id, "chapter", "1"))[0]!;
  jpegOnly = (await unitFileIds(app, s.id, "chapter", "2"))[0]!;
});

const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe("OPDS page streaming of PNG and WebP pages", () => {
  it("every streamed page and the cover are the JPEG the stream link declares", async () => {
    const feed = await (await asReader(app, `/opds/v1.2/series/${series.id}`)).text();
    expect(feed).toMatch(new RegExp(`href="/opds/v1.2/files/${mixed}/pages/\\{pageNumber\\}" type="image/jpeg"`));
    for (const url of [0, 1, 2]
      .map((n) => `/opds/v1.2/files/${mixed}/pages/${n}`)
      .concat(`/opds/v1.2/files/${mixed}/cover`)) {
      const res = await asReader(app, url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get("content-type"), url).toBe("image/jpeg");
      const data = await bytes(res);
      expect(Number(res.headers.get("content-length")), url).toBe(data.length);
      const meta = await sharp(data).metadata();
      expect(meta.format, url).toBe("jpeg");
      expect([meta.width, meta.height], url).toEqual([40, 56]);
      // The transparent corner is flattened on white, not black.
      const { data: px } = await sharp(data).extract({ left: 1, top: 1, width: 1, height: 1 }).raw().toBuffer({
        resolveWithObject: true,
      });
      expect(Math.min(...px), url).toBeGreaterThan(200);
    }
    // Streaming the converted pages still moves the place.
    expect(await expectJson(await app.api(`/api/files/${mixed}/progress`), 200)).toMatchObject({
      page: 3,
      completed: true,
    });
  });

  it("JPEG pages go out byte for byte; the web reader and the Komga API keep the archive's formats", async () => {
    for (const [n, original] of jpegPages.entries())
      expect((await bytes(await asReader(app, `/opds/v1.2/files/${jpegOnly}/pages/${n}`))).equals(original)).toBe(true);
    const web = await app.api(`/api/files/${mixed}/pages/2`);
    expect(web.headers.get("content-type")).toBe("image/webp");
    const komga = await asReader(app, `/komga/api/v1/books/${mixed}/pages/1`);
    expect(komga.headers.get("content-type")).toBe("image/png");
    expect((await sharp(await bytes(komga)).metadata()).format).toBe("png");
  });
});
