import { builder } from "../builder.ts";

/** GraphQL enums carry the same values the rule core and REST use (REST spells them as strings). */
export const SeriesFormEnum = builder.enumType("SeriesForm", {
  values: { BOOKS: { value: "books" }, CHAPTERS: { value: "chapters" } } as const,
});
export const SeriesStatusEnum = builder.enumType("SeriesStatus", {
  values: { RUNNING: { value: "running" }, FINISHED: { value: "finished" }, PAUSED: { value: "paused" } } as const,
});
export const PlanWordingEnum = builder.enumType("PlanWording", {
  values: { BOOKS_FIRST: { value: "books_first" }, CHAPTERS_FIRST: { value: "chapters_first" } } as const,
});
export const MapStateEnum = builder.enumType("MapState", {
  values: { EXACT: { value: "exact" }, PARTIAL: { value: "partial" }, NONE: { value: "none" } } as const,
});
export const SeriesCompletionEnum = builder.enumType("SeriesCompletion", {
  values: { ALL_BOOKS: { value: "all books" }, ALL_CHAPTERS: { value: "all chapters" } } as const,
});
export const UnitKindEnum = builder.enumType("UnitKind", {
  values: { BOOK: { value: "book" }, CHAPTER: { value: "chapter" } } as const,
});
export const CoverageEnum = builder.enumType("Coverage", {
  values: {
    COVERED_BY_VOLUME: { value: "covered_by_volume" },
    COVERED_UNMAPPED: { value: "covered_unmapped" },
    COVERED_BY_CHAPTERS: { value: "covered_by_chapters" },
  } as const,
});
export const PlanEnum = builder.enumType("Plan", {
  values: {
    BOOK_ON_DISK: { value: "book on disk" },
    ASSEMBLE_WHEN_CHAPTERS_COMPLETE: { value: "assemble when its chapters are complete" },
    IN_PART: { value: "in part" },
    MISSING: { value: "missing" },
  } as const,
});
