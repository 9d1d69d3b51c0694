/**
 * Series metadata and map suggestions from public catalogues (domain/catalogue.ts states the rules).
 *
 * - search: across the enabled catalogues; only the search text leaves the service.
 * - link / refresh: everything is fetched first (work, MangaDex aggregate in the series' language,
 *   cover); only when every catalogue answered is anything written, in one transaction: the links
 *   with their status, counts and metadata, and the `catalogue:mangadex` suggestion (replaced, or
 *   dropped when the aggregate has no numbered volume). A failing or unreachable catalogue answers
 *   502 `catalogue_failed` and changes nothing. Operator and reading map entries are never touched;
 *   no slot is created from a catalogue.
 * - Counts never change the series: `offers` words what the operator may accept, and `accept`
 *   applies only a value a current offer states (409 `catalogue_offer_stale` otherwise).
 * - unlink drops the link, its metadata and its suggestion.
 */
import { AppError } from "../../errors.ts";
import {
  CATALOGUES,
  CATALOGUE_TITLES,
  METADATA_PRIORITY,
  aggregateSuggestion,
  catalogueCounts,
  countOffers,
  isCatalogueName,
  mergeMetadata,
  suggestionSourceName,
  type AggregateConflict,
  type CatalogueName,
} from "../../domain/catalogue.ts";
import type { Label } from "../../domain/labels.ts";
import type { SeriesStatus } from "../../domain/types.ts";
import { CatalogueError, type CacheMode } from "../../catalogues/polite-http.ts";
import type { CatalogueRegistry, CatalogueSettings } from "../../catalogues/registry.ts";
import { asRecord } from "../../catalogues/types.ts";
import {
  catalogueRepo,
  catalogueSuggestionOf,
  type CatalogueLinkRow,
  type CatalogueLinkWrite,
  type SuggestionWrite,
} from "../../repositories/catalogue-repo.ts";
import type { CatalogueSettingsService } from "./catalogue-settings.ts";
import type { AppContext } from "../context.ts";
import { checkLanguage, checkString } from "../input.ts";
import { dropCoverIfUnused, readSeriesCover, seriesCoverUrl, storeCover } from "../series/series-cover.ts";
import { sniffImageType } from "../../library/image-header.ts";
import { searchCoverProxy } from "./search-cover-proxy.ts";
import type { SeriesService, SeriesView } from "../series/series-service.ts";

import {
  asCatalogue,
  asCatalogueId,
  isStatus,
  linkData,
  upstream,
  type CatalogueLinkInput,
  type CatalogueLinkView,
  type CatalogueSearchResult,
  type CatalogueSuggestionSummary,
  type Fetched,
  type LinkData,
  type LinkedSeriesCreateInput,
  type OfferAcceptInput,
  type SeriesCatalogueView,
} from "./catalogue-model.ts";

