/**
 * A subscription of progress events kept as the newest event per key (a download, a translation
 * job). Call during component initialisation; it stops with the component. `onStateChange` runs
 * (debounced) when an event brings a state the caller may not list yet, so the list refetches, and
 * each time the live connection is (re)established (events sent before it was live are lost).
 */
import type { AnyVariables, DocumentInput } from "@urql/core";
import { getClient, onLiveConnection } from "./graphql";

export interface LiveEvents<K, E> {
  readonly events: ReadonlyMap<K, E>;
  readonly error: unknown;
}

export function liveEvents<Data, Variables extends AnyVariables, K, E extends { state: string }>(
  subscription: DocumentInput<Data, Variables>,
  variables: () => Variables | null,
  pick: (data: Data) => E | null | undefined,
  keyOf: (event: E) => K,
  onStateChange: () => void,
  debounceMs = 300,
): LiveEvents<K, E> {
  let events = $state(new Map<K, E>());
  let error = $state<unknown>(null);

  $effect(() => {
    const vars = variables();
    if (vars === null) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stopListening = onLiveConnection(() => {
      clearTimeout(timer);
      timer = setTimeout(onStateChange, debounceMs);
    });
    const { unsubscribe } = getClient()
      .subscription(subscription, vars)
      .subscribe((result) => {
        if (result.error) error = result.error;
        const ev = result.data ? pick(result.data) : null;
        if (!ev) return;
        error = null;
        const key = keyOf(ev);
        const before = events.get(key);
        const next = new Map(events);
        next.set(key, ev);
        events = next;
        if (before?.state !== ev.state) {
          clearTimeout(timer);
          timer = setTimeout(onStateChange, debounceMs);
        }
      });
    return () => {
      clearTimeout(timer);
      stopListening();
      unsubscribe();
    };
  });

  return {
    get events() {
      return events;
    },
    get error() {
      return error;
    },
  };
}
