/**
 * Calls `onChange` (debounced) whenever the library changes: the `libraryEvents` subscription
 * over graphql-ws. Call during component initialisation; it stops with the component. Pages use
 * it to refetch what they show when a scan, a retirement or another tab changed it, and once more
 * each time the live connection is (re)established (what changed before it was live is not pushed).
 */
import { graphql } from "$lib/gql";
import { getClient, onLiveConnection } from "../graphql";

const LIBRARY_EVENTS = graphql(`
  subscription LibraryEvents($seriesId: Int) {
    libraryEvents(seriesId: $seriesId) {
      kind
      seriesId
      at
    }
  }
`);

/** `seriesId` undefined: every event; a number: that series' events and library-wide ones. */
export function onLibraryEvents(
  seriesId: () => number | null | undefined,
  onChange: () => void,
  debounceMs = 250,
): void {
  $effect(() => {
    const id = seriesId();
    if (id === null) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const later = () => {
      clearTimeout(timer);
      timer = setTimeout(onChange, debounceMs);
    };
    const stopListening = onLiveConnection(later);
    const { unsubscribe } = getClient()
      .subscription(LIBRARY_EVENTS, id === undefined ? {} : { seriesId: id })
      .subscribe((result) => {
        if (result.data) later();
      });
    return () => {
      clearTimeout(timer);
      stopListening();
      unsubscribe();
    };
  });
}
