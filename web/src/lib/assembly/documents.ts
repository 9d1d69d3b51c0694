/** GraphQL documents of book assembly (one book or the whole series) and its live progress. */
import { gql, type TypedDocumentNode } from "@urql/core";
import { graphql, type ResultOf } from "$lib/gql";

export type AssemblySourceFile = AssemblyPreview["files"][number];

export type AssemblyPreview = ResultOf<typeof PREVIEW_BOOK>["previewBookAssembly"];

export type AssemblyResult = ResultOf<typeof RESULT>;

export type BookOutcome = ResultOf<typeof ASSEMBLE_SERIES>["assembleSeries"]["books"][number];

export type AssemblyProgress = ResultOf<typeof ASSEMBLY_PROGRESS>["assemblyProgress"];

export const RESULT = graphql(`
  fragment AssemblyResultFields on AssemblyResult {
    volume
    fileId
    path
    sha256
    pageCount
    retired {
      fileId
      recycleEntryId
      from
      binPath
    }
  }
`);

export const PREVIEW_BOOK = graphql(`
  mutation PreviewBookAssembly($seriesId: Int!, $volume: String!) {
    previewBookAssembly(seriesId: $seriesId, volume: $volume) {
      volume
      fileName
      path
      chapters {
        number
        fileIds
      }
      files {
        id
        path
        sha256
        size
      }
      confirmation
      expiresAt
    }
  }
`);

export const ASSEMBLE_BOOK = graphql(
  `
    mutation AssembleBook($seriesId: Int!, $volume: String!, $confirmation: String!) {
      assembleBook(seriesId: $seriesId, volume: $volume, confirmation: $confirmation) {
        ...AssemblyResultFields
      }
    }
  `,
  [RESULT],
);

export const PREVIEW_SERIES = graphql(
  `
    mutation PreviewSeriesAssembly($seriesId: Int!) {
      previewSeriesAssembly(seriesId: $seriesId) {
        seriesId
        confirmation
        expiresAt
        books {
          volume
          status
          code
          detail
          result {
            ...AssemblyResultFields
          }
        }
      }
    }
  `,
  [RESULT],
);

export const ASSEMBLE_SERIES = graphql(
  `
    mutation AssembleSeries($seriesId: Int!, $confirmation: String!) {
      assembleSeries(seriesId: $seriesId, confirmation: $confirmation) {
        seriesId
        remaining
        books {
          volume
          status
          code
          detail
          result {
            ...AssemblyResultFields
          }
        }
      }
    }
  `,
  [RESULT],
);

export const ASSEMBLY_PROGRESS = graphql(`
  subscription AssemblyProgress($seriesId: Int!) {
    assemblyProgress(seriesId: $seriesId) {
      seriesId
      volume
      step
      done
      total
    }
  }
`);

/** Files asked in one page-count query: well inside the service's alias limit. */
export const PAGE_COUNT_BATCH = 20;

/**
 * One query for the page counts of the source files (`filePages`, read from each archive's
 * directory), as aliases f<first>, f<first+1>, … in the order of `fileIds`. Ids are integers, so
 * inlining them is safe.
 */
export function pageCountsQuery(fileIds: readonly number[], first = 0): string {
  const fields = fileIds
    .map((id, i) => `f${first + i}: filePages(fileId: ${Math.trunc(id)}) { pageCount }`)
    .join("\n    ");
  return `query AssemblyPageCounts {\n    ${fields}\n  }`;
}

/** The page-count queries for all `fileIds`, PAGE_COUNT_BATCH files each (aliases numbered across them). */
export function pageCountsQueries(fileIds: readonly number[]): TypedDocumentNode<PageCounts, Record<string, never>>[] {
  const out: TypedDocumentNode<PageCounts, Record<string, never>>[] = [];
  for (let first = 0; first < fileIds.length; first += PAGE_COUNT_BATCH) {
    // Built at run time (a document per batch), so typed by hand; the checks validate its shape.
    const doc: TypedDocumentNode<PageCounts, Record<string, never>> = gql(
      pageCountsQuery(fileIds.slice(first, first + PAGE_COUNT_BATCH), first),
    );
    out.push(doc);
  }
  return out;
}

/** The answer of the page-count queries: f<i> → the page count of the i-th file. */
export type PageCounts = Record<string, { pageCount: number } | null>;

/** The sum of the answers of pageCountsQuery, or null when one is missing. */
export function sumPageCounts(
  data: Record<string, { pageCount: number } | null> | undefined,
  count: number,
): number | null {
  if (!data) return null;
  let total = 0;
  for (let i = 0; i < count; i += 1) {
    const entry = data[`f${i}`];
    if (!entry || !Number.isFinite(entry.pageCount)) return null;
    total += entry.pageCount;
  }
  return total;
}
