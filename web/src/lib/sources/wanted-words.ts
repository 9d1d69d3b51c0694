/**
 * "Why is this still wanted?" in words: the Wanted ledger's reason codes as sentences, and the
 * entry's details as short facts. Pure; an unknown code (a newer server) is shown as it came.
 */
import type { Schema } from "$lib/gql";
import type { WantedDetail } from "./queries";

export type WantedReason = Schema<"WantedReason">;
export type WantedDownloads = Schema<"WantedDownloads">;

export type Tone = "good" | "info" | "warn" | "bad" | "";

interface ReasonWords {
  label: string;
  sentence: string;
  tone: Tone;
}

export const WANTED_REASONS: Record<WantedReason, ReasonWords> = {
  QUEUED: { label: "Queued", sentence: "A download was queued by the last Wanted pass.", tone: "info" },
  ALREADY_QUEUED: { label: "Downloading", sentence: "A download of it is already under way.", tone: "info" },
  REPLACING: {
    label: "Replacing",
    sentence: "The file on disk failed the content check; a replacement from another source is queued.",
    tone: "info",
  },
  LIMIT_REACHED: {
    label: "Next pass",
    sentence:
      "A source offers it; this pass reached its download limit, so the next pass queues it once this series' downloads end.",
    tone: "",
  },
  NO_OFFER: {
    label: "No source",
    sentence: "No linked source offers it. Link another source, or refresh the linked ones.",
    tone: "warn",
  },
  NO_LONGER_LISTED: {
    label: "No longer listed",
    sentence: "A source listed it once; no linked source lists it any more. The slot stays; link another source.",
    tone: "warn",
  },
  ONLY_OTHER_LANGUAGES: {
    label: "Other languages only",
    sentence: "Sources offer it only in languages you did not choose for this series.",
    tone: "warn",
  },
  ALL_OFFERS_BLOCKED: {
    label: "Blocked",
    sentence:
      "Every offer is blocked: each came out degraded before, its source delivered it degraded, or you blocked it (the Downloads page lists your blocks and lifts them).",
    tone: "bad",
  },
  PARTS_INCOMPLETE: {
    label: "Parts missing",
    sentence: "It is split in parts and no source offers every part.",
    tone: "warn",
  },
  BACKING_OFF: {
    label: "Waiting",
    sentence: "Nothing was obtainable for this series, so the scheduled pass waits before trying again.",
    tone: "",
  },
  NO_OTHER_SOURCE: {
    label: "Kept degraded",
    sentence: "The file on disk failed the content check and no other source offers it, so it stays.",
    tone: "bad",
  },
};

/** Reasons only a slot's Search or Interactive search gives (the Wanted pass never plans an owned slot). */
const SLOT_REASONS: Record<string, ReasonWords> = {
  OWNED: { label: "Owned", sentence: "The library holds it already: nothing is fetched for it.", tone: "good" },
};

function wordsOf(code: string): ReasonWords | null {
  if (Object.hasOwn(WANTED_REASONS, code)) return WANTED_REASONS[code as WantedReason];
  return Object.hasOwn(SLOT_REASONS, code) ? SLOT_REASONS[code]! : null;
}

/**
 * An entry's downloads ended since the pass that wrote it: that outcome is said instead of the pass's
 * reason (a chapter fetched since must not read "Queued"). Under way, the reason stands.
 */
const ENDED: Record<Exclude<WantedDownloads, "UNDER_WAY">, ReasonWords> = {
  PUBLISHED: {
    label: "Fetched",
    sentence: "Downloaded since the last Wanted pass; the next pass takes it off this list.",
    tone: "good",
  },
  FAILED: {
    label: "Download failed",
    sentence:
      "Its download ended without a file (failed, cancelled or judged degraded); the next Wanted pass decides again. The Downloads page says why.",
    tone: "warn",
  },
};

type LedgerEntryWords = { reason: string; downloads?: WantedDownloads | null };

function entryWords(e: LedgerEntryWords): ReasonWords | null {
  return e.downloads === "PUBLISHED" || e.downloads === "FAILED" ? ENDED[e.downloads] : wordsOf(e.reason);
}

/** The label of a ledger entry: what became of its downloads once they ended, else its reason. */
export function entryLabel(e: LedgerEntryWords): string {
  return entryWords(e)?.label ?? reasonLabel(e.reason);
}

export function entrySentence(e: LedgerEntryWords): string {
  return entryWords(e)?.sentence ?? reasonSentence(e.reason);
}

export function entryTone(e: LedgerEntryWords): Tone {
  return entryWords(e)?.tone ?? "";
}

export function reasonLabel(code: string): string {
  return wordsOf(code)?.label ?? code.toLowerCase().replace(/_/g, " ");
}

