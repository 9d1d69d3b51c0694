/** GraphQL documents of the sources page (fields exactly as schema.graphql names them). */
import { graphql, type ResultOf, type Schema } from "$lib/gql";

export type HealthStatus = Schema<"SourceHealthStatus">;

export type SourceMapping = ResultOf<typeof MAPPING_FIELDS>;

export type WantedDetail = WantedEntry["detail"];

export type WantedEntry = WantedLedger["entries"][number];

export type WantedLedger = ResultOf<typeof LEDGER_FIELDS>;

export const MAPPING_FIELDS = graphql(`
  fragment SourceMappingFields on SourceMapping {
    id
    provider
    providerKind
    displayName
    sourceId
    language
    priority
    state
    offers
    available
    health {
      status
      recent
      published
      degraded
      failed
      lastProblemAt
    }
  }
`);

export const ENTRY_FIELDS = graphql(`
  fragment WantedEntryFields on WantedEntry {
    kind
    number
    reason
    downloads
    updatedAt
    detail {
      blocked
      bookChannelOutcome
      candidateExternalId
      candidateMappingId
      downloadIds
      languages
      nextPassAt
      offers
      parts
      replacesFileId
      usable
    }
  }
`);

export const LEDGER_FIELDS = graphql(
  `
    fragment WantedLedgerFields on WantedLedger {
      seriesId
      emptyPasses
      lastPassAt
      nextPassAt
      entries {
        ...WantedEntryFields
      }
    }
  `,
  [ENTRY_FIELDS],
);

export type WantedOfLibrary = ResultOf<typeof WANTED_OF_LIBRARY_QUERY>["wantedOfLibrary"];

/** Every series' Wanted ledger entries (the Wanted page), only these reasons when given. */
export const WANTED_OF_LIBRARY_QUERY = graphql(
  `
    query WantedOfLibrary($reasons: [WantedReason!]) {
      wantedOfLibrary(reasons: $reasons) {
        total
        entries {
          seriesId
          seriesTitle
          entry {
            ...WantedEntryFields
          }
        }
      }
    }
  `,
  [ENTRY_FIELDS],
);

export type SourcesData = ResultOf<typeof SOURCES_QUERY>;

export const SOURCES_QUERY = graphql(
  `
    query SeriesSources($seriesId: Int!) {
      series(id: $seriesId) {
        id
        title
        language
      }
      sourceMappings(seriesId: $seriesId) {
        ...SourceMappingFields
      }
      wanted(seriesId: $seriesId) {
        ...WantedLedgerFields
      }
      rules {
        sourcePriorityMin
        sourcePriorityMax
      }
    }
  `,
  [MAPPING_FIELDS, LEDGER_FIELDS],
);

export type SourceSettingsData = ResultOf<typeof SOURCE_SETTINGS_BRIEF>;

export const SOURCE_SETTINGS_BRIEF = graphql(`
  query SourceSettingsBrief {
    sourceSettings {
      dropFolderPath
      suwayomi {
        enabled
        configured
      }
    }
  }
`);

export type SuwayomiSource = ResultOf<typeof SUWAYOMI_SOURCES>["suwayomiSources"][number];

export const SUWAYOMI_SOURCES = graphql(`
  query SuwayomiSources($lang: String) {
    suwayomiSources(lang: $lang) {
      id
      name
      lang
    }
  }
`);

export type SourceWork = ResultOf<typeof SEARCH_SOURCES>["searchSources"]["works"][number];

export const SEARCH_SOURCES = graphql(`
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
`);

export type SourceRefresh = ResultOf<typeof REFRESH_FIELDS>;

export const REFRESH_FIELDS = graphql(`
  fragment SourceRefreshFields on SourceRefresh {
    mappingId
    provider
    sourceId
    status
    error
    offers
    added
    updated
    removed
  }
`);

export const LINK_SOURCE = graphql(
  `
    mutation LinkSource($seriesId: Int!, $provider: String!, $sourceId: String!, $language: String!, $priority: Int) {
      linkSource(
        seriesId: $seriesId
        provider: $provider
        sourceId: $sourceId
        language: $language
        priority: $priority
      ) {
        mapping {
          ...SourceMappingFields
        }
        refresh {
          ...SourceRefreshFields
        }
      }
    }
  `,
  [MAPPING_FIELDS, REFRESH_FIELDS],
);

export const SET_PRIORITY = graphql(
  `
    mutation SetSourcePriority($seriesId: Int!, $mappingId: Int!, $priority: Int!) {
      setSourcePriority(seriesId: $seriesId, mappingId: $mappingId, priority: $priority) {
        ...SourceMappingFields
      }
    }
  `,
  [MAPPING_FIELDS],
);

export const REFRESH_SOURCES = graphql(
  `
    mutation RefreshSources($seriesId: Int!) {
      refreshSources(seriesId: $seriesId) {
        seriesId
        mappings {
          ...SourceRefreshFields
        }
      }
    }
  `,
  [REFRESH_FIELDS],
);

export const RUN_WANTED_PASS = graphql(
  `
    mutation RunWantedPass($seriesId: Int!) {
      runWantedPass(seriesId: $seriesId) {
        queued
        ledger {
          ...WantedLedgerFields
        }
      }
    }
  `,
  [LEDGER_FIELDS],
);

export type SourceProblem = ResultOf<typeof SOURCE_PROBLEMS>["sourceProblems"]["problems"][number];

/** What the drop folder could not offer of a work (read afresh by the server on every request). */
export const SOURCE_PROBLEMS = graphql(`
  query SourceProblems($seriesId: Int!, $mappingId: Int!) {
    sourceProblems(seriesId: $seriesId, mappingId: $mappingId) {
      mappingId
      problems {
        name
        code
        detail
      }
    }
  }
`);

const MONITOR_FIELDS = graphql(`
  fragment WantedMonitorFields on WantedMonitor {
    lastRun
    nextRun
    running
    lastOutcome {
      series
      queued
      failed
    }
  }
`);

export const WANTED_MONITOR_QUERY = graphql(
  `
    query WantedMonitor {
      wantedMonitor {
        ...WantedMonitorFields
      }
    }
  `,
  [MONITOR_FIELDS],
);

export const RUN_WANTED_MONITOR = graphql(
  `
    mutation RunWantedMonitor {
      runWantedMonitor {
        ...WantedMonitorFields
      }
    }
  `,
  [MONITOR_FIELDS],
);
