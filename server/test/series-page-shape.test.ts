/**
 * The series' page shape the content check of downloads uses (series-page-shape.ts) on a scanned
 * library: the files on disk are opened once while they stay the same, again when they change, and
 * a file the hardened reader refuses is left out rather than failing the judgement.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { archiveOpenCount } from "../src/library/archive-reader.ts";
import { drawnPages, stripSlices } from "../src/library/test-pages.ts";
import { seriesPageShape } from "../src/services/acquisition/series-page-shape.ts";
import { chapterFileName, expectJson, zipBuffer } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.dispose();
});

const pagesCbz = async (pages: Buffer[]) =>
  zipBuffer(pages.map((data, i) => ({ name: `${String(i + 1).padStart(3, "0")}.jpg`, data })));

async function scannedSeries(title: string, chapters: Buffer[]): Promise<number> {
  const dir = path.join(app.config.libraryRoot, title);
  await mkdir(dir, { recursive: true });
  for (const [i, data] of chapters.entries()) await writeFile(path.join(dir, chapterFileName(title, i + 1)), data);
  await expectJson(await app.api("/api/library/scan", { method: "POST" }), 200);
  const list = await expectJson<{ id: number; title: string }[]>(await app.api("/api/manga"), 200);
  return list.find((s) => s.title === title)!.id;
}

describe("seriesPageShape", () => {
  it("measures the files on disk once while they stay the same, and again after a scan changed them", async () => {
    const strips = await pagesCbz(await stripSlices(5, 4, { width: 300, height: 300 * 12 }));
    const id = await scannedSeries("Shape Tides", [strips, strips]);
    const shapes = seriesPageShape(app.ctx);

    const before = archiveOpenCount();
    expect(await shapes.of(id, 0)).toEqual({ readsInPages: true, medianAspect: 3, aspectFrom: "files" });
    expect(archiveOpenCount() - before).toBe(2);
    await shapes.of(id, 0);
    expect(archiveOpenCount() - before).toBe(2);

    // A third chapter of printed pages: the sample changed, so it is measured again (3 files).
    const printed = await pagesCbz(await drawnPages(3, 1, { width: 400, height: 580 }));
    await writeFile(path.join(app.config.libraryRoot, "Shape Tides", chapterFileName("Shape Tides", 3)), printed);
    await expectJson(await app.api("/api/library/scan", { method: "POST" }), 200);
    const afterScan = archiveOpenCount();
    expect(await shapes.of(id, 0)).toEqual({ readsInPages: true, medianAspect: 3, aspectFrom: "files" });
    expect(archiveOpenCount() - afterScan).toBe(3);
  });

  it("a webtoon opens nothing; files without readable page sizes leave the median unknown", async () => {
    const unreadable = await zipBuffer([{ name: "001.jpg", data: Buffer.from("no image here") }]);
    const id = await scannedSeries("Blank Tides", [unreadable]);
    const shapes = seriesPageShape(app.ctx);
    expect(await shapes.of(id, 0)).toEqual({ readsInPages: true, medianAspect: null });

    await expectJson(await app.api(`/api/manga/${id}`, { method: "PATCH", json: { webtoon: true } }), 200);
    const before = archiveOpenCount();
    expect(await shapes.of(id, 0)).toEqual({ readsInPages: false, medianAspect: null });
    expect(archiveOpenCount()).toBe(before);
  });

  it("a file the reader refuses is left out, and the shape comes from the others", async () => {
    const strips = await pagesCbz(await stripSlices(7, 4, { width: 300, height: 300 * 12 }));
    const id = await scannedSeries("Broken Tides", [strips, strips]);
    // Truncated after the scan: the reader refuses it now.
    await writeFile(
      path.join(app.config.libraryRoot, "Broken Tides", chapterFileName("Broken Tides", 2)),
      strips.subarray(0, 100),
    );
    const shapes = seriesPageShape(app.ctx);
    expect(await shapes.of(id, 0)).toEqual({ readsInPages: true, medianAspect: 3, aspectFrom: "files" });
    // An answer with a refused file is not kept: the next judgement reads the files again.
    const before = archiveOpenCount();
    await shapes.of(id, 0);
    expect(archiveOpenCount() - before).toBe(2);
  });
});
