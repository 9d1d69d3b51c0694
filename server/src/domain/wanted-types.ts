/**
 * The Wanted pass's facts and answers (wanted.ts plans with them): the slots, offers and mappings a
 * pass reads, the downloads it queues, its ledger and the back-off's figures.
 */
import type { Label } from "./labels.ts";
import type { ResumableReplacement } from "./replacement-groups.ts";
import type { Coverage } from "./types.ts";

export const WANTED_REASONS = [
  "queued",
  "already_queued",
  "no_offer",
  "only_other_languages",
  "all_offers_blocked",
  "parts_incomplete",
  "limit_reached",
  "backing_off",
  // A slot only a source created, that no source lists any more (kept: history is not rewritten).
  "no_longer_listed",
  // Recovery of a degraded library file (the slot is owned, so these never mean "wanted").
  "replacing",
  "no_other_source",
] as const;
export type WantedReason = (typeof WANTED_REASONS)[number];

export const DEFAULT_MAX_DOWNLOADS = 10;
export const BACKOFF_BASE_MS = 60 * 60 * 1000;
export const BACKOFF_CAP_MS = 24 * 60 * 60 * 1000;

export interface WantedSlot {
  kind: "chapter" | "book";
  number: Label;
  /** From the coverage index (ChapterState/BookState `wanted`): the one definition of wanted. */
  wanted: boolean;
  monitored: boolean;
  owned: boolean;
  coverage: Coverage | null;
  /** Parts of a split chapter (1 = whole); books: 1. */
  parts: number;
  /** Parts already on disk (a chapter partly on disk is not owned). */
  partsOnDisk: number[];
  /** Only a source created it and no source lists it any more. */
  unlisted?: boolean;
  /**
   * A chapter partly on disk whose part files all came from one source's downloads: only that source
   * fills in the missing parts; another brings every part and replaces these files (`partsReplacement`).
   */
  partsFrom?: { mappingId: number; scanlator: string | null; fileIds: number[] };
}

export interface PlanOffer {
  mappingId: number;
  kind: "chapter" | "volume";
  chapter: Label | null;
  volume: Label | null;
  part: number | null;
  language: string;
  scanlator: string | null;
  externalId: string;
  /** The release's name as its source lists it (display only; nothing decides on it). */
  title?: string | null;
  pageCount: number | null;
  /** Upload time in ms since the epoch; null = unknown (ranks last). */
  uploadedAt: number | null;
}

export interface PlanMapping {
  id: number;
  /** Higher = preferred (as the sources list orders mappings and providers). */
  priority: number;
  /** Recent degraded and failed downloads from this mapping. */
  degraded: number;
  failed: number;
}

/** A download of the series that is not finished (queued, waiting, fetching, judging, publishing). */
export interface PlanActive {
  kind: "chapter" | "volume";
  chapter: Label | null;
  volume: Label | null;
  part: number | null;
  /** The download's id (absent for a torrent's book in flight). */
  downloadId?: number;
}

/** A degraded download: its release is blocked, its mapping is not asked again for that slot. */
export interface PlanDegraded {
  mappingId: number;
  externalId: string;
  kind: "chapter" | "volume";
  chapter: Label | null;
  volume: Label | null;
}

/**
 * An owned file judged degraded: recovery replaces it from another source. A part of a split chapter
 * is replaced like the whole chapter: every part from ONE other source, and all the old parts
 * (`siblingFileIds`) retired only once every new part is published.
 */
export interface DegradedFile {
  fileId: number;
  slot: WantedSlot;
  /** The active files of the same chapter's parts (this one included); empty for a whole file. */
  siblingFileIds?: number[];
  /** The mapping that delivered it (null: scanned, unknown). */
  mappingId: number | null;
  /** A replacement download is already live. */
  replacing: boolean;
  /**
   * An unfinished replacement of this chapter: when its source is picked again, only the parts it
   * has not published are queued, into the same group (`replacement-groups.ts`).
   */
  resume?: ResumableReplacement | null;
}

/** A release the operator blocked: never chosen again; its source still may deliver the slot. */
export interface PlanBlocked {
  mappingId: number;
  externalId: string;
}

export interface PlanInput {
  slots: WantedSlot[];
  offers: PlanOffer[];
  mappings: PlanMapping[];
  degraded: PlanDegraded[];
  /** Releases the operator blocked (none when absent). */
  blocked?: PlanBlocked[];
  /**
   * Releases whose download failed lately (none when absent): chosen after the other releases in
   * their language, so a source that keeps serving a broken chapter does not hold the slot while
   * another source offers it; still chosen when nothing else is.
   */
  failed?: PlanBlocked[];
  active: PlanActive[];
  /** Preferred languages in order; the series language first. */
  languages: string[];
  maxDownloads: number;
  backoff: { emptyPasses: number; nextPassAt: number | null };
  now: number;
  /** An operator's run: ignores the back-off. */
  force?: boolean;
  degradedFiles?: DegradedFile[];
}

export interface PlannedDownload {
  slot: { kind: "chapter" | "book"; number: Label };
  /** Recovery: the degraded file this replaces (retired only once the replacement is published). */
  replacesFileId?: number;
  /**
   * Recovery of a split chapter (or of parts by a whole release): the downloads sharing this key
   * replace `replacesFileIds` together, retired once every one of them is published.
   */
  replacementGroup?: string;
  replacesFileIds?: number[];
  mappingId: number;
  externalId: string;
  kind: "chapter" | "volume";
  chapter: Label | null;
  volume: Label | null;
  part: number | null;
  language: string;
  scanlator: string | null;
  pageCount: number | null;
}

export interface LedgerDetail {
  /** Offers of the slot in any language. */
  offers: number;
  /** Offers in a preferred language. */
  usable: number;
  blocked: number;
  languages: string[];
  candidate?: { mappingId: number; externalId: string; scanlator: string | null; language: string };
  /** Parts queued or missing from the best incomplete candidate. */
  parts?: number[];
  nextPassAt?: string;
  /** Recovery entries: the degraded file being replaced. */
  replacesFileId?: number;
}

export interface LedgerEntry {
  kind: "chapter" | "book";
  number: Label;
  reason: WantedReason;
  detail: LedgerDetail;
}

export interface PlanOutput {
  downloads: PlannedDownload[];
  ledger: LedgerEntry[];
  backoff: { emptyPasses: number; nextPassAt: number | null };
}

/** Whether the pass looks for the slot: the coverage index decided it (see the module comment). */
