/** The lettering font search on the real system font folders and on temp folders. */
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CJK_FONT_MISSING_MESSAGE,
  FONT_MISSING_MESSAGE,
  findSansFont,
  fontFamily,
  fontFor,
  fontMissingMessage,
  locateFontFor,
  locateSansFont,
} from "./fonts.ts";
import { LocalTranslationError } from "./types.ts";

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), "fonts-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("findSansFont", () => {
  it("finds a system sans font able to set Latin, Greek and Cyrillic", async () => {
    const file = await findSansFont().catch((e: unknown) => {
      throw new Error(`No sans-serif font found: install the Debian package fonts-dejavu-core (${String(e)})`);
    });
    expect(path.isAbsolute(file)).toBe(true);
    expect(await findSansFont()).toBe(file); // cached
    const family = await fontFamily(file);
    for (const text of ["Hello", "Γειά σου", "Привет"]) {
      const { info } = await sharp({ text: { text, fontfile: file, font: `${family} 24`, dpi: 72, rgba: true } })
        .png()
        .toBuffer({ resolveWithObject: true });
      expect(info.width).toBeGreaterThan(20);
    }
  });

  it("prefers DejaVu Sans over the other faces", async () => {
    const dir = path.join(tmp, "prefer");
    await mkdir(path.join(dir, "a"), { recursive: true });
    await mkdir(path.join(dir, "z"), { recursive: true });
    const dejavu = await findSansFont();
    await symlink(dejavu, path.join(dir, "a", "FreeSans.ttf"));
    await symlink(dejavu, path.join(dir, "z", "DejaVuSans.ttf"));
    expect(await locateSansFont({ dirs: [dir], fontconfig: false })).toBe(path.join(dir, "z", "DejaVuSans.ttf"));
  });

  it("falls back to the next preferred face", async () => {
    const dir = path.join(tmp, "next");
    await mkdir(dir, { recursive: true });
    await symlink(await findSansFont(), path.join(dir, "LiberationSans-Regular.ttf"));
    expect(await locateSansFont({ dirs: [dir, path.join(tmp, "absent")], fontconfig: false })).toBe(
      path.join(dir, "LiberationSans-Regular.ttf"),
    );
  });

  it("without any font it names the Debian package to install", async () => {
    const error = await locateSansFont({ dirs: [path.join(tmp, "absent")], fontconfig: false }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LocalTranslationError);
    expect((error as LocalTranslationError).code).toBe("font_missing");
    expect((error as LocalTranslationError).message).toBe(FONT_MISSING_MESSAGE);
    expect(FONT_MISSING_MESSAGE).toContain("fonts-dejavu-core");
  });

  it("fontconfig finds a face when no preferred file name is in the folders", async () => {
    const file = await locateSansFont({ dirs: [path.join(tmp, "absent")] });
    expect(file).toMatch(/\.(ttf|otf)$/);
  });
});

describe("fontFor: the lettering font of a destination", () => {
  it.each(["en", "fr", "es", "pt-BR", "el", "ru"])("letters %s with the preferred sans face", async (lang) => {
    expect(path.basename((await fontFor(lang)).file)).toBe(path.basename(await findSansFont()));
  });

  it.each([
    ["ja", /Noto Sans CJK JP/, "どこへ行くの"],
    ["ko", /Noto Sans CJK KR/, "어디 가?"],
    ["zh", /Noto Sans CJK SC/, "你去哪里"],
  ])("letters %s with the regional CJK face", async (lang, family, text) => {
    const font = await fontFor(lang).catch((e: unknown) => {
      throw new Error(`No CJK font: install the Debian package fonts-noto-cjk (${String(e)})`);
    });
    expect(font.family).toMatch(family);
    const { info } = await sharp({
      text: { text, fontfile: font.file, font: `${font.family} 32`, dpi: 72, rgba: true },
    })
      .png()
      .toBuffer({ resolveWithObject: true });
    expect(info.width).toBeGreaterThan(60);
    expect(await fontFor(lang)).toBe(font); // cached
  });

  it("letters Hebrew and Arabic with a sans face that covers them", async () => {
    for (const lang of ["he", "ar"]) expect((await fontFor(lang)).family).toMatch(/sans/i);
  });

  it("without a face for the language, names the Debian package that has one", async () => {
    const hindi = await locateFontFor("hi", { fontconfig: false }).catch((e: unknown) => e);
    expect(hindi).toBeInstanceOf(LocalTranslationError);
    expect((hindi as LocalTranslationError).code).toBe("font_missing");
    expect((hindi as LocalTranslationError).message).toContain("fonts-noto-core");
    const japanese = await locateFontFor("ja", { fontconfig: false }).catch((e: unknown) => e);
    expect((japanese as LocalTranslationError).message).toBe(CJK_FONT_MISSING_MESSAGE);
    expect(fontMissingMessage("ru")).toBe(FONT_MISSING_MESSAGE);
  });
});
