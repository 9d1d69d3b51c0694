/** GraphQL of the public catalogues: the same services as REST (rest-catalogues.ts). */
import type { CatalogueSettings } from "../../catalogues/registry.ts";
import type {
  AggregateConflict,
  Agreement,
  CatalogueCountFacts,
  CatalogueCounts,
  CountOffer,
} from "../../domain/catalogue.ts";
import type { SeriesStatus } from "../../domain/types.ts";
import type { CatalogueRefreshStatus } from "../../services/catalogue/catalogue-refresh-monitor.ts";
import type {
  CatalogueLinkView,
  CatalogueSearchResult,
  CatalogueSuggestionSummary,
  SeriesCatalogueView,
  CatalogueSearchHit,
} from "../../services/catalogue/catalogue-model.ts";
import type { MapChangeResult, MapView } from "../../services/maps/map-service.ts";
import type { Adoption } from "../../services/maps/suggestion-adoption.ts";
import type { MapChangePreview } from "../../domain/coverage.ts";
import { builder } from "../builder.ts";
import { SeriesStatusEnum } from "./enums.ts";
import { ChapterMapRef, MapChangePreviewRef } from "./map.ts";

export const CatalogueEnum = builder.enumType("Catalogue", {
  values: {
    MANGADEX: { value: "mangadex" },
    MANGAUPDATES: { value: "mangaupdates" },
    ANILIST: { value: "anilist" },
  } as const,
});

const CatalogueStatusEnum = builder.enumType("CatalogueStatus", {
  description: "A catalogue's own status word, normalised across the catalogues.",
  values: {
    ONGOING: { value: "ongoing" },
    COMPLETED: { value: "completed" },
    HIATUS: { value: "hiatus" },
    CANCELLED: { value: "cancelled" },
    UPCOMING: { value: "upcoming" },
  } as const,
});

const AgreementGradeEnum = builder.enumType("AgreementGrade", {
  values: {
    AGREED: { value: "agreed", description: "Two or more catalogues state the same value." },
    LONE: { value: "lone", description: "One catalogue states a value." },
    CONFLICT: { value: "conflict", description: "The catalogues state different values." },
  } as const,
});

const OfferFieldEnum = builder.enumType("CatalogueOfferField", {
  values: { KNOWN_BOOK_COUNT: { value: "known_book_count" }, STATUS: { value: "status" } } as const,
});

const HitRef = builder.objectRef<CatalogueSearchHit>("CatalogueHit").implement({
  description: "A catalogue search result: the operator picks the right work; nothing is linked by title alone.",
  fields: (t) => ({
    catalogue: t.field({ type: CatalogueEnum, resolve: (h) => h.catalogue }),
    catalogueId: t.exposeString("catalogueId"),
    title: t.exposeString("title"),
    status: t.field({ type: CatalogueStatusEnum, nullable: true, resolve: (h) => h.status }),
    year: t.int({ nullable: true, resolve: (h) => h.year }),
    coverUrl: t.string({ nullable: true, description: "The catalogue's own cover URL.", resolve: (h) => h.coverUrl }),
    coverPreviewUrl: t.string({
      nullable: true,
      description: "The same cover served by this service (what a page shows; its policy admits only this origin).",
      resolve: (h) => h.coverPreviewUrl,
    }),
    volumes: t.int({ nullable: true, resolve: (h) => h.volumes }),
    chapters: t.int({ nullable: true, resolve: (h) => h.chapters }),
    url: t.string({ nullable: true, resolve: (h) => h.url }),
  }),
});

const SearchErrorRef = builder.objectRef<CatalogueSearchResult["errors"][number]>("CatalogueSearchError").implement({
  fields: (t) => ({
    catalogue: t.field({ type: CatalogueEnum, resolve: (e) => e.catalogue }),
    code: t.exposeString("code"),
    detail: t.exposeString("detail"),
  }),
});

const SearchRef = builder.objectRef<CatalogueSearchResult>("CatalogueSearchResult").implement({
  fields: (t) => ({
    results: t.field({ type: [HitRef], resolve: (r) => r.results }),
    errors: t.field({
      type: [SearchErrorRef],
      description: "Catalogues that failed while others answered (all failing is CATALOGUE_FAILED).",
      resolve: (r) => r.errors,
    }),
  }),
});

