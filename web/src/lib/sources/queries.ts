/** GraphQL documents of the sources page (fields exactly as schema.graphql names them). */
import { gql } from "@urql/core";
import type { WantedReason } from "./wanted-words";

export type HealthStatus = "OK" | "DEGRADED" | "FAILING" | "UNKNOWN";

export interface SourceMapping {
  id: number;
  provider: string;
  providerKind: string;
  displayName: string;
  sourceId: string;
  language: string;
  priority: number;
  state: string;
  offers: number;
  available: boolean;
  health: {
    status: HealthStatus;
    recent: number;
    published: number;
    degraded: number;
    failed: number;
    lastProblemAt: string | null;
  };
}

export interface WantedDetail {
  blocked: number;
  bookChannelOutcome: string | null;
  candidateExternalId: string | null;
  candidateMappingId: number | null;
  downloadIds: number[] | null;
  languages: string[];
  nextPassAt: string | null;
  offers: number;
  parts: number[] | null;
  replacesFileId: number | null;
  usable: number;
}

export interface WantedEntry {
  kind: string;
  number: string;
  reason: WantedReason;
  updatedAt: string;
  detail: WantedDetail;
}

export interface WantedLedger {
  seriesId: number;
  emptyPasses: number;
  lastPassAt: string | null;
  nextPassAt: string | null;
  entries: WantedEntry[];
}

const MAPPING_FIELDS = `
  id provider providerKind displayName sourceId language priority state offers available
  health { status recent published degraded failed lastProblemAt }
`;

const LEDGER_FIELDS = `
  seriesId emptyPasses lastPassAt nextPassAt
  entries {
    kind number reason updatedAt
    detail { blocked bookChannelOutcome candidateExternalId candidateMappingId downloadIds languages nextPassAt offers parts replacesFileId usable }
  }
`;

export interface SourcesData {
  series: { id: number; title: string; language: string } | null;
  sourceMappings: SourceMapping[];
  wanted: WantedLedger;
}

export const SOURCES_QUERY = gql<SourcesData, { seriesId: number }>`
  query SeriesSources($seriesId: Int!) {
    series(id: $seriesId) { id title language }
    sourceMappings(seriesId: $seriesId) { ${MAPPING_FIELDS} }
    wanted(seriesId: $seriesId) { ${LEDGER_FIELDS} }
  }
`;

export interface SourceSettingsData {
  sourceSettings: { dropFolderPath: string; suwayomi: { enabled: boolean; configured: boolean } };
}

export const SOURCE_SETTINGS_BRIEF = gql<SourceSettingsData, Record<string, never>>`
  query SourceSettingsBrief {
    sourceSettings {
      dropFolderPath
      suwayomi {
        enabled
        configured
      }
    }
  }
`;

export interface SuwayomiSource {
  id: string;
  name: string;
  lang: string;
}

export const SUWAYOMI_SOURCES = gql<{ suwayomiSources: SuwayomiSource[] }, { lang: string | null }>`
  query SuwayomiSources($lang: String) {
    suwayomiSources(lang: $lang) {
      id
      name
      lang
    }
  }
`;

export interface SourceWork {
  sourceId: string;
  title: string;
  language: string;
  sourceName: string | null;
  thumbnailUrl: string | null;
  linked: boolean;
  rejected: boolean;
}

export const SEARCH_SOURCES = gql<
  { searchSources: { provider: string; providerId: number; works: SourceWork[] } },
  { seriesId: number; provider: string; query: string | null }
>`
  mutation SearchSources($seriesId: Int!, $provider: String!, $query: String) {
    searchSources(seriesId: $seriesId, provider: $provider, query: $query) {
      provider
      providerId
      works {
        sourceId
        title
        language
        sourceName
        thumbnailUrl
        linked
        rejected
      }
    }
  }
`;

export interface SourceRefresh {
  mappingId: number;
  provider: string;
  sourceId: string;
  status: "OK" | "UNAVAILABLE" | "FAILED";
  error: string | null;
  offers: number;
  added: number;
  updated: number;
  removed: number;
}

const REFRESH_FIELDS = `mappingId provider sourceId status error offers added updated removed`;

export const LINK_SOURCE = gql<
  { linkSource: { mapping: SourceMapping; refresh: SourceRefresh } },
  { seriesId: number; provider: string; sourceId: string; language: string; priority: number | null }
>`
  mutation LinkSource($seriesId: Int!, $provider: String!, $sourceId: String!, $language: String!, $priority: Int) {
    linkSource(seriesId: $seriesId, provider: $provider, sourceId: $sourceId, language: $language, priority: $priority) {
      mapping { ${MAPPING_FIELDS} }
      refresh { ${REFRESH_FIELDS} }
    }
  }
`;

export const SET_PRIORITY = gql<
  { setSourcePriority: SourceMapping },
  { seriesId: number; mappingId: number; priority: number }
>`
  mutation SetSourcePriority($seriesId: Int!, $mappingId: Int!, $priority: Int!) {
    setSourcePriority(seriesId: $seriesId, mappingId: $mappingId, priority: $priority) { ${MAPPING_FIELDS} }
  }
`;

export const REFRESH_SOURCES = gql<
  { refreshSources: { seriesId: number; mappings: SourceRefresh[] } },
  { seriesId: number }
>`
  mutation RefreshSources($seriesId: Int!) {
    refreshSources(seriesId: $seriesId) { seriesId mappings { ${REFRESH_FIELDS} } }
  }
`;

export const RUN_WANTED_PASS = gql<{ runWantedPass: { queued: number; ledger: WantedLedger } }, { seriesId: number }>`
  mutation RunWantedPass($seriesId: Int!) {
    runWantedPass(seriesId: $seriesId) { queued ledger { ${LEDGER_FIELDS} } }
  }
`;
