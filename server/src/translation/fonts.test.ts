/** The lettering font search on the real system font folders and on temp folders. */
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FONT_MISSING_MESSAGE, findSansFont, fontFamily, locateSansFont, supportsDestination } from "./fonts.ts";
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

describe("supportsDestination", () => {
  it.each(["en", "fr", "de", "es", "pt-BR", "EN", "el", "ru", "uk", "bg"])("letters %s", (lang) => {
    expect(supportsDestination(lang)).toBe(true);
  });
  it.each(["ja", "zh", "ko", "ar", "fa", "xx", ""])("refuses %s", (lang) => {
    expect(supportsDestination(lang)).toBe(false);
  });
});
