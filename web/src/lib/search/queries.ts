/** GraphQL documents of Search and Interactive search on a slot (fields exactly as schema.graphql names them). */
import { gql } from "@urql/core";

export type OfferVerdict =
  | "CHOSEN"
  | "RANKED_LOWER"
  | "OTHER_LANGUAGE"
  | "BLOCKED_DEGRADED"
  | "SOURCE_FAILED_HERE"
  | "PARTS_INCOMPLETE"
  | "PROVIDER_UNAVAILABLE";

export interface SlotOffer {
  mappingId: number;
  providerName: string;
  externalId: string;
  chapter: string | null;
  volume: string | null;
  part: number | null;
  language: string;
  scanlator: string | null;
  pageCount: number | null;
  uploadedAt: string | null;
  health: string;
  verdict: OfferVerdict;
  why: string;
}

export interface SlotOffersData {
  slotOffers: { reason: string | null; offers: SlotOffer[] };
}

type SlotVars = { seriesId: number; kind: string; number: string };

export const SLOT_OFFERS = gql<SlotOffersData, SlotVars>`
  query SlotOffers($seriesId: Int!, $kind: String!, $number: String!) {
    slotOffers(seriesId: $seriesId, kind: $kind, number: $number) {
      reason
      offers {
        mappingId
        providerName
        externalId
        chapter
        volume
        part
        language
        scanlator
        pageCount
        uploadedAt
        health
        verdict
        why
      }
    }
  }
`;

export const DOWNLOAD_OFFER = gql<
  { downloadOffer: { downloadIds: number[] } },
  SlotVars & { mappingId: number; externalId: string }
>`
  mutation DownloadOffer($seriesId: Int!, $kind: String!, $number: String!, $mappingId: Int!, $externalId: String!) {
    downloadOffer(seriesId: $seriesId, kind: $kind, number: $number, mappingId: $mappingId, externalId: $externalId) {
      downloadIds
    }
  }
`;

export const SEARCH_SLOT = gql<{ searchSlot: { downloadIds: number[]; reason: string | null } }, SlotVars>`
  mutation SearchSlot($seriesId: Int!, $kind: String!, $number: String!) {
    searchSlot(seriesId: $seriesId, kind: $kind, number: $number) {
      downloadIds
      reason
    }
  }
`;

export const VERDICT_LABELS: Record<OfferVerdict, string> = {
  CHOSEN: "Would be chosen",
  RANKED_LOWER: "Ranked lower",
  OTHER_LANGUAGE: "Other language",
  BLOCKED_DEGRADED: "Blocked",
  SOURCE_FAILED_HERE: "Source failed here",
  PARTS_INCOMPLETE: "Parts missing",
  PROVIDER_UNAVAILABLE: "Source unavailable",
};
