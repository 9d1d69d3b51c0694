import type {
  BookCoverageChange,
  BookCoverageSide,
  ChapterCoverageChange,
  ChapterCoverageSide,
  MapChangePreview,
} from "../../domain/coverage.ts";
import type { CatalogueSuggestion, SuggestionConflict, SuggestionEntry } from "../../domain/map-trust.ts";
import type { MapEntryFacts } from "../../domain/types.ts";
import type { MapChangeResult, MapView } from "../../services/maps/map-service.ts";
import { builder } from "../builder.ts";
import { CoverageEnum, MapStateEnum } from "./enums.ts";

export const MapEntryRef = builder.objectRef<MapEntryFacts>("MapEntry").implement({
  description: "A book with its exact chapters; an empty list means membership unknown.",
  fields: (t) => ({
    volume: t.exposeString("volume"),
    chapters: t.exposeStringList("chapters"),
  }),
});

const SuggestionStatusEnum = builder.enumType("SuggestionStatus", {
  values: { OPEN: { value: "open" }, SET: { value: "set" }, SUPPRESSED: { value: "suppressed" } } as const,
});
const SuggestionKindEnum = builder.enumType("SuggestionKind", {
  values: { CATALOGUE: { value: "catalogue" }, OFFICIAL: { value: "official" } } as const,
});

const SuggestionConflictRef = builder.objectRef<SuggestionConflict>("SuggestionConflict").implement({
  fields: (t) => ({
    chapter: t.exposeString("chapter"),
    volumes: t.exposeStringList("volumes"),
    scope: t.exposeString("scope", { description: "source | catalogues | operator" }),
  }),
});

const SuggestionEntryRef = builder.objectRef<SuggestionEntry>("SuggestionEntry").implement({
  fields: (t) => ({
    volume: t.exposeString("volume"),
    chapters: t.exposeStringList("chapters"),
    status: t.field({ type: SuggestionStatusEnum, resolve: (e) => e.status }),
    conflicts: t.field({ type: [SuggestionConflictRef], resolve: (e) => e.conflicts }),
    adoptable: t.exposeStringList("adoptable", {
      description: "What adopting this entry would take (conflicts left out).",
    }),
  }),
});

const MapSuggestionRef = builder.objectRef<CatalogueSuggestion>("MapSuggestion").implement({
  description: "A catalogue or official map: a suggestion to review, never operational.",
  fields: (t) => ({
    source: t.string({ resolve: (s) => s.name }),
    kind: t.field({ type: SuggestionKindEnum, resolve: (s) => s.kind }),
    revision: t.exposeInt("revision"),
    entries: t.field({ type: [SuggestionEntryRef], resolve: (s) => s.entries }),
  }),
});

const MapConflictRef = builder.objectRef<{ chapter: string; books: string[] }>("MapConflict").implement({
  fields: (t) => ({ chapter: t.exposeString("chapter"), books: t.exposeStringList("books") }),
});

const BookStartRef = builder.objectRef<{ volume: string; start: string }>("BookStart").implement({
  fields: (t) => ({
    volume: t.exposeString("volume"),
    start: t.exposeString("start", { description: "First chapter of the book." }),
  }),
});

export const ChapterMapRef = builder.objectRef<MapView>("ChapterMap").implement({
  fields: (t) => ({
    seriesId: t.exposeInt("seriesId"),
    revision: t.exposeInt("revision", { description: "Operator map revision; saves and deletions are bound to it." }),
    state: t.field({ type: MapStateEnum, resolve: (m) => m.state }),
    entries: t.field({ type: [MapEntryRef], resolve: (m) => m.entries }),
    readings: t.field({ type: [MapEntryRef], resolve: (m) => m.readings }),
    suggestions: t.field({ type: [MapSuggestionRef], resolve: (m) => m.suggestions }),
    conflicts: t.field({ type: [MapConflictRef], resolve: (m) => m.conflicts }),
    bookStarts: t.field({
      type: [BookStartRef],
      description:
        "The start of each book of the operator entries (its smallest chapter), for the map editor; books with an empty entry are left out.",
      resolve: (m) => m.bookStarts,
    }),
  }),
});

