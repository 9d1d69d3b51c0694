/** The reader's GraphQL documents and answer shapes. */
import { gql } from "@urql/core";

export interface FilePage {
  /** 1-based. */
  index: number;
  name: string;
  width: number | null;
  height: number | null;
  url: string;
}

export interface FilePages {
  fileId: number;
  seriesId: number;
  /** BOOK or CHAPTER. */
  kind: string;
  number: string | null;
  pageCount: number;
  pages: FilePage[];
}

export interface ReaderSeries {
  id: number;
  title: string;
  webtoon: boolean;
}

export interface ReaderMap {
  seriesId: number;
  revision: number;
  entries: { volume: string; chapters: string[] }[];
  readings: { volume: string; chapters: string[] }[];
}

export const FILE_PAGES_QUERY = gql<{ filePages: FilePages }, { fileId: number }>`
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
`;

export const READER_SERIES_QUERY = gql<{ series: ReaderSeries | null; chapterMap: ReaderMap }, { id: number }>`
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
`;

export const SUBMIT_READING = gql<
  { submitReading: ReaderMap },
  { seriesId: number; volume: string; chapters: string[] }
>`
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
`;

/** The page image's address (the API's, or the REST path when it sent none). */
export function pageUrl(fileId: number, page: Pick<FilePage, "index" | "url"> | undefined, index: number): string {
  return page?.url || `/api/files/${fileId}/pages/${index}`;
}

export function isBook(kind: string | undefined): boolean {
  return (kind ?? "").toUpperCase() === "BOOK";
}
