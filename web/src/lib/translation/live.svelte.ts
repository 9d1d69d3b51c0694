/** Live translation progress: the `translationProgress` subscription, newest event per job. */
import { liveEvents, type LiveEvents } from "../live-events.svelte";
import { TRANSLATION_PROGRESS, type TranslationProgressEvent } from "./queries";

export type LiveTranslations = LiveEvents<string, TranslationProgressEvent>;

export function liveTranslations(
  seriesId: () => number | null,
  onStateChange: () => void,
  debounceMs = 300,
): LiveTranslations {
  return liveEvents(
    TRANSLATION_PROGRESS,
    () => {
      const id = seriesId();
      return id === null ? null : { seriesId: id };
    },
    (d) => d.translationProgress,
    (ev) => ev.jobId,
    onStateChange,
    debounceMs,
  );
}
