/**
 * The translation fallback after a Wanted pass (docs/rules.md, "Translation fallback"): with the global and the
 * series toggle on, monitored missing slots that no native source can deliver get translation jobs
 * from verified foreign sources (at most ten per series per pass, planned by the pure
 * domain/translation-fallback.ts); a native release that became obtainable pauses the job of its
 * slot (one the library gains another way too), one that is gone again resumes it
 * (domain/translation-native.ts); a switched-off toggle pauses the series' jobs; a changed
 * destination cancels the old language's jobs. Foreign releases are fetched into staging only, never into the library.
 */
import { nativeSituation } from "../../domain/translation-native.ts";
import { torrentRepo } from "../../repositories/torrent-repo.ts";
import type { AppContext } from "../context.ts";
import type { WantedService } from "../acquisition/wanted-service.ts";
import {
  jobView,
  translationService,
  type TranslationSearchResult,
  type TranslationService,
} from "./translation-service.ts";
import { readWorkerSettings } from "./translation-worker-settings.ts";
import { FALLBACK_PER_PASS, planFallbackFor, type PassFacts } from "./translation-fallback-plan.ts";

/** The indexer channel's search for foreign books (book-channel.ts registers it when wired). */
type ForeignBooksFetch = (
  seriesId: number,
  books: readonly string[],
  sources: readonly string[],
) => Promise<{ book: string; outcome: string; detail: string }[]>;

export function translationFallback(ctx: AppContext, translations: TranslationService) {
  /** Runs after every Wanted pass of the series (wanted-service.ts calls it with the pass's ledger). */
  const lastResult = new Map<number, TranslationSearchResult>();
  /**
   * The jobs created per series while a search waits: the pass it runs follows one under way (a
   * link's, a toggle's), and the jobs that one creates are this search's outcome too.
   */
  const searching = new Map<number, Set<TranslationSearchResult["created"]>>();
  const collect = (seriesId: number, out: TranslationSearchResult) => {
    for (const c of searching.get(seriesId) ?? []) c.push(...out.created);
    lastResult.set(seriesId, out);
  };
  let foreignBooks: ForeignBooksFetch | undefined;

  /**
   * Indexer search (docs/rules.md, "Translation fallback" 6): books no native source and no foreign provider
   * offers are searched on the indexer as numbered foreign books or packs (within the pass's remaining
   * limit). Books a native torrent is already fetching are left alone; a grabbed torrent becomes translation
   * jobs on completion.
   */
  async function searchIndexer(
    seriesId: number,
    planned: Awaited<ReturnType<typeof planFallbackFor>>,
    out: TranslationSearchResult,
  ): Promise<void> {
    const room = FALLBACK_PER_PASS - planned.created.length;
    if (!foreignBooks || room <= 0 || planned.languages.length === 0) return;
    const busy = new Set(await torrentRepo(ctx.db).nativeBooksInFlight(seriesId));
    const books = planned.skipped
      .filter((s) => s.kind === "volume" && s.reason === "no_foreign_source" && !busy.has(s.number))
      .map((s) => s.number)
      .slice(0, room);
    if (books.length === 0) return;
    try {
      for (const r of await foreignBooks(seriesId, books, planned.languages)) {
        if (r.outcome !== "grabbed" && r.outcome !== "already_grabbed") continue;
        const entry = out.skipped.find(
          (s) => s.kind === "volume" && s.number === r.book && s.reason === "no_foreign_source",
        );
        if (entry) entry.reason = r.outcome === "grabbed" ? "indexer_torrent_added" : "indexer_torrent_in_progress";
      }
    } catch (e) {
      ctx.log(`translation fallback: series ${seriesId}: indexer search failed: ${(e as Error).message}`);
    }
  }

  async function afterPass(seriesId: number, pass: PassFacts): Promise<TranslationSearchResult> {
    const out: TranslationSearchResult = { created: [], skipped: [], queuedDownloads: 0 };
    const series = await ctx.repos.series.get(seriesId);
    if (!series) return out;
    await translations.onDestinationChanged(seriesId, series.language);
    const settings = await readWorkerSettings(ctx);
    const enabled = settings.enabled && series.translationFallbackEnabled;
    // The native release of each job's slot, before the toggles: a job it outranks is never resumed
    // (and published) in between, and one whose native release is gone while a toggle is off is
    // handed to the toggle.
    const facts = { ...pass, destination: series.language };
    await translations.followNative(seriesId, (kind, number) => nativeSituation(facts, kind, number), enabled);
    if (!enabled) {
      await translations.pauseAll("toggle_off", seriesId);
      out.skipped.push({
        kind: "series",
        number: String(seriesId),
        reason: settings.enabled ? "series_fallback_off" : "fallback_off",
      });
      collect(seriesId, out);
      return out;
    }
    await translations.resumeAll(seriesId);
    const planned = await planFallbackFor(ctx, translations, series, pass);
    out.skipped.push(...planned.skipped);
    out.created.push(...planned.created.map(jobView));
    await searchIndexer(seriesId, planned, out);
    collect(seriesId, out);
    return out;
  }

  return {
    afterPass,
    useForeignBooks(fetch: ForeignBooksFetch): void {
      foreignBooks = fetch;
    },
    /** POST /api/manga/{id}/translations/search: a normal (forced) Wanted pass, then the fallback. */
    async search(wanted: Pick<WantedService, "runPass">, seriesId: number): Promise<TranslationSearchResult> {
      // The pass runs the fallback itself (the hook below); its outcome is read back here.
      lastResult.delete(seriesId);
      const created: TranslationSearchResult["created"] = [];
      const mine = searching.get(seriesId) ?? new Set();
      searching.set(seriesId, mine.add(created));
      try {
        const pass = await wanted.runPass(seriesId, { force: true });
        const r = lastResult.get(seriesId) ?? { created: [], skipped: [], queuedDownloads: 0 };
        return { ...r, created, queuedDownloads: pass.queued };
      } finally {
        mine.delete(created);
        if (mine.size === 0 && searching.get(seriesId) === mine) searching.delete(seriesId);
      }
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
  return {
    translations: {
      ...base,
      search: (seriesId: number) => fallback.search(wanted, seriesId),
      useForeignBooks: fallback.useForeignBooks,
    },
  };
}
