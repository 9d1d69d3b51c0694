/** Live download progress: the `downloadEvents` subscription, newest event per download. */
import { liveEvents, type LiveEvents } from "../live-events.svelte";
import type { LiveEvent } from "./download-words";
import { DOWNLOAD_EVENTS } from "./queries";

export type LiveDownloads = LiveEvents<number, LiveEvent>;

export function liveDownloads(
  seriesId: () => number | null | undefined,
  onStateChange: () => void,
  debounceMs = 300,
): LiveDownloads {
  return liveEvents(
    DOWNLOAD_EVENTS,
    () => {
      const id = seriesId();
      return id === null ? null : { seriesId: id ?? null };
    },
    (d) => d.downloadEvents,
    (ev) => ev.downloadId,
    onStateChange,
    debounceMs,
  );
}