const LinkRef = builder.objectRef<CatalogueLinkView>("CatalogueLink").implement({
  fields: (t) => ({
    catalogue: t.field({ type: CatalogueEnum, resolve: (l) => l.catalogue }),
    catalogueId: t.exposeString("catalogueId"),
    title: t.string({ nullable: true, resolve: (l) => l.title }),
    url: t.string({ nullable: true, resolve: (l) => l.url }),
    status: t.field({ type: CatalogueStatusEnum, nullable: true, resolve: (l) => l.status }),
    volumes: t.int({ nullable: true, resolve: (l) => l.volumes }),
    chapters: t.int({ nullable: true, resolve: (l) => l.chapters }),
    year: t.int({ nullable: true, resolve: (l) => l.year }),
    coverSource: t.string({ nullable: true, resolve: (l) => l.coverSource }),
    hasCover: t.exposeBoolean("hasCover"),
    refreshedAt: t.string({
      nullable: true,
      description: "ISO 8601.",
      resolve: (l) => l.refreshedAt?.toISOString() ?? null,
    }),
  }),
});

const MetadataRef = builder.objectRef<SeriesCatalogueView["metadata"]>("SeriesMetadata").implement({
  description: "Merged from the linked catalogues (MangaDex, then AniList, then MangaUpdates).",
  fields: (t) => ({
    description: t.string({ nullable: true, resolve: (m) => m.description }),
    descriptionFrom: t.field({ type: CatalogueEnum, nullable: true, resolve: (m) => m.descriptionFrom }),
    alternativeTitles: t.exposeStringList("alternativeTitles"),
    authors: t.exposeStringList("authors"),
    genres: t.exposeStringList("genres"),
    coverUrl: t.string({
      nullable: true,
      description: "/api/manga/{id}/cover when a catalogue cover is stored.",
      resolve: (m) => m.coverUrl,
    }),
    coverFrom: t.field({ type: CatalogueEnum, nullable: true, resolve: (m) => m.coverFrom }),
  }),
});

const CountFactsRef = builder.objectRef<CatalogueCountFacts>("CatalogueCountFacts").implement({
  fields: (t) => ({
    catalogue: t.field({ type: CatalogueEnum, resolve: (f) => f.catalogue }),
    status: t.field({ type: CatalogueStatusEnum, nullable: true, resolve: (f) => f.status }),
    volumes: t.int({ nullable: true, resolve: (f) => f.volumes }),
    chapters: t.int({ nullable: true, resolve: (f) => f.chapters }),
  }),
});

const IntValueRef = builder
  .objectRef<{ catalogue: CatalogueCountFacts["catalogue"]; value: number }>("CatalogueIntValue")
  .implement({
    fields: (t) => ({
      catalogue: t.field({ type: CatalogueEnum, resolve: (v) => v.catalogue }),
      value: t.exposeInt("value"),
    }),
  });
const StatusValueRef = builder
  .objectRef<{ catalogue: CatalogueCountFacts["catalogue"]; value: SeriesStatus }>("CatalogueStatusValue")
  .implement({
    fields: (t) => ({
      catalogue: t.field({ type: CatalogueEnum, resolve: (v) => v.catalogue }),
      value: t.field({ type: SeriesStatusEnum, resolve: (v) => v.value }),
    }),
  });

const IntAgreementRef = builder.objectRef<Agreement<number>>("CountAgreement").implement({
  fields: (t) => ({
    value: t.int({ nullable: true, description: "The agreed or lone value.", resolve: (a) => a.value }),
    grade: t.field({ type: AgreementGradeEnum, nullable: true, resolve: (a) => a.grade }),
    values: t.field({ type: [IntValueRef], resolve: (a) => a.values }),
  }),
});
const StatusAgreementRef = builder.objectRef<Agreement<SeriesStatus>>("StatusAgreement").implement({
  fields: (t) => ({
    value: t.field({ type: SeriesStatusEnum, nullable: true, resolve: (a) => a.value }),
    grade: t.field({ type: AgreementGradeEnum, nullable: true, resolve: (a) => a.grade }),
    values: t.field({ type: [StatusValueRef], resolve: (a) => a.values }),
  }),
});

