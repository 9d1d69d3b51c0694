/**
 * Shapes of the GraphQL answers this client reads, field for field with the documents in
 * queries.ts. Exact decimal labels ("0", "10.5") stay strings: never parse them into floats for
 * identity or ordering.
 */

export type SeriesForm = "BOOKS" | "CHAPTERS";
export type PublicationStatus = "RUNNING" | "FINISHED" | "PAUSED";
export type MapState = "EXACT" | "PARTIAL" | "NONE";
export type SeriesCompletion = "ALL_BOOKS" | "ALL_CHAPTERS";
export type PlanWording = "BOOKS_FIRST" | "CHAPTERS_FIRST";
export type UnitKind = "BOOK" | "CHAPTER";
export type Coverage = "COVERED_BY_VOLUME" | "COVERED_UNMAPPED" | "COVERED_BY_CHAPTERS";
export type Plan = "BOOK_ON_DISK" | "ASSEMBLE_WHEN_CHAPTERS_COMPLETE" | "IN_PART" | "MISSING";

/** What the library card says about a series (GraphQL `Series.overview`). */
export interface SeriesOverview {
  coverFileId: number | null;
  /** First-page thumbnail of the first owned book or chapter; null when nothing is on disk. */
  coverUrl: string | null;
  completion: SeriesCompletion | null;
  books: number;
  booksOwned: number;
  chapters: number;
  chaptersOwned: number;
  missingBooks: number;
  missingChapters: number;
  hasGaps: boolean;
}

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

export interface LibrarySeries extends SeriesSummary {
  overview: SeriesOverview;
}

export interface SeriesDetail extends LibrarySeries {
  planWording: PlanWording;
}

/* ------------------------------ The series page (seriesPage) ------------------------------ */

export type UnitFilter = "ALL" | "MISSING" | "DOWNLOADED" | "MONITORED";
export type PageLayout = "GROUPED" | "FLAT";
export type RowActionId =
  | "READ"
  | "SEARCH"
  | "ASSEMBLE_BOOK"
  | "SEARCH_BOOK_FILE"
  | "INTERACTIVE_SEARCH"
  | "RETIRE_DUPLICATES"
  | "EDIT_MAP"
  | "MONITOR"
  | "UNMONITOR";

export interface RowAction {
  id: RowActionId;
  label: string;
}

/**
 * One book or chapter row, as the server's grouping model gives it (the fields the page shows; the
 * server decides plan, coverage and problems and filters by them).
 */
export interface PageRow {
  /** "book:<n>" or "chapter:<n>". */
  key: string;
  kind: UnitKind;
  number: string;
  title: string;
  owned: boolean;
  ownedText: string;
  monitored: boolean;
  /** Owned books only. */
  pageCount: number | null;
  /** The plan in the series' wording (books only). */
  planText: string | null;
  fileIds: number[];
  problems: string[];
  /** Plain text, never a badge. */
  estimateHint: string | null;
  primary: RowAction | null;
  menu: RowAction[];
}

export interface DuplicatesInside {
  count: number;
  fileIds: number[];
  note: string;
}

export interface BookGroup {
  key: string;
  book: PageRow;
  collapsed: boolean;
  coverText: string | null;
  duplicates: DuplicatesInside | null;
  note: string | null;
  children: PageRow[];
}

export interface FlatSection {
  key: string;
  title: string;
  rows: PageRow[];
}

export interface LooseGroup {
  key: string;
  title: string;
  children: PageRow[];
}

export interface SeriesPage {
  seriesId: number;
  form: SeriesForm;
  map: MapState;
  status: SeriesCompletion | null;
  planWording: PlanWording;
  layout: PageLayout;
  groups: BookGroup[];
  sections: FlatSection[];
  loose: LooseGroup | null;
  notice: string | null;
  offerMapEditor: boolean;
}

export interface SeriesPageVariables {
  id: number;
  filter: UnitFilter;
  reversed: boolean;
  problemsOnly: boolean;
}

export interface SeriesPageData {
  series: SeriesDetail | null;
  seriesPage: SeriesPage;
}

/* ------------------------------------ Older shapes ------------------------------------ */

/** A unit of `units(seriesId)`, the flat units view (the series page renders `seriesPage` instead). */
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
  seriesList: LibrarySeries[];
}
