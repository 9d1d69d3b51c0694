/** The map editor's GraphQL documents. */
import { gql } from "@urql/core";
import type { BookStart, BookStartsPlan, ChapterMap, MapChangePreview, MapEditorData, MapEntry } from "./types";

const PREVIEW_FIELDS = `
  revision
  mapBefore
  mapAfter
  becomeDuplicateFileIds
  stopDuplicateFileIds
  books {
    number
    becomeDuplicates
    stopDuplicates
    before { coverage coversChapters chapters wanted }
    after { coverage coversChapters chapters wanted }
  }
  chapters {
    number
    becomeDuplicates
    stopDuplicates
    before { coverage book wanted }
    after { coverage book wanted }
  }
`;

const MAP_FIELDS = `
  seriesId
  revision
  state
  entries { volume chapters }
  readings { volume chapters }
  suggestions {
    source
    kind
    revision
    entries { volume chapters status adoptable conflicts { chapter volumes scope } }
  }
  conflicts { chapter books }
  bookStarts { volume start }
`;

export const MAP_EDITOR_QUERY = gql<MapEditorData, { id: number }>`
  query MapEditor($id: Int!) {
    series(id: $id) {
      id
      title
      status
      form
      knownBookCount
      editionBookCount
      books { number }
      chapters { number extra }
    }
    chapterMap(seriesId: $id) {
      ${MAP_FIELDS}
    }
  }
`;

export const PREVIEW_BOOK_STARTS = gql<
  { previewBookStarts: BookStartsPlan },
  { seriesId: number; revision: number; starts: BookStart[]; lastEnd: string | null }
>`
  mutation PreviewBookStarts($seriesId: Int!, $revision: Int!, $starts: [BookStartInput!]!, $lastEnd: String) {
    previewBookStarts(seriesId: $seriesId, revision: $revision, starts: $starts, lastEnd: $lastEnd) {
      entries { volume chapters }
      problems { code message volume }
      warnings { code message volume }
      lastEnd
      lastEndReason
      preview { ${PREVIEW_FIELDS} }
    }
  }
`;

export const SAVE_CHAPTER_MAP = gql<
  { saveChapterMap: ChapterMap },
  { seriesId: number; revision: number; entries: MapEntry[] }
>`
  mutation SaveChapterMap($seriesId: Int!, $revision: Int!, $entries: [MapEntryInput!]!) {
    saveChapterMap(seriesId: $seriesId, revision: $revision, entries: $entries) {
      ${MAP_FIELDS}
    }
  }
`;

export const PREVIEW_MAP_REMOVAL = gql<
  { previewChapterMapRemoval: MapChangePreview },
  { seriesId: number; revision: number }
>`
  mutation PreviewChapterMapRemoval($seriesId: Int!, $revision: Int!) {
    previewChapterMapRemoval(seriesId: $seriesId, revision: $revision) { ${PREVIEW_FIELDS} }
  }
`;

export const DELETE_CHAPTER_MAP = gql<{ deleteChapterMap: ChapterMap }, { seriesId: number; revision: number }>`
  mutation DeleteChapterMap($seriesId: Int!, $revision: Int!) {
    deleteChapterMap(seriesId: $seriesId, revision: $revision) {
      ${MAP_FIELDS}
    }
  }
`;
