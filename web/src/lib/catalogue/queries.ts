/** GraphQL documents of the catalogue side (fields exactly as schema.graphql names them). */
import { graphql } from "$lib/gql";
import { MAP_FIELDS, PREVIEW_FIELDS } from "$lib/map-editor/queries";
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
  /** The cover as this service serves it. */
  coverPreviewUrl: string | null;
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

const HIT_FIELDS = graphql(`
  fragment CatalogueHitFields on CatalogueHit {
    catalogue
    catalogueId
    title
    status
    year
    coverPreviewUrl
    volumes
    chapters
    url
  }
`);
const CATALOGUE_FIELDS = graphql(`
  fragment SeriesCatalogueFields on SeriesCatalogue {
    seriesId
    links {
      catalogue
      catalogueId
      title
      url
      status
      volumes
      chapters
      year
      hasCover
      refreshedAt
    }
    metadata {
      description
      descriptionFrom
      alternativeTitles
      authors
      genres
      coverUrl
      coverFrom
    }
    counts {
      catalogues {
        catalogue
        status
        volumes
        chapters
      }
      volumes {
        value
        grade
      }
      chapters {
        value
        grade
      }
      status {
        value
        grade
      }
    }
    offers {
      field
      knownBookCount
      status
      grade
      catalogues
      text
    }
    suggestion {
      source
      language
      books
      conflicts {
        chapter
        volumes
      }
      noBook
    }
  }
`);

export const CATALOGUE_SEARCH = graphql(
  `
    query CatalogueSearch($query: String!, $catalogue: Catalogue) {
      catalogueSearch(query: $query, catalogue: $catalogue) {
        results {
          ...CatalogueHitFields
        }
        errors {
          catalogue
          code
          detail
        }
      }
    }
  `,
  [HIT_FIELDS],
);

export const SERIES_CATALOGUE = graphql(
  `
    query SeriesCatalogue($seriesId: Int!) {
      seriesCatalogue(seriesId: $seriesId) {
        ...SeriesCatalogueFields
      }
    }
  `,
  [CATALOGUE_FIELDS],
);

export const LINK_CATALOGUE = graphql(
  `
    mutation LinkCatalogue($seriesId: Int!, $catalogue: Catalogue!, $catalogueId: String!) {
      linkCatalogue(seriesId: $seriesId, catalogue: $catalogue, catalogueId: $catalogueId) {
        ...SeriesCatalogueFields
      }
    }
  `,
  [CATALOGUE_FIELDS],
);

export const REFRESH_CATALOGUES = graphql(
  `
    mutation RefreshCatalogues($seriesId: Int!) {
      refreshCatalogues(seriesId: $seriesId) {
        ...SeriesCatalogueFields
      }
    }
  `,
  [CATALOGUE_FIELDS],
);

export const UNLINK_CATALOGUE = graphql(
  `
    mutation UnlinkCatalogue($seriesId: Int!, $catalogue: Catalogue!) {
      unlinkCatalogue(seriesId: $seriesId, catalogue: $catalogue) {
        ...SeriesCatalogueFields
      }
    }
  `,
  [CATALOGUE_FIELDS],
);

export const ACCEPT_OFFER = graphql(
  `
    mutation AcceptCatalogueOffer($seriesId: Int!, $knownBookCount: Int, $status: SeriesStatus) {
      acceptCatalogueOffer(seriesId: $seriesId, knownBookCount: $knownBookCount, status: $status) {
        ...SeriesCatalogueFields
      }
    }
  `,
  [CATALOGUE_FIELDS],
);

export const CREATE_LINKED_SERIES = graphql(`
  mutation CreateLinkedSeries($catalogue: Catalogue!, $catalogueId: String!, $title: String) {
    createLinkedSeries(catalogue: $catalogue, catalogueId: $catalogueId, input: { title: $title }) {
      id
      title
    }
  }
`);

export const CREATE_SERIES = graphql(`
  mutation CreatePlainSeries($title: String!) {
    createSeries(input: { title: $title }) {
      id
      title
    }
  }
`);

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
const SETTINGS_FIELDS = graphql(`
  fragment CatalogueSettingsFields on CatalogueSettings {
    mangadex {
      enabled
      baseUrl
      coverBaseUrl
    }
    mangaupdates {
      enabled
      baseUrl
      coverBaseUrl
    }
    anilist {
      enabled
      baseUrl
      coverBaseUrl
    }
  }
`);

export const CATALOGUE_SETTINGS = graphql(
  `
    query CatalogueSettings {
      catalogueSettings {
        ...CatalogueSettingsFields
      }
    }
  `,
  [SETTINGS_FIELDS],
);

export type ConnectionInput = { enabled?: boolean; baseUrl?: string | null; coverBaseUrl?: string | null };
export const UPDATE_CATALOGUE_SETTINGS = graphql(
  `
    mutation UpdateCatalogueSettings($input: CatalogueSettingsInput!) {
      updateCatalogueSettings(input: $input) {
        ...CatalogueSettingsFields
      }
    }
  `,
  [SETTINGS_FIELDS],
);

export interface Adoption {
  adopted: string[];
  skipped: { volume: string; reason: string }[];
  droppedClaims: { chapter: string; volume: string; reason: string }[];
}

const ADOPTION_FIELDS = graphql(`
  fragment SuggestionAdoptionFields on SuggestionAdoption {
    adopted
    skipped {
      volume
      reason
    }
    droppedClaims {
      chapter
      volume
      reason
    }
  }
`);
export const PREVIEW_SUGGESTED_BOOKS = graphql(
  `
    mutation PreviewSuggestedBooks($seriesId: Int!, $source: String!, $volumes: [String!], $revision: Int!) {
      previewSuggestedBooks(seriesId: $seriesId, source: $source, volumes: $volumes, revision: $revision) {
        adoption {
          ...SuggestionAdoptionFields
        }
        preview {
          ...MapChangePreviewFields
        }
      }
    }
  `,
  [ADOPTION_FIELDS, PREVIEW_FIELDS],
);

export const ADOPT_SUGGESTED_BOOKS = graphql(
  `
    mutation AdoptSuggestedBooks($seriesId: Int!, $source: String!, $volumes: [String!], $revision: Int!) {
      adoptSuggestedBooks(seriesId: $seriesId, source: $source, volumes: $volumes, revision: $revision) {
        adoption {
          ...SuggestionAdoptionFields
        }
        map {
          ...ChapterMapFields
        }
      }
    }
  `,
  [ADOPTION_FIELDS, MAP_FIELDS],
);