export function catalogueService(
  ctx: AppContext,
  deps: { series: SeriesService; settings: CatalogueSettingsService; registry: CatalogueRegistry },
) {
  const repo = catalogueRepo(ctx.db);
  const lock = ctx.cluster.keyedLock("catalogue");
  const searchCovers = searchCoverProxy();

  async function enabledClient(name: CatalogueName, settings?: CatalogueSettings) {
    const s = settings ?? (await deps.settings.get());
    if (!s[name].enabled)
      throw new AppError("catalogue_disabled", `${CATALOGUE_TITLES[name]} is disabled in the settings`, {
        catalogue: name,
      });
    return deps.registry.client(name, s);
  }

  /** Network only: the work, the aggregate (MangaDex) and the cover when it changed. */
  async function fetchOne(
    name: CatalogueName,
    id: string,
    language: string,
    previous: CatalogueLinkRow | null,
    cache: CacheMode,
  ): Promise<Fetched> {
    const client = await enabledClient(name);
    try {
      const work = await client.work(id, cache);
      const aggregate = client.aggregate ? await client.aggregate(id, language, cache) : null;
      let cover: Fetched["cover"] = null;
      if (work.coverUrl !== null) {
        if (previous?.coverFile && previous.coverSource === work.coverUrl) cover = "keep";
        else {
          try {
            const got = await client.cover(work.coverUrl);
            const stored = await storeCover(ctx, got.bytes);
            cover = stored ? { ...stored, source: work.coverUrl } : previous?.coverFile ? "keep" : null;
          } catch (e) {
            // A cover host failing keeps the cover already stored; the metadata is still refreshed.
            ctx.log(`catalogue ${name} ${id}: cover not fetched: ${(e as Error).message}`);
            cover = previous?.coverFile ? "keep" : null;
          }
        }
      }
      return { catalogue: name, work, aggregate, cover };
    } catch (e) {
      return upstream(e);
    }
  }

  function linkWrite(f: Fetched, previous: CatalogueLinkRow | null, now: Date): CatalogueLinkWrite {
    const w = f.work;
    const data: LinkData = {
      title: w.title,
      url: w.url,
      year: w.year,
      description: w.description,
      alternativeTitles: w.alternativeTitles,
      authors: w.authors,
      genres: w.genres,
      coverUrl: w.coverUrl,
      originalLanguage: w.originalLanguage,
    };
    const keep = f.cover === "keep" && previous !== null;
    const stored = f.cover !== null && f.cover !== "keep" ? f.cover : null;
    return {
      catalogue: f.catalogue,
      catalogueId: w.catalogueId,
      status: w.status,
      volumes: w.volumes,
      chapters: w.chapters,
      data: JSON.stringify(data),
      coverFile: keep ? previous.coverFile : (stored?.file ?? null),
      coverType: keep ? previous.coverType : (stored?.contentType ?? null),
      coverSource: keep ? previous.coverSource : (stored?.source ?? null),
      refreshedAt: now,
    };
  }

  function suggestionWrite(f: Fetched): SuggestionWrite | null {
    if (f.aggregate === null) return null;
    const s = aggregateSuggestion(f.aggregate.volumes);
    const name = suggestionSourceName(f.catalogue);
    if (s.entries.length === 0) return { name, data: "{}", entries: null };
    const data = {
      catalogue: f.catalogue,
      catalogue_id: f.work.catalogueId,
      language: f.aggregate.language,
      fetched_at: new Date().toISOString(),
      conflicts: s.conflicts,
      no_book: s.noBook,
      skipped: s.skipped,
      aggregate: f.aggregate.raw,
    };
    return { name, data: JSON.stringify(data), entries: s.entries };
  }

  async function requireSeries(id: number) {
    return deps.series.require(id);
  }

  async function view(seriesId: number): Promise<SeriesCatalogueView> {
    const series = await requireSeries(seriesId);
    const rows = (await repo.links(seriesId)).filter((r) => isCatalogueName(r.catalogue));
    const links: CatalogueLinkView[] = rows.map((r) => {
      const d = linkData(r);
      return {
        catalogue: r.catalogue as CatalogueName,
        catalogueId: r.catalogueId,
        title: d.title ?? null,
        url: d.url ?? null,
        status: isStatus(r.status) ? r.status : null,
        volumes: r.volumes,
        chapters: r.chapters,
        year: d.year ?? null,
        coverSource: r.coverSource,
        hasCover: r.coverFile !== null,
        refreshedAt: r.refreshedAt,
      };
    });
    const merged = mergeMetadata(
      series.title,
      rows.map((r) => {
        const d = linkData(r);
        return {
          catalogue: r.catalogue as CatalogueName,
          title: d.title ?? null,
          description: d.description ?? null,
          alternativeTitles: d.alternativeTitles ?? [],
          authors: d.authors ?? [],
          genres: d.genres ?? [],
        };
      }),
    );
    const coverFrom =
      METADATA_PRIORITY.find((c) => rows.some((r) => r.catalogue === c && r.coverFile !== null)) ?? null;
    const counts = catalogueCounts(
      links.map((l) => ({ catalogue: l.catalogue, status: l.status, volumes: l.volumes, chapters: l.chapters })),
    );
    const offers = countOffers(counts, {
      status: series.status as SeriesStatus,
      knownBookCount: series.knownBookCount,
    });
    let suggestion: CatalogueSuggestionSummary | null = null;
    const name = suggestionSourceName("mangadex");
    const stored = await catalogueSuggestionOf(ctx.db, seriesId, name);
    if (stored) {
      const d = asRecord(JSON.parse(stored.data || "{}"));
      suggestion = {
        source: name,
        language: typeof d.language === "string" ? d.language : series.language,
        books: stored.books,
        conflicts: Array.isArray(d.conflicts) ? (d.conflicts as AggregateConflict[]) : [],
        noBook: Array.isArray(d.no_book) ? (d.no_book as Label[]) : [],
      };
    }
    return {
      seriesId,
      links,
      metadata: { ...merged, coverUrl: coverFrom ? seriesCoverUrl(seriesId) : null, coverFrom },
      counts,
      offers,
      suggestion,
    };
  }

  /**
   * Fetches `targets` (all first), then writes links and suggestion in one transaction. Covers
   * stored for a refresh that then fails to write are removed again.
   */
  async function refreshTargets(
    seriesId: number,
    targets: { catalogue: CatalogueName; catalogueId: string }[],
    cache: CacheMode,
  ): Promise<void> {
    const series = await requireSeries(seriesId);
    const existing = await repo.links(seriesId);
    const previous = (c: CatalogueName) => existing.find((l) => l.catalogue === c) ?? null;
    const fetched = await Promise.all(
      targets.map((t) => {
        const prev = previous(t.catalogue);
        // Another work of the same catalogue: nothing of the old link carries over.
        const same = prev !== null && prev.catalogueId === t.catalogueId ? prev : null;
        return fetchOne(t.catalogue, t.catalogueId, series.language, same, cache);
      }),
    );
    const now = new Date();
    const writes = fetched.map((f) => {
      const prev = previous(f.catalogue);
      return linkWrite(f, prev !== null && prev.catalogueId === f.work.catalogueId ? prev : null, now);
    });
    const mangadex = fetched.find((f) => f.catalogue === "mangadex");
    try {
      await repo.applyRefresh(seriesId, writes, mangadex ? suggestionWrite(mangadex) : null);
    } catch (e) {
      for (const w of writes) await dropCoverIfUnused(ctx, w.coverFile);
      throw e;
    }
    for (const prev of existing) {
      const w = writes.find((x) => x.catalogue === prev.catalogue);
      if (w && prev.coverFile !== w.coverFile) await dropCoverIfUnused(ctx, prev.coverFile);
    }
    ctx.events.publish("series_changed", seriesId);
    if (mangadex) ctx.events.publish("map_changed", seriesId);
  }

  const locked = <T>(seriesId: number, fn: () => Promise<T>) => lock.run([`catalogue:${seriesId}`], fn);

  async function refresh(seriesId: number): Promise<SeriesCatalogueView> {
    await requireSeries(seriesId);
    await locked(seriesId, async () => {
      // A catalogue turned off in the settings is not asked: its link keeps what it said last.
      const settings = await deps.settings.get();
      const links = (await repo.links(seriesId)).filter(
        (l) => isCatalogueName(l.catalogue) && settings[l.catalogue].enabled,
      );
      if (links.length === 0) return;
      await refreshTargets(
        seriesId,
        links.map((l) => ({ catalogue: l.catalogue as CatalogueName, catalogueId: l.catalogueId })),
        "refresh",
      );
    });
    return view(seriesId);
  }

  return {
    view,
    refresh,

    /** GET /api/manga/{id}/cover: the stored catalogue cover. */
    async cover(seriesId: number, ifNoneMatch: string | undefined) {
      await requireSeries(seriesId);
      return readSeriesCover(ctx, seriesId, ifNoneMatch);
    },

    /**
     * GET /api/catalogues/covers/{key}: the cover of a search result, fetched by the service. The
     * pages' Content-Security-Policy admits images from the service only, and the catalogue sees the
     * service rather than every browser. Only addresses a search answered with are fetched.
     */
    async searchCover(key: string) {
      const issued = searchCovers.lookup(key);
      if (!issued) throw new AppError("cover_not_found", "no recent search result has this cover");
      const cached = searchCovers.cached(key);
      if (cached) return cached;
      let got: { bytes: Buffer };
      try {
        got = await (await enabledClient(issued.catalogue)).cover(issued.url);
      } catch (e) {
        return upstream(e);
      }
      const contentType = sniffImageType(got.bytes);
      if (contentType === null)
        throw new AppError(
          "catalogue_failed",
          `${CATALOGUE_TITLES[issued.catalogue]} answered a cover that is not an image`,
          {
            catalogue: issued.catalogue,
            upstream_status: null,
          },
        );
      return searchCovers.keep(key, { bytes: got.bytes, contentType });
    },

    async search(rawQuery: unknown, rawCatalogue?: unknown): Promise<CatalogueSearchResult> {
      const query = typeof rawQuery === "string" ? rawQuery.trim() : "";
      if (query === "" || query.length > 200)
        throw new AppError("invalid_field", "q must be a search text of 1 to 200 characters", { field: "q" });
      const settings = await deps.settings.get();
      const only =
        rawCatalogue === undefined || rawCatalogue === null || rawCatalogue === "" ? null : asCatalogue(rawCatalogue);
      const names = only ? [only] : CATALOGUES.filter((c) => settings[c].enabled);
      if (only && !settings[only].enabled) await enabledClient(only, settings);
      if (names.length === 0)
        throw new AppError("catalogue_disabled", "every catalogue is disabled in the settings", { catalogue: null });
      const answers = await Promise.all(
        names.map(async (name) => {
          try {
            return { name, hits: await deps.registry.client(name, settings).search(query) };
          } catch (e) {
            if (!(e instanceof CatalogueError)) throw e;
            return { name, error: e };
          }
        }),
      );
      const results = answers.flatMap((a) =>
        (a.hits ?? []).map((h) => ({
          ...h,
          coverPreviewUrl: h.coverUrl ? searchCovers.issue(a.name, h.coverUrl) : null,
        })),
      );
      const errors = answers.flatMap((a) =>
        a.error ? [{ catalogue: a.name, code: "catalogue_failed", detail: a.error.message }] : [],
      );
      if (results.length === 0 && errors.length === answers.length) {
        const first = answers[0]?.error;
        throw new AppError("catalogue_failed", errors.map((e) => e.detail).join("; "), {
          catalogue: first?.catalogue ?? null,
          upstream_status: first?.status ?? null,
          catalogues: errors,
        });
      }
      return { results, errors };
    },

    /** POST …/catalogue-links: links (or re-links to another work of the same catalogue) and refreshes it. */
    async link(seriesId: number, input: CatalogueLinkInput): Promise<SeriesCatalogueView> {
      const catalogue = asCatalogue(input.catalogue);
      const catalogueId = asCatalogueId(catalogue, input.catalogueId);
      await requireSeries(seriesId);
      await enabledClient(catalogue);
      await locked(seriesId, () => refreshTargets(seriesId, [{ catalogue, catalogueId }], "refresh"));
      ctx.log(`series ${seriesId} linked to ${catalogue} ${catalogueId}`);
      return view(seriesId);
    },

    async unlink(seriesId: number, rawCatalogue: unknown): Promise<SeriesCatalogueView> {
      const catalogue = asCatalogue(rawCatalogue);
      await requireSeries(seriesId);
      await locked(seriesId, async () => {
        const link = await repo.link(seriesId, catalogue);
        if (!link)
          throw new AppError("catalogue_link_not_found", `series ${seriesId} is not linked to ${catalogue}`, {
            catalogue,
          });
        await repo.unlink(seriesId, catalogue, suggestionSourceName(catalogue));
        await dropCoverIfUnused(ctx, link.coverFile);
      });
      ctx.events.publish("series_changed", seriesId);
      ctx.events.publish("map_changed", seriesId);
      return view(seriesId);
    },

    /**
     * POST …/catalogue-counts/accept: `{ known_book_count }` and/or `{ status }`, each equal to a
     * value a current offer states; applied through the ordinary series update.
     */
    async accept(
      seriesId: number,
      input: OfferAcceptInput,
    ): Promise<{ series: SeriesView; catalogue: SeriesCatalogueView }> {
      const wanted: { field: "known_book_count" | "status"; value: number | string | null }[] = [];
      if (input.knownBookCount !== undefined) wanted.push({ field: "known_book_count", value: input.knownBookCount });
      if (input.status !== undefined) wanted.push({ field: "status", value: input.status });
      if (wanted.length === 0)
        throw new AppError("invalid_field", "send known_book_count or status, as the offer states it", {
          field: "known_book_count",
        });
      const current = await view(seriesId);
      for (const w of wanted) {
        if (!current.offers.some((offer) => offer.field === w.field && offer.value === w.value))
          throw new AppError(
            "catalogue_offer_stale",
            `no linked catalogue offers ${w.field} ${JSON.stringify(w.value)} now: reload the series and review again`,
            { field: w.field, offers: current.offers.map((x) => ({ field: x.field, value: x.value })) },
          );
      }
      // An offered value is a valid one: the series update still checks it like any other.
      const series = await deps.series.update(seriesId, {
        ...(input.knownBookCount === undefined ? {} : { knownBookCount: input.knownBookCount }),
        ...(input.status === undefined ? {} : { status: input.status as SeriesStatus | null }),
      });
      ctx.log(
        `series ${seriesId}: the operator accepted ${wanted.map((w) => `${w.field}=${String(w.value)}`).join(", ")}`,
      );
      return { series, catalogue: await view(seriesId) };
    },

    /**
     * POST /api/manga with `catalogue` and `catalogue_id`: the work is fetched first (a failing
     * catalogue creates nothing), the title defaults to the catalogue's, then the series is created
     * and linked.
     */
    async createLinked(
      input: LinkedSeriesCreateInput,
    ): Promise<{ series: SeriesView; catalogue: SeriesCatalogueView }> {
      const catalogue = asCatalogue(input.catalogue);
      const catalogueId = asCatalogueId(catalogue, input.catalogueId);
      const language = checkLanguage(input.language, "language") ?? "en";
      const given = input.title === null ? undefined : checkString(input.title, "title", 300)?.trim();
      await enabledClient(catalogue);
      // Fetch everything before the series exists: a failing catalogue creates nothing.
      const probe = await fetchOne(catalogue, catalogueId, language, null, "refresh");
      const title = given || probe.work.title;
      const { catalogue: _c, catalogueId: _i, ...fields } = input;
      let series: SeriesView;
      try {
        series = await deps.series.create({ ...fields, title });
      } catch (e) {
        if (probe.cover !== null && probe.cover !== "keep") await dropCoverIfUnused(ctx, probe.cover.file);
        throw e;
      }
      await locked(series.id, async () => {
        const write = linkWrite(probe, null, new Date());
        await repo.applyRefresh(series.id, [write], suggestionWrite(probe));
      });
      ctx.events.publish("series_changed", series.id);
      ctx.events.publish("map_changed", series.id);
      ctx.log(`series ${series.id} created linked to ${catalogue} ${catalogueId}`);
      return { series, catalogue: await view(series.id) };
    },

    /** The scheduled refresh: every linked series, one after the other; a failure skips that series. */
    async refreshAll(): Promise<{ series: number; refreshed: number; failed: number }> {
      const out = { series: 0, refreshed: 0, failed: 0 };
      for (const id of await repo.linkedSeriesIds()) {
        out.series += 1;
        try {
          await refresh(id);
          out.refreshed += 1;
        } catch (e) {
          out.failed += 1;
          ctx.log(`catalogue refresh: series ${id}: ${(e as Error).message}`);
        }
      }
      return out;
    },
  };
}

export type CatalogueService = ReturnType<typeof catalogueService>;
