/** Shapes of the map editor's GraphQL answers, field for field with its documents. */
import type { Coverage, MapState, PublicationStatus, SeriesForm } from "$lib/types";

export interface MapEntry {
  volume: string;
  /** Exact labels in order; empty = membership unknown. */
  chapters: string[];
}

export interface BookStart {
  volume: string;
  start: string;
}

export type SuggestionStatus = "OPEN" | "SET" | "SUPPRESSED";

export interface SuggestionConflict {
  chapter: string;
  volumes: string[];
  /** source | catalogues | operator */
  scope: string;
}

export interface SuggestionEntry {
  volume: string;
  chapters: string[];
  status: SuggestionStatus;
  adoptable: string[];
  conflicts: SuggestionConflict[];
}

export interface MapSuggestion {
  source: string;
  kind: "CATALOGUE" | "OFFICIAL";
  revision: number;
  entries: SuggestionEntry[];
}

export interface ChapterMap {
  seriesId: number;
  revision: number;
  state: MapState;
  entries: MapEntry[];
  readings: MapEntry[];
  suggestions: MapSuggestion[];
  conflicts: { chapter: string; books: string[] }[];
  bookStarts: BookStart[];
}

export interface EditorSeries {
  id: number;
  title: string;
  status: PublicationStatus;
  form: SeriesForm;
  knownBookCount: number | null;
  editionBookCount: number | null;
  books: { number: string }[];
  chapters: { number: string; extra: boolean }[];
}

export interface MapEditorData {
  series: EditorSeries | null;
  chapterMap: ChapterMap;
}

export interface ChapterSide {
  coverage: Coverage | null;
  book: string | null;
  wanted: boolean;
}

export interface BookSide {
  coverage: Coverage | null;
  coversChapters: boolean;
  chapters: string[] | null;
  wanted: boolean;
}

export interface MapChangePreview {
  revision: number;
  mapBefore: MapState;
  mapAfter: MapState;
  becomeDuplicateFileIds: number[];
  stopDuplicateFileIds: number[];
  books: { number: string; before: BookSide; after: BookSide; becomeDuplicates: number[]; stopDuplicates: number[] }[];
  chapters: {
    number: string;
    before: ChapterSide;
    after: ChapterSide;
    becomeDuplicates: number[];
    stopDuplicates: number[];
  }[];
}

export interface PlanNote {
  code: string;
  message: string;
  volume: string | null;
}

export interface BookStartsPlan {
  entries: MapEntry[];
  problems: PlanNote[];
  warnings: PlanNote[];
  lastEnd: string | null;
  lastEndReason: string;
  preview: MapChangePreview | null;
}
