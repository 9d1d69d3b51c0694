/** GraphQL of providers and source mappings: the same services as REST (rest-sources.ts). */
import type { ListingProblem, ProviderWork } from "../../providers/provider.ts";
import type { SuwayomiSource } from "../../providers/suwayomi-client.ts";
import type {
  MappingHealth,
  MappingProblems,
  MappingRefresh,
  MappingView,
  SearchResultView,
  SourcesService,
} from "../../services/acquisition/sources-service.ts";
import type { InvalidatedOverride } from "../../domain/numbering-override.ts";
import { builder } from "../builder.ts";

type ProviderView = Awaited<ReturnType<SourcesService["providers"]>>[number];

const HealthStatusEnum = builder.enumType("SourceHealthStatus", {
  values: {
    UNKNOWN: { value: "unknown", description: "No finished download yet." },
    OK: { value: "ok" },
    DEGRADED: { value: "degraded", description: "Some recent downloads were degraded or failed." },
    FAILING: {
      value: "failing",
      description: "At least half (and two) of the recent downloads were degraded or failed.",
    },
  } as const,
});

const RefreshStatusEnum = builder.enumType("SourceRefreshStatus", {
  values: { OK: { value: "ok" }, UNAVAILABLE: { value: "unavailable" }, FAILED: { value: "failed" } } as const,
});

const HealthRef = builder.objectRef<MappingHealth>("SourceHealth").implement({
  description: "From the mapping's latest 10 finished downloads.",
  fields: (t) => ({
    status: t.field({ type: HealthStatusEnum, resolve: (h) => h.status }),
    recent: t.exposeInt("recent"),
    published: t.exposeInt("published"),
    degraded: t.exposeInt("degraded"),
    failed: t.exposeInt("failed"),
    lastProblemAt: t.string({
      nullable: true,
      description: "ISO 8601.",
      resolve: (h) => h.lastProblemAt?.toISOString() ?? null,
    }),
  }),
});

const MappingRef = builder.objectRef<MappingView>("SourceMapping").implement({
  description: "A series linked to one provider's work.",
  fields: (t) => ({
    id: t.exposeInt("id"),
    seriesId: t.exposeInt("seriesId"),
    providerId: t.exposeInt("providerId"),
    provider: t.exposeString("provider", {
      description: 'The Provider row\'s name: "drop-folder" or "suwayomi:<sourceId>".',
    }),
    providerKind: t.exposeString("providerKind"),
    displayName: t.exposeString("displayName"),
    sourceId: t.exposeString("sourceId", { description: "The provider's work id." }),
    language: t.exposeString("language"),
    priority: t.exposeInt("priority", { description: "Higher first." }),
    state: t.exposeString("state"),
    offers: t.exposeInt("offers"),
    health: t.field({ type: HealthRef, resolve: (m) => m.health }),
    available: t.exposeBoolean("available", { description: "False when the provider is disabled or not configured." }),
  }),
});

const InvalidatedRef = builder.objectRef<InvalidatedOverride>("InvalidatedNumberingOverride").implement({
  fields: (t) => ({
    externalId: t.exposeString("externalId"),
    observedNumber: t.exposeString("observedNumber", { description: '"" for an unnumbered release.' }),
    sourceNumber: t.exposeString("sourceNumber"),
  }),
});

const ProblemRef = builder.objectRef<ListingProblem>("SourceListingProblem").implement({
  description: "An entry of the work the provider saw but could not offer (the drop folder), and why.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The entry's own name (one path segment, never a path)." }),
    code: t.exposeString("code", {
      description:
        "archive_* (the archive reader refused it), unreadable, symbolic_link, no_pages, number_range, unsupported_format.",
    }),
    detail: t.exposeString("detail", { description: "A short sentence; never file content." }),
  }),
});

const ProblemsRef = builder.objectRef<MappingProblems>("SourceProblems").implement({
  fields: (t) => ({
    mappingId: t.exposeInt("mappingId"),
    problems: t.field({ type: [ProblemRef], resolve: (r) => r.problems }),
  }),
});

const RefreshRef = builder.objectRef<MappingRefresh>("SourceRefresh").implement({
  fields: (t) => ({
    mappingId: t.exposeInt("mappingId"),
    provider: t.exposeString("provider"),
    sourceId: t.exposeString("sourceId"),
    status: t.field({ type: RefreshStatusEnum, resolve: (r) => r.status }),
    error: t.string({ nullable: true, resolve: (r) => r.error }),
    offers: t.exposeInt("offers"),
    added: t.exposeInt("added"),
    updated: t.exposeInt("updated"),
    removed: t.exposeInt("removed"),
    overridesApplied: t.exposeInt("overridesApplied"),
    overridesInvalidated: t.field({ type: [InvalidatedRef], resolve: (r) => r.overridesInvalidated }),
    problems: t.field({
      type: [ProblemRef],
      description: "What the listing left out, and why (the drop folder).",
      resolve: (r) => r.problems,
    }),
  }),
});

