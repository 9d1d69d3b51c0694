/**
 * Calls `onChange` (debounced) whenever the library changes: the `libraryEvents` subscription
 * over graphql-ws. Call during component initialisation; it stops with the component. Pages use
 * it to refetch what they show when a scan, a retirement or another tab changed it.
 */
import { graphql } from "$lib/gql";
import { getClient } from "../graphql";

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
    const { unsubscribe } = getClient()
      .subscription(LIBRARY_EVENTS, id === undefined ? {} : { seriesId: id })
      .subscribe((result) => {
        if (!result.data) return;
        clearTimeout(timer);
        timer = setTimeout(onChange, debounceMs);
      });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  });
}
