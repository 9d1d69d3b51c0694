/**
 * The language of a file in a series (pure; docs/rules.md, "File names and numbering").
 *
 * A file's language is stored as its source states it, region or script included ("pt-BR",
 * "zh-Hant"), and read at the series' precision: a file in the series' language at a precision
 * the series does not use ("en-US" in an "en" series), or without one where the series has it
 * ("pt" in a "pt-BR" series, as older records and bare brackets say), is in the series' language.
 * A region of its own that the series does not name ("pt-PT" in a "pt-BR" series) keeps the file
 * apart.
 */
import { baseLanguage } from "./translation-jobs.ts";

const TAG = /^([a-z]{2,3})(?:[-_]([a-z]{4}|[a-z]{2}|[0-9]{3}))?(?:[-_][a-z0-9]{1,8})*$/i;

/**
 * A language tag as the service stores it: the lowercase base code and, when given, the first
 * subtag that is a script ("Hant"), a region ("BR") or a UN area ("419") in its usual case; other
 * subtags are dropped. Null for no tag ("", "English") and for "und", "mul" and "zxx".
 */
export function normalizeLanguageTag(text: string | null | undefined): string | null {
  const m = TAG.exec(text?.trim() ?? "");
  if (!m) return null;
  const base = (m[1] as string).toLowerCase();
  if (base === "und" || base === "mul" || base === "zxx") return null;
  const sub = m[2];
  if (sub === undefined) return base;
  if (sub.length === 4) return `${base}-${(sub[0] as string).toUpperCase()}${sub.slice(1).toLowerCase()}`;
  return `${base}-${sub.toUpperCase()}`;
}

const hasSubtag = (tag: string) => /[-_]/.test(tag.trim());

/** A file's stored language read in a series of `seriesLanguage` (see above). */
export function languageInSeries(language: string, seriesLanguage: string): string {
  // Most files are in the series' language exactly (the audit reads every file of the series).
  if (language === seriesLanguage) return seriesLanguage;
  if (language.trim().toLowerCase() === seriesLanguage.trim().toLowerCase()) return seriesLanguage;
  if (baseLanguage(language) !== baseLanguage(seriesLanguage)) return language;
  return hasSubtag(language) && hasSubtag(seriesLanguage) ? language : seriesLanguage;
}
