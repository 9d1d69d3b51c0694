/**
 * Shapes of the GraphQL answers this client reads. They mirror the `Library` and `Series`
 * queries field for field. Exact decimal labels ("0", "10.5") stay strings: never parse them
 * into floats for identity or ordering.
 */

export type SeriesForm = "BOOKS" | "CHAPTERS";
export type PublicationStatus = "RUNNING" | "FINISHED" | "PAUSED";
export type MapState = "EXACT" | "PARTIAL" | "NONE";
export type SeriesCompletion = "ALL_BOOKS" | "ALL_CHAPTERS";
export type PlanWording = "BOOKS_FIRST" | "CHAPTERS_FIRST";
export type UnitKind = "BOOK" | "CHAPTER";
export type Coverage = "COVERED_BY_VOLUME" | "COVERED_UNMAPPED" | "COVERED_BY_CHAPTERS";
export type Plan = "BOOK_ON_DISK" | "ASSEMBLE_WHEN_CHAPTERS_COMPLETE" | "IN_PART" | "MISSING";

export interface SeriesSummary {
  id: number;
  title: string;
  form: SeriesForm;
  status: PublicationStatus;
  monitored: boolean;
  webtoon: boolean;
  language: string;
  knownBookCount: number | null;
}

export interface Unit {
  kind: UnitKind;
  /** Exact decimal label. */
  number: string;
  /** Book from the exact map only; the only book a badge may show. */
  book: string | null;
  owned: boolean;
  monitored: boolean;
  coverage: Coverage | null;
  plan: Plan | null;
  /** An estimate for display only, never a badge. */
  estimatedBook: string | null;
  pageCount: number | null;
  fileIds: number[];
  problems: string[];
  extra: boolean;
}

export interface UnitsView {
  seriesId: number;
  form: SeriesForm;
  map: MapState;
  status: SeriesCompletion | null;
  planWording: PlanWording;
  units: Unit[];
}

export interface LibraryData {
  seriesList: SeriesSummary[];
}

export interface SeriesData {
  series: SeriesSummary | null;
  units: UnitsView | null;
}

export interface SeriesVariables {
  id: number;
}
