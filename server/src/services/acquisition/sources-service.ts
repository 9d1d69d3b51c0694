/**
 * Source mappings of a series: search a provider for the
 * work, link the one the operator confirms (never a silent title match), list the mappings with
 * their offers and health, set their priority, and refresh their offers.
 *
 * Refresh: per active mapping, the provider's chapter list → numbering overrides (before anything
 * else reads the numbers) → the mapping's offers replaced in one transaction (upsert by release id,
 * what the source no longer lists removed). Rejected mappings (SourceRejection) are never touched nor
 * re-added; an unavailable provider (Suwayomi disabled) leaves its offers as they were.
 *
 * Priority: a whole number, higher first (default 0). Health of a mapping: domain/source-health.ts.
 */
import { SOURCE_PRIORITY_MAX, SOURCE_PRIORITY_MIN } from "../../domain/rules.ts";
import { healthOf, latestBySource, type MappingHealth } from "../../domain/source-health.ts";
import { applyNumberingOverrides, parseCorrection, type InvalidatedOverride } from "../../domain/numbering-override.ts";
import { AppError } from "../../errors.ts";
import { ProviderError, type ListingProblem, type ProviderWork } from "../../providers/provider.ts";
import type { ProviderRegistry, ProviderRow } from "../../providers/registry.ts";
import { offerRepo, type OfferInput } from "../../repositories/offer-repo.ts";
import { sourceRepo } from "../../repositories/source-repo.ts";
import type { AppContext } from "../context.ts";
import { checkString } from "../input.ts";
import { slotSyncChanged, syncSourceSlots, type SlotSync } from "./source-slots.ts";

export type { MappingHealth, MappingHealthStatus } from "../../domain/source-health.ts";

export interface MappingView {
  id: number;
  seriesId: number;
  providerId: number;
  provider: string;
  providerKind: string;
  displayName: string;
  sourceId: string;
  language: string;
  priority: number;
  state: string;
  offers: number;
  health: MappingHealth;
  /** False when the provider is disabled or not configured (its offers stay as last refreshed). */
  available: boolean;
}

export interface SearchResultView {
  providerId: number;
  provider: string;
  works: (ProviderWork & { linked: boolean; rejected: boolean })[];
}

export interface MappingRefresh {
  mappingId: number;
  provider: string;
  sourceId: string;
  status: "ok" | "unavailable" | "failed";
  error: string | null;
  offers: number;
  added: number;
  updated: number;
  removed: number;
  overridesApplied: number;
  overridesInvalidated: InvalidatedOverride[];
  /** What the provider saw but could not offer (the drop folder); empty when the listing failed. */
  problems: ListingProblem[];
}

/** A mapping's left-out entries, listed afresh (the drop folder is read again; nothing is stored). */
export interface MappingProblems {
  mappingId: number;
  problems: ListingProblem[];
}

/** How many of the library's latest downloads the health check reads. */
const LIBRARY_DOWNLOADS = 2000;
const LANGUAGE_RE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/;

/** Searching a provider for the series' work (query: the series title when absent or blank). */
export interface SourceSearchInput {
  provider: string;
  query?: string | null;
}

/** Linking the work the operator confirmed; priority from SOURCE_PRIORITY_MIN to SOURCE_PRIORITY_MAX (default 0). */
export interface SourceLinkInput {
  provider: string;
  sourceId: string;
  language: string;
  priority?: number | null;
}

export function priorityOf(v: unknown): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < SOURCE_PRIORITY_MIN || v > SOURCE_PRIORITY_MAX)
    throw new AppError(
      "invalid_field",
      `priority must be a whole number from ${SOURCE_PRIORITY_MIN} to ${SOURCE_PRIORITY_MAX}`,
      { field: "priority" },
    );
  return v;
}

/**
 * A provider failure as a coded error, always 502: the upstream's own status (or null when it never
 * answered) travels in `upstream_status`, never as ours. The message never carries credentials:
 * the client builds none into it.
 */
function providerFailure(e: unknown): never {
  if (e instanceof ProviderError)
    throw new AppError("provider_failed", e.message, { transient: e.transient, upstream_status: e.status });
  throw e;
}

