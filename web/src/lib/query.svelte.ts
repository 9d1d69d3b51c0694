/**
 * A GraphQL query as rune state, for components. Call during component initialisation: the
 * query runs in an `$effect`, re-runs when the variables it reads change, and stops when the
 * component is destroyed. `cache-and-network` shows a cached answer at once and refreshes it.
 */
import type { AnyVariables, CombinedError, DocumentInput, RequestPolicy } from "@urql/core";
import { getClient } from "./graphql";

export interface LiveQuery<Data> {
  readonly data: Data | undefined;
  readonly error: CombinedError | undefined;
  /** True until the first answer for the current variables (cached answers count). */
  readonly fetching: boolean;
  /** True while a cached answer is being refreshed. */
  readonly stale: boolean;
  /** Ask the server again. */
  refetch(): void;
}

export function liveQuery<Data, Variables extends AnyVariables>(
  query: DocumentInput<Data, Variables>,
  variables: () => Variables | null,
  requestPolicy: RequestPolicy = "cache-and-network",
): LiveQuery<Data> {
  let data = $state<Data | undefined>(undefined);
  let error = $state<CombinedError | undefined>(undefined);
  let fetching = $state(true);
  let stale = $state(false);
  let generation = $state(0);
  let shownKey: string | null = null;
  let seenGeneration = 0;

  $effect(() => {
    const vars = variables();
    const forced = generation !== seenGeneration;
    seenGeneration = generation;
    const key = JSON.stringify(vars);
    if (key !== shownKey) {
      // Other variables: never show the previous answer under them.
      shownKey = key;
      data = undefined;
      error = undefined;
      stale = false;
      fetching = vars !== null;
    } else if (vars !== null) {
      stale = true;
    }
    if (vars === null) return;
    const { unsubscribe } = getClient()
      .query(query, vars, { requestPolicy: forced ? "network-only" : requestPolicy })
      .subscribe((result) => {
        data = result.data ?? undefined;
        error = result.error;
        stale = result.stale === true;
        fetching = false;
      });
    return unsubscribe;
  });

  return {
    get data() {
      return data;
    },
    get error() {
      return error;
    },
    get fetching() {
      return fetching;
    },
    get stale() {
      return stale;
    },
    refetch() {
      generation += 1;
    },
  };
}
