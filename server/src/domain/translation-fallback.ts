/**
 * Translation fallback planning (docs/rules.md, "Translation fallback" 2–5), called by the
 * Wanted pass AFTER the normal sources. Pure: the service loads the facts and creates the jobs.
 *
 * Decisions:
 * - Only slots the normal pass left wanted count (monitored, not owned, not covered), and only when the
 *   normal pass found nothing obtainable in a native (preferred) language: its ledger reason is
 *   `no_offer`, `only_other_languages` or `all_offers_blocked` (or `backing_off` with no usable offer),
 *   and no unblocked native-language offer exists. Anything else is `native_obtainable`.
 * - A foreign source is an offer of an ACTIVE (not rejected) mapping whose mapping language and offer
 *   language are both the source language, with the slot's exact numbering (chapter ↔ chapter offer
 *   without parts, book ↔ volume offer). Foreign offers are never download candidates (wanted.ts keeps
 *   them out); here they only become translation sources.
 * - Source languages: the series list, else the global list; `original` is the series' original
 *   language and is skipped when unknown; the destination itself and duplicates are dropped (base codes).
 *   The first language with a source wins; within it: mapping priority, newest upload, ids.
 * - Existing jobs of the target (same destination): active, paused or cancelling → `already_translating`;
 *   imported → `already_translated`; failed → `needs_retry` (a failed job needs an explicit retry);
 *   cancelled → `cancelled` (the operator's cancel is not undone by a pass; retry restarts it).
 * - At most `maxPerPass` (10) jobs per series per pass, lowest numbers first (books before chapters);
 *   the rest say `limit`. The concurrency limit (2 outstanding external jobs, 1 local) applies at
 *   submission, not here: see `submitCapacity`.
 */
import { compareLabels, labelEquals, parseLabel, type Label } from "./labels.ts";
import { baseLanguage, type TranslationState } from "./translation-jobs.ts";
import type { LedgerEntry, PlanOffer, WantedSlot } from "./wanted.ts";
import { isWanted } from "./wanted.ts";

export const MAX_QUEUED_PER_PASS = 10;
export const MAX_OUTSTANDING_EXTERNAL = 2;
export const MAX_RUNNING_LOCAL = 1;

export const FALLBACK_REASONS = [
  "queued",
  "no_foreign_source",
  "limit",
  "already_translating",
  "already_translated",
  "needs_retry",
  "cancelled",
  "native_obtainable",
  "disabled",
] as const;
export type FallbackReason = (typeof FALLBACK_REASONS)[number];

export interface FallbackMapping {
  id: number;
  language: string;
  state: string; // "active" | "rejected"
  priority: number;
}

export interface FallbackJob {
  kind: "volume" | "chapter";
  number: string;
  targetLanguage: string;
  state: TranslationState;
}

export interface FallbackInput {
  /** Global AND series toggle. */
  enabled: boolean;
  /** The series language: the destination. */
  destination: string;
  /** The normal pass's preferred languages (series language first): offers in them are native. */
  nativeLanguages: string[];
  originalLanguage: string | null;
  seriesSourceLanguages: string[];
  globalSourceLanguages: string[];
  slots: WantedSlot[];
  /** The normal pass's ledger. */
  ledger: LedgerEntry[];
  /** Every offer of the series, any language. */
  offers: PlanOffer[];
  mappings: FallbackMapping[];
  jobs: FallbackJob[];
  maxPerPass?: number;
}

export interface PlannedTranslation {
  kind: "volume" | "chapter";
  number: Label;
  sourceLanguage: string;
  sourceMappingId: number;
  externalId: string;
}

export interface FallbackEntry {
  kind: "volume" | "chapter";
  number: Label;
  reason: FallbackReason;
  sourceLanguage?: string;
}

export interface FallbackPlan {
  jobs: PlannedTranslation[];
  reasons: FallbackEntry[];
}

/** The ordered source languages (base codes) after resolving `original`. */
export function resolveSourceLanguages(
  input: Pick<FallbackInput, "seriesSourceLanguages" | "globalSourceLanguages" | "originalLanguage" | "destination">,
): string[] {
  const list = input.seriesSourceLanguages.length > 0 ? input.seriesSourceLanguages : input.globalSourceLanguages;
  const dest = baseLanguage(input.destination);
  const out: string[] = [];
  for (const raw of list) {
    const code =
      raw.trim().toLowerCase() === "original"
        ? input.originalLanguage
          ? baseLanguage(input.originalLanguage)
          : ""
        : baseLanguage(raw);
    if (code !== "" && code !== dest && !out.includes(code)) out.push(code);
  }
  return out;
}

/** How many more jobs may be submitted now: 2 outstanding external jobs, or 1 running local job. */
export function submitCapacity(engine: "external" | "local", outstanding: number): number {
  return Math.max(0, (engine === "external" ? MAX_OUTSTANDING_EXTERNAL : MAX_RUNNING_LOCAL) - Math.max(0, outstanding));
}