const CountsRef = builder.objectRef<CatalogueCounts>("CatalogueCounts").implement({
  description: "Each linked catalogue's status and counts, graded across catalogues. They never change the series.",
  fields: (t) => ({
    catalogues: t.field({ type: [CountFactsRef], resolve: (c) => c.catalogues }),
    volumes: t.field({ type: IntAgreementRef, resolve: (c) => c.volumes }),
    chapters: t.field({ type: IntAgreementRef, resolve: (c) => c.chapters }),
    status: t.field({ type: StatusAgreementRef, resolve: (c) => c.status }),
  }),
});

const OfferRef = builder.objectRef<CountOffer>("CatalogueOffer").implement({
  description: "A value the operator may accept in one click (acceptCatalogueOffer).",
  fields: (t) => ({
    field: t.field({ type: OfferFieldEnum, resolve: (o) => o.field }),
    knownBookCount: t.int({
      nullable: true,
      resolve: (o) => (o.field === "known_book_count" ? (o.value as number) : null),
    }),
    status: t.field({
      type: SeriesStatusEnum,
      nullable: true,
      resolve: (o) => (o.field === "status" ? (o.value as SeriesStatus) : null),
    }),
    grade: t.field({ type: AgreementGradeEnum, resolve: (o) => o.grade }),
    catalogues: t.field({ type: [CatalogueEnum], resolve: (o) => o.catalogues }),
    text: t.exposeString("text"),
  }),
});

const AggregateConflictRef = builder.objectRef<AggregateConflict>("CatalogueMapConflict").implement({
  description: "A chapter the catalogue lists under two or more volumes: it is in none of them.",
  fields: (t) => ({
    chapter: t.exposeString("chapter"),
    volumes: t.exposeStringList("volumes"),
  }),
});

const SuggestionSummaryRef = builder.objectRef<CatalogueSuggestionSummary>("CatalogueMapSuggestion").implement({
  fields: (t) => ({
    source: t.exposeString("source"),
    language: t.exposeString("language"),
    books: t.exposeInt("books"),
    conflicts: t.field({ type: [AggregateConflictRef], resolve: (s) => s.conflicts }),
    noBook: t.stringList({
      description: "Chapters listed under no volume: they belong to no book.",
      resolve: (s) => s.noBook,
    }),
  }),
});

export const SeriesCatalogueRef = builder.objectRef<SeriesCatalogueView>("SeriesCatalogue").implement({
  fields: (t) => ({
    seriesId: t.exposeInt("seriesId"),
    links: t.field({ type: [LinkRef], resolve: (v) => v.links }),
    metadata: t.field({ type: MetadataRef, resolve: (v) => v.metadata }),
    counts: t.field({ type: CountsRef, resolve: (v) => v.counts }),
    offers: t.field({ type: [OfferRef], resolve: (v) => v.offers }),
    suggestion: t.field({ type: SuggestionSummaryRef, nullable: true, resolve: (v) => v.suggestion }),
  }),
});

const ConnectionRef = builder
  .objectRef<CatalogueSettings["mangaupdates"] & { coverBaseUrl?: string }>("CatalogueConnection")
  .implement({
    fields: (t) => ({
      enabled: t.exposeBoolean("enabled"),
      baseUrl: t.exposeString("baseUrl"),
      coverBaseUrl: t.string({
        nullable: true,
        description: "MangaDex only: the host covers are fetched from.",
        resolve: (c) => c.coverBaseUrl ?? null,
      }),
    }),
  });

const SettingsRef = builder.objectRef<CatalogueSettings>("CatalogueSettings").implement({
  fields: (t) => ({
    mangadex: t.field({ type: ConnectionRef, resolve: (s) => s.mangadex }),
    mangaupdates: t.field({ type: ConnectionRef, resolve: (s) => s.mangaupdates }),
    anilist: t.field({ type: ConnectionRef, resolve: (s) => s.anilist }),
  }),
});

const RefreshStatusRef = builder.objectRef<CatalogueRefreshStatus>("CatalogueRefreshStatus").implement({
  description: "The scheduled refresh of every linked series.",
  fields: (t) => ({
    lastRun: t.string({ nullable: true, resolve: (s) => s.lastRun }),
    nextRun: t.string({ nullable: true, resolve: (s) => s.nextRun }),
    running: t.exposeBoolean("running"),
    series: t.int({ nullable: true, resolve: (s) => s.lastOutcome?.series ?? null }),
    refreshed: t.int({ nullable: true, resolve: (s) => s.lastOutcome?.refreshed ?? null }),
    failed: t.int({ nullable: true, resolve: (s) => s.lastOutcome?.failed ?? null }),
  }),
});

