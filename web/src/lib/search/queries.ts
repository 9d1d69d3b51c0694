/** GraphQL documents of Search and Interactive search on a slot (fields exactly as schema.graphql names them). */
import { graphql, type ResultOf, type Schema, type VariablesOf } from "$lib/gql";

export type OfferVerdict = Schema<"OfferVerdict">;

export type SlotOffer = SlotOffersData["slotOffers"]["offers"][number];

export type SlotOffersData = ResultOf<typeof SLOT_OFFERS>;

export type SlotVars = VariablesOf<typeof SLOT_OFFERS>;

export const SLOT_OFFERS = graphql(`
  query SlotOffers($seriesId: Int!, $kind: String!, $number: String!) {
    slotOffers(seriesId: $seriesId, kind: $kind, number: $number) {
      reason
      offers {
        mappingId
        providerName
        externalId
        title
        label
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
`);

export const DOWNLOAD_OFFER = graphql(`
  mutation DownloadOffer($seriesId: Int!, $kind: String!, $number: String!, $mappingId: Int!, $externalId: String!) {
    downloadOffer(seriesId: $seriesId, kind: $kind, number: $number, mappingId: $mappingId, externalId: $externalId) {
      downloadIds
    }
  }
`);

export const SEARCH_SLOT = graphql(`
  mutation SearchSlot($seriesId: Int!, $kind: String!, $number: String!) {
    searchSlot(seriesId: $seriesId, kind: $kind, number: $number) {
      downloadIds
      reason
    }
  }
`);

export const VERDICT_LABELS: Record<OfferVerdict, string> = {
  CHOSEN: "Would be chosen",
  RANKED_LOWER: "Ranked lower",
  OTHER_LANGUAGE: "Other language",
  BLOCKED_DEGRADED: "Came out degraded",
  BLOCKED_BY_OPERATOR: "Blocked by you",
  SOURCE_FAILED_HERE: "Source failed here",
  PARTS_INCOMPLETE: "Parts missing",
  PROVIDER_UNAVAILABLE: "Source unavailable",
};