const WorkRef = builder.objectRef<ProviderWork & { linked: boolean; rejected: boolean }>("SourceWork").implement({
  description: "A candidate work: the operator confirms it by linking; nothing is linked by title alone.",
  fields: (t) => ({
    sourceId: t.exposeString("sourceId"),
    title: t.exposeString("title"),
    language: t.exposeString("language"),
    sourceName: t.string({ nullable: true, resolve: (w) => w.sourceName }),
    thumbnailUrl: t.string({ nullable: true, resolve: (w) => w.thumbnailUrl }),
    linked: t.exposeBoolean("linked"),
    rejected: t.exposeBoolean("rejected", { description: "Rejected for this series: linking it is refused." }),
  }),
});

const SearchRef = builder.objectRef<SearchResultView>("SourceSearchResult").implement({
  fields: (t) => ({
    providerId: t.exposeInt("providerId"),
    provider: t.exposeString("provider"),
    works: t.field({ type: [WorkRef], resolve: (s) => s.works }),
  }),
});

const LinkRef = builder.objectRef<{ mapping: MappingView; refresh: MappingRefresh }>("SourceLinkResult").implement({
  fields: (t) => ({
    mapping: t.field({ type: MappingRef, resolve: (r) => r.mapping }),
    refresh: t.field({ type: RefreshRef, resolve: (r) => r.refresh }),
  }),
});

const SeriesRefreshRef = builder
  .objectRef<{ seriesId: number; mappings: MappingRefresh[] }>("SourcesRefreshResult")
  .implement({
    fields: (t) => ({
      seriesId: t.exposeInt("seriesId"),
      mappings: t.field({ type: [RefreshRef], resolve: (r) => r.mappings }),
    }),
  });

const ProviderRef = builder.objectRef<ProviderView>("SourceProvider").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    kind: t.exposeString("kind"),
    displayName: t.exposeString("displayName"),
    language: t.string({ nullable: true, resolve: (p) => p.language }),
    baseUrl: t.string({ nullable: true, resolve: (p) => p.baseUrl }),
    enabled: t.exposeBoolean("enabled"),
    priority: t.exposeInt("priority"),
    available: t.exposeBoolean("available"),
  }),
});

const SuwayomiSourceRef = builder.objectRef<SuwayomiSource>("SuwayomiSource").implement({
  fields: (t) => ({
    id: t.exposeString("id", { description: "LongString id, as a string." }),
    name: t.exposeString("name"),
    lang: t.exposeString("lang"),
  }),
});

builder.queryFields((t) => ({
  sourceMappings: t.field({
    type: [MappingRef],
    description: "The series' source mappings, by priority.",
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId }, { services }) => services.sources.list(seriesId),
  }),
  sourceProblems: t.field({
    type: ProblemsRef,
    description:
      "What the mapping's provider leaves out of the work's listing, read afresh (the drop folder: files it cannot offer).",
    args: { seriesId: t.arg.int({ required: true }), mappingId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId, mappingId }, { services }) => services.sources.problems(seriesId, mappingId),
  }),
  providers: t.field({
    type: [ProviderRef],
    description: "Provider rows (the drop folder always; one per Suwayomi source used).",
    resolve: (_r, _a, { services }) => services.sources.providers(),
  }),
  suwayomiSources: t.field({
    type: [SuwayomiSourceRef],
    args: { lang: t.arg.string() },
    resolve: (_r, { lang }, { services }) => services.sources.suwayomiSources(lang ?? undefined),
  }),
}));

builder.mutationFields((t) => ({
  searchSources: t.field({
    type: SearchRef,
    description:
      'Searches one provider ("drop-folder", "suwayomi:<id>" or a Suwayomi source id); the query defaults to the series title.',
    args: {
      seriesId: t.arg.int({ required: true }),
      provider: t.arg.string({ required: true }),
      query: t.arg.string(),
    },
    resolve: (_r, { seriesId, provider, query }, { services }) =>
      services.sources.search(seriesId, { provider, query }),
  }),
  linkSource: t.field({
    type: LinkRef,
    description:
      "Links the work the operator confirmed (refused with SOURCE_REJECTED for a rejected mapping), then refreshes its offers.",
    args: {
      seriesId: t.arg.int({ required: true }),
      provider: t.arg.string({ required: true }),
      sourceId: t.arg.string({ required: true }),
      language: t.arg.string({ required: true }),
      priority: t.arg.int(),
    },
    resolve: (_r, { seriesId, provider, sourceId, language, priority }, { services }) =>
      services.sources.link(seriesId, { provider, sourceId, language, priority }),
  }),
  setSourcePriority: t.field({
    type: MappingRef,
    args: {
      seriesId: t.arg.int({ required: true }),
      mappingId: t.arg.int({ required: true }),
      priority: t.arg.int({ required: true }),
    },
    resolve: (_r, { seriesId, mappingId, priority }, { services }) =>
      services.sources.setPriority(seriesId, mappingId, { priority }),
  }),
  refreshSources: t.field({
    type: SeriesRefreshRef,
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId }, { services }) => services.sources.refresh(seriesId),
  }),
}));
