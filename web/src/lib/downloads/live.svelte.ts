/**
 * Live download progress: the `downloadEvents` subscription, newest event per download. Call
 * during component initialisation; it stops with the component. `onStateChange` runs (debounced)
 * when an event brings a state the caller may not list yet, so the list refetches.
 */
import { getClient } from "../graphql";
import type { LiveEvent } from "./download-words";
import { DOWNLOAD_EVENTS } from "./queries";

export interface LiveDownloads {
  readonly events: ReadonlyMap<number, LiveEvent>;
  readonly error: unknown;
}

export function liveDownloads(seriesId: () => number | null | undefined, onStateChange: () => void, debounceMs = 300): LiveDownloads {
  let events = $state(new Map<number, LiveEvent>());
  let error = $state<unknown>(null);

  $effect(() => {
    const id = seriesId();
    if (id === null) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const { unsubscribe } = getClient()
      .subscription(DOWNLOAD_EVENTS, { seriesId: id ?? null })
      .subscribe((result) => {
        if (result.error) error = result.error;
        const ev = result.data?.downloadEvents;
        if (!ev) return;
        error = null;
        const before = events.get(ev.downloadId);
        const next = new Map(events);
        next.set(ev.downloadId, ev);
        events = next;
        if (before?.state !== ev.state) {
          clearTimeout(timer);
          timer = setTimeout(onStateChange, debounceMs);
        }
      });
    return () => {
      clearTimeout(timer);
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
