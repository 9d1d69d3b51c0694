/** GraphQL documents of the download queue (fields exactly as schema.graphql names them). */
import { graphql, type ResultOf } from "$lib/gql";

export type Download = ResultOf<typeof DOWNLOAD_FIELDS>;

export const DOWNLOAD_FIELDS = graphql(`
  fragment DownloadFields on Download {
    id
    seriesId
    kind
    chapter
    volume
    part
    language
    scanlator
    providerName
    state
    attempts
    cancelRequested
    cancellable
    blocked
    blockable
    externalId
    pagesDone
    pagesTotal
    error
    nextAttemptAt
    needsReplacement
    replacesFileId
    fileId
    createdAt
    verdict {
      reasons
      figures {
        pages
        blackCards
        blackShare
        maxBlackShare
        medianAspect
        stripThreshold
        seriesMedianAspect
        seriesAspectSource
      }
    }
  }
`);

export type QueueData = ResultOf<typeof QUEUE_QUERY>;

export const QUEUE_QUERY = graphql(
  `
    query DownloadQueue {
      downloadQueue {
        ...DownloadFields
      }
      seriesList {
        id
        title
      }
      providers {
        name
        displayName
      }
    }
  `,
  [DOWNLOAD_FIELDS],
);

export const CANCEL_DOWNLOAD = graphql(
  `
    mutation CancelDownload($id: Int!, $blocklist: Boolean) {
      cancelDownload(id: $id, blocklist: $blocklist) {
        ...DownloadFields
      }
    }
  `,
  [DOWNLOAD_FIELDS],
);

export type BlockedRelease = ResultOf<typeof BLOCKED_FIELDS>;

export const BLOCKED_FIELDS = graphql(`
  fragment BlockedFields on BlockedRelease {
    id
    seriesId
    seriesTitle
    providerName
    externalId
    kind
    chapter
    volume
    part
    language
    scanlator
    createdAt
  }
`);

export const BLOCKLIST_QUERY = graphql(
  `
    query Blocklist($seriesId: Int) {
      blocklist(seriesId: $seriesId) {
        ...BlockedFields
      }
    }
  `,
  [BLOCKED_FIELDS],
);

export const BLOCK_RELEASE = graphql(
  `
    mutation BlockRelease($downloadId: Int!) {
      blockRelease(downloadId: $downloadId) {
        ...BlockedFields
      }
    }
  `,
  [BLOCKED_FIELDS],
);

export const UNBLOCK_RELEASE = graphql(`
  mutation UnblockRelease($id: Int!) {
    unblockRelease(id: $id)
  }
`);

export const DOWNLOAD_EVENTS = graphql(`
  subscription DownloadEvents($seriesId: Int) {
    downloadEvents(seriesId: $seriesId) {
      downloadId
      seriesId
      state
      pagesDone
      pagesTotal
      error
      at
    }
  }
`);

/** One series' downloads (the series page shows those under way). */
export const SERIES_DOWNLOADS = graphql(
  `
    query SeriesDownloads($seriesId: Int!) {
      downloads(seriesId: $seriesId) {
        ...DownloadFields
      }
    }
  `,
  [DOWNLOAD_FIELDS],
);
