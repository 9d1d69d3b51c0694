/**
 * Downloads in words: states, verdict reasons, what a row is, and the merge of live progress
 * events into the listed rows. Pure; an unknown value (a newer server) is shown as it came.
 */
import type { ResultOf } from "$lib/gql";
import type { DOWNLOAD_EVENTS, Download } from "./queries";

export type DownloadState =
  "QUEUED" | "FETCHING" | "JUDGING" | "PUBLISHING" | "PUBLISHED" | "DEGRADED" | "FAILED" | "WAITING" | "CANCELLED";
export type Tone = "good" | "info" | "warn" | "bad" | "";

const STATES: Record<DownloadState, { label: string; tone: Tone }> = {
  QUEUED: { label: "Queued", tone: "" },
  WAITING: { label: "Waiting to retry", tone: "warn" },
  FETCHING: { label: "Fetching pages", tone: "info" },
  JUDGING: { label: "Checking content", tone: "info" },
  PUBLISHING: { label: "Publishing", tone: "info" },
  PUBLISHED: { label: "Published", tone: "good" },
  DEGRADED: { label: "Degraded", tone: "bad" },
  FAILED: { label: "Failed", tone: "bad" },
  CANCELLED: { label: "Cancelled", tone: "" },
};

export function stateWords(state: string): { label: string; tone: Tone } {
  return Object.hasOwn(STATES, state) ? STATES[state as DownloadState] : { label: state.toLowerCase(), tone: "" };
}

/** Still under way (listed under "Under way"). */
export function isActive(state: string): boolean {
  return (
    state === "QUEUED" || state === "WAITING" || state === "FETCHING" || state === "JUDGING" || state === "PUBLISHING"
  );
}

/** A download's verdict; a reason this client does not know (a newer server) is worded as it came. */
export type VerdictFacts = Omit<NonNullable<Download["verdict"]>, "reasons"> & { reasons: readonly string[] };

const pct = (share: number) => `${Math.round(share * 1000) / 10} %`;

/** What the series' own page shape was measured on, as the verdict says; null when it does not say. */
function seriesBasis(source: string | null | undefined, aspect: number | null | undefined): string | null {
  if (aspect === null || aspect === undefined) return null;
  const a = aspect.toFixed(2);
  if (source === "SERIES") return `the series' earlier downloads measure ${a}`;
  if (source === "FILES") return `the series' files on disk measure ${a}`;
  if (source === "NOMINAL") return `nothing of the series is measured yet, so a printed page's ${a} counts`;
  return null;
}

/** Why the content check failed, one sentence per reason. */
export function verdictSentences(v: VerdictFacts): string[] {
  return v.reasons.map((reason) => {
    if (reason === "BLACK_CARDS") {
      return `${v.figures.blackCards} of ${v.figures.pages} pages are black cards (${pct(v.figures.blackShare)}, more than the ${pct(v.figures.maxBlackShare)} allowed).`;
    }
    if (reason === "STRIP_SLICES") {
      const f = v.figures;
      const figures: string[] = [];
      if (f.medianAspect !== null) figures.push(`median height/width ${f.medianAspect.toFixed(2)}`);
      if (f.medianAspect !== null && f.stripThreshold !== null)
        figures.push(`strips from ${f.stripThreshold.toFixed(2)}`);
      const basis = seriesBasis(f.seriesAspectSource, f.seriesMedianAspect);
      const aside = figures.length > 0 ? ` (${figures.join(", ")}${basis ? `; ${basis}` : ""})` : "";
      return `The pages are slices of a long strip in a series that reads in pages${aside}. If the series is a webtoon, mark it as one (Edit series… on its page): its strips are then fetched again.`;
    }
    return `Failed the content check (${reason.toLowerCase().replace(/_/g, " ")}).`;
  });
}

/** "Chapter 12.5", "Chapter 36 part 2", "Book 3". */
export function downloadSubject(d: {
  kind: string;
  chapter: string | null;
  volume: string | null;
  part: number | null;
}): string {
  const base = d.kind === "VOLUME" ? `Book ${d.volume ?? "?"}` : `Chapter ${d.chapter ?? "?"}`;
  return d.part !== null ? `${base} part ${d.part}` : base;
}

/** "12 of 30 pages", "30 pages", or null while the total is unknown and nothing is done. */
export function pagesWords(done: number, total: number | null): string | null {
  if (total === null) return done > 0 ? `${done} pages` : null;
  return done >= total ? `${total} pages` : `${done} of ${total} pages`;
}

/** A live progress event (GraphQL `downloadEvents`), as far as a listed row needs it. */
export type LiveEvent = Omit<ResultOf<typeof DOWNLOAD_EVENTS>["downloadEvents"], "seriesId" | "state"> & {
  state: string;
};

/** A listed row with the newest live event for it applied (events older than the row's answer never win). */
export function withEvent<
  T extends { id: number; state: string; pagesDone: number; pagesTotal: number | null; error: string | null },
>(row: T, event: LiveEvent | undefined): T {
  if (!event || event.downloadId !== row.id) return row;
  return {
    ...row,
    state: event.state,
    pagesDone: event.pagesDone,
    pagesTotal: event.pagesTotal ?? row.pagesTotal,
    error: event.error ?? row.error,
  };
}
