/**
 * Live translation progress: the `translationProgress` subscription, newest event per job. Call
 * during component initialisation; it stops with the component. `onStateChange` runs (debounced)
 * when an event brings a new state, so the list refetches the job's public status and error.
 */
import { getClient } from "../graphql";
import { TRANSLATION_PROGRESS, type TranslationProgressEvent } from "./queries";

export interface LiveTranslations {
  readonly events: ReadonlyMap<string, TranslationProgressEvent>;
  readonly error: unknown;
}

export function liveTranslations(seriesId: () => number | null, onStateChange: () => void, debounceMs = 300): LiveTranslations {
  let events = $state(new Map<string, TranslationProgressEvent>());
  let error = $state<unknown>(null);

  $effect(() => {
    const id = seriesId();
    if (id === null) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const { unsubscribe } = getClient()
      .subscription(TRANSLATION_PROGRESS, { seriesId: id })
      .subscribe((result) => {
        if (result.error) error = result.error;
        const ev = result.data?.translationProgress;
        if (!ev) return;
        error = null;
        const before = events.get(ev.jobId);
        const next = new Map(events);
        next.set(ev.jobId, ev);
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
