/**
 * The reader's place, kept by the server (GET/PUT /api/files/{id}/progress, GraphQL fileProgress /
 * setFileProgress): where the reader opens and what it saves. The rules of how a place follows
 * the content live on the server; this only decides when to ask and what to send.
 */
import { graphql, type ResultOf } from "$lib/gql";

export type FileProgress = ResultOf<typeof FILE_PROGRESS_QUERY>["fileProgress"];

export type ContinueEntry = ResultOf<typeof CONTINUE_READING_QUERY>["continueReading"][number];

export const FILE_PROGRESS_QUERY = graphql(`
  query FileProgress($fileId: Int!) {
    fileProgress(fileId: $fileId) {
      fileId
      page
      completed
      pageCount
      updatedAt
    }
  }
`);

export const SET_FILE_PROGRESS = graphql(`
  mutation SetFileProgress($fileId: Int!, $page: Int!, $completed: Boolean!) {
    setFileProgress(fileId: $fileId, page: $page, completed: $completed) {
      fileId
      page
      completed
      pageCount
      updatedAt
    }
  }
`);

export const CONTINUE_READING_QUERY = graphql(`
  query ContinueReading($seriesId: Int, $limit: Int) {
    continueReading(seriesId: $seriesId, limit: $limit) {
      fileId
      seriesId
      seriesTitle
      title
      progress {
        fileId
        page
        completed
        pageCount
        updatedAt
      }
    }
  }
`);

/**
 * The page the reader opens: the one the address asks for, else the stored place (a finished
 * file opens at its first page again), else page 1.
 */
export function resumePage(addressPage: number | null, stored: FileProgress | null | undefined, count: number): number {
  if (addressPage !== null) return addressPage;
  if (!stored || stored.updatedAt === null || stored.completed) return 1;
  return Math.min(Math.max(1, stored.page), Math.max(1, count));
}

/** What to save for the page on screen: the last page completes the file. */
export function progressFor(page: number, count: number): { page: number; completed: boolean } {
  const p = Math.min(Math.max(1, Math.trunc(page)), Math.max(1, count));
  return { page: p, completed: count > 0 && p >= count };
}

/** Whether a save would change what is stored (avoids a request per repeated page). */
export function changes(
  next: { page: number; completed: boolean },
  stored: { page: number; completed: boolean } | null,
): boolean {
  return !stored || stored.page !== next.page || stored.completed !== next.completed;
}

/** "Page 12 of 40" or "Start" for a file not opened yet. */
export function placeLabel(p: Pick<FileProgress, "page" | "pageCount" | "updatedAt">): string {
  if (p.updatedAt === null) return "Not started";
  return `Page ${p.page} of ${p.pageCount}`;
}

/** The reader's address for an entry: it resumes by itself, so no page in the address. */
export const continueHref = (e: Pick<ContinueEntry, "fileId">): string => `/read/${e.fileId}`;
