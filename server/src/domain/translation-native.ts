/**
 * A translation job and the native release of its slot (docs/rules.md, "Translation fallback" 5).
 * Pure: the fallback service hands in the Wanted pass's facts and applies the event this decides
 * through the job machine (translation-jobs.ts) with a guarded update.
 *
 * The slot's native situation after a pass:
 * - `obtainable`: a native release is being fetched or can be (ledger `queued`, `already_queued`,
 *   `limit_reached`, `replacing`; or a wanted slot the fallback would not translate because a native
 *   offer is still usable — the fallback planner's own test, `nativeObtainable`).
 * - `published`: a sound native file holds the slot (owned or covered, and no degraded file the
 *   pass is replacing: a recovery entry of the ledger says `no_other_source` when nothing can, which
 *   is `absent`, and anything else while it may still, which is `obtainable`).
 * - `absent`: none of that — a wanted slot with nothing native to fetch (its native download failed
 *   and was blocked, was judged degraded, or no source lists it any more), or an owned slot whose
 *   only native file is degraded and nothing replaces it.
 * - `unknown`: the pass does not speak of the slot (not monitored, or gone from the map): no move.
 *
 * Which event a job meets (precedence: a native release outranks a switched-off toggle):
 * - obtainable → `native_release` for an active job or one a toggle paused (pauses it, or takes
 *   over the pause so that switching the toggle on alone does not resume it).
 * - published → `native_release` as well: a native release that appeared is one the library holds
 *   (a download published, a scan, an import). The job stays paused, as the translation job table
 *   says; nothing cancels it by itself (the operator may). An operator's upload is left alone, and
 *   so is a job whose publication is under way (its own file may be what holds the slot).
 * - absent → `native_cleared` for a job a native release paused: it resumes where it was, or, with
 *   a toggle off, stays paused by the toggle.
 */
import { labelEquals, parseLabel } from "./labels.ts";
import { baseLanguage, isActive, type JobFacts, type TranslationEvent } from "./translation-jobs.ts";
import { nativeObtainable, offersForSlot } from "./translation-fallback.ts";
import type { LedgerEntry, PlanOffer, WantedSlot } from "./wanted.ts";

export type NativeSituation = "obtainable" | "published" | "absent" | "unknown";

/** Ledger reasons of a slot a native source delivers or is delivering. */
export const NATIVE_FETCHING: readonly string[] = ["queued", "already_queued", "limit_reached", "replacing"];

export interface NativePass {
  slots: readonly WantedSlot[];
  entries: readonly LedgerEntry[];
  offers: readonly PlanOffer[];
  /** The pass's preferred languages; the destination is always one. */
  nativeLanguages: readonly string[];
  destination: string;
}

export type JobKind = "volume" | "chapter";

/** The native situation of one slot of the pass (`kind` as translation jobs name it). */
export function nativeSituation(pass: NativePass, kind: JobKind, number: string): NativeSituation {
  const label = parseLabel(number);
  if (label === null) return "unknown";
  const slotKind = kind === "volume" ? "book" : "chapter";
  const same = (x: { kind: string; number: string }) => x.kind === slotKind && labelEquals(x.number, label);
  const entry = pass.entries.find(same);
  if (entry && NATIVE_FETCHING.includes(entry.reason)) return "obtainable";
  const slot = pass.slots.find(same);
  if (!slot) return "unknown";
  if (slot.owned || slot.coverage !== null) {
    // A degraded native file the pass tries to replace: sound only once a replacement is in.
    if (entry?.detail.replacesFileId !== undefined) return entry.reason === "no_other_source" ? "absent" : "obtainable";
    return "published";
  }
  if (!slot.wanted) return "unknown";
  // No source lists the slot any more: nothing native can be fetched for it.
  if (entry?.reason === "no_longer_listed") return "absent";
  const native = new Set(pass.nativeLanguages.map(baseLanguage));
  native.add(baseLanguage(pass.destination));
  return nativeObtainable(entry, offersForSlot(slot, pass.offers), native) ? "obtainable" : "absent";
}

/** The event a job meets for its slot's native situation (null: none). `enabled`: both toggles on. */
export function nativeEvent(
  job: Pick<JobFacts, "state" | "pausedFrom" | "pausedReason"> & { origin: string },
  situation: NativeSituation,
  enabled: boolean,
): TranslationEvent | null {
  const pausedByNative = job.state === "paused" && job.pausedReason === "native_release";
  // Pauses an active job, or takes over a toggle's pause (a native release outranks it).
  const pause: TranslationEvent | null =
    isActive(job.state) || (job.state === "paused" && !pausedByNative) ? { type: "native_release" } : null;
  switch (situation) {
    case "obtainable":
      return pause;
    case "published":
      return job.origin === "upload" || job.state === "importing" ? null : pause;
    case "absent":
      return pausedByNative ? { type: "native_cleared", enabled } : null;
    case "unknown":
      return null;
  }
}