const ELIGIBLE = new Set<string>(["no_offer", "only_other_languages", "all_offers_blocked"]);

/**
 * Whether a native (preferred-language) release of a slot is still obtainable, as the fallback decides
 * before it translates: true unless the normal pass's ledger says nothing native can be had.
 */
export function nativeObtainable(
  entry: LedgerEntry | undefined,
  slotOffers: readonly PlanOffer[],
  native: ReadonlySet<string>,
): boolean {
  if (!entry) return true; // the normal pass did not consider it wanted: leave it alone
  const eligible = ELIGIBLE.has(entry.reason) || (entry.reason === "backing_off" && entry.detail.usable === 0);
  if (!eligible) return true;
  // A native offer the normal pass could still use (it says all native offers are blocked otherwise).
  return entry.reason !== "all_offers_blocked" && slotOffers.some((o) => native.has(baseLanguage(o.language)));
}

export function offersForSlot(slot: WantedSlot, offers: readonly PlanOffer[]): PlanOffer[] {
  const same = (l: Label | null) => l !== null && labelEquals(l, slot.number);
  return slot.kind === "chapter"
    ? offers.filter((o) => o.kind === "chapter" && same(o.chapter))
    : offers.filter((o) => o.kind === "volume" && same(o.volume));
}

function existingReason(jobs: readonly FallbackJob[]): FallbackReason | null {
  const states = new Set(jobs.map((j) => j.state));
  if ([...states].some((s) => s !== "imported" && s !== "failed" && s !== "cancelled")) return "already_translating";
  if (states.has("imported")) return "already_translated";
  if (states.has("failed")) return "needs_retry";
  if (states.has("cancelled")) return "cancelled";
  return null;
}

export function planFallback(input: FallbackInput): FallbackPlan {
  const max = Math.max(0, input.maxPerPass ?? MAX_QUEUED_PER_PASS);
  const native = new Set(input.nativeLanguages.map(baseLanguage));
  native.add(baseLanguage(input.destination));
  const languages = resolveSourceLanguages(input);
  const mappings = new Map(input.mappings.map((m) => [m.id, m]));
  const dest = baseLanguage(input.destination);
  const ledger = new Map(input.ledger.map((e) => [`${e.kind}|${e.number}`, e]));
  const seen = new Set<string>();
  const wanted = input.slots
    .filter((s) => isWanted(s) && !seen.has(`${s.kind}|${s.number}`) && seen.add(`${s.kind}|${s.number}`))
    .sort((a, b) => (a.kind === b.kind ? compareLabels(a.number, b.number) : a.kind === "book" ? -1 : 1));

  const jobs: PlannedTranslation[] = [];
  const reasons: FallbackEntry[] = [];
  for (const slot of wanted) {
    const kind = slot.kind === "book" ? "volume" : "chapter";
    const say = (reason: FallbackReason, sourceLanguage?: string) =>
      reasons.push({ kind, number: slot.number, reason, ...(sourceLanguage ? { sourceLanguage } : {}) });
    const slotOffers = offersForSlot(slot, input.offers);
    if (nativeObtainable(ledger.get(`${slot.kind}|${slot.number}`), slotOffers, native)) {
      say("native_obtainable");
      continue;
    }
    if (!input.enabled) {
      say("disabled");
      continue;
    }
    const mine = input.jobs.filter(
      (j) => j.kind === kind && parseLabel(j.number) === slot.number && baseLanguage(j.targetLanguage) === dest,
    );
    const existing = existingReason(mine);
    if (existing) {
      say(existing);
      continue;
    }
    const source = pickSource(slotOffers, languages, mappings);
    if (!source) {
      say("no_foreign_source");
      continue;
    }
    if (jobs.length >= max) {
      say("limit", source.language);
      continue;
    }
    jobs.push({
      kind,
      number: slot.number,
      sourceLanguage: source.language,
      sourceMappingId: source.offer.mappingId,
      externalId: source.offer.externalId,
    });
    say("queued", source.language);
  }
  return { jobs, reasons };
}

function pickSource(
  offers: readonly PlanOffer[],
  languages: readonly string[],
  mappings: ReadonlyMap<number, FallbackMapping>,
): { offer: PlanOffer; language: string } | null {
  for (const language of languages) {
    const usable = offers.filter((o) => {
      const m = mappings.get(o.mappingId);
      return (
        o.part === null &&
        m !== undefined &&
        m.state === "active" &&
        baseLanguage(m.language) === language &&
        baseLanguage(o.language) === language
      );
    });
    usable.sort(
      (a, b) =>
        (mappings.get(b.mappingId)?.priority ?? 0) - (mappings.get(a.mappingId)?.priority ?? 0) ||
        (b.uploadedAt ?? -Infinity) - (a.uploadedAt ?? -Infinity) ||
        a.mappingId - b.mappingId ||
        a.externalId.localeCompare(b.externalId),
    );
    const best = usable[0];
    if (best) return { offer: best, language };
  }
  return null;
}
