/** The map editor's GraphQL documents. */
import { graphql } from "$lib/gql";

export const PREVIEW_FIELDS = graphql(`
  fragment MapChangePreviewFields on MapChangePreview {
    revision
    mapBefore
    mapAfter
    becomeDuplicateFileIds
    stopDuplicateFileIds
    books {
      number
      becomeDuplicates
      stopDuplicates
      before {
        coverage
        coversChapters
        chapters
        wanted
      }
      after {
        coverage
        coversChapters
        chapters
        wanted
      }
    }
    chapters {
      number
      becomeDuplicates
      stopDuplicates
      before {
        coverage
        book
        wanted
      }
      after {
        coverage
        book
        wanted
      }
    }
  }
`);

export const MAP_FIELDS = graphql(`
  fragment ChapterMapFields on ChapterMap {
    seriesId
    revision
    state
    entries {
      volume
      chapters
    }
    readings {
      volume
      chapters
    }
    suggestions {
      source
      kind
      revision
      entries {
        volume
        chapters
        status
        adoptable
        conflicts {
          chapter
          volumes
          scope
        }
      }
    }
    conflicts {
      chapter
      books
    }
    bookStarts {
      volume
      start
    }
  }
`);

export const MAP_EDITOR_QUERY = graphql(
  `
    query MapEditor($id: Int!) {
      series(id: $id) {
        id
        title
        status
        form
        knownBookCount
        editionBookCount
        books {
          number
        }
        chapters {
          number
          extra
        }
      }
      chapterMap(seriesId: $id) {
        ...ChapterMapFields
      }
    }
  `,
  [MAP_FIELDS],
);

export const PREVIEW_BOOK_STARTS = graphql(
  `
    mutation PreviewBookStarts($seriesId: Int!, $revision: Int!, $starts: [BookStartInput!]!, $lastEnd: String) {
      previewBookStarts(seriesId: $seriesId, revision: $revision, starts: $starts, lastEnd: $lastEnd) {
        entries {
          volume
          chapters
        }
        problems {
          code
          message
          volume
        }
        warnings {
          code
          message
          volume
        }
        lastEnd
        lastEndReason
        preview {
          ...MapChangePreviewFields
        }
      }
    }
  `,
  [PREVIEW_FIELDS],
);

export const SAVE_CHAPTER_MAP = graphql(
  `
    mutation SaveChapterMap($seriesId: Int!, $revision: Int!, $entries: [MapEntryInput!]!) {
      saveChapterMap(seriesId: $seriesId, revision: $revision, entries: $entries) {
        ...ChapterMapFields
      }
    }
  `,
  [MAP_FIELDS],
);

export const PREVIEW_MAP_REMOVAL = graphql(
  `
    mutation PreviewChapterMapRemoval($seriesId: Int!, $revision: Int!) {
      previewChapterMapRemoval(seriesId: $seriesId, revision: $revision) {
        ...MapChangePreviewFields
      }
    }
  `,
  [PREVIEW_FIELDS],
);

export const DELETE_CHAPTER_MAP = graphql(
  `
    mutation DeleteChapterMap($seriesId: Int!, $revision: Int!) {
      deleteChapterMap(seriesId: $seriesId, revision: $revision) {
        ...ChapterMapFields
      }
    }
  `,
  [MAP_FIELDS],
);
