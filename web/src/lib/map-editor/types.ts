/** Names for the map editor's GraphQL answers, derived from its documents (queries.ts) by gql.tada. */
import type { ResultOf, Schema } from "$lib/gql";
import type { MAP_EDITOR_QUERY, MAP_FIELDS, PREVIEW_BOOK_STARTS, PREVIEW_FIELDS } from "./queries";

export type ChapterMap = ResultOf<typeof MAP_FIELDS>;
/** Exact labels in order; empty chapters = membership unknown. */
export type MapEntry = ChapterMap["entries"][number];
export type BookStart = ChapterMap["bookStarts"][number];
export type MapSuggestion = ChapterMap["suggestions"][number];
export type SuggestionEntry = MapSuggestion["entries"][number];
export type SuggestionStatus = Schema<"SuggestionStatus">;
export type SuggestionConflict = SuggestionEntry["conflicts"][number];

export type MapEditorData = ResultOf<typeof MAP_EDITOR_QUERY>;
export type EditorSeries = NonNullable<MapEditorData["series"]>;

export type MapChangePreview = ResultOf<typeof PREVIEW_FIELDS>;
export type ChapterSide = MapChangePreview["chapters"][number]["before"];
export type BookSide = MapChangePreview["books"][number]["before"];

export type BookStartsPlan = ResultOf<typeof PREVIEW_BOOK_STARTS>["previewBookStarts"];
export type PlanNote = BookStartsPlan["problems"][number];
