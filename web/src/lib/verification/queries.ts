/** GraphQL documents of the verified-books screen. */
import { gql } from "@urql/core";
import type { VerifiedBook } from "./verification";

const BOOK_FIELDS = `
  volume
  fileId
  digest
  chapters
  suspectReason
  verified
  proof { fileId digest chapters sourceUrl note createdAt status }
`;

export interface VerifiedBooksData {
  series: { id: number; title: string } | null;
  verifiedBooks: VerifiedBook[];
}

export const VERIFIED_BOOKS_QUERY = gql<VerifiedBooksData, { seriesId: number }>`
  query VerifiedBooks($seriesId: Int!) {
    series(id: $seriesId) { id title }
    verifiedBooks(seriesId: $seriesId) { ${BOOK_FIELDS} }
  }
`;

export interface VerificationInput {
  digest: string;
  chapters: string[];
  sourceUrl: string | null;
  note: string;
}

export const VERIFY_BOOK = gql<
  { verifyBook: VerifiedBook },
  { seriesId: number; volume: string; input: VerificationInput }
>`
  mutation VerifyBook($seriesId: Int!, $volume: String!, $input: VerificationInput!) {
    verifyBook(seriesId: $seriesId, volume: $volume, input: $input) { ${BOOK_FIELDS} }
  }
`;

export const WITHDRAW_VERIFICATION = gql<{ withdrawVerification: boolean }, { seriesId: number; volume: string }>`
  mutation WithdrawVerification($seriesId: Int!, $volume: String!) {
    withdrawVerification(seriesId: $seriesId, volume: $volume)
  }
`;
