/** The GraphQL documents of the library and series screens (exactly the fields the server serves). */
import { gql } from "@urql/core";
import type { LibraryData, SeriesPageData, SeriesPageVariables } from "./types";

const OVERVIEW = `
  overview {
    coverFileId
    coverUrl
    completion
    books
    booksOwned
    chapters
    chaptersOwned
    missingBooks
    missingChapters
    hasGaps
  }
`;

export const LIBRARY_QUERY = gql<LibraryData, Record<string, never>>`
  query Library {
    seriesList {
      id
      title
      form
      status
      monitored
      webtoon
      language
      knownBookCount
      ${OVERVIEW}
    }
  }
`;

const ROW = `
  key
  kind
  number
  title
  owned
  ownedText
  monitored
  pageCount
  planText
  fileIds
  problems
  estimateHint
  primary { id label }
  menu { id label }
`;

/** The series header and the server's grouping model of its page, for one filter/order. */
export const SERIES_PAGE_QUERY = gql<SeriesPageData, SeriesPageVariables>`
  query SeriesPage($id: Int!, $filter: UnitFilter!, $reversed: Boolean!, $problemsOnly: Boolean!) {
    series(id: $id) {
      id
      title
      form
      status
      monitored
      webtoon
      language
      knownBookCount
      planWording
      ${OVERVIEW}
    }
    seriesPage(seriesId: $id, filter: $filter, reversed: $reversed, problemsOnly: $problemsOnly) {
      seriesId
      form
      map
      status
      planWording
      layout
      notice
      offerMapEditor
      groups {
        key
        collapsed
        coverText
        note
        duplicates { count fileIds note }
        book { ${ROW} }
        children { ${ROW} }
      }
      sections {
        key
        title
        rows { ${ROW} }
      }
      loose {
        key
        title
        children { ${ROW} }
      }
    }
  }
`;
