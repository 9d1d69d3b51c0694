/** GraphQL documents of translation fallback (fields exactly as schema.graphql names them). */
import { gql } from "@urql/core";

export type TranslationStatus = "QUEUED" | "RUNNING" | "COMPLETED" | "FAILED" | "CANCELLING" | "CANCELLED";

export interface TranslationJob {
  id: string;
  seriesId: number;
  attempt: number;
  status: TranslationStatus;
  state: string;
  target: { kind: string; number: string };
  sourceLanguage: string;
  targetLanguage: string;
  sourceSha256: string | null;
  progress: { pagesDone: number; pagesTotal: number | null } | null;
  error: { code: string; message: string } | null;
  engine: string;
  origin: string;
  cancelPending: boolean;
  pausedReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export const JOB_FIELDS = `
  id seriesId attempt status state target { kind number } sourceLanguage targetLanguage sourceSha256
  progress { pagesDone pagesTotal } error { code message } engine origin cancelPending pausedReason createdAt updatedAt
`;

export interface TranslationSettings {
  enabled: boolean;
  sourceLanguages: string[];
  engine: "EXTERNAL" | "LOCAL";
  ai: { baseUrl: string; model: string; apiKeySet: boolean };
  processor: { url: string; tokenSet: boolean };
}

// The masked secrets themselves are never asked for: only whether they are set.
const SETTINGS_FIELDS = `enabled sourceLanguages engine ai { baseUrl model apiKeySet } processor { url tokenSet }`;

export const TRANSLATION_SETTINGS_QUERY = gql<{ translationSettings: TranslationSettings }, Record<string, never>>`
  query TranslationSettings { translationSettings { ${SETTINGS_FIELDS} } }
`;

export interface TranslationSettingsInput {
  enabled?: boolean;
  sourceLanguages?: string[];
  ai?: { baseUrl?: string | null; model?: string | null; apiKey?: string | null };
  processor?: { url?: string | null; token?: string | null };
}

export const UPDATE_TRANSLATION_SETTINGS = gql<
  { updateTranslationSettings: TranslationSettings },
  { input: TranslationSettingsInput }
>`
  mutation UpdateTranslationSettings($input: TranslationSettingsInput!) {
    updateTranslationSettings(input: $input) { ${SETTINGS_FIELDS} }
  }
`;

export interface SeriesTranslation {
  id: number;
  title: string;
  language: string;
  originalLanguage: string | null;
  translationFallbackEnabled: boolean;
  translationSourceLanguages: string[];
}

export interface TranslationPageData {
  series: SeriesTranslation | null;
  translationSettings: { enabled: boolean; sourceLanguages: string[]; engine: "EXTERNAL" | "LOCAL" };
  translationJobs: TranslationJob[];
  units: { units: { kind: "BOOK" | "CHAPTER"; number: string; owned: boolean; extra: boolean }[] };
}

export const TRANSLATION_PAGE_QUERY = gql<TranslationPageData, { seriesId: number }>`
  query TranslationPage($seriesId: Int!) {
    series(id: $seriesId) { id title language originalLanguage translationFallbackEnabled translationSourceLanguages }
    translationSettings { enabled sourceLanguages engine }
    translationJobs(seriesId: $seriesId) { ${JOB_FIELDS} }
    units(seriesId: $seriesId) { units { kind number owned extra } }
  }
`;

export const UPDATE_SERIES_TRANSLATION = gql<
  { updateSeries: Pick<SeriesTranslation, "id" | "translationFallbackEnabled" | "translationSourceLanguages"> },
  { id: number; input: { translationFallbackEnabled?: boolean; translationSourceLanguages?: string[] } }
>`
  mutation UpdateSeriesTranslation($id: Int!, $input: SeriesInput!) {
    updateSeries(id: $id, input: $input) {
      id
      translationFallbackEnabled
      translationSourceLanguages
    }
  }
`;

export interface TranslationSearchResult {
  created: TranslationJob[];
  skipped: { kind: string; number: string; reason: string }[];
  queuedDownloads: number;
}

export const SEARCH_TRANSLATIONS = gql<{ searchTranslations: TranslationSearchResult }, { seriesId: number }>`
  mutation SearchTranslations($seriesId: Int!) {
    searchTranslations(seriesId: $seriesId) { created { ${JOB_FIELDS} } skipped { kind number reason } queuedDownloads }
  }
`;

export const RETRY_TRANSLATION = gql<{ retryTranslation: TranslationJob }, { id: string }>`
  mutation RetryTranslation($id: String!) { retryTranslation(id: $id) { ${JOB_FIELDS} } }
`;

export const CANCEL_TRANSLATION = gql<{ cancelTranslation: TranslationJob }, { id: string }>`
  mutation CancelTranslation($id: String!) { cancelTranslation(id: $id) { ${JOB_FIELDS} } }
`;

export interface TranslationProgressEvent {
  jobId: string;
  seriesId: number;
  state: string;
  pagesDone: number | null;
  pagesTotal: number | null;
  errorCode: string | null;
  at: string;
}

export const TRANSLATION_PROGRESS = gql<{ translationProgress: TranslationProgressEvent }, { seriesId: number }>`
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
`;
