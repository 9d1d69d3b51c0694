/**
 * The translation fallback after a Wanted pass (spec rules 3, 4, 7, 9, 11): with the global and the
 * series toggle on, monitored missing slots that no native source can deliver get translation jobs
 * from verified foreign sources (at most ten per series per pass, planned by the pure
 * domain/translation-fallback.ts); a native release that became obtainable pauses the job of its
 * slot; a switched-off toggle pauses the series' jobs; a changed destination cancels the old
 * language's jobs. Foreign releases are fetched into staging only, never into the library.
 */
import type { AppContext } from "./context.ts";
import type { WantedService } from "./wanted-service.ts";
import { jobView, translationService, type TranslationSearchResult, type TranslationService } from "./translation-service.ts";
import { readWorkerSettings } from "./translation-worker-settings.ts";
import { planFallbackFor, type PassFacts } from "./translation-fallback-plan.ts";

/** Ledger reasons of a slot a native source delivers (or is delivering): a job of it pauses. */
const NATIVE_OBTAINABLE = new Set(["queued", "already_queued", "limit_reached", "replacing"]);

export function translationFallback(ctx: AppContext, translations: TranslationService) {
  /** Runs after every Wanted pass of the series (wanted-service.ts calls it with the pass's ledger). */
  const lastResult = new Map<number, TranslationSearchResult>();

  async function afterPass(seriesId: number, pass: PassFacts): Promise<TranslationSearchResult> {
    const out: TranslationSearchResult = { created: [], skipped: [], queuedDownloads: 0 };
    const series = await ctx.db.series.findUnique({ where: { id: seriesId } });
    if (!series) return out;
    await translations.onDestinationChanged(seriesId, series.language);
    const settings = await readWorkerSettings(ctx);
    if (!settings.enabled || !series.translationFallbackEnabled) {
      await translations.pauseAll("toggle_off", seriesId);
      out.skipped.push({ kind: "series", number: String(seriesId), reason: settings.enabled ? "series_fallback_off" : "fallback_off" });
      lastResult.set(seriesId, out);
      return out;
    }
    await translations.resumeAll(seriesId);
    for (const e of pass.entries) {
      if (NATIVE_OBTAINABLE.has(e.reason)) await translations.nativeRelease(seriesId, e.kind === "book" ? "volume" : "chapter", e.number);
    }
    const planned = await planFallbackFor(ctx, translations, series, pass);
    out.skipped.push(...planned.skipped);
    out.created.push(...planned.created.map(jobView));
    lastResult.set(seriesId, out);
    return out;
  }

  return {
    afterPass,
    /** POST /api/manga/{id}/translations/search: a normal (forced) Wanted pass, then the fallback. */
    async search(wanted: Pick<WantedService, "runPass">, seriesId: number): Promise<TranslationSearchResult> {
      // The pass runs the fallback itself (the hook below); its outcome is read back here.
      lastResult.delete(seriesId);
      const pass = await wanted.runPass(seriesId, { force: true });
      const r = lastResult.get(seriesId) ?? { created: [], skipped: [], queuedDownloads: 0 };
      return { ...r, queuedDownloads: pass.queued };
    },
  };
}

/** The translation services, wired to the Wanted pass (index.ts spreads this). */
export function translationServices(ctx: AppContext, wanted: WantedService) {
  const base = translationService(ctx, {
    async engine() {
      return (await readWorkerSettings(ctx)).processor ? "external" : "local";
    },
  });
  const fallback = translationFallback(ctx, base);
  wanted.useTranslationFallback((seriesId, pass) => fallback.afterPass(seriesId, pass).then(() => undefined));
  return { translations: { ...base, search: (seriesId: number) => fallback.search(wanted, seriesId) } };
}
