/** The GraphQL documents of the web app (exactly the fields the server implements). */
import { gql } from "@urql/core";
import type { LibraryData, SeriesData, SeriesVariables } from "./types";

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
    }
  }
`;

export const SERIES_QUERY = gql<SeriesData, SeriesVariables>`
  query Series($id: Int!) {
    series(id: $id) {
      id
      title
      form
      status
      monitored
      webtoon
      language
      knownBookCount
    }
    units(seriesId: $id) {
      seriesId
      form
      map
      status
      planWording
      units {
        kind
        number
        book
        owned
        monitored
        coverage
        plan
        estimatedBook
        pageCount
        fileIds
        problems
        extra
      }
    }
  }
`;