export function sourcesService(ctx: AppContext, registry: ProviderRegistry) {
  const sources = sourceRepo(ctx.db);
  const offers = offerRepo(ctx.db);
  // An operator's link or refresh: the Wanted pass runs at once (set by createServices).
  let afterOperatorRefresh: (seriesId: number) => void = () => {};
  // One refresh per mapping at a time: two interleaved replacements would race on the same offers.
  const refreshing = ctx.cluster.keyedLock("sources");

  async function requireSeries(seriesId: number) {
    const s = await ctx.repos.series.get(seriesId);
    if (!s) throw new AppError("series_not_found", `series ${seriesId} does not exist`);
    return s;
  }

  async function views(seriesId: number): Promise<MappingView[]> {
    const [mappings, counts, downloads] = await Promise.all([
      sources.mappingsOf(seriesId),
      sources.offerCounts(seriesId),
      sources.recentDownloads(seriesId, 500),
    ]);
    const latest = latestBySource(downloads);
    const out: MappingView[] = [];
    for (const m of mappings) {
      const [{ displayName }, provider] = await Promise.all([
        registry.describe(m.provider),
        registry.forProviderId(m.providerId),
      ]);
      out.push({
        id: m.id,
        seriesId: m.seriesId,
        providerId: m.providerId,
        provider: m.provider.name,
        providerKind: m.provider.kind,
        displayName,
        sourceId: m.sourceId,
        language: m.language,
        priority: m.priority,
        state: m.state,
        offers: counts.get(m.id) ?? 0,
        health: healthOf(latest.get(m.id) ?? []),
        available: provider !== null,
      });
    }
    return out;
  }

  /**
   * The library's active sources whose health is "failing" (from their latest downloads, as each
   * series' Sources page says), for the service's health. Reads the latest LIBRARY_DOWNLOADS
   * downloads: a source with none among them has not been used lately and is left out, and so is a
   * source whose provider is switched off (nothing is fetched from it; the Sources page says so).
   */
  async function failingSources(): Promise<{ seriesId: number; seriesTitle: string; source: string }[]> {
    const [mappings, downloads] = await Promise.all([
      sources.activeMappingsOfLibrary(),
      sources.recentDownloadsOfLibrary(LIBRARY_DOWNLOADS),
    ]);
    const latest = latestBySource(downloads);
    const out: { seriesId: number; seriesTitle: string; source: string }[] = [];
    for (const m of mappings) {
      if (healthOf(latest.get(m.id) ?? []).status !== "failing") continue;
      if ((await registry.forProviderId(m.providerId)) === null) continue;
      const { displayName } = await registry.describe(m.provider);
      out.push({ seriesId: m.seriesId, seriesTitle: m.series.title, source: displayName });
    }
    return out;
  }

  async function view(seriesId: number, mappingId: number): Promise<MappingView> {
    const v = (await views(seriesId)).find((m) => m.id === mappingId);
    if (!v) throw new AppError("mapping_not_found", `series ${seriesId} has no source mapping ${mappingId}`);
    return v;
  }

  /** Refreshes one mapping's offers; never throws for a provider failure (it is reported). */
  type MappingRow = {
    id: number;
    seriesId: number;
    providerId: number;
    sourceId: string;
    language: string;
    provider: ProviderRow;
  };
  function refreshMapping(m: MappingRow, signal?: AbortSignal): Promise<MappingRefresh> {
    return refreshing.run([`mapping:${m.id}`], () => refreshUnlocked(m, signal));
  }

  async function refreshUnlocked(m: MappingRow, signal?: AbortSignal): Promise<MappingRefresh> {
    const base = {
      mappingId: m.id,
      provider: m.provider.name,
      sourceId: m.sourceId,
      added: 0,
      updated: 0,
      removed: 0,
      overridesApplied: 0,
      overridesInvalidated: [] as InvalidatedOverride[],
      problems: [] as ListingProblem[],
    };
    const provider = await registry.forProviderId(m.providerId);
    const count = async () => (await offers.ofMapping(m.id)).length;
    if (!provider)
      return {
        ...base,
        status: "unavailable",
        error: "the provider is disabled or not configured",
        offers: await count(),
      };
    let listed;
    let problems: ListingProblem[] = [];
    try {
      // The mapping's language is the operator's statement; a provider that knows better (a
      // chapter's own language, a "[fr]" in a dropped file's name) says so per chapter.
      const options = { signal, language: m.language };
      if (provider.listWithProblems)
        ({ chapters: listed, problems } = await provider.listWithProblems(m.sourceId, options));
      else listed = await provider.listChapters(m.sourceId, options);
    } catch (e) {
      if (!(e instanceof ProviderError)) throw e;
      ctx.log(`refresh of mapping ${m.id} (${m.provider.name}) failed: ${e.message}`);
      return { ...base, status: "failed", error: e.message, offers: await count() };
    }
    const rules = (await sources.overridesOf(m.id)).flatMap((o) => {
      const parsed = parseCorrection(JSON.parse(o.correction) as unknown);
      return parsed.ok
        ? [{ externalId: o.externalId, observedNumber: o.observedNumber, correction: parsed.correction }]
        : [];
    });
    const numbered = applyNumberingOverrides(listed, rules);
    if (numbered.invalidated.length > 0)
      ctx.log(
        `mapping ${m.id}: ${numbered.invalidated.length} numbering override(s) no longer match the source and were ignored`,
      );
    const rows: OfferInput[] = numbered.chapters.map((c) => ({
      kind: c.number === null && c.volume !== null && c.part === null ? "volume" : "chapter",
      volume: c.volume,
      chapter: c.number,
      part: c.part,
      language: c.language,
      scanlator: c.scanlator,
      externalId: c.externalId,
      title: c.name.trim() === "" ? null : c.name,
      pageCount: c.pageCount,
      uploadedAt: c.uploadedAt,
      overridden: c.overridden,
    }));
    const changed = await offers.replaceForMapping(m.seriesId, m.id, rows);
    if (changed === null)
      return { ...base, status: "unavailable", error: "the mapping was rejected or removed meanwhile", offers: 0 };
    return {
      ...base,
      ...changed,
      status: "ok",
      error: null,
      offers: rows.length,
      overridesApplied: numbered.applied.length,
      overridesInvalidated: numbered.invalidated,
      problems,
    };
  }

  return {
    failingSources,
    /** The provider's candidate works for the operator to confirm (query defaults to the series title). */
    async search(seriesId: number, input: SourceSearchInput, signal?: AbortSignal): Promise<SearchResultView> {
      const series = await requireSeries(seriesId);
      const ref = checkString(input.provider, "provider", 200);
      if (!ref) throw new AppError("invalid_field", "provider is required", { field: "provider" });
      const query = checkString(input.query ?? undefined, "query", 200)?.trim() || series.title;
      const { row, provider } = await registry.resolve(ref, signal).catch((e: unknown) => providerFailure(e));
      if (!provider) throw new AppError("provider_unavailable", `${row.name} is disabled or not configured`);
      const works = await provider.search(query, { signal }).catch((e: unknown) => providerFailure(e));
      const [mappings, rejections] = await Promise.all([sources.mappingsOf(seriesId), sources.rejectionsOf(seriesId)]);
      return {
        providerId: row.id,
        provider: row.name,
        works: works.map((w) => ({
          ...w,
          linked: mappings.some((m) => m.providerId === row.id && m.sourceId === w.sourceId),
          rejected: rejections.some((r) => r.providerId === row.id && r.sourceId === w.sourceId),
        })),
      };
    },

    /** Links the work the operator confirmed; refused for a rejected mapping; then a first refresh. */
    async link(
      seriesId: number,
      input: SourceLinkInput,
      signal?: AbortSignal,
    ): Promise<{ mapping: MappingView; refresh: MappingRefresh }> {
      await requireSeries(seriesId);
      const ref = checkString(input.provider, "provider", 200);
      const sourceId = checkString(input.sourceId, "source_id", 500)?.trim();
      const language = checkString(input.language, "language", 20)?.trim();
      if (!ref) throw new AppError("invalid_field", "provider is required", { field: "provider" });
      if (!sourceId) throw new AppError("invalid_field", "source_id is required", { field: "source_id" });
      if (!language || !LANGUAGE_RE.test(language))
        throw new AppError("invalid_field", 'language must be a language code such as "en"', { field: "language" });
      const priority = input.priority === undefined || input.priority === null ? 0 : priorityOf(input.priority);
      const { row } = await registry.resolve(ref, signal).catch((e: unknown) => providerFailure(e));
      const rejection = await sources.rejection(seriesId, row.id, sourceId);
      if (rejection)
        throw new AppError(
          "source_rejected",
          `${row.name} ${sourceId} was rejected for this series: ${rejection.reason}`,
          { provider: row.name, source_id: sourceId },
        );
      const mapping =
        (await sources.findMapping(seriesId, row.id, sourceId)) ??
        (await sources.createMapping({ seriesId, providerId: row.id, sourceId, language, priority }));
      const refresh = await refreshMapping(mapping, signal);
      await syncSourceSlots(ctx, seriesId);
      ctx.events.publish("series_changed", seriesId);
      afterOperatorRefresh(seriesId);
      return { mapping: await view(seriesId, mapping.id), refresh };
    },

    async list(seriesId: number): Promise<MappingView[]> {
      await requireSeries(seriesId);
      return views(seriesId);
    },

    async setPriority(seriesId: number, mappingId: number, input: { priority: number }): Promise<MappingView> {
      await requireSeries(seriesId);
      const priority = priorityOf(input.priority);
      if (!(await sources.setPriority(mappingId, seriesId, priority)))
        throw new AppError("mapping_not_found", `series ${seriesId} has no source mapping ${mappingId}`);
      ctx.events.publish("series_changed", seriesId);
      return view(seriesId, mappingId);
    },

    /** Every active, non-rejected mapping of the series: offers from the provider, overrides applied. */
    async refresh(seriesId: number, signal?: AbortSignal): Promise<{ seriesId: number; mappings: MappingRefresh[] }> {
      await requireSeries(seriesId);
      const out: MappingRefresh[] = [];
      for (const m of await sources.activeMappingsOf(seriesId)) out.push(await refreshMapping(m, signal));
      await syncSourceSlots(ctx, seriesId);
      ctx.events.publish("series_changed", seriesId);
      afterOperatorRefresh(seriesId);
      return { seriesId, mappings: out };
    },

    /**
     * The scheduled pass's refresh: every active mapping, then the slots; one `series_changed` when
     * anything changed. Never throws for a provider (each mapping reports its own failure).
     */
    async refreshForPass(seriesId: number): Promise<{ mappings: MappingRefresh[]; slots: SlotSync }> {
      const out: MappingRefresh[] = [];
      for (const m of await sources.activeMappingsOf(seriesId)) out.push(await refreshMapping(m));
      const slots = await syncSourceSlots(ctx, seriesId);
      const changed = out.some((r) => r.added + r.updated + r.removed > 0) || slotSyncChanged(slots);
      if (changed) ctx.events.publish("series_changed", seriesId);
      return { mappings: out, slots };
    },

    /** What runs after an operator's link or refresh (the Wanted pass, wired by createServices). */
    useAfterOperatorRefresh(fn: (seriesId: number) => void): void {
      afterOperatorRefresh = fn;
    },

    /** One mapping (the numbering service re-applies its overrides through this). */
    async refreshOne(seriesId: number, mappingId: number, signal?: AbortSignal): Promise<MappingRefresh> {
      const m = (await sources.activeMappingsOf(seriesId)).find((x) => x.id === mappingId);
      if (!m) throw new AppError("mapping_not_found", `series ${seriesId} has no active source mapping ${mappingId}`);
      const r = await refreshMapping(m, signal);
      await syncSourceSlots(ctx, seriesId);
      ctx.events.publish("series_changed", seriesId);
      return r;
    },

    /**
     * What the mapping's provider leaves out of the work's listing, read afresh: a file fixed since
     * the last refresh is gone from it at once (and offered on the next refresh).
     */
    async problems(seriesId: number, mappingId: number, signal?: AbortSignal): Promise<MappingProblems> {
      await requireSeries(seriesId);
      const m = (await sources.mappingsOf(seriesId)).find((x) => x.id === mappingId);
      if (!m) throw new AppError("mapping_not_found", `series ${seriesId} has no source mapping ${mappingId}`);
      const provider = await registry.forProviderId(m.providerId);
      if (!provider) throw new AppError("provider_unavailable", `${m.provider.name} is disabled or not configured`);
      if (!provider.listWithProblems) return { mappingId, problems: [] };
      const listing = await provider
        .listWithProblems(m.sourceId, { signal, language: m.language })
        .catch((e: unknown) => providerFailure(e));
      return { mappingId, problems: listing.problems };
    },

    /** Provider rows with their display names and availability. */
    async providers() {
      const rows = await registry.list();
      return Promise.all(
        rows.map(async (r) => ({
          ...r,
          ...(await registry.describe(r)),
          available: (await registry.forProviderId(r.id)) !== null,
        })),
      );
    },

    async suwayomiSources(lang?: string) {
      if (lang !== undefined && !LANGUAGE_RE.test(lang))
        throw new AppError("invalid_field", 'lang must be a language code such as "en"', { field: "lang" });
      return registry.suwayomiSources(lang).catch((e: unknown) => providerFailure(e));
    },
  };
}

export type SourcesService = ReturnType<typeof sourcesService>;
