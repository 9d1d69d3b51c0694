/**
 * The catalogue use cases' inputs and views, and the checks they share (catalogue-service.ts uses
 * them; REST bodies and GraphQL resolvers name them).
 */
import { AppError } from "../../errors.ts";
import {
  CATALOGUES,
  CATALOGUE_TITLES,
  isCatalogueName,
  type AggregateConflict,
  type CatalogueCounts,
  type CatalogueName,
  type CatalogueStatus,
  type CountOffer,
  type MergedMetadata,
} from "../../domain/catalogue.ts";
import type { Label } from "../../domain/labels.ts";
import { CatalogueError } from "../../catalogues/polite-http.ts";
import {
  CATALOGUE_ID_PATTERNS,
  asRecord,
  type CatalogueAggregate,
  type CatalogueHit,
  type CatalogueWork,
} from "../../catalogues/types.ts";
import { type CatalogueLinkRow } from "../../repositories/catalogue-repo.ts";
import type { SeriesCreateInput } from "../series/series-service.ts";

/** Linking a series to a catalogue's work: MangaDex a UUID, the others digits. */
export interface CatalogueLinkInput {
  catalogue: CatalogueName;
  catalogueId: string;
}

/**
 * Accepting what a current offer states: the book count and/or the status, each equal to an
 * offered value (anything else is catalogue_offer_stale), applied through the series update.
 */
export interface OfferAcceptInput {
  knownBookCount?: number | null;
  status?: string | null;
}

/** A series created already linked: its work, and the series fields (the title defaults to the work's). */
export interface LinkedSeriesCreateInput extends SeriesCreateInput, CatalogueLinkInput {}

export interface CatalogueLinkView {
  catalogue: CatalogueName;
  catalogueId: string;
  title: string | null;
  url: string | null;
  status: CatalogueStatus | null;
  volumes: number | null;
  chapters: number | null;
  year: number | null;
  /** The catalogue's cover URL the stored cover came from. */
  coverSource: string | null;
  hasCover: boolean;
  refreshedAt: Date | null;
}

export interface CatalogueSuggestionSummary {
  source: string;
  language: string;
  /** Books (entries) of the suggestion. */
  books: number;
  /** Chapters listed under two or more volumes: in no book. */
  conflicts: AggregateConflict[];
  /** Chapters under MangaDex's `none`: they belong to no book. */
  noBook: Label[];
}

export interface SeriesCatalogueView {
  seriesId: number;
  links: CatalogueLinkView[];
  metadata: MergedMetadata & { coverUrl: string | null; coverFrom: CatalogueName | null };
  counts: CatalogueCounts;
  offers: CountOffer[];
  suggestion: CatalogueSuggestionSummary | null;
}

/** A search result with the address the web page shows its cover from (through the service). */
export type CatalogueSearchHit = CatalogueHit & { coverPreviewUrl: string | null };

export interface CatalogueSearchResult {
  results: CatalogueSearchHit[];
  /** Catalogues that failed while others answered (all failing is 502 catalogue_failed). */
  errors: { catalogue: CatalogueName; code: string; detail: string }[];
}

/** What one catalogue said about one work, fetched before anything is written. */
export interface Fetched {
  catalogue: CatalogueName;
  work: CatalogueWork;
  aggregate: CatalogueAggregate | null;
  cover: { file: string; contentType: string; source: string } | "keep" | null;
}

export interface LinkData {
  title?: string;
  url?: string | null;
  year?: number | null;
  description?: string | null;
  alternativeTitles?: string[];
  authors?: string[];
  genres?: string[];
  coverUrl?: string | null;
  originalLanguage?: string | null;
}

export function linkData(row: CatalogueLinkRow): LinkData {
  try {
    return asRecord(JSON.parse(row.data)) as LinkData;
  } catch {
    return {};
  }
}

export const isStatus = (v: string | null): v is CatalogueStatus =>
  v !== null && ["ongoing", "completed", "hiatus", "cancelled", "upcoming"].includes(v);

export function asCatalogue(v: unknown, field = "catalogue"): CatalogueName {
  if (!isCatalogueName(v))
    throw new AppError("invalid_field", `${field} must be one of ${CATALOGUES.join(", ")}`, { field });
  return v;
}

export function asCatalogueId(catalogue: CatalogueName, v: unknown): string {
  const id = typeof v === "number" ? String(v) : v;
  if (typeof id !== "string" || !CATALOGUE_ID_PATTERNS[catalogue].test(id.trim()))
    throw new AppError(
      "invalid_field",
      `catalogue_id is not a ${CATALOGUE_TITLES[catalogue]} id (${catalogue === "mangadex" ? "a UUID" : "digits"})`,
      { field: "catalogue_id" },
    );
  return id.trim().toLowerCase();
}

/** A CatalogueError as the coded error the API answers (never passed off as our own status). */
export function upstream(e: unknown): never {
  if (e instanceof CatalogueError) {
    if (e.kind === "not_found") throw new AppError("catalogue_entry_not_found", e.message, { catalogue: e.catalogue });
    throw new AppError("catalogue_failed", e.message, {
      catalogue: e.catalogue,
      upstream_status: e.status,
    });
  }
  throw e;
}
