/** The GraphQL documents of the library and series screens (exactly the fields the server serves). */
import { graphql } from "./gql";

export const OVERVIEW_FIELDS = graphql(`
  fragment OverviewFields on Series {
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
  }
`);

/** What the library card and the series header show of a series. */
export const SERIES_FIELDS = graphql(
  `
    fragment SeriesFields on Series {
      id
      title
      form
      status
      monitored
      webtoon
      language
      knownBookCount
      ...OverviewFields
    }
  `,
  [OVERVIEW_FIELDS],
);

export const LIBRARY_QUERY = graphql(
  `
    query Library {
      seriesList {
        ...SeriesFields
      }
      library {
        root
      }
    }
  `,
  [SERIES_FIELDS],
);

export const ROW_FIELDS = graphql(`
  fragment RowFields on PageRow {
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
    primary {
      id
      label
    }
    menu {
      id
      label
    }
  }
`);

/** The series header and the server's grouping model of its page, for one filter/order. */
export const SERIES_PAGE_QUERY = graphql(
  `
    query SeriesPage($id: Int!, $filter: UnitFilter!, $reversed: Boolean!, $problemsOnly: Boolean!) {
      series(id: $id) {
        ...SeriesFields
        folder
        planWording
        removal {
          allowed
          refusal
          activeFiles
          folderPresent
        }
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
          duplicates {
            count
            fileIds
            note
          }
          book {
            ...RowFields
          }
          children {
            ...RowFields
          }
        }
        sections {
          key
          title
          rows {
            ...RowFields
          }
        }
        loose {
          key
          title
          children {
            ...RowFields
          }
        }
      }
    }
  `,
  [SERIES_FIELDS, ROW_FIELDS],
);
