/** GraphQL documents of the catalogue side (fields exactly as schema.graphql names them). */
import { gql } from "@urql/core";
import type { ChapterMap, MapChangePreview } from "$lib/map-editor/types";
import type { PublicationStatus } from "$lib/types";

export type Catalogue = "MANGADEX" | "MANGAUPDATES" | "ANILIST";
export type CatalogueStatus = "ONGOING" | "COMPLETED" | "HIATUS" | "CANCELLED" | "UPCOMING";
export type AgreementGrade = "AGREED" | "LONE" | "CONFLICT";

export interface CatalogueHit {
  catalogue: Catalogue;
  catalogueId: string;
  title: string;
  status: CatalogueStatus | null;
  year: number | null;
  coverUrl: string | null;
  volumes: number | null;
  chapters: number | null;
  url: string | null;
}

export interface CatalogueSearch {
  results: CatalogueHit[];
  errors: { catalogue: Catalogue; code: string; detail: string }[];
}

export interface CatalogueOffer {
  field: "KNOWN_BOOK_COUNT" | "STATUS";
  knownBookCount: number | null;
  status: PublicationStatus | null;
  grade: AgreementGrade;
  catalogues: Catalogue[];
  text: string;
}

export interface CountAgreement {
  value: number | null;
  grade: AgreementGrade | null;
}

export interface SeriesCatalogue {
  seriesId: number;
  links: {
    catalogue: Catalogue;
    catalogueId: string;
    title: string | null;
    url: string | null;
    status: CatalogueStatus | null;
    volumes: number | null;
    chapters: number | null;
    year: number | null;
    hasCover: boolean;
    refreshedAt: string | null;
  }[];
  metadata: {
    description: string | null;
    descriptionFrom: Catalogue | null;
    alternativeTitles: string[];
    authors: string[];
    genres: string[];
    coverUrl: string | null;
    coverFrom: Catalogue | null;
  };
  counts: {
    catalogues: {
      catalogue: Catalogue;
      status: CatalogueStatus | null;
      volumes: number | null;
      chapters: number | null;
    }[];
    volumes: CountAgreement;
    chapters: CountAgreement;
    status: { value: PublicationStatus | null; grade: AgreementGrade | null };
  };
  offers: CatalogueOffer[];
  suggestion: {
    source: string;
    language: string;
    books: number;
    conflicts: { chapter: string; volumes: string[] }[];
    noBook: string[];
  } | null;
}

const HIT_FIELDS = "catalogue catalogueId title status year coverUrl volumes chapters url";
const CATALOGUE_FIELDS = `
  seriesId
  links { catalogue catalogueId title url status volumes chapters year hasCover refreshedAt }
  metadata { description descriptionFrom alternativeTitles authors genres coverUrl coverFrom }
  counts {
    catalogues { catalogue status volumes chapters }
    volumes { value grade }
    chapters { value grade }
    status { value grade }
  }
  offers { field knownBookCount status grade catalogues text }
  suggestion { source language books conflicts { chapter volumes } noBook }
`;

export const CATALOGUE_SEARCH = gql<
  { catalogueSearch: CatalogueSearch },
  { query: string; catalogue: Catalogue | null }
>`
  query CatalogueSearch($query: String!, $catalogue: Catalogue) {
    catalogueSearch(query: $query, catalogue: $catalogue) {
      results { ${HIT_FIELDS} }
      errors { catalogue code detail }
    }
  }
`;

export const SERIES_CATALOGUE = gql<{ seriesCatalogue: SeriesCatalogue }, { seriesId: number }>`
  query SeriesCatalogue($seriesId: Int!) {
    seriesCatalogue(seriesId: $seriesId) { ${CATALOGUE_FIELDS} }
  }
`;

export const LINK_CATALOGUE = gql<
  { linkCatalogue: SeriesCatalogue },
  { seriesId: number; catalogue: Catalogue; catalogueId: string }
>`
  mutation LinkCatalogue($seriesId: Int!, $catalogue: Catalogue!, $catalogueId: String!) {
    linkCatalogue(seriesId: $seriesId, catalogue: $catalogue, catalogueId: $catalogueId) { ${CATALOGUE_FIELDS} }
  }
`;

export const REFRESH_CATALOGUES = gql<{ refreshCatalogues: SeriesCatalogue }, { seriesId: number }>`
  mutation RefreshCatalogues($seriesId: Int!) {
    refreshCatalogues(seriesId: $seriesId) { ${CATALOGUE_FIELDS} }
  }
`;

export const UNLINK_CATALOGUE = gql<{ unlinkCatalogue: SeriesCatalogue }, { seriesId: number; catalogue: Catalogue }>`
  mutation UnlinkCatalogue($seriesId: Int!, $catalogue: Catalogue!) {
    unlinkCatalogue(seriesId: $seriesId, catalogue: $catalogue) { ${CATALOGUE_FIELDS} }
  }
`;