const ChapterSideRef = builder.objectRef<ChapterCoverageSide>("ChapterCoverageSide").implement({
  fields: (t) => ({
    coverage: t.field({ type: CoverageEnum, nullable: true, resolve: (s) => s.coverage }),
    book: t.string({ nullable: true, resolve: (s) => s.book }),
    wanted: t.exposeBoolean("wanted"),
  }),
});
const BookSideRef = builder.objectRef<BookCoverageSide>("BookCoverageSide").implement({
  fields: (t) => ({
    coverage: t.field({ type: CoverageEnum, nullable: true, resolve: (s) => s.coverage }),
    coversChapters: t.exposeBoolean("coversChapters"),
    chapters: t.stringList({ nullable: true, resolve: (s) => s.chapters }),
    wanted: t.exposeBoolean("wanted"),
  }),
});
const ChapterChangeRef = builder.objectRef<ChapterCoverageChange>("ChapterCoverageChange").implement({
  fields: (t) => ({
    number: t.exposeString("number"),
    before: t.field({ type: ChapterSideRef, resolve: (c) => c.before }),
    after: t.field({ type: ChapterSideRef, resolve: (c) => c.after }),
    becomeDuplicates: t.exposeIntList("becomeDuplicates"),
    stopDuplicates: t.exposeIntList("stopDuplicates"),
  }),
});
const BookChangeRef = builder.objectRef<BookCoverageChange>("BookCoverageChange").implement({
  fields: (t) => ({
    number: t.exposeString("number"),
    before: t.field({ type: BookSideRef, resolve: (c) => c.before }),
    after: t.field({ type: BookSideRef, resolve: (c) => c.after }),
    becomeDuplicates: t.exposeIntList("becomeDuplicates"),
    stopDuplicates: t.exposeIntList("stopDuplicates"),
  }),
});
export const MapChangePreviewRef = builder.objectRef<MapChangePreview>("MapChangePreview").implement({
  description: "What a map change would do to coverage; nothing is saved.",
  fields: (t) => ({
    revision: t.exposeInt("revision"),
    mapBefore: t.field({ type: MapStateEnum, resolve: (p) => p.mapBefore }),
    mapAfter: t.field({ type: MapStateEnum, resolve: (p) => p.mapAfter }),
    chapters: t.field({ type: [ChapterChangeRef], resolve: (p) => p.chapters }),
    books: t.field({ type: [BookChangeRef], resolve: (p) => p.books }),
    becomeDuplicateFileIds: t.exposeIntList("becomeDuplicateFileIds"),
    stopDuplicateFileIds: t.exposeIntList("stopDuplicateFileIds"),
  }),
});

const MapEntryInput = builder.inputType("MapEntryInput", {
  fields: (t) => ({
    volume: t.string({ required: true }),
    chapters: t.stringList({ required: true, description: "Exact labels; empty = membership unknown." }),
  }),
});

function previewOf(r: MapChangeResult): MapChangePreview {
  if (!r.dryRun) throw new Error("expected a dry run");
  return r.preview;
}
function mapOf(r: MapChangeResult): MapView {
  if (r.dryRun) throw new Error("expected a saved map");
  return r.map;
}

builder.queryField("chapterMap", (t) =>
  t.field({
    type: ChapterMapRef,
    args: { seriesId: t.arg.int({ required: true }) },
    resolve: (_r, { seriesId }, { services }) => services.maps.view(seriesId),
  }),
);

builder.mutationFields((t) => ({
  previewChapterMap: t.field({
    type: MapChangePreviewRef,
    args: {
      seriesId: t.arg.int({ required: true }),
      revision: t.arg.int({ required: true }),
      entries: t.arg({ type: [MapEntryInput], required: true }),
    },
    resolve: async (_r, { seriesId, revision, entries }, { services }) =>
      previewOf(await services.maps.replace(seriesId, { revision, entries }, true)),
  }),
  saveChapterMap: t.field({
    type: ChapterMapRef,
    args: {
      seriesId: t.arg.int({ required: true }),
      revision: t.arg.int({ required: true }),
      entries: t.arg({ type: [MapEntryInput], required: true }),
    },
    resolve: async (_r, { seriesId, revision, entries }, { services }) =>
      mapOf(await services.maps.replace(seriesId, { revision, entries }, false)),
  }),
  previewChapterMapRemoval: t.field({
    type: MapChangePreviewRef,
    args: { seriesId: t.arg.int({ required: true }), revision: t.arg.int({ required: true }) },
    resolve: async (_r, { seriesId, revision }, { services }) =>
      previewOf(await services.maps.remove(seriesId, { revision }, true)),
  }),
  deleteChapterMap: t.field({
    type: ChapterMapRef,
    args: { seriesId: t.arg.int({ required: true }), revision: t.arg.int({ required: true }) },
    resolve: async (_r, { seriesId, revision }, { services }) =>
      mapOf(await services.maps.remove(seriesId, { revision }, false)),
  }),
  submitReading: t.field({
    type: ChapterMapRef,
    description: "One book's chapters, submitted from the book-reading interface.",
    args: {
      seriesId: t.arg.int({ required: true }),
      volume: t.arg.string({ required: true }),
      chapters: t.arg.stringList({ required: true }),
    },
    resolve: (_r, { seriesId, volume, chapters }, { services }) =>
      services.maps.addReading(seriesId, { volume, chapters }),
  }),
  importMapSuggestion: t.field({
    type: ChapterMapRef,
    description: "Stores a catalogue or official map as a suggestion only.",
    args: {
      seriesId: t.arg.int({ required: true }),
      source: t.arg.string({ required: true }),
      entries: t.arg({ type: [MapEntryInput], required: true }),
    },
    resolve: (_r, { seriesId, source, entries }, { services }) =>
      services.maps.addSuggestion(seriesId, { source, entries }),
  }),
}));
