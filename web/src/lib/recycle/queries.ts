/** GraphQL documents of the recycle bin. */
import { gql } from "@urql/core";

export interface RecycleBinEntry {
  id: number;
  fileId: number | null;
  seriesId: number | null;
  originalPath: string;
  binPath: string;
  size: number;
  sha256: string;
  reason: string;
  recycledAt: string;
  restorableUntil: string;
}

export interface RecycleBinData {
  recycleBin: RecycleBinEntry[];
  seriesList: { id: number; title: string }[];
}

export const RECYCLE_BIN_QUERY = gql<RecycleBinData, Record<string, never>>`
  query RecycleBin {
    recycleBin {
      id
      fileId
      seriesId
      originalPath
      binPath
      size
      sha256
      reason
      recycledAt
      restorableUntil
    }
    seriesList {
      id
      title
    }
  }
`;

export const RESTORE_FILE = gql<{ restoreFile: { fileId: number; path: string } }, { id: number }>`
  mutation RestoreFile($id: Int!) {
    restoreFile(id: $id) {
      fileId
      path
    }
  }
`;

export const PURGE_RECYCLE_ENTRY = gql<{ purgeRecycleEntry: boolean }, { id: number }>`
  mutation PurgeRecycleEntry($id: Int!) {
    purgeRecycleEntry(id: $id)
  }
`;

/** Every library change, or one series' and library-wide ones (recycle/library-events.svelte.ts). */
export const LIBRARY_EVENTS = gql<
  { libraryEvents: { kind: string; seriesId: number | null; at: string } },
  { seriesId?: number | null }
>`
  subscription LibraryEvents($seriesId: Int) {
    libraryEvents(seriesId: $seriesId) {
      kind
      seriesId
      at
    }
  }
`;
