/** GraphQL documents of the recycle bin. */
import { graphql, type ResultOf } from "$lib/gql";

export type RecycleBinEntry = RecycleBinData["recycleBin"][number];

export type RecycleBinData = ResultOf<typeof RECYCLE_BIN_QUERY>;

export const RECYCLE_BIN_QUERY = graphql(`
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
    rules {
      recycleRetentionDays
    }
  }
`);

export const RESTORE_FILE = graphql(`
  mutation RestoreFile($id: Int!) {
    restoreFile(id: $id) {
      fileId
      path
    }
  }
`);

export const PURGE_RECYCLE_ENTRY = graphql(`
  mutation PurgeRecycleEntry($id: Int!) {
    purgeRecycleEntry(id: $id)
  }
`);
