/**
 * Names for the GraphQL answers the library and series screens read. Every type is derived from a
 * document in queries.ts (and so from `schema.graphql`) by gql.tada: none is declared by hand. Exact
 * decimal labels ("0", "10.5") stay strings: never parse them into floats for identity or ordering.
 */
import type { ResultOf, Schema, VariablesOf } from "./gql";
import type { LIBRARY_QUERY, OVERVIEW_FIELDS, ROW_FIELDS, SERIES_PAGE_QUERY } from "./queries";

export type SeriesForm = Schema<"SeriesForm">;
export type PublicationStatus = Schema<"SeriesStatus">;
export type MapState = Schema<"MapState">;
export type SeriesCompletion = Schema<"SeriesCompletion">;
export type PlanWording = Schema<"PlanWording">;
export type UnitKind = Schema<"UnitKind">;
export type Coverage = Schema<"Coverage">;
export type Plan = Schema<"Plan">;
export type UnitFilter = Schema<"UnitFilter">;
export type PageLayout = Schema<"PageLayout">;
export type RowActionId = Schema<"RowActionId">;

export type LibraryData = ResultOf<typeof LIBRARY_QUERY>;
export type SeriesPageData = ResultOf<typeof SERIES_PAGE_QUERY>;
export type SeriesPageVariables = VariablesOf<typeof SERIES_PAGE_QUERY>;

/** What the library card says about a series (GraphQL `Series.overview`). */
export type SeriesOverview = ResultOf<typeof OVERVIEW_FIELDS>["overview"];
export type LibrarySeries = LibraryData["seriesList"][number];
export type SeriesSummary = Omit<LibrarySeries, "overview">;
export type SeriesDetail = NonNullable<SeriesPageData["series"]>;

/** The server's grouping model of the series page (it decides plan, coverage, problems, filters). */
export type SeriesPage = SeriesPageData["seriesPage"];
export type BookGroup = SeriesPage["groups"][number];
export type FlatSection = SeriesPage["sections"][number];
export type LooseGroup = NonNullable<SeriesPage["loose"]>;
export type DuplicatesInside = NonNullable<BookGroup["duplicates"]>;
/** One book or chapter row ("book:<n>" / "chapter:<n>" keys). */
export type PageRow = ResultOf<typeof ROW_FIELDS>;
export type RowAction = PageRow["menu"][number];
