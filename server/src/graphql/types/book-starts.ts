import type { BookStartsPlan } from "../../services/maps/map-service.ts";
import { builder } from "../builder.ts";
import { MapChangePreviewRef, MapEntryRef } from "./map.ts";

const BookStartsProblemRef = builder.objectRef<BookStartsPlan["problems"][number]>("BookStartsProblem").implement({
  fields: (t) => ({
    code: t.exposeString("code", {
      description:
        "invalid_volume | invalid_chapter | duplicate_volume | starts_not_increasing | end_before_start | too_many_chapters | too_many_books",
    }),
    message: t.exposeString("message"),
    volume: t.string({ nullable: true, resolve: (p) => p.volume }),
  }),
});

const BookStartsWarningRef = builder.objectRef<BookStartsPlan["warnings"][number]>("BookStartsWarning").implement({
  fields: (t) => ({
    code: t.exposeString("code", { description: "last_book_end_unknown" }),
    message: t.exposeString("message"),
    volume: t.exposeString("volume"),
  }),
});

const BookStartsPlanRef = builder.objectRef<BookStartsPlan>("BookStartsPlan").implement({
  description:
    "The map editor's plan from book starts (domain/map-editor.ts); save its entries with saveChapterMap at the same revision.",
  fields: (t) => ({
    entries: t.field({ type: [MapEntryRef], description: "Empty when there are problems.", resolve: (p) => p.entries }),
    problems: t.field({ type: [BookStartsProblemRef], resolve: (p) => p.problems }),
    warnings: t.field({ type: [BookStartsWarningRef], resolve: (p) => p.warnings }),
    lastEnd: t.string({
      nullable: true,
      description: "Last chapter of the last book; null when not implied.",
      resolve: (p) => p.lastEnd,
    }),
    lastEndReason: t.exposeString("lastEndReason", {
      description: "given | saved (the book's saved end) | finished_last_book | unknown",
    }),
    preview: t.field({
      type: MapChangePreviewRef,
      nullable: true,
      description: "The coverage change of saving the entries; null when there are problems.",
      resolve: (p) => p.preview,
    }),
  }),
});

const BookStartInput = builder.inputType("BookStartInput", {
  fields: (t) => ({
    volume: t.string({ required: true, description: "Book number, an exact decimal." }),
    start: t.string({ required: true, description: "Its first chapter, an exact decimal." }),
  }),
});

builder.mutationField("previewBookStarts", (t) =>
  t.field({
    type: BookStartsPlanRef,
    description:
      "Book starts → operator entries and their coverage preview; nothing is saved (error map_revision_stale on an old revision).",
    args: {
      seriesId: t.arg.int({ required: true }),
      revision: t.arg.int({ required: true }),
      starts: t.arg({ type: [BookStartInput], required: true }),
      lastEnd: t.arg.string(),
    },
    resolve: (_r, { seriesId, revision, starts, lastEnd }, { services }) =>
      services.maps.previewBookStarts(seriesId, { revision, starts, lastEnd }),
  }),
);
