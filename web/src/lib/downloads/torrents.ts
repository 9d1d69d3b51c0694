/** GraphQL documents of the torrent jobs (fields exactly as schema.graphql names them), and their words. */
import { graphql } from "$lib/gql";

export interface PendingBook {
  book: string;
  reason: string;
  detail: string;
}

export interface TorrentJob {
  id: number;
  seriesId: number;
  title: string;
  state: string;
  books: string[];
  importedFileIds: number[];
  error: string | null;
  pending: PendingBook[];
  updatedAt: string;
}

export interface TorrentFile {
  name: string;
  size: number;
  progress: number;
  namedBook: string | null;
  format: string;
  assignable: boolean;
  refusal: string | null;
}

const JOB_FIELDS = graphql(`
  fragment TorrentJobFields on TorrentJob {
    id
    seriesId
    title
    state
    books
    importedFileIds
    error
    pending {
      book
      reason
      detail
    }
    updatedAt
  }
`);

export const TORRENT_JOBS = graphql(
  `
    query TorrentJobs($seriesId: Int) {
      torrentJobs(seriesId: $seriesId) {
        ...TorrentJobFields
      }
    }
  `,
  [JOB_FIELDS],
);

export const TORRENT_FILES = graphql(
  `
    query TorrentFiles($id: Int!) {
      torrentFiles(id: $id) {
        job {
          ...TorrentJobFields
        }
        files {
          name
          size
          progress
          namedBook
          format
          assignable
          refusal
        }
      }
    }
  `,
  [JOB_FIELDS],
);

export const ASSIGN_TORRENT_FILES = graphql(
  `
    mutation AssignTorrentFiles($id: Int!, $assignments: [TorrentAssignmentInput!]!) {
      assignTorrentFiles(id: $id, assignments: $assignments) {
        ...TorrentJobFields
      }
    }
  `,
  [JOB_FIELDS],
);

export const RETRY_TORRENT = graphql(
  `
    mutation RetryTorrentJob($id: Int!) {
      retryTorrentJob(id: $id) {
        ...TorrentJobFields
      }
    }
  `,
  [JOB_FIELDS],
);

export const DISMISS_TORRENT = graphql(
  `
    mutation DismissTorrentJob($id: Int!) {
      dismissTorrentJob(id: $id) {
        ...TorrentJobFields
      }
    }
  `,
  [JOB_FIELDS],
);

/** Changes of the library (of one series, or all): a torrent job that moves changes its series. */
export const TORRENT_EVENTS = graphql(`
  subscription TorrentSeriesEvents($seriesId: Int) {
    libraryEvents(seriesId: $seriesId) {
      kind
      seriesId
    }
  }
`);

/** The badge's tone for a state. */
export function torrentStateTone(state: string): "good" | "warn" | "bad" | "info" {
  if (state === "imported" || state === "removed") return "good";
  if (state === "awaiting_assignment") return "warn";
  if (state === "failed") return "bad";
  return "info";
}

const STATE_WORDS: Record<string, string> = {
  added: "Added to the torrent client",
  downloading: "Downloading",
  completed: "Downloaded, about to be imported",
  importing: "Importing",
  imported: "Imported",
  awaiting_assignment: "Waiting for you to pick files",
  assigning: "Importing the files you picked",
  failed: "Failed",
  removed: "Imported, removed from the client",
  dismissed: "Dismissed",
};
export const torrentStateWords = (state: string) => STATE_WORDS[state] ?? state;

const REASON_WORDS: Record<string, string> = {
  not_found_by_name: "no file of the torrent is named for it",
  ambiguous: "several files are named for it",
  other_edition: "the torrent seems to be another edition",
  page_count: "its page count is far from the series' books",
};
export const pendingReasonWords = (reason: string) => REASON_WORDS[reason] ?? reason;

const REFUSAL_WORDS: Record<string, string> = {
  unsupported_format: "not an image ZIP/CBZ",
  incomplete: "not fully downloaded",
};
export const refusalWords = (refusal: string) => REFUSAL_WORDS[refusal] ?? refusal;

/** The file's name without the torrent's folders. */
export const baseName = (name: string) => name.slice(name.lastIndexOf("/") + 1);

/** Books are "Book 3"; a list of them "books 2 and 3". */
export function booksWords(books: readonly string[]): string {
  if (books.length <= 1) return `book ${books[0] ?? ""}`.trim();
  return `books ${books.slice(0, -1).join(", ")} and ${books[books.length - 1]}`;
}
