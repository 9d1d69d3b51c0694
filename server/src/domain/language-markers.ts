/**
 * Source-language markers in indexer release titles ("[JP]", "(Japanese)", "jpn", "Raw", "[FR]",
 * "French"). Pure. Two- and three-letter codes count only inside brackets (a bare "it" or "de" is a
 * word); language names, "jpn" and "raw" count anywhere after the series title. "Raw" means the
 * work's original language and says nothing when that is unknown.
 */

/** Base code → bracket-only codes and names that count anywhere. */
const TABLE: Readonly<Record<string, { codes: readonly string[]; names: readonly string[] }>> = {
  ja: { codes: ["jp", "ja", "jpn", "jap"], names: ["japanese", "jpn", "日本語"] },
  fr: { codes: ["fr", "fra", "fre", "vf"], names: ["french", "francais"] },
  en: { codes: ["en", "eng"], names: ["english"] },
  ko: { codes: ["kr", "ko", "kor"], names: ["korean"] },
  zh: { codes: ["cn", "zh", "chi", "zho"], names: ["chinese"] },
  de: { codes: ["de", "ger", "deu"], names: ["german", "deutsch"] },
  es: { codes: ["es", "spa"], names: ["spanish", "espanol"] },
  it: { codes: ["it", "ita"], names: ["italian", "italiano"] },
  pt: { codes: ["pt", "por", "br"], names: ["portuguese"] },
};

/**
 * A bracket that holds only a language code ("[en]", "[FR]", "[pt-BR]", "[jpn]"): a language tag,
 * never a release group. The service's own books are named "<Series> - v001 [en].cbz".
 */
export function isLanguageTag(bracketContent: string): boolean {
  const m = /^\s*([a-z]{2,3})(?:[-_][a-z]{2,4})?\s*$/iu.exec(bracketContent);
  if (!m) return false;
  const code = m[1]!.toLowerCase();
  return Object.entries(TABLE).some(([base, t]) => base === code || t.codes.includes(code));
}

/**
 * The base code a bracket's whole content names as a language: a code ("fr", "ENG", "pt-BR", "vf")
 * or a language name ("French", "Français"); null for anything else ("Team A", "French Scans").
 */
export function bracketLanguage(bracketContent: string): string | null {
  const code = /^\s*([a-z]{2,3})(?:[-_][a-z]{2,4})?\s*$/iu.exec(bracketContent)?.[1]?.toLowerCase();
  const words = tokens(bracketContent);
  for (const [base, t] of Object.entries(TABLE)) {
    if (code !== undefined && (base === code || t.codes.includes(code))) return base;
    if (words.length === 1 && t.names.includes(words[0]!)) return base;
  }
  return null;
}

/** Case- and accent-folded words of letters and digits. */
const tokens = (s: string) =>
  s
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== "");

/** The base language codes a release title marks, in table order; `original` resolves "Raw". */
export function languageMarkers(
  releaseTitle: string,
  opts: { seriesTitle?: string; original?: string | null } = {},
): string[] {
  const bracketed = [...releaseTitle.matchAll(/[[({]([^\])}]*)[\])}]/g)].flatMap((m) => tokens(m[1] ?? ""));
  let loose = tokens(releaseTitle);
  const series = opts.seriesTitle ? tokens(opts.seriesTitle) : [];
  // The series' own name never marks a language ("The French Chef").
  if (series.length > 0 && series.every((t, i) => loose[i] === t)) loose = loose.slice(series.length);
  const found = new Set<string>();
  for (const [code, m] of Object.entries(TABLE)) {
    if (bracketed.some((t) => m.codes.includes(t) || m.names.includes(t)) || loose.some((t) => m.names.includes(t)))
      found.add(code);
  }
  const original = opts.original ? opts.original.toLowerCase().split("-")[0] : "";
  if (original && (loose.includes("raw") || bracketed.includes("raw"))) found.add(original);
  return Object.keys(TABLE)
    .filter((c) => found.has(c))
    .concat([...found].filter((c) => !(c in TABLE)));
}

/** The first of the ordered source languages the title marks, or null. */
export function markedSourceLanguage(
  releaseTitle: string,
  sources: readonly string[],
  opts: { seriesTitle?: string; original?: string | null } = {},
): string | null {
  const marks = languageMarkers(releaseTitle, opts);
  return sources.find((s) => marks.includes(s.toLowerCase().split("-")[0] ?? "")) ?? null;
}
