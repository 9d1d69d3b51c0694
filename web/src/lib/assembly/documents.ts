/** GraphQL documents of book assembly (one book or the whole series) and its live progress. */
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

/**
 * One query for the page counts of the source files (`filePages`, read from each archive's
 * directory), as aliases f0, f1, … in the order of `fileIds`. Ids are integers, so inlining them
 * is safe.
 */
export function pageCountsQuery(fileIds: readonly number[]): string {
  const fields = fileIds.map((id, i) => `f${i}: filePages(fileId: ${Math.trunc(id)}) { pageCount }`).join("\n    ");
  return `query AssemblyPageCounts {\n    ${fields}\n  }`;
}

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
