/**
 * OCR end to end on pages rendered by the test (sharp + system fonts), read back by the real
 * tesseract.js with the Debian models (tesseract-ocr-eng, -jpn, -jpn-vert). One pool per file:
 * its warm workers are shared by the tests and closed at the end.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cjkFont, renderMangaPage, sansFont } from "../../test/fakes/manga-pages.ts";
import { detectScript } from "../domain/translation-validation.ts";
import { createOcrPool, normaliseOcrText, type LocalOcrPool } from "./ocr.ts";
import { cropForOcr, findRegions } from "./page-image.ts";
import { findModel, missingModels, resolveModels, tessdataDirs } from "./tessdata.ts";
import { LocalTranslationError, type TextRegion } from "./types.ts";

let pool: LocalOcrPool;
let empty: string;
beforeAll(async () => {
  // Fail early, naming the packages, when the machine lacks a prerequisite.
  cjkFont();
  sansFont();
  const missing = [...missingModels("ja"), ...missingModels("en", { bundledEnglish: false })];
  if (missing.length > 0) throw new Error(missing.map((m) => m.message).join("; "));
  pool = createOcrPool();
  empty = await mkdtemp(path.join(tmpdir(), "tessdata-empty-"));
});
afterAll(async () => {
  await pool?.close();
  if (empty) await rm(empty, { recursive: true, force: true });
});

const W = 800,
  H = 1100;
const english = () =>
  renderMangaPage({
    width: W,
    height: H,
    captions: [{ x: 40, y: 40, width: 380, height: 90, text: "Meanwhile, in Tokyo" }],
    bubbles: [
      { x: 450, y: 160, width: 320, height: 200, text: ["WHERE ARE", "YOU GOING?"] },
      { x: 60, y: 620, width: 360, height: 200, text: ["We have to find", "my brother."] },
    ],
  });
const japanese = (format: "png" | "jpeg" | "webp" = "png") =>
  renderMangaPage({
    width: W,
    height: H,
    format,
    bubbles: [
      { x: 520, y: 60, width: 220, height: 340, text: ["どこへ行くの"], vertical: true },
      { x: 80, y: 420, width: 220, height: 340, text: ["大丈夫ですか"], vertical: true },
    ],
    captions: [
      { x: 420, y: 860, width: 340, height: 80, text: "ありがとう", font: cjkFont(), fontSize: 30 },
      { x: 40, y: 960, width: 340, height: 80, text: "The next day" },
    ],
  });

const near = (r: TextRegion, x: number, y: number, w: number, h: number) => {
  expect(Math.abs(r.x - x)).toBeLessThanOrEqual(8);
  expect(Math.abs(r.y - y)).toBeLessThanOrEqual(8);
  expect(Math.abs(r.width - w)).toBeLessThanOrEqual(12);
  expect(Math.abs(r.height - h)).toBeLessThanOrEqual(12);
};

describe("English page", () => {
  it("finds the caption and both bubbles in reading order and reads them exactly", async () => {
    const page = await english();
    const regions = await findRegions(page);
    expect(regions.map((r) => [r.kind, r.vertical])).toEqual([
      ["caption", false],
      ["bubble", false],
      ["bubble", false],
    ]);
    near(regions[0]!, 40, 40, 380, 90);
    near(regions[1]!, 450, 160, 320, 200);
    near(regions[2]!, 60, 620, 360, 200);
    const read = await pool.read(page, regions, "en");
    expect(read.map((r) => r.text)).toEqual([
      "Meanwhile, in Tokyo",
      "WHERE ARE YOU GOING?",
      "We have to find my brother.",
    ]);
    for (const r of read) expect(r.confidence).toBeGreaterThanOrEqual(75);
  });
});

describe("Japanese page", () => {
  it("reads vertical bubbles with jpn_vert and a horizontal caption with jpn; Latin text is dropped", async () => {
    const page = await japanese();
    const regions = await findRegions(page);
    expect(regions.map((r) => [r.kind, r.vertical])).toEqual([
      ["bubble", true],
      ["bubble", true],
      ["caption", false],
      ["caption", false],
    ]);
    near(regions[0]!, 520, 60, 220, 340);
    near(regions[1]!, 80, 420, 220, 340);
    const read = await pool.read(page, regions, "ja");
    expect(read.map((r) => r.text)).toEqual(["どこへ行くの", "大丈夫ですか", "ありがとう"]);
    expect(read.map((r) => r.vertical)).toEqual([true, true, false]);
  });

  it("drops the English caption for its script, not for want of confidence", async () => {
    const page = await japanese();
    const caption = (await findRegions(page))[3]!;
    const jpn = findModel("jpn")!;
    const raw = await pool.recognise(await cropForOcr(page, caption), jpn, false);
    expect(detectScript(normaliseOcrText(raw.text, "ja"))).not.toMatch(/^(japanese|han)$/);
    expect(await pool.read(page, [caption], "ja")).toEqual([]);
    // The same region is kept for an English source.
    expect((await pool.read(page, [caption], "en")).map((r) => r.text)).toEqual(["The next day"]);
  });

  it.each(["jpeg", "webp"] as const)("finds the same regions on a %s page", async (format) => {
    const regions = await findRegions(await japanese(format));
    expect(regions.map((r) => [r.kind, r.vertical])).toEqual([
      ["bubble", true],
      ["bubble", true],
      ["caption", false],
      ["caption", false],
    ]);
  });
});

describe("regions and crops", () => {
  it("a page of pure art has no regions", async () => {
    expect(await findRegions(await renderMangaPage({ width: W, height: H }))).toEqual([]);
    expect(await findRegions(await renderMangaPage({ width: W, height: H, background: "white" }))).toEqual([]);
  });

  it("crops are binarised, padded white, glyphs scaled to about 32 px", async () => {
    const page = await renderMangaPage({
      width: 600,
      height: 300,
      background: "white",
      captions: [{ x: 20, y: 20, width: 400, height: 60, text: "HELLO THERE", fontSize: 16 }],
    });
    const [region] = await findRegions(page);
    const crop = await cropForOcr(page, region!);
    const { data, info } = await sharp(crop).grayscale().raw().toBuffer({ resolveWithObject: true });
    expect(new Set(data)).toEqual(new Set([0, 255]));
    // DejaVu capitals are 0.73 em: 16 px type has ~12 px glyphs, scaled ×~2.7.
    expect(info.width).toBeGreaterThan(region!.width * 2.2);
    for (let x = 0; x < info.width; x++) expect(data[x]).toBe(255); // top padding row
    let inkTop = -1,
      inkBottom = -1;
    for (let y = 0; y < info.height; y++)
      for (let x = 0; x < info.width; x++)
        if (data[y * info.width + x] === 0) {
          if (inkTop < 0) inkTop = y;
          inkBottom = y;
        }
    // The box outline is outside the caption's mask: only the letters are left.
    expect(inkBottom - inkTop + 1).toBeGreaterThanOrEqual(28);
    expect(inkBottom - inkTop + 1).toBeLessThanOrEqual(36);
  });
});

describe("models", () => {
  it("searches TESSDATA_DIR (colon-separated) first, then the Debian folders", () => {
    expect(tessdataDirs({ TESSDATA_DIR: "/a:/b" })).toEqual([
      "/a",
      "/b",
      "/usr/share/tesseract-ocr/5/tessdata",
      "/usr/share/tesseract-ocr/4.00/tessdata",
    ]);
    expect(resolveModels("ja").models.map((m) => [m.name, m.gzip])).toEqual([
      ["jpn", false],
      ["jpn_vert", false],
    ]);
  });

  it("a missing model is ocr_model_missing naming the Debian package; bundled English hides nothing else", async () => {
    const dirs = [empty];
    expect(missingModels("ja", { dirs }).map((m) => m.debianPackage)).toEqual([
      "tesseract-ocr-jpn",
      "tesseract-ocr-jpn-vert",
    ]);
    expect(() => resolveModels("ja", { dirs })).toThrow(
      /Install the Debian package tesseract-ocr-jpn-vert \(OCR model jpn_vert for Japanese vertical text\)/,
    );
    expect(resolveModels("en", { dirs }).horizontal).toMatchObject({ name: "eng", gzip: true });
    expect(missingModels("en", { dirs, bundledEnglish: false }).map((m) => m.debianPackage)).toEqual([
      "tesseract-ocr-eng",
    ]);
    const isolated = createOcrPool({ tessdata: { dirs } });
    try {
      const err = await isolated.read(await japanese(), [], "fr").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LocalTranslationError);
      expect(err).toMatchObject({
        code: "ocr_model_missing",
        message: "Install the Debian package tesseract-ocr-fra (OCR model fra for French text)",
      });
    } finally {
      await isolated.close();
    }
    expect(missingModels("tlh")[0]?.message).toMatch(/No OCR model is known/);
  });

  it("stops between regions when aborted", async () => {
    const page = await english();
    const regions = await findRegions(page);
    const ac = new AbortController();
    ac.abort();
    await expect(pool.read(page, regions, "en", ac.signal)).rejects.toMatchObject({ code: "interrupted" });
  });
});

describe("normaliseOcrText", () => {
  it.each([
    ["ど こ へ 行 く の\n", "ja", "どこへ行くの"],
    ["どこへ\n行くの", "ja", "どこへ行くの"],
    ["WHERE ARE\nYOU  GOING?\n", "en", "WHERE ARE YOU GOING?"],
    ["안녕 하세요\n", "ko", "안녕 하세요"],
  ])("%j (%s) → %j", (raw, lang, text) => expect(normaliseOcrText(raw, lang)).toBe(text));
});
