/** GraphQL documents of the audit screen (fields exactly as schema.graphql names them). */
import { gql } from "@urql/core";
import type { AuditFile, AuditVariables } from "./audit";

const FILE_FIELDS = `
  id
  path
  size
  sha256
  pageCount
  kind
  number
  numberEnd
  part
  language
  state
  origin
  source { provider sourceId }
  flags
  blackShare
  thumbnails { first last }
`;

export interface AuditData {
  series: { id: number; title: string } | null;
  audit: { seriesId: number; page: number; pageSize: number; total: number; files: AuditFile[] };
}

export const AUDIT_QUERY = gql<AuditData, AuditVariables>`
  query Audit($seriesId: Int!, $page: Int, $sort: String, $filter: AuditFilter) {
    series(id: $seriesId) { id title }
    audit(seriesId: $seriesId, page: $page, sort: $sort, filter: $filter) {
      seriesId
      page
      pageSize
      total
      files { ${FILE_FIELDS} }
    }
  }
`;

export interface RetiredFile {
  fileId: number;
  recycleEntryId: number;
  from: string;
  binPath: string;
}

export interface RetirementPreview {
  confirmation: string;
  expiresAt: string;
  files: AuditFile[];
}

export const PREVIEW_RETIREMENT = gql<
  { previewRetirement: RetirementPreview },
  { seriesId: number; fileIds: number[] }
>`
  mutation PreviewRetirement($seriesId: Int!, $fileIds: [Int!]!) {
    previewRetirement(seriesId: $seriesId, fileIds: $fileIds) {
      confirmation
      expiresAt
      files { ${FILE_FIELDS} }
    }
  }
`;

export const RETIRE_FILES = gql<
  { retireFiles: { retired: RetiredFile[] } },
  { seriesId: number; confirmation: string }
>`
  mutation RetireFiles($seriesId: Int!, $confirmation: String!) {
    retireFiles(seriesId: $seriesId, confirmation: $confirmation) {
      retired {
        fileId
        recycleEntryId
        from
        binPath
      }
    }
  }
`;

export interface SourceRejectionPreview extends RetirementPreview {
  provider: string;
  sourceId: string;
  language: string;
  offers: number;
}

export interface SourceRejectionVariables {
  seriesId: number;
  provider: string;
  sourceId: string;
  reason: string | null;
}

export const PREVIEW_SOURCE_REJECTION = gql<
  { previewSourceRejection: SourceRejectionPreview },
  SourceRejectionVariables
>`
  mutation PreviewSourceRejection($seriesId: Int!, $provider: String!, $sourceId: String!, $reason: String) {
    previewSourceRejection(seriesId: $seriesId, provider: $provider, sourceId: $sourceId, reason: $reason) {
      provider
      sourceId
      language
      offers
      confirmation
      expiresAt
      files { ${FILE_FIELDS} }
    }
  }
`;

export interface SourceRejectionResult {
  provider: string;
  sourceId: string;
  offersRemoved: number;
  retired: RetiredFile[];
}

export const REJECT_SOURCE = gql<{ rejectSource: SourceRejectionResult }, { seriesId: number; confirmation: string }>`
  mutation RejectSource($seriesId: Int!, $confirmation: String!) {
    rejectSource(seriesId: $seriesId, confirmation: $confirmation) {
      provider
      sourceId
      offersRemoved
      retired {
        fileId
        recycleEntryId
        from
        binPath
      }
    }
  }
`;
