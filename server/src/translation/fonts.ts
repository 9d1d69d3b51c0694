/**
 * The lettering font of a destination language: a regular sans-serif system face that covers it.
 *
 * Latin, Greek and Cyrillic destinations: found by file name in the system font folders first
 * (DejaVu Sans, Noto Sans, Liberation Sans, FreeSans, in that order: all four cover the three
 * scripts), then through fontconfig for any regular sans face whose language set includes English,
 * Greek and Russian. Every other destination (Japanese, Korean, Chinese, Arabic, Hebrew, …):
 * through fontconfig, a regular sans face whose language set includes the destination (the
 * regional CJK face first: Noto Sans CJK JP for Japanese, KR for Korean, SC for Chinese). No face:
 * `font_missing`, naming the Debian package that has one.
 */
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { baseCode, languageScripts } from "../domain/translation-scripts.ts";
import { LocalTranslationError } from "./types.ts";

const run = promisify(execFile);

export const FONT_DIRS: readonly string[] = ["/usr/share/fonts", "/usr/local/share/fonts"];

/** Preferred faces by file name, best first, with their family names for Pango. */
export const PREFERRED_FONTS: readonly { file: string; family: string }[] = [
  { file: "DejaVuSans.ttf", family: "DejaVu Sans" },
  { file: "NotoSans-Regular.ttf", family: "Noto Sans" },
  { file: "NotoSans-Regular.otf", family: "Noto Sans" },
  { file: "LiberationSans-Regular.ttf", family: "Liberation Sans" },
  { file: "FreeSans.ttf", family: "FreeSans" },
  { file: "FreeSans.otf", family: "FreeSans" },
];

export const FONT_MISSING_MESSAGE = "Install the Debian package fonts-dejavu-core (a sans-serif font for lettering)";

async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => path.join(e.parentPath, e.name));
  } catch {
    return []; // a missing font folder is not an error: the next one may hold the font
  }
}

/** By preferred file name under `dirs`; null when none is there. */
export async function findPreferredFont(dirs: readonly string[]): Promise<string | null> {
  const files = (await Promise.all(dirs.map(filesUnder))).flat().sort();
  for (const preferred of PREFERRED_FONTS) {
    const hit = files.find((f) => path.basename(f) === preferred.file);
    if (hit) return hit;
  }
  return null;
}

/** Through fontconfig: a regular, upright, proportional sans face covering en, el and ru. */
async function findWithFontconfig(): Promise<string | null> {
  try {
    const { stdout } = await run("fc-list", ["-f", "%{family[0]}|%{style[0]}|%{file}\n", ":lang=en:lang=el:lang=ru"], {
      timeout: 10_000,
    });
    const faces = stdout
      .split("\n")
      .map((line) => line.split("|"))
      .filter((p): p is [string, string, string] => p.length === 3)
      .filter(
        ([family, style, file]) =>
          /sans/i.test(family) &&
          !/mono|serif|narrow|condensed|cjk/i.test(family) &&
          /^(regular|book|normal)$/i.test(style) &&
          /\.(ttf|otf)$/i.test(file),
      );
    faces.sort((a, b) => a[2].localeCompare(b[2]));
    return faces[0]?.[2] ?? null;
  } catch {
    return null; // no fontconfig tools: nothing more to try
  }
}

/** The font search with explicit places (for tests); `findSansFont` is the cached system answer. */
export async function locateSansFont(
  options: { dirs?: readonly string[]; fontconfig?: boolean } = {},
): Promise<string> {
  const found =
    (await findPreferredFont(options.dirs ?? FONT_DIRS)) ??
    (options.fontconfig === false ? null : await findWithFontconfig());
  if (!found) throw new LocalTranslationError("font_missing", FONT_MISSING_MESSAGE);
  return found;
}

let cached: Promise<string> | null = null;

/** A sans-serif font file for Latin, Greek and Cyrillic; throws LocalTranslationError("font_missing"). */
export function findSansFont(): Promise<string> {
  cached ??= locateSansFont().catch((error: unknown) => {
    cached = null; // a font installed later is found by the next job
    throw error;
  });
  return cached;
}

const families = new Map<string, Promise<string>>();

