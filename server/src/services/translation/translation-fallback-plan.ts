/**
 * The fallback's data and sourcing: which wanted slots a verified foreign source offers (matching
 * kind and number, in the ordered source languages), at most FALLBACK_PER_PASS new jobs per series
 * per pass, and each chosen release fetched through its provider and packaged as a CBZ in staging
 * (the download pipeline's page checks and packaging) — never published, never a library file.
 */
import path from "node:path";
import { randomUUID } from "node:crypto";
import { stateDirs } from "../../config.ts";
import { MAX_QUEUED_PER_PASS, planFallback, resolveSourceLanguages } from "../../domain/translation-fallback.ts";
import { jobKey, type TranslationState } from "../../domain/translation-jobs.ts";
import type { LedgerEntry, PlanOffer, WantedSlot } from "../../domain/wanted.ts";
import type { SeriesRow as Series } from "../../repositories/series-repo.ts";
import { sha256File } from "../../library/durable-fs.ts";
import type { TranslationJobRow } from "../../repositories/translation-repo.ts";
import { translationRepo } from "../../repositories/translation-repo.ts";
import { sourceRepo } from "../../repositories/source-repo.ts";
import type { AppContext } from "../context.ts";
import { chapterComicInfo, checkPage, writeChapterCbz } from "../acquisition/download-packaging.ts";
import { registryLookup } from "../acquisition/download-pipeline-wiring.ts";
import { getSetting } from "../acquisition/source-settings.ts";
import type { TranslationService } from "./translation-service.ts";
import { discardSource } from "./translation-upload.ts";
import { mkdirStaging } from "../../library/library-root.ts";

/** At most ten translations queued per series per Wanted pass (docs/rules.md, "Translation fallback" 4). */
export const FALLBACK_PER_PASS = MAX_QUEUED_PER_PASS;

export interface FallbackOutcome {
  created: TranslationJobRow[];
  skipped: { kind: string; number: string; reason: string }[];
  /** The resolved ordered source languages (base codes). */
  languages: string[];
}

/** Fetches one foreign release's pages and packages them as a CBZ in staging; returns its path and hash. */
async function stageForeignRelease(
  ctx: AppContext,
  mappingId: number,
  externalId: string,
  label: { kind: "volume" | "chapter"; number: string; language: string; title: string },
) {
  const found = await registryLookup(ctx).forMapping(mappingId);
  if (!found) throw new Error(`source mapping ${mappingId} has no configured provider`);
  const chapter = await found.provider.pages(found.mapping.sourceId, externalId);
  const pages: Buffer[] = [];
  for (let i = 1; i <= chapter.count; i++) {
    const page = await chapter.fetch(i);
    checkPage(page.bytes, i);
    // The whole chapter is held until it is packaged: a copy the page's size, the reused buffer back.
    pages.push(page.release ? Buffer.from(page.bytes) : page.bytes);
    page.release?.();
  }
  if (pages.length === 0) throw new Error("the provider lists no page");
  const file = path.join(stateDirs(ctx.config).staging, "translations", "incoming", `${randomUUID()}.cbz`);
  await mkdirStaging(path.dirname(file));
  const xml = chapterComicInfo(
    {
      Series: label.title,
      LanguageISO: label.language,
      // ComicInfo's Volume is an integer: a fractional book number stays in the Title only.
      ...(label.kind === "volume"
        ? /^\d+$/.test(label.number)
          ? { Volume: Number(label.number) }
          : {}
        : { Number: label.number }),
      Title: `${label.kind === "volume" ? "Volume" : "Chapter"} ${label.number}`,
      Notes: `Translation source from ${found.provider.name} (work ${found.mapping.sourceId}, release ${externalId}).`,
    },
    pages,
  );
  await writeChapterCbz(file, pages, xml);
  return { path: file, sha256: await sha256File(file) };
}

/** What the Wanted pass hands the fallback: its ledger and the facts it planned from. */
export interface PassFacts {
  entries: LedgerEntry[];
  slots: WantedSlot[];
  offers: PlanOffer[];
  nativeLanguages: string[];
}

/** Loads the jobs and mappings, asks the pure planner (domain/translation-fallback.ts), stages and creates the planned jobs. */
export async function planFallbackFor(
  ctx: AppContext,
  translations: TranslationService,
  series: Series,
  pass: PassFacts,
): Promise<FallbackOutcome> {
  const out: FallbackOutcome = { created: [], skipped: [], languages: [] };
  const [jobs, mappings, global] = await Promise.all([
    translationRepo(ctx.db).planFacts(series.id),
    sourceRepo(ctx.db).mappingsWithPriority(series.id, false),
    getSetting<{ source_languages?: unknown }>(ctx, "translation", {}),
  ]);
  let own: unknown;
  try {
    own = JSON.parse(series.translationSourceLanguages);
  } catch {
    own = [];
  }
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  const plan = planFallback({
    enabled: true, // the caller checked both toggles
    destination: series.language,
    nativeLanguages: pass.nativeLanguages,
    originalLanguage: series.originalLanguage,
    seriesSourceLanguages: strings(own),
    globalSourceLanguages: strings(global.source_languages),
    slots: pass.slots,
    ledger: pass.entries,
    offers: pass.offers,
    mappings: mappings.map((m) => ({
      id: m.id,
      language: m.language,
      state: m.state,
      priority: m.provider.priority * 10_000 + m.priority,
    })),
    jobs: jobs.map((j) => ({
      kind: j.kind === "chapter" ? "chapter" : "volume",
      number: j.number,
      targetLanguage: j.targetLanguage,
      state: j.state as TranslationState,
    })),
    maxPerPass: FALLBACK_PER_PASS,
  });
  out.languages = resolveSourceLanguages({
    seriesSourceLanguages: strings(own),
    globalSourceLanguages: strings(global.source_languages),
    originalLanguage: series.originalLanguage,
    destination: series.language,
  });
  for (const r of plan.reasons)
    if (r.reason !== "queued") out.skipped.push({ kind: r.kind, number: r.number, reason: r.reason });
  for (const p of plan.jobs) {
    const key = jobKey({ seriesId: series.id, kind: p.kind, number: p.number, destination: series.language });
    let staged: { path: string; sha256: string } | null = null;
    try {
      staged = await stageForeignRelease(ctx, p.sourceMappingId, p.externalId, {
        kind: p.kind,
        number: p.number,
        language: p.sourceLanguage,
        title: series.title,
      });
      const view = await translations.createFromStaged({
        jobKey: key,
        seriesId: series.id,
        kind: p.kind,
        number: p.number,
        sourceLanguage: p.sourceLanguage,
        targetLanguage: series.language,
        origin: "source",
        sourceMappingId: p.sourceMappingId,
        sourceSha256: staged.sha256,
        received: staged.path,
      });
      const row = await translations.repo.byKey(key, view.attempt);
      if (row) out.created.push(row);
    } catch (err) {
      if (staged) await discardSource(staged.path);
      ctx.log(`translation fallback: series ${series.id} ${p.kind} ${p.number}: ${(err as Error).message}`);
      out.skipped.push({ kind: p.kind, number: p.number, reason: "foreign_fetch_failed" });
    }
  }
  return out;
}
