/**
 * The language identifier of the translation checks: eld (Efficient Language Detector, 60
 * languages, n-gram database "medium"), adapted to the pure judge's interface
 * (domain/translation-language.ts).
 *
 * Chosen by measuring cld3-asm, eld and franc on short manga dialogue (docs/benchmarks.md,
 * "Language identification"): on one- and two-line pools eld is right far more often and
 * confidently wrong far less; "medium" matches "large" on pooled pages within a few percent while
 * loading in ~1.3 s and ~200 MB instead of ~3 s and ~400 MB. It is loaded on first use (a
 * translation job), never at start-up.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { IdentifierAnswer, LanguageIdentifier } from "../domain/translation-language.ts";

interface EldResult {
  language: string;
  getScores(): Record<string, number>;
  isReliable(): boolean;
}
interface Eld {
  detect(text: string): EldResult;
  info(): { Languages: Record<number, string> };
}

async function eldVersion(): Promise<string> {
  try {
    // The package's exports hide package.json: find it from the entry point.
    const entry = fileURLToPath(import.meta.resolve("eld/medium"));
    const pkg = JSON.parse(await readFile(path.join(entry, "..", "..", "..", "package.json"), "utf8")) as {
      version?: string;
    };
    return pkg.version ?? "?";
  } catch {
    return "?";
  }
}

/** Wraps an eld instance (exported for tests that drive it directly). */
export function eldIdentifier(eld: Eld, name: string): LanguageIdentifier {
  const languages = new Set(Object.values(eld.info().Languages));
  return {
    name,
    languages,
    identify(text: string): IdentifierAnswer {
      const r = eld.detect(text);
      return { language: r.language || null, reliable: r.language !== "" && r.isReliable(), scores: r.getScores() };
    },
  };
}

let loading: Promise<LanguageIdentifier> | null = null;

/** The identifier, loaded once per process on first use. */
export function loadLanguageIdentifier(): Promise<LanguageIdentifier> {
  loading ??= (async () => {
    const [{ eld }, version] = await Promise.all([import("eld/medium"), eldVersion()]);
    return eldIdentifier(eld as unknown as Eld, `eld ${version} (medium n-grams)`);
  })().catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}
