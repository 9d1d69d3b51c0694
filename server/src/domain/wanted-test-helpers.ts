/** Plain plan inputs for the Wanted planner's tests: slots, offers and the rest of a pass. */
import { label } from "./labels.ts";
import type { PlanInput, PlanOffer, WantedSlot, planWanted } from "./wanted.ts";

export const H = 60 * 60 * 1000;
export const NOW = Date.UTC(2026, 0, 1);

/** A slot as the coverage index hands it over: `wanted` as the index would decide it unless given. */
export const ch = (n: string, over: Partial<WantedSlot> = {}): WantedSlot => {
  const base = { monitored: true, owned: false, coverage: null, ...over };
  return {
    kind: "chapter",
    number: label(n),
    parts: 1,
    partsOnDisk: [],
    ...base,
    wanted: over.wanted ?? (base.monitored && !base.owned && base.coverage === null),
  };
};
export const book = (n: string, over: Partial<WantedSlot> = {}): WantedSlot => ({
  ...ch(n, over),
  kind: "book",
  ...over,
});
export const offer = (n: string, over: Partial<PlanOffer> = {}): PlanOffer => ({
  mappingId: 1,
  kind: "chapter",
  chapter: label(n),
  volume: null,
  part: null,
  language: "en",
  scanlator: null,
  externalId: `m${over.mappingId ?? 1}-c${n}${over.part ? `p${over.part}` : ""}${over.scanlator ? `-${over.scanlator}` : ""}`,
  pageCount: 20,
  uploadedAt: NOW - H,
  ...over,
});
export const input = (over: Partial<PlanInput> = {}): PlanInput => ({
  slots: [],
  offers: [],
  mappings: [
    { id: 1, priority: 1, degraded: 0, failed: 0 },
    { id: 2, priority: 0, degraded: 0, failed: 0 },
  ],
  degraded: [],
  active: [],
  languages: ["en"],
  maxDownloads: 10,
  backoff: { emptyPasses: 0, nextPassAt: null },
  now: NOW,
  ...over,
});
export const reasons = (out: ReturnType<typeof planWanted>) =>
  out.ledger.map((e) => `${e.kind} ${e.number}: ${e.reason}`);
