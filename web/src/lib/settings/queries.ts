/** GraphQL documents of the settings page (fields exactly as schema.graphql names them). */
import { gql } from "@urql/core";

export interface SuwayomiSettings {
  enabled: boolean;
  configured: boolean;
  url: string | null;
  auth: "NONE" | "BASIC" | "SIMPLE_LOGIN" | "UI_LOGIN";
  username: string | null;
  passwordSet: boolean;
}

export interface IndexerSettings {
  active: boolean;
  prowlarr: { enabled: boolean; url: string | null; apiKeySet: boolean };
  qbittorrent: {
    enabled: boolean;
    url: string | null;
    username: string | null;
    passwordSet: boolean;
    category: string;
    tag: string | null;
    savePath: string | null;
    mount: { clientPath: string; localPath: string } | null;
    retention: string;
  };
}

// The masked secrets themselves are never asked for: only whether they are set.
const SOURCE_FIELDS = `dropFolderPath suwayomi { enabled configured url auth username passwordSet }`;
const INDEXER_FIELDS = `
  active
  prowlarr { enabled url apiKeySet }
  qbittorrent { enabled url username passwordSet category tag savePath mount { clientPath localPath } retention }
`;

export const SETTINGS_QUERY = gql<
  { sourceSettings: { dropFolderPath: string; suwayomi: SuwayomiSettings }; indexerSettings: IndexerSettings },
  Record<string, never>
>`
  query Settings {
    sourceSettings { ${SOURCE_FIELDS} }
    indexerSettings { ${INDEXER_FIELDS} }
  }
`;

export interface SuwayomiInput {
  enabled?: boolean;
  url?: string | null;
  auth?: "NONE" | "BASIC" | "SIMPLE_LOGIN" | "UI_LOGIN";
  username?: string | null;
  password?: string | null;
}

export const UPDATE_SOURCE_SETTINGS = gql<
  { updateSourceSettings: { dropFolderPath: string; suwayomi: SuwayomiSettings } },
  { input: { suwayomi: SuwayomiInput } }
>`
  mutation UpdateSourceSettings($input: SourceSettingsInput!) {
    updateSourceSettings(input: $input) { ${SOURCE_FIELDS} }
  }
`;

export interface IndexerInput {
  prowlarr?: { enabled?: boolean; url?: string | null; apiKey?: string | null };
  qbittorrent?: {
    enabled?: boolean;
    url?: string | null;
    username?: string | null;
    password?: string | null;
    category?: string;
    tag?: string | null;
    savePath?: string | null;
    mount?: { clientPath: string; localPath: string } | null;
    retention?: string;
  };
}

export const UPDATE_INDEXER_SETTINGS = gql<{ updateIndexerSettings: IndexerSettings }, { input: IndexerInput }>`
  mutation UpdateIndexerSettings($input: IndexerSettingsInput!) {
    updateIndexerSettings(input: $input) { ${INDEXER_FIELDS} }
  }
`;
