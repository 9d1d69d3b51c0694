/**
 * Reader settings remembered per series in localStorage: reading mode and direction. Without a
 * remembered choice: webtoons scroll (continuous, top to bottom), manga read page by page from
 * right to left.
 */
import type { Direction, Mode } from "./nav";

export interface ReaderSettings {
  mode: Mode;
  direction: Direction;
}

export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export function defaultSettings(webtoon: boolean): ReaderSettings {
  return webtoon ? { mode: "continuous", direction: "ltr" } : { mode: "paged", direction: "rtl" };
}

export function settingsKey(seriesId: number): string {
  return `reader:series:${seriesId}`;
}

/** The remembered settings, anything unreadable falling back to the defaults. */
export function loadSettings(store: KeyValueStore | null, seriesId: number, webtoon: boolean): ReaderSettings {
  const fallback = defaultSettings(webtoon);
  let raw: string | null;
  try {
    raw = store?.getItem(settingsKey(seriesId)) ?? null;
  } catch {
    return fallback;
  }
  if (!raw) return fallback;
  try {
    const v = JSON.parse(raw) as Partial<Record<keyof ReaderSettings, unknown>>;
    return {
      mode: v.mode === "paged" || v.mode === "continuous" ? v.mode : fallback.mode,
      direction: v.direction === "rtl" || v.direction === "ltr" ? v.direction : fallback.direction,
    };
  } catch {
    return fallback;
  }
}

export function saveSettings(store: KeyValueStore | null, seriesId: number, settings: ReaderSettings): void {
  try {
    store?.setItem(settingsKey(seriesId), JSON.stringify(settings));
  } catch {
    /* storage full or disabled: the choice lasts for this visit only */
  }
}
