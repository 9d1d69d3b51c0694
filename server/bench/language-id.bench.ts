/**
 * `pnpm bench language-id`: how the translation checks' language judge does on short manga
 * dialogue (server/test/language-samples.ts: thirty parallel lines in ten languages) with the
 * identifier the service uses (eld, "medium" n-grams), and — when they are installed — the other
 * maintained identifiers it was chosen against (`cld3-asm`, `franc`, eld's "large" database):
 * `pnpm --filter server add -D cld3-asm@4 franc@6` then this bench (remove them afterwards).
 *
 * Every identifier goes through the same judge (domain/translation-language.ts judgePool: at least
 * 16 letters, the identifier's reliable answer, 3 % ahead of the source language and English). A
 * pool is one bubble (1 line), a page of two bubbles (2 lines), three, or a short book (6 lines);
 * each language is the expected one, translated from ja, fr, es and en. Figures: confirmed pools
 * of the expected language, and pools of another language confirmed as it (false confirmations,
 * which must never happen). Also the load time and memory of each identifier.
 *
 * Goals (the service's identifier): no false confirmation at any pool size; every short book (6
 * lines) confirmed in every language; at least 75 % of two-bubble pages confirmed on their own.
 */
import { performance } from "node:perf_hooks";
import { judgePool, type IdentifierAnswer, type LanguageIdentifier } from "../src/domain/translation-language.ts";
import { eldIdentifier, loadLanguageIdentifier } from "../src/translation/language-id.ts";
import { DIALOGUE, measurePools } from "../test/language-samples.ts";
import { machineLine, printTable, runBench, type Goal } from "./harness.ts";

const SIZES = [1, 2, 3, 6];

/** ISO 639-3 → 639-1 for the languages of the samples (franc answers 639-3). */
const ISO1: Readonly<Record<string, string>> = {
  eng: "en",
  fra: "fr",
  spa: "es",
  deu: "de",
  ita: "it",
  por: "pt",
  rus: "ru",
  jpn: "ja",
  kor: "ko",
  cmn: "zh",
  nld: "nl",
  ukr: "uk",
  bel: "be",
  bul: "bg",
  cat: "ca",
  glg: "gl",
};

/** An optional package, or null when it is not installed. */
async function optional(name: string): Promise<Record<string, unknown> | null> {
  try {
    return (await import(name)) as Record<string, unknown>;
  } catch {
    return null;
  }
}

interface Candidate {
  name: string;
  load: () => Promise<LanguageIdentifier>;
}

const candidates: Candidate[] = [
  { name: "eld medium (the service's)", load: loadLanguageIdentifier },
  {
    name: "eld large",
    load: async () => {
      const { eld } = (await import("eld/large")) as unknown as { eld: Parameters<typeof eldIdentifier>[0] };
      return eldIdentifier(eld, "eld large");
    },
  },
];

async function optionalCandidates(): Promise<{ found: Candidate[]; missing: string[] }> {
  const found: Candidate[] = [];
  const missing: string[] = [];
  const cld3 = await optional("cld3-asm");
  if (cld3) {
    found.push({
      name: "cld3-asm",
      load: async () => {
        const factory = await (cld3.loadModule as () => Promise<{ create: (a: number, b: number) => unknown }>)();
        const id = factory.create(0, 1000) as {
          findMostFrequentLanguages(
            t: string,
            n: number,
          ): { language: string; probability: number; is_reliable: boolean }[];
        };
        return {
          name: "cld3-asm",
          languages: new Set(Object.keys(DIALOGUE)),
          identify(text: string): IdentifierAnswer {
            const all = id.findMostFrequentLanguages(text, 3).filter((r) => r.language !== "und");
            const best = all[0];
            return {
              language: best ? best.language.split("-")[0]! : null,
              reliable: best?.is_reliable ?? false,
              scores: Object.fromEntries(all.map((r) => [r.language.split("-")[0]!, r.probability])),
            };
          },
        };
      },
    });
  } else missing.push("cld3-asm");
  const franc = await optional("franc");
  if (franc) {
    found.push({
      name: "franc",
      load: () => {
        const all = franc.francAll as (t: string, o: { minLength: number }) => [string, number][];
        return Promise.resolve({
          name: "franc",
          languages: new Set(Object.keys(DIALOGUE)),
          identify(text: string): IdentifierAnswer {
            const ranked = all(text, { minLength: 1 }).filter(([l]) => l !== "und");
            const best = ranked[0];
            return {
              language: best ? (ISO1[best[0]] ?? best[0]) : null,
              reliable: best !== undefined,
              scores: Object.fromEntries(ranked.slice(0, 10).map(([l, v]) => [ISO1[l] ?? l, v])),
            };
          },
        });
      },
    });
  } else missing.push("franc");
  return { found, missing };
}

const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1)} %`;

runBench("language-id", async () => {
  console.log(machineLine());
  const { found, missing } = await optionalCandidates();
  if (missing.length > 0)
    console.log(
      `(${missing.join(", ")} not installed: \`pnpm --filter server add -D ${missing.join(" ")}\` to compare them)`,
    );
  const goals: Goal[] = [];
  for (const c of [...candidates, ...found]) {
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    const id = await c.load();
    const loadMs = performance.now() - t0;
    const rssMb = (process.memoryUsage().rss - rss0) / 1e6;
    const judge = (texts: readonly string[], expected: string, rivals: readonly string[]) =>
      judgePool(texts, expected, rivals, id);
    console.log(`\n${c.name}: loaded in ${loadMs.toFixed(0)} ms, +${rssMb.toFixed(0)} MB resident\n`);
    const rows: (string | number)[][] = [];
    const figures = SIZES.map((size) => ({ size, f: measurePools(judge, size) }));
    for (const { size, f } of figures) {
      rows.push([
        `${size} line${size > 1 ? "s" : ""}`,
        pct(f.confirmed, f.total),
        pct(f.undetermined, f.total),
        pct(f.otherLanguage, f.total),
        `${f.falseConfirmations} of ${f.foreignTotal}`,
        Object.entries(f.byLanguage)
          .map(([l, v]) => `${l} ${v}`)
          .join(" "),
      ]);
    }
    printTable(["pool", "confirmed", "waits", "other", "false confirmations", "confirmed % by language"], rows);
    for (const { f } of figures) for (const e of f.falseExamples.slice(0, 2)) console.log(`  false: ${e}`);
    if (c === candidates[0]) {
      const falseTotal = figures.reduce((n, { f }) => n + f.falseConfirmations, 0);
      const book = figures.find((x) => x.size === 6)!.f;
      const page = figures.find((x) => x.size === 2)!.f;
      goals.push(
        { ok: falseTotal === 0, text: `no false confirmation at any pool size (${falseTotal})` },
        {
          ok: Object.values(book.byLanguage).every((v) => v === 100),
          text: `every short book (6 lines) confirmed in every language (${pct(book.confirmed, book.total)})`,
        },
        {
          ok: page.confirmed / page.total >= 0.75,
          text: `two-bubble pages confirmed on their own ≥ 75 % (${pct(page.confirmed, page.total)})`,
        },
      );
    }
  }
  return goals;
});
