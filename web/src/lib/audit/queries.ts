/** GraphQL documents of the audit screen (fields exactly as schema.graphql names them). */
import { graphql, type ResultOf, type VariablesOf } from "$lib/gql";

export const FILE_FIELDS = graphql(`
  fragment AuditFileFields on AuditFile {
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
    source {
      provider
      sourceId
    }
    flags
    blackShare
    thumbnails {
      first
      last
    }
  }
`);

export type AuditData = ResultOf<typeof AUDIT_QUERY>;

export const RULES_FIELDS = graphql(`
  fragment AuditRulesFields on Rules {
    maxBlackShare
    fewPages
    oversizedBookPages
  }
`);

export const AUDIT_QUERY = graphql(
  `
    query Audit($seriesId: Int!, $page: Int, $sort: String, $filter: AuditFilter) {
      series(id: $seriesId) {
        id
        title
      }
      rules {
        ...AuditRulesFields
      }
      audit(seriesId: $seriesId, page: $page, sort: $sort, filter: $filter) {
        seriesId
        page
        pageSize
        total
        files {
          ...AuditFileFields
        }
      }
    }
  `,
  [FILE_FIELDS, RULES_FIELDS],
);

export type RetiredFile = ResultOf<typeof RETIRE_FILES>["retireFiles"]["retired"][number];

export type RetirementPreview = ResultOf<typeof PREVIEW_RETIREMENT>["previewRetirement"];

export const PREVIEW_RETIREMENT = graphql(
  `
    mutation PreviewRetirement($seriesId: Int!, $fileIds: [Int!]!) {
      previewRetirement(seriesId: $seriesId, fileIds: $fileIds) {
        confirmation
        expiresAt
        files {
          ...AuditFileFields
        }
      }
    }
  `,
  [FILE_FIELDS],
);

export const RETIRE_FILES = graphql(`
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
`);

export type SourceRejectionPreview = ResultOf<typeof PREVIEW_SOURCE_REJECTION>["previewSourceRejection"];

export type SourceRejectionVariables = VariablesOf<typeof PREVIEW_SOURCE_REJECTION>;

export const PREVIEW_SOURCE_REJECTION = graphql(
  `
    mutation PreviewSourceRejection($seriesId: Int!, $provider: String!, $sourceId: String!, $reason: String) {
      previewSourceRejection(seriesId: $seriesId, provider: $provider, sourceId: $sourceId, reason: $reason) {
        provider
        sourceId
        language
        offers
        confirmation
        expiresAt
        files {
          ...AuditFileFields
        }
      }
    }
  `,
  [FILE_FIELDS],
);

export type SourceRejectionResult = ResultOf<typeof REJECT_SOURCE>["rejectSource"];

export const REJECT_SOURCE = graphql(`
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
`);
