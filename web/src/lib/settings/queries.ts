/** GraphQL documents of the settings page (fields exactly as schema.graphql names them). */
import { graphql, type ResultOf, type Schema } from "$lib/gql";

export type SuwayomiSettings = ResultOf<typeof SOURCE_FIELDS>["suwayomi"];

export type IndexerSettings = ResultOf<typeof INDEXER_FIELDS>;

// The masked secrets themselves are never asked for: only whether they are set.
export const SOURCE_FIELDS = graphql(`
  fragment SourceSettingsFields on SourceSettings {
    dropFolderPath
    suwayomi {
      enabled
      configured
      url
      auth
      username
      passwordSet
    }
  }
`);
export const INDEXER_FIELDS = graphql(`
  fragment IndexerSettingsFields on IndexerSettings {
    active
    prowlarr {
      enabled
      url
      apiKeySet
    }
    qbittorrent {
      enabled
      url
      username
      passwordSet
      category
      tag
      savePath
      mount {
        clientPath
        localPath
      }
      retention
    }
  }
`);

export const SETTINGS_QUERY = graphql(
  `
    query Settings {
      sourceSettings {
        ...SourceSettingsFields
      }
      indexerSettings {
        ...IndexerSettingsFields
      }
    }
  `,
  [SOURCE_FIELDS, INDEXER_FIELDS],
);

export type SuwayomiInput = Schema<"SuwayomiSettingsInput">;

export const UPDATE_SOURCE_SETTINGS = graphql(
  `
    mutation UpdateSourceSettings($input: SourceSettingsInput!) {
      updateSourceSettings(input: $input) {
        ...SourceSettingsFields
      }
    }
  `,
  [SOURCE_FIELDS],
);

export type IndexerInput = Schema<"IndexerSettingsInput">;

export const UPDATE_INDEXER_SETTINGS = graphql(
  `
    mutation UpdateIndexerSettings($input: IndexerSettingsInput!) {
      updateIndexerSettings(input: $input) {
        ...IndexerSettingsFields
      }
    }
  `,
  [INDEXER_FIELDS],
);

export const DOWNLOAD_SETTINGS = graphql(`
  query DownloadSettings {
    downloadSettings {
      languages
    }
  }
`);

export const UPDATE_DOWNLOAD_SETTINGS = graphql(`
  mutation UpdateDownloadSettings($languages: [String!]!) {
    updateDownloadSettings(languages: $languages) {
      languages
    }
  }
`);

/** Whether Prowlarr and qBittorrent answer the saved settings. */
export const INDEXER_CHECK = graphql(`
  query IndexerCheck {
    indexerCheck {
      prowlarr {
        status
        detail
        indexers
      }
      qbittorrent {
        status
        detail
        version
      }
    }
  }
`);
