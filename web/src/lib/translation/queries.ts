/** GraphQL documents of translation fallback (fields exactly as schema.graphql names them). */
import { graphql, type ResultOf, type Schema } from "$lib/gql";

export type TranslationStatus = Schema<"TranslationStatus">;

export type TranslationJob = ResultOf<typeof JOB_FIELDS>;

export const JOB_FIELDS = graphql(`
  fragment TranslationJobFields on TranslationJob {
    id
    seriesId
    attempt
    status
    state
    target {
      kind
      number
    }
    sourceLanguage
    targetLanguage
    sourceSha256
    progress {
      pagesDone
      pagesTotal
    }
    error {
      code
      message
    }
    engine
    origin
    cancelPending
    retryable
    cancellable
    pausedReason
    createdAt
    updatedAt
  }
`);

export type TranslationSettings = ResultOf<typeof SETTINGS_FIELDS>;

// The masked secrets themselves are never asked for: only whether they are set.
export const SETTINGS_FIELDS = graphql(`
  fragment TranslationSettingsFields on TranslationSettings {
    enabled
    sourceLanguages
    engine
    ai {
      baseUrl
      model
      apiKeySet
    }
    processor {
      url
      tokenSet
    }
  }
`);

export const TRANSLATION_SETTINGS_QUERY = graphql(
  `
    query TranslationSettings {
      translationSettings {
        ...TranslationSettingsFields
      }
    }
  `,
  [SETTINGS_FIELDS],
);

export type TranslationSettingsInput = Schema<"TranslationSettingsInput">;

export const UPDATE_TRANSLATION_SETTINGS = graphql(
  `
    mutation UpdateTranslationSettings($input: TranslationSettingsInput!) {
      updateTranslationSettings(input: $input) {
        ...TranslationSettingsFields
      }
    }
  `,
  [SETTINGS_FIELDS],
);

export type SeriesTranslation = NonNullable<TranslationPageData["series"]>;

export type TranslationPageData = ResultOf<typeof TRANSLATION_PAGE_QUERY>;

export const TRANSLATION_PAGE_QUERY = graphql(
  `
    query TranslationPage($seriesId: Int!) {
      series(id: $seriesId) {
        id
        title
        language
        originalLanguage
        translationFallbackEnabled
        translationSourceLanguages
      }
      translationSettings {
        enabled
        sourceLanguages
        engine
      }
      translationJobs(seriesId: $seriesId) {
        ...TranslationJobFields
      }
      units(seriesId: $seriesId) {
        units {
          kind
          number
          owned
          extra
        }
      }
    }
  `,
  [JOB_FIELDS],
);

export const UPDATE_SERIES_TRANSLATION = graphql(`
  mutation UpdateSeriesTranslation($id: Int!, $input: SeriesInput!) {
    updateSeries(id: $id, input: $input) {
      id
      translationFallbackEnabled
      translationSourceLanguages
    }
  }
`);

export type TranslationSearchResult = ResultOf<typeof SEARCH_TRANSLATIONS>["searchTranslations"];

export const SEARCH_TRANSLATIONS = graphql(
  `
    mutation SearchTranslations($seriesId: Int!) {
      searchTranslations(seriesId: $seriesId) {
        created {
          ...TranslationJobFields
        }
        skipped {
          kind
          number
          reason
        }
        queuedDownloads
      }
    }
  `,
  [JOB_FIELDS],
);

export const RETRY_TRANSLATION = graphql(
  `
    mutation RetryTranslation($id: String!) {
      retryTranslation(id: $id) {
        ...TranslationJobFields
      }
    }
  `,
  [JOB_FIELDS],
);

export const CANCEL_TRANSLATION = graphql(
  `
    mutation CancelTranslation($id: String!) {
      cancelTranslation(id: $id) {
        ...TranslationJobFields
      }
    }
  `,
  [JOB_FIELDS],
);

export type TranslationProgressEvent = ResultOf<typeof TRANSLATION_PROGRESS>["translationProgress"];

export const TRANSLATION_PROGRESS = graphql(`
  subscription TranslationProgress($seriesId: Int!) {
    translationProgress(seriesId: $seriesId) {
      jobId
      seriesId
      state
      pagesDone
      pagesTotal
      errorCode
      at
    }
  }
`);