/** The family name Pango needs to pick the face of a font file (fc-query, else the known names). */
export function fontFamily(file: string): Promise<string> {
  let family = families.get(file);
  if (!family) {
    const known = PREFERRED_FONTS.find((p) => p.file === path.basename(file))?.family;
    family = known
      ? Promise.resolve(known)
      : run("fc-query", ["-f", "%{family[0]}", file], { timeout: 10_000 }).then(
          ({ stdout }) => stdout.trim() || "sans-serif",
          () => "sans-serif",
        );
    families.set(file, family);
  }
  return family;
}

/** A font file and the family Pango needs to pick its face (a collection holds several). */
export interface LetteringFont {
  file: string;
  family: string;
}

/** fontconfig language tags where they differ from the base code. */
const FONTCONFIG_LANG: Readonly<Record<string, string>> = { zh: "zh-cn", ku: "ku-iq" };
/** The regional face of a CJK collection that writes the language's own glyph forms. */
const REGIONAL_FACE: Readonly<Record<string, RegExp>> = { ja: /\bJP\b/, ko: /\bKR\b/, zh: /\bSC\b/ };
const BASIC_SCRIPTS = new Set(["latin", "greek", "cyrillic"]);

export const CJK_FONT_MISSING_MESSAGE =
  "Install the Debian package fonts-noto-cjk (a sans-serif font for Japanese, Chinese and Korean lettering)";

/** Regular sans faces fontconfig lists for a language tag: [family, file]. */
async function sansFacesFor(tag: string): Promise<[string, string][]> {
  try {
    const { stdout } = await run("fc-list", ["-f", "%{family[0]}|%{style[0]}|%{file}\n", `:lang=${tag}`], {
      timeout: 10_000,
    });
    return stdout
      .split("\n")
      .map((line) => line.split("|"))
      .filter((p): p is [string, string, string] => p.length === 3)
      .filter(
        ([family, style, file]) =>
          /sans/i.test(family) &&
          !/mono|serif|narrow|condensed/i.test(family) &&
          /^(regular|book|normal)$/i.test(style) &&
          /\.(ttf|otf|ttc)$/i.test(file),
      )
      .map(([family, , file]): [string, string] => [family, file]);
  } catch {
    return []; // no fontconfig tools: nothing to list
  }
}

/** The message of a missing font for a language: the Debian package that has one. */
export function fontMissingMessage(language: string): string {
  const scripts = languageScripts(language) ?? [];
  if (scripts.every((s) => BASIC_SCRIPTS.has(s))) return FONT_MISSING_MESSAGE;
  if (scripts.some((s) => s === "japanese" || s === "han" || s === "hangul")) return CJK_FONT_MISSING_MESSAGE;
  return `Install a sans-serif font for ${language} lettering (the Debian package fonts-noto-core covers most scripts)`;
}

/** The font search for a language with explicit places (for tests); `fontFor` is the cached system answer. */
export async function locateFontFor(
  language: string,
  options: { dirs?: readonly string[]; fontconfig?: boolean } = {},
): Promise<LetteringFont> {
  const base = baseCode(language);
  const scripts = languageScripts(base) ?? [];
  if (scripts.length > 0 && scripts.every((s) => BASIC_SCRIPTS.has(s))) {
    const file = await locateSansFont(options);
    return { file, family: await fontFamily(file) };
  }
  const faces = options.fontconfig === false ? [] : await sansFacesFor(FONTCONFIG_LANG[base] ?? base);
  const regional = REGIONAL_FACE[base];
  const rank = ([family]: [string, string]) => {
    const preferred = PREFERRED_FONTS.findIndex((p) => p.family === family);
    return (preferred >= 0 ? preferred : PREFERRED_FONTS.length) * 2 + (regional && !regional.test(family) ? 1 : 0);
  };
  faces.sort((a, b) => rank(a) - rank(b) || a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]));
  const best = faces[0];
  if (!best) throw new LocalTranslationError("font_missing", fontMissingMessage(base));
  return { file: best[1], family: best[0] };
}

const byLanguage = new Map<string, Promise<LetteringFont>>();

/** The lettering font of a destination language; throws LocalTranslationError("font_missing"). */
export function fontFor(language: string): Promise<LetteringFont> {
  const key = baseCode(language);
  let found = byLanguage.get(key);
  if (!found) {
    found = locateFontFor(key).catch((error: unknown) => {
      byLanguage.delete(key); // a font installed later is found by the next job
      throw error;
    });
    byLanguage.set(key, found);
  }
  return found;
}