export function reasonSentence(code: string): string {
  return wordsOf(code)?.sentence ?? `Still wanted (${code.toLowerCase().replace(/_/g, " ")}).`;
}

export function reasonTone(code: string): Tone {
  return wordsOf(code)?.tone ?? "";
}

/** "Chapter 12.5", "Book 3". */
export function slotLabel(kind: string, number: string): string {
  const k = kind.toLowerCase();
  return `${k === "book" || k === "volume" ? "Book" : "Chapter"} ${number}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export type DetailFacts = Pick<
  WantedDetail,
  | "offers"
  | "usable"
  | "blocked"
  | "languages"
  | "parts"
  | "nextPassAt"
  | "replacesFileId"
  | "bookChannelOutcome"
  | "downloadIds"
>;

/** The entry's details as short facts, most telling first. `when` formats an ISO time. */
export function detailFacts(d: DetailFacts, when: (iso: string) => string = (iso) => iso): string[] {
  const facts: string[] = [];
  facts.push(d.offers === 0 ? "no offers" : `${plural(d.offers, "offer")}, ${d.usable} in a chosen language`);
  if (d.blocked > 0) facts.push(`${d.blocked} blocked`);
  if (d.languages.length > 0) facts.push(`offered in ${d.languages.join(", ")}`);
  if (d.parts && d.parts.length > 0) facts.push(`parts offered: ${d.parts.join(", ")}`);
  if (d.replacesFileId !== null) facts.push(`replaces file #${d.replacesFileId}`);
  if (d.downloadIds && d.downloadIds.length > 0)
    facts.push(`download ${d.downloadIds.map((id) => `#${id}`).join(", ")}`);
  if (d.bookChannelOutcome) facts.push(`torrent search: ${d.bookChannelOutcome.replace(/_/g, " ")}`);
  if (d.nextPassAt) facts.push(`next try ${when(d.nextPassAt)}`);
  return facts;
}

/** A summary line over the ledger; slots fetched since the pass are no longer counted as wanted. */
export function ledgerSummary(all: LedgerEntryWords[]): string {
  const entries = all.filter((e) => e.downloads !== "PUBLISHED");
  const fetched = all.length - entries.length;
  const since = fetched > 0 ? ` ${plural(fetched, "slot")} fetched since the last pass.` : "";
  if (entries.length === 0)
    return fetched > 0
      ? `Nothing else is wanted:${since}`
      : "Nothing is wanted: every monitored book and chapter is on disk or covered.";
  const active = entries.filter(
    (e) =>
      e.downloads !== "FAILED" && (e.reason === "QUEUED" || e.reason === "ALREADY_QUEUED" || e.reason === "REPLACING"),
  ).length;
  const stuck = entries.length - active;
  return `${plural(entries.length, "slot")} wanted: ${active} on the way, ${stuck} waiting for a source.${since}`;
}

/** The Wanted page's filters: which reasons each one asks the server for (null: all of them). */
export const WANTED_FILTERS: { key: string; label: string; reasons: WantedReason[] | null }[] = [
  { key: "all", label: "All", reasons: null },
  {
    key: "needs-source",
    label: "Needs a source",
    reasons: [
      "NO_OFFER",
      "NO_LONGER_LISTED",
      "ONLY_OTHER_LANGUAGES",
      "PARTS_INCOMPLETE",
      "ALL_OFFERS_BLOCKED",
      "NO_OTHER_SOURCE",
    ],
  },
  { key: "on-the-way", label: "On the way", reasons: ["QUEUED", "ALREADY_QUEUED", "REPLACING", "LIMIT_REACHED"] },
  { key: "waiting", label: "Waiting", reasons: ["BACKING_OFF"] },
];

/** Entries of the library's list, one group per series in the order given. */
export function bySeries<T extends { seriesId: number; seriesTitle: string }>(
  rows: readonly T[],
): { seriesId: number; title: string; rows: T[] }[] {
  const groups: { seriesId: number; title: string; rows: T[] }[] = [];
  for (const r of rows) {
    const last = groups.at(-1);
    if (last && last.seriesId === r.seriesId) last.rows.push(r);
    else groups.push({ seriesId: r.seriesId, title: r.seriesTitle, rows: [r] });
  }
  return groups;
}

/** What the scheduled pass over every series did, in words (the Wanted page's run). */
export function monitorRunMessage(o: { series: number; queued: number; failed: number } | null): string {
  if (!o) return "The Wanted pass ran.";
  const queued = o.queued === 0 ? "nothing new was queued" : `${plural(o.queued, "download")} queued`;
  const failed = o.failed > 0 ? `; it failed for ${plural(o.failed, "series", "series")} (see the service's log)` : "";
  return `The Wanted pass ran for ${plural(o.series, "series", "series")}: ${queued}${failed}.`;
}
