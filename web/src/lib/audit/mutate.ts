/** One mutation through the app's client: the data, or the error thrown for ErrorNotice/toProblem. */
import type { AnyVariables, DocumentInput } from "@urql/core";
import { getClient } from "../graphql";

export async function mutate<Data, Variables extends AnyVariables>(doc: DocumentInput<Data, Variables>, variables: Variables): Promise<Data> {
  const result = await getClient().mutation(doc, variables).toPromise();
  if (result.error) throw result.error;
  if (!result.data) throw new Error("The service sent no answer.");
  return result.data;
}

/** Codes after which only a fresh preview helps (the reviewed state changed or the token is spent). */
export const FRESH_PREVIEW_CODES: ReadonlySet<string> = new Set(["snapshot_stale", "confirmation_invalid", "download_active"]);