export const ACCEPT_OFFER = gql<
  { acceptCatalogueOffer: SeriesCatalogue },
  { seriesId: number; knownBookCount: number | null; status: PublicationStatus | null }
>`
  mutation AcceptCatalogueOffer($seriesId: Int!, $knownBookCount: Int, $status: SeriesStatus) {
    acceptCatalogueOffer(seriesId: $seriesId, knownBookCount: $knownBookCount, status: $status) { ${CATALOGUE_FIELDS} }
  }
`;

export const CREATE_LINKED_SERIES = gql<
  { createLinkedSeries: { id: number; title: string } },
  { catalogue: Catalogue; catalogueId: string; title: string | null }
>`
  mutation CreateLinkedSeries($catalogue: Catalogue!, $catalogueId: String!, $title: String) {
    createLinkedSeries(catalogue: $catalogue, catalogueId: $catalogueId, input: { title: $title }) {
      id
      title
    }
  }
`;

export const CREATE_SERIES = gql<{ createSeries: { id: number; title: string } }, { title: string }>`
  mutation CreatePlainSeries($title: String!) {
    createSeries(input: { title: $title }) {
      id
      title
    }
  }
`;

export interface CatalogueConnection {
  enabled: boolean;
  baseUrl: string;
  coverBaseUrl: string | null;
}
export interface CatalogueSettings {
  mangadex: CatalogueConnection;
  mangaupdates: CatalogueConnection;
  anilist: CatalogueConnection;
}
const SETTINGS_FIELDS = `
  mangadex { enabled baseUrl coverBaseUrl }
  mangaupdates { enabled baseUrl coverBaseUrl }
  anilist { enabled baseUrl coverBaseUrl }
`;

export const CATALOGUE_SETTINGS = gql<{ catalogueSettings: CatalogueSettings }, Record<string, never>>`
  query CatalogueSettings { catalogueSettings { ${SETTINGS_FIELDS} } }
`;

export type ConnectionInput = { enabled?: boolean; baseUrl?: string | null; coverBaseUrl?: string | null };
export const UPDATE_CATALOGUE_SETTINGS = gql<
  { updateCatalogueSettings: CatalogueSettings },
  { input: { mangadex?: ConnectionInput; mangaupdates?: ConnectionInput; anilist?: ConnectionInput } }
>`
  mutation UpdateCatalogueSettings($input: CatalogueSettingsInput!) {
    updateCatalogueSettings(input: $input) { ${SETTINGS_FIELDS} }
  }
`;

export interface Adoption {
  adopted: string[];
  skipped: { volume: string; reason: string }[];
  droppedClaims: { chapter: string; volume: string; reason: string }[];
}

const ADOPTION_FIELDS = "adopted skipped { volume reason } droppedClaims { chapter volume reason }";
const PREVIEW_FIELDS = `
  revision mapBefore mapAfter becomeDuplicateFileIds stopDuplicateFileIds
  books { number becomeDuplicates stopDuplicates before { coverage coversChapters chapters wanted } after { coverage coversChapters chapters wanted } }
  chapters { number becomeDuplicates stopDuplicates before { coverage book wanted } after { coverage book wanted } }
`;
const MAP_FIELDS = `
  seriesId revision state
  entries { volume chapters }
  readings { volume chapters }
  suggestions { source kind revision entries { volume chapters status adoptable conflicts { chapter volumes scope } } }
  conflicts { chapter books }
  bookStarts { volume start }
`;

type AdoptVars = { seriesId: number; source: string; volumes: string[]; revision: number };

export const PREVIEW_SUGGESTED_BOOKS = gql<
  { previewSuggestedBooks: { adoption: Adoption; preview: MapChangePreview } },
  AdoptVars
>`
  mutation PreviewSuggestedBooks($seriesId: Int!, $source: String!, $volumes: [String!], $revision: Int!) {
    previewSuggestedBooks(seriesId: $seriesId, source: $source, volumes: $volumes, revision: $revision) {
      adoption { ${ADOPTION_FIELDS} }
      preview { ${PREVIEW_FIELDS} }
    }
  }
`;

export const ADOPT_SUGGESTED_BOOKS = gql<{ adoptSuggestedBooks: { adoption: Adoption; map: ChapterMap } }, AdoptVars>`
  mutation AdoptSuggestedBooks($seriesId: Int!, $source: String!, $volumes: [String!], $revision: Int!) {
    adoptSuggestedBooks(seriesId: $seriesId, source: $source, volumes: $volumes, revision: $revision) {
      adoption { ${ADOPTION_FIELDS} }
      map { ${MAP_FIELDS} }
    }
  }
`;
