/**
 * The lettering font: a sans-serif system font file that covers Latin, Greek and Cyrillic, and
 * which destinations the renderer can letter at all.
 *
 * Found by file name in the system font folders first (DejaVu Sans, Noto Sans, Liberation Sans,
 * FreeSans, in that order: all four cover the three scripts), then through fontconfig for any
 * regular sans face whose language set includes English, Greek and Russian.
 */
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { destinationScript } from "../domain/translation-validation.ts";
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

/** Whether the renderer can letter this destination: Latin, Greek or Cyrillic script only. */
export function supportsDestination(language: string): boolean {
  const script = destinationScript(language);
  return script === "latin" || script === "greek" || script === "cyrillic";
}
