/**
 * Chapter and book numbers in the service's order (GraphQL `labelOrder`, REST POST
 * /api/labels/order): the web client never compares labels itself, it asks and places its rows by
 * the answer.
 */
import { getClient } from "$lib/graphql";
import { graphql } from "$lib/gql";
import { canonicalLabel } from "./labels";

export const LABEL_ORDER_QUERY = graphql(`
  query LabelOrder($labels: [String!]!) {
    labelOrder(labels: $labels) {
      labels
      rejected
      nextWhole
    }
  }
`);

export interface LabelOrder {
  /** Canonical labels, each once, in the service's order. */
  labels: string[];
  /** The texts that are not exact numbers. */
  rejected: string[];
  /** The whole number after the highest label; "1" when there is none. */
  nextWhole: string;
}

/** Asks the service for the order of some labels (injectable in tests). */
export type OrderLabels = (labels: readonly string[]) => Promise<LabelOrder>;

export const askLabelOrder: OrderLabels = async (labels) => {
  const result = await getClient()
    .query(LABEL_ORDER_QUERY, { labels: [...labels] })
    .toPromise();
  if (result.error) throw result.error;
  if (!result.data) throw new Error("The service did not order the numbers.");
  return result.data.labelOrder;
};

/**
 * The items placed by their label's rank in `order` (the service's answer); items whose label is
 * not in it (not a number, or empty) keep their relative order after the others.
 */
export function placeByOrder<T>(items: readonly T[], labelOf: (item: T) => string, order: readonly string[]): T[] {
  const rank = new Map(order.map((l, i) => [l, i]));
  const rankOf = (item: T) => rank.get(canonicalLabel(labelOf(item)) ?? "") ?? order.length;
  return items
    .map((item, i) => ({ item, i, r: rankOf(item) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.item);
}

/** The rank of a label in `order`, or null when it is not there. */
export function rankIn(order: readonly string[], text: string): number | null {
  const i = order.indexOf(canonicalLabel(text) ?? "");
  return i < 0 ? null : i;
}
