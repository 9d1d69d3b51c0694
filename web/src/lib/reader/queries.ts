/** The reader's GraphQL documents and answer shapes. */
import { graphql, type ResultOf } from "$lib/gql";

export type FilePage = FilePages["pages"][number];

export type FilePages = ResultOf<typeof FILE_PAGES_QUERY>["filePages"];

export type ReaderSeries = NonNullable<ResultOf<typeof READER_SERIES_QUERY>["series"]>;

export type ReaderMap = ResultOf<typeof READER_SERIES_QUERY>["chapterMap"];

export const FILE_PAGES_QUERY = graphql(`
  query FilePages($fileId: Int!) {
    filePages(fileId: $fileId) {
      fileId
      seriesId
      kind
      number
      pageCount
      pages {
        index
        name
        width
        height
        url
      }
    }
  }
`);

export const READER_SERIES_QUERY = graphql(`
  query ReaderSeries($id: Int!) {
    series(id: $id) {
      id
      title
      webtoon
    }
    chapterMap(seriesId: $id) {
      seriesId
      revision
      entries {
        volume
        chapters
      }
      readings {
        volume
        chapters
      }
    }
  }
`);

export const SUBMIT_READING = graphql(`
  mutation SubmitReading($seriesId: Int!, $volume: String!, $chapters: [String!]!) {
    submitReading(seriesId: $seriesId, volume: $volume, chapters: $chapters) {
      seriesId
      revision
      entries {
        volume
        chapters
      }
      readings {
        volume
        chapters
      }
    }
  }
`);

/** The page image's address (the API's, or the REST path when it sent none). */
export function pageUrl(fileId: number, page: Pick<FilePage, "index" | "url"> | undefined, index: number): string {
  return page?.url || `/api/files/${fileId}/pages/${index}`;
}

export function isBook(kind: string | undefined): boolean {
  return (kind ?? "").toUpperCase() === "BOOK";
}
