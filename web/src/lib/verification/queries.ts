/** GraphQL documents of the verified-books screen. */
import { graphql, type ResultOf, type Schema } from "$lib/gql";

export const BOOK_FIELDS = graphql(`
  fragment VerifiedBookFields on VerifiedBook {
    volume
    fileId
    digest
    chapters
    suspectReason
    verified
    proof {
      fileId
      digest
      chapters
      sourceUrl
      note
      createdAt
      status
    }
  }
`);

export type VerifiedBooksData = ResultOf<typeof VERIFIED_BOOKS_QUERY>;

export const VERIFIED_BOOKS_QUERY = graphql(
  `
    query VerifiedBooks($seriesId: Int!) {
      series(id: $seriesId) {
        id
        title
      }
      verifiedBooks(seriesId: $seriesId) {
        ...VerifiedBookFields
      }
    }
  `,
  [BOOK_FIELDS],
);

export type VerificationInput = Schema<"VerificationInput">;

export const VERIFY_BOOK = graphql(
  `
    mutation VerifyBook($seriesId: Int!, $volume: String!, $input: VerificationInput!) {
      verifyBook(seriesId: $seriesId, volume: $volume, input: $input) {
        ...VerifiedBookFields
      }
    }
  `,
  [BOOK_FIELDS],
);

export const WITHDRAW_VERIFICATION = graphql(`
  mutation WithdrawVerification($seriesId: Int!, $volume: String!) {
    withdrawVerification(seriesId: $seriesId, volume: $volume)
  }
`);
