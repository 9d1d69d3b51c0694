/** GraphQL documents of the download queue (fields exactly as schema.graphql names them). */
import { gql } from "@urql/core";
import type { LiveEvent, VerdictFacts } from "./download-words";

export interface Download {
  id: number;
  seriesId: number;
  kind: string;
  chapter: string | null;
  volume: string | null;
  part: number | null;
  language: string;
  scanlator: string | null;
  providerName: string | null;
  state: string;
  attempts: number;
  cancelRequested: boolean;
  pagesDone: number;
  pagesTotal: number | null;
  error: string | null;
  nextAttemptAt: string | null;
  needsReplacement: boolean;
  replacesFileId: number | null;
  fileId: number | null;
  createdAt: string;
  verdict: VerdictFacts | null;
}

const DOWNLOAD_FIELDS = `
  id seriesId kind chapter volume part language scanlator providerName state attempts cancelRequested
  pagesDone pagesTotal error nextAttemptAt needsReplacement replacesFileId fileId createdAt
  verdict { reasons figures { pages blackCards blackShare medianAspect stripThreshold } }
`;

export interface QueueData {
  downloadQueue: Download[];
  seriesList: { id: number; title: string }[];
  providers: { name: string; displayName: string }[];
}

export const QUEUE_QUERY = gql<QueueData, Record<string, never>>`
  query DownloadQueue {
    downloadQueue { ${DOWNLOAD_FIELDS} }
    seriesList { id title }
    providers { name displayName }
  }
`;

export const CANCEL_DOWNLOAD = gql<{ cancelDownload: Download }, { id: number }>`
  mutation CancelDownload($id: Int!) {
    cancelDownload(id: $id) { ${DOWNLOAD_FIELDS} }
  }
`;

export const DOWNLOAD_EVENTS = gql<{ downloadEvents: LiveEvent & { seriesId: number } }, { seriesId: number | null }>`
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
`;