const SkippedRef = builder.objectRef<Adoption["skipped"][number]>("AdoptionSkip").implement({
  fields: (t) => ({ volume: t.exposeString("volume"), reason: t.exposeString("reason") }),
});
const DroppedRef = builder.objectRef<Adoption["droppedClaims"][number]>("AdoptionDroppedClaim").implement({
  fields: (t) => ({
    chapter: t.exposeString("chapter"),
    volume: t.exposeString("volume"),
    reason: t.exposeString("reason"),
  }),
});
const AdoptionRef = builder.objectRef<Adoption>("SuggestionAdoption").implement({
  fields: (t) => ({
    adopted: t.exposeStringList("adopted"),
    skipped: t.field({ type: [SkippedRef], resolve: (a) => a.skipped }),
    droppedClaims: t.field({ type: [DroppedRef], resolve: (a) => a.droppedClaims }),
  }),
});
const AdoptionPreviewRef = builder
  .objectRef<{ adoption: Adoption; preview: MapChangePreview }>("SuggestionAdoptionPreview")
  .implement({
    fields: (t) => ({
      adoption: t.field({ type: AdoptionRef, resolve: (r) => r.adoption }),
      preview: t.field({ type: MapChangePreviewRef, resolve: (r) => r.preview }),
    }),
  });
const AdoptionSavedRef = builder.objectRef<{ adoption: Adoption; map: MapView }>("SuggestionAdoptionResult").implement({
  fields: (t) => ({
    adoption: t.field({ type: AdoptionRef, resolve: (r) => r.adoption }),
    map: t.field({ type: ChapterMapRef, resolve: (r) => r.map }),
  }),
});

const ConnectionInput = builder.inputType("CatalogueConnectionInput", {
  fields: (t) => ({
    enabled: t.boolean(),
    baseUrl: t.string({ description: "null or empty: the public API." }),
    coverBaseUrl: t.string({ description: "MangaDex only." }),
  }),
});
const SettingsInput = builder.inputType("CatalogueSettingsInput", {
  fields: (t) => ({
    mangadex: t.field({ type: ConnectionInput }),
    mangaupdates: t.field({ type: ConnectionInput }),
    anilist: t.field({ type: ConnectionInput }),
  }),
});

const LinkedSeriesInput = builder.inputType("LinkedSeriesInput", {
  description: "A series created already linked; the title defaults to the catalogue's.",
  fields: (t) => ({
    title: t.string(),
    folder: t.string(),
    language: t.string(),
    monitored: t.boolean(),
  }),
});

function saved(r: MapChangeResult): MapView {
  if (r.dryRun) throw new Error("expected a saved map");
  return r.map;
}
function previewed(r: MapChangeResult): MapChangePreview {
  if (!r.dryRun) throw new Error("expected a dry run");
  return r.preview;
}

builder.prismaObjectField("Series", "catalogue", (t) =>
  t.field({
    type: SeriesCatalogueRef,
    description: "What the linked catalogues say: metadata, cover, graded counts, offers, the map suggestion.",
    resolve: (s, _a, { services }) => services.catalogues.view(s.id),
  }),
);

builder.queryFields((t) => ({
  catalogueSearch: t.field({
    type: SearchRef,
    description: "Searches the enabled catalogues (or one); only the search text leaves the service.",
    args: { query: t.arg.string({ required: true }), catalogue: t.arg({ type: CatalogueEnum }) },
    resolve: (_r, { query, catalogue }, { services }) => services.catalogues.search(query, catalogue ?? undefined),
  }),
  seriesCatalogue: t.field({
    type: SeriesCatalogueRef,
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId }, { services }) => services.catalogues.view(seriesId),
  }),
  catalogueSettings: t.field({
    type: SettingsRef,
    resolve: (_r, _a, { services }) => services.catalogueSettings.get(),
  }),
  catalogueRefreshStatus: t.field({
    type: RefreshStatusRef,
    resolve: (_r, _a, { services }) => services.catalogueRefresh.status(),
  }),
}));

