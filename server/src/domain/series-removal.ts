/**
 * Removing a series (docs/rules.md, "Removing a series"): only the library's record of it goes;
 * nothing on disk is touched. It is allowed only when the library holds no active file of the
 * series (every file row is `missing` or `recycled`) and nothing is under way for it, so that no
 * file the service knows in the library, and no work that would still write one, loses its series.
 */
import { LIVE_JOB_STATES } from "./download-jobs.ts";
import { WORKING_STATES } from "./translation-jobs.ts";

/** File states that no longer stand for a file in the library. */
export const GONE_FILE_STATES: readonly string[] = ["missing", "recycled"];
/** Torrent jobs still on their way into the library (or waiting for the operator to assign a file). */
export const TORRENT_STATES_UNDER_WAY: readonly string[] = [
  "added",
  "downloading",
  "completed",
  "importing",
  "awaiting_assignment",
];

/** What the library holds of the series, as loaded in the transaction that removes it. */
export interface SeriesRemovalFacts {
  /** The state of every library file row of the series. */
  fileStates: readonly string[];
  downloadStates: readonly string[];
  torrentStates: readonly string[];
  translationStates: readonly string[];
  /** Publication journal entries (publish, retire, restore) not yet ended that name the series. */
  pendingPublications: number;
}

/** What is under way for a series, by kind (only kinds with something under way are present). */
export interface SeriesBusy {
  downloads?: number;
  torrentJobs?: number;
  translationJobs?: number;
  publications?: number;
}

export type SeriesRemovalDecision =
  | { ok: true }
  | { ok: false; code: "series_has_files"; activeFiles: number }
  | { ok: false; code: "series_busy"; busy: SeriesBusy };

const countIn = (states: readonly string[], set: readonly string[]) => states.filter((s) => set.includes(s)).length;

export function decideSeriesRemoval(facts: SeriesRemovalFacts): SeriesRemovalDecision {
  const activeFiles = facts.fileStates.filter((s) => !GONE_FILE_STATES.includes(s)).length;
  if (activeFiles > 0) return { ok: false, code: "series_has_files", activeFiles };
  const counts: SeriesBusy = {
    downloads: countIn(facts.downloadStates, LIVE_JOB_STATES),
    torrentJobs: countIn(facts.torrentStates, TORRENT_STATES_UNDER_WAY),
    translationJobs: countIn(facts.translationStates, WORKING_STATES),
    publications: facts.pendingPublications,
  };
  const busy = Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0)) as SeriesBusy;
  if (Object.keys(busy).length > 0) return { ok: false, code: "series_busy", busy };
  return { ok: true };
}
