import { AppError } from "../../errors.ts";
import { seriesView } from "../../services/series/series-service.ts";
import { builder } from "../builder.ts";
import { PlanWordingEnum, SeriesFormEnum, SeriesStatusEnum } from "./enums.ts";
import { UnitsViewRef } from "./units.ts";

builder.prismaObject("VolumeSlot", {
  name: "Book",
  description: "A book (volume) slot of a series.",
  fields: (t) => ({
    id: t.exposeInt("id"),
    number: t.exposeString("number", { description: "Exact decimal label." }),
    monitored: t.exposeBoolean("monitored"),
    title: t.exposeString("title", { nullable: true }),
  }),
});

builder.prismaObject("ChapterSlot", {
  name: "Chapter",
  description: "A chapter slot of a series.",
  fields: (t) => ({
    id: t.exposeInt("id"),
    number: t.exposeString("number", { description: "Exact decimal label (chapter zero and decimals allowed)." }),
    monitored: t.exposeBoolean("monitored"),
    parts: t.exposeInt("parts", { description: "Parts a split chapter is published in (1 = whole)." }),
    extra: t.exposeBoolean("extra", { description: "Optional extra: never counts as a main chapter." }),
    title: t.exposeString("title", { nullable: true }),
  }),
});

builder.prismaObject("Series", {
  fields: (t) => ({
    id: t.exposeInt("id"),
    title: t.exposeString("title"),
    folder: t.exposeString("folder"),
    form: t.field({
      type: SeriesFormEnum,
      description: "Books or chapters, by the series-form rules.",
      resolve: (s) => seriesView(s).form,
    }),
    formOverride: t.field({ type: SeriesFormEnum, nullable: true, resolve: (s) => seriesView(s).formOverride }),
    language: t.exposeString("language"),
    originalLanguage: t.exposeString("originalLanguage", { nullable: true }),
    status: t.field({ type: SeriesStatusEnum, resolve: (s) => seriesView(s).status }),
    knownBookCount: t.exposeInt("knownBookCount", { nullable: true }),
    editionBookCount: t.exposeInt("editionBookCount", { nullable: true }),
    webtoon: t.exposeBoolean("webtoon"),
    planWording: t.field({ type: PlanWordingEnum, resolve: (s) => seriesView(s).planWording }),
    monitored: t.exposeBoolean("monitored"),
    assembleBooksAutomatically: t.exposeBoolean("assembleBooksAutomatically"),
    translationFallbackEnabled: t.exposeBoolean("translationFallbackEnabled"),
    translationSourceLanguages: t.stringList({ resolve: (s) => seriesView(s).translationSourceLanguages }),
    books: t.relation("volumes"),
    chapters: t.relation("chapters"),
    units: t.field({ type: UnitsViewRef, resolve: (s, _a, { services }) => services.units.units(s.id) }),
  }),
});

builder.queryFields((t) => ({
  seriesList: t.prismaField({
    type: ["Series"],
    resolve: (query, _root, _args, { rows }) => rows.seriesList(query),
  }),
  series: t.prismaField({
    type: "Series",
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    // An unknown series is 404 `series_not_found` as in GET /api/manga/{id}; the field stays
    // nullable so the other root fields of the same document still answer.
    resolve: async (query, _root, { id }, { rows }) => {
      const series = await rows.series(query, id);
      if (!series) throw new AppError("series_not_found", `series ${id} does not exist`);
      return series;
    },
  }),
}));

const SeriesInput = builder.inputType("SeriesInput", {
  description: "Fields of a series; omitted fields are left as they are.",
  fields: (t) => ({
    title: t.string(),
    folder: t.string({ description: "Only on create; defaults to a safe form of the title." }),
    formOverride: t.field({ type: SeriesFormEnum }),
    language: t.string(),
    originalLanguage: t.string(),
    status: t.field({ type: SeriesStatusEnum }),
    knownBookCount: t.int(),
    editionBookCount: t.int(),
    webtoon: t.boolean(),
    planWording: t.field({ type: PlanWordingEnum }),
    monitored: t.boolean(),
    assembleBooksAutomatically: t.boolean(),
    translationFallbackEnabled: t.boolean(),
    translationSourceLanguages: t.stringList(),
  }),
});

builder.mutationFields((t) => ({
  createSeries: t.prismaField({
    type: "Series",
    args: { input: t.arg({ type: SeriesInput, required: true }) },
    resolve: async (query, _root, { input }, { rows, services }) => {
      const created = await services.series.create(input);
      return rows.requireSeries(query, created.id);
    },
  }),
  updateSeries: t.prismaField({
    type: "Series",
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: SeriesInput, required: true }) },
    resolve: async (query, _root, { id, input }, { rows, services }) => {
      await services.series.update(id, input);
      return rows.requireSeries(query, id);
    },
  }),
}));