builder.mutationFields((t) => ({
  updateCatalogueSettings: t.field({
    type: SettingsRef,
    args: { input: t.arg({ type: SettingsInput, required: true }) },
    resolve: (_r, { input }, { services }) =>
      services.catalogueSettings.update({
        mangadex: input.mangadex,
        mangaupdates: input.mangaupdates,
        anilist: input.anilist,
      }),
  }),
  linkCatalogue: t.field({
    type: SeriesCatalogueRef,
    description: "Links the work the operator picked and refreshes it (CATALOGUE_FAILED changes nothing).",
    args: {
      seriesId: t.arg.int({ required: true }),
      catalogue: t.arg({ type: CatalogueEnum, required: true }),
      catalogueId: t.arg.string({ required: true }),
    },
    resolve: (_r, { seriesId, catalogue, catalogueId }, { services }) =>
      services.catalogues.link(seriesId, { catalogue, catalogueId }),
  }),
  refreshCatalogues: t.field({
    type: SeriesCatalogueRef,
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId }, { services }) => services.catalogues.refresh(seriesId),
  }),
  unlinkCatalogue: t.field({
    type: SeriesCatalogueRef,
    args: { seriesId: t.arg.int({ required: true }), catalogue: t.arg({ type: CatalogueEnum, required: true }) },
    resolve: (_r, { seriesId, catalogue }, { services }) => services.catalogues.unlink(seriesId, catalogue),
  }),
  acceptCatalogueOffer: t.field({
    type: SeriesCatalogueRef,
    description: "Applies a value a current offer states (CATALOGUE_OFFER_STALE otherwise).",
    args: {
      seriesId: t.arg.int({ required: true }),
      knownBookCount: t.arg.int(),
      status: t.arg({ type: SeriesStatusEnum }),
    },
    resolve: async (_r, { seriesId, knownBookCount, status }, { services }) =>
      (
        await services.catalogues.accept(seriesId, {
          ...(knownBookCount === undefined || knownBookCount === null ? {} : { knownBookCount }),
          ...(status === undefined || status === null ? {} : { status }),
        })
      ).catalogue,
  }),
  createLinkedSeries: t.prismaField({
    type: "Series",
    description:
      "Creates a series already linked to a catalogue work (fetched first: CATALOGUE_FAILED creates nothing).",
    args: {
      catalogue: t.arg({ type: CatalogueEnum, required: true }),
      catalogueId: t.arg.string({ required: true }),
      input: t.arg({ type: LinkedSeriesInput }),
    },
    resolve: async (query, _r, { catalogue, catalogueId, input }, { rows, services }) => {
      // An input field sent as null is one not given (the title then defaults to the catalogue's).
      const r = await services.catalogues.createLinked({
        title: input?.title ?? undefined,
        folder: input?.folder ?? undefined,
        language: input?.language ?? undefined,
        monitored: input?.monitored ?? undefined,
        catalogue,
        catalogueId,
      });
      return rows.requireSeries(query, r.series.id);
    },
  }),
  runCatalogueRefresh: t.field({
    type: RefreshStatusRef,
    description: "Runs the scheduled refresh of every linked series now.",
    resolve: async (_r, _a, { services }) => {
      await services.catalogueRefresh.runNow();
      return services.catalogueRefresh.status();
    },
  }),
  previewSuggestedBooks: t.field({
    type: AdoptionPreviewRef,
    description: "What adopting these books of a suggestion would change (nothing is saved).",
    args: {
      seriesId: t.arg.int({ required: true }),
      source: t.arg.string({ required: true }),
      volumes: t.arg.stringList(),
      revision: t.arg.int({ required: true }),
    },
    resolve: async (_r, { seriesId, source, volumes, revision }, { services }) => {
      const r = await services.suggestionAdoption.adopt(seriesId, { source, volumes, revision }, true);
      return { adoption: r.adoption, preview: previewed(r.result) };
    },
  }),
  adoptSuggestedBooks: t.field({
    type: AdoptionSavedRef,
    description: "Adopts these books of a suggestion into the operator map, bound to its revision.",
    args: {
      seriesId: t.arg.int({ required: true }),
      source: t.arg.string({ required: true }),
      volumes: t.arg.stringList(),
      revision: t.arg.int({ required: true }),
    },
    resolve: async (_r, { seriesId, source, volumes, revision }, { services }) => {
      const r = await services.suggestionAdoption.adopt(seriesId, { source, volumes, revision }, false);
      return { adoption: r.adoption, map: saved(r.result) };
    },
  }),
}));
