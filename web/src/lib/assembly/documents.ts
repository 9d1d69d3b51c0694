/** GraphQL documents of book assembly (one book or the whole series) and its live progress. */
import { gql, type TypedDocumentNode } from "@urql/core";

export interface AssemblySourceFile {
  id: number;
  path: string;
  sha256: string;
  size: number;
}

export interface AssemblyPreview {
  volume: string;
  fileName: string;
  path: string;
  chapters: { number: string; fileIds: number[] }[];
  files: AssemblySourceFile[];
  confirmation: string;
  expiresAt: string;
}

export interface AssemblyResult {
  volume: string;
  fileId: number;
  path: string;
  sha256: string;
  pageCount: number;
  retired: { fileId: number; recycleEntryId: number; from: string; binPath: string }[];
}

export interface BookOutcome {
  volume: string;
  /** ready | assembled | refused */
  status: string;
  code: string | null;
  detail: string | null;
  result: AssemblyResult | null;
}

export interface AssemblyProgress {
  seriesId: number;
  volume: string;
  /** hashing | writing | publishing | done | failed */
  step: string;
  done: number;
  total: number;
}

const RESULT = `
  volume
  fileId
  path
  sha256
  pageCount
  retired { fileId recycleEntryId from binPath }
`;

export const PREVIEW_BOOK = gql<{ previewBookAssembly: AssemblyPreview }, { seriesId: number; volume: string }>`
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
`;

export const ASSEMBLE_BOOK = gql<
  { assembleBook: AssemblyResult },
  { seriesId: number; volume: string; confirmation: string }
>`
  mutation AssembleBook($seriesId: Int!, $volume: String!, $confirmation: String!) {
    assembleBook(seriesId: $seriesId, volume: $volume, confirmation: $confirmation) { ${RESULT} }
  }
`;

export const PREVIEW_SERIES = gql<
  {
    previewSeriesAssembly: {
      seriesId: number;
      books: BookOutcome[];
      confirmation: string | null;
      expiresAt: string | null;
    };
  },
  { seriesId: number }
>`
  mutation PreviewSeriesAssembly($seriesId: Int!) {
    previewSeriesAssembly(seriesId: $seriesId) {
      seriesId
      confirmation
      expiresAt
      books { volume status code detail result { ${RESULT} } }
    }
  }
`;

export const ASSEMBLE_SERIES = gql<
  { assembleSeries: { seriesId: number; books: BookOutcome[]; remaining: string[] } },
  { seriesId: number; confirmation: string }
>`
  mutation AssembleSeries($seriesId: Int!, $confirmation: String!) {
    assembleSeries(seriesId: $seriesId, confirmation: $confirmation) {
      seriesId
      remaining
      books { volume status code detail result { ${RESULT} } }
    }
  }
`;

export const ASSEMBLY_PROGRESS = gql<{ assemblyProgress: AssemblyProgress }, { seriesId: number }>`
  subscription AssemblyProgress($seriesId: Int!) {
    assemblyProgress(seriesId: $seriesId) {
      seriesId
      volume
      step
      done
      total
    }
  }
`;

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
    out.push(
      gql<PageCounts, Record<string, never>>(pageCountsQuery(fileIds.slice(first, first + PAGE_COUNT_BATCH), first)),
    );
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
