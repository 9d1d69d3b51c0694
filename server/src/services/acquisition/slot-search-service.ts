/**
 * The series page's row actions on a slot: Search (a search across the linked sources for that slot:
 * their chapter lists refreshed, then the best release queued — also for an extra or an unmonitored
 * slot, since the operator asked), and Interactive search (every offer for the slot with its language,
 * scanlator, source health and why it would or would not be chosen; the operator picks one by hand).
 * The choice and its reasons are the Wanted planner's (domain/wanted.ts chooseForSlot).
 */
import { rowTitle } from "../../domain/grouping.ts";
import { labelEquals, parseLabel, type Label } from "../../domain/labels.ts";
import { fillsIn, ownedSound, partsReplacement } from "../../domain/slot-holdings.ts";
import {
  activeFor,
  chooseForSlot,
  type PlanOffer,
  type PlannedDownload,
  type WantedSlot,
} from "../../domain/wanted.ts";
import { AppError } from "../../errors.ts";
import type { AppContext } from "../context.ts";
import type { SourcesService } from "./sources-service.ts";
import type { WantedService } from "./wanted-service.ts";

export type OfferVerdict =
  | "chosen"
  | "ranked_lower"
  | "other_language"
  | "blocked_degraded"
  | "blocked_by_operator"
  | "source_failed_here"
  | "parts_incomplete"
  | "provider_unavailable";

/** The offer the operator picked: its mapping and the source's id of the release (both required). */
export interface OfferPickInput {
  mappingId: number;
  externalId: string;
}

export interface SlotOfferView {
  mappingId: number;
  provider: string;
  providerName: string;
  externalId: string;
  /** The release's name as its source lists it; null when it has none. */
  title: string | null;
  /** The release in words: "Chapter 12 part 2", "Book 3", or an unnumbered release by its name. */
  label: string;
  chapter: string | null;
  volume: string | null;
  part: number | null;
  language: string;
  scanlator: string | null;
  pageCount: number | null;
  uploadedAt: Date | null;
  health: string;
  verdict: OfferVerdict;
  /** The verdict in words. */
  why: string;
}

export interface SlotOffersView {
  seriesId: number;
  kind: "chapter" | "book";
  number: string;
  /** The planner's reason when nothing would be chosen (no_offer, only_other_languages, …), else null. */
  reason: string | null;
  offers: SlotOfferView[];
}

const WHY: Record<OfferVerdict, string> = {
  chosen: "Would be chosen: preferred language, source priority and health, newest upload.",
  ranked_lower: "Another offer ranks higher (language order, source priority, health, then the newest upload).",
  other_language: "Not in one of the series' languages.",
  blocked_degraded: "This release came out degraded before.",
  blocked_by_operator: "You blocked this release (Downloads, Blocked releases lifts it).",
  source_failed_here: "This source delivered this slot degraded before: another source is asked.",
  parts_incomplete: "A split chapter: this source does not offer every part.",
  provider_unavailable: "The source is disabled or not configured.",
};

const OWNED_WHY = "Ranks first, but the slot is owned: nothing is fetched for it.";

function asKind(v: string): "chapter" | "book" {
  if (v === "chapter" || v === "book") return v;
  throw new AppError("invalid_field", 'kind must be "chapter" or "book"', { field: "kind" });
}

function asNumber(v: string): Label {
  const l = parseLabel(v);
  if (l === null)
    throw new AppError("invalid_label", `not an exact decimal number: ${JSON.stringify(v.slice(0, 40))}`, {
      field: "number",
    });
  return l;
}

/** An offer in words, the way the series page names its slot (domain/grouping.ts `rowTitle`). */
export function offerLabel(o: Pick<PlanOffer, "kind" | "chapter" | "volume" | "part" | "title">): string {
  const base =
    o.kind === "volume" || o.chapter === null
      ? `Book ${o.volume ?? "?"}`
      : rowTitle({ kind: "chapter", number: o.chapter, title: o.title ?? null });
  return o.part !== null ? `${base} part ${o.part}` : base;
}

export function slotSearchService(ctx: AppContext, wanted: WantedService, sources: SourcesService) {
  async function slotOf(seriesId: number, kind: "chapter" | "book", number: Label) {
    const input = await wanted.planFacts(seriesId);
    const slot: WantedSlot =
      input.slots.find((s) => s.kind === kind && labelEquals(s.number, number)) ??
      (() => {
        throw new AppError("not_found", `series ${seriesId} has no ${kind} ${number}`);
      })();
    return { input, slot };
  }

  const offerOf = (kind: "chapter" | "book", number: Label) => (o: PlanOffer) =>
    kind === "chapter"
      ? o.kind === "chapter" && o.chapter !== null && labelEquals(o.chapter, number)
      : o.kind === "volume" && o.volume !== null && labelEquals(o.volume, number);

  return {
    async offers(seriesId: number, kindText: string, numberText: string): Promise<SlotOffersView> {
      const kind = asKind(kindText);
      const number = asNumber(numberText);
      const { input, slot } = await slotOf(seriesId, kind, number);
      const mine = input.offers.filter(offerOf(kind, number));
      const choice = chooseForSlot({ ...slot, partsOnDisk: [] }, input);
      const picked = new Set((choice.pick ?? []).map((o) => `${o.mappingId}:${o.externalId}`));
      const blocked = new Set(input.degraded.map((d) => `${d.mappingId}:${d.externalId}`));
      const blockedByOperator = new Set((input.blocked ?? []).map((d) => `${d.mappingId}:${d.externalId}`));
      const failedHere = new Set(
        input.degraded
          .filter((d) =>
            kind === "chapter"
              ? d.chapter !== null && labelEquals(d.chapter, number)
              : d.volume !== null && labelEquals(d.volume, number),
          )
          .map((d) => d.mappingId),
      );
      const views = new Map((await sources.list(seriesId)).map((m) => [m.id, m]));
      const verdictOf = (o: PlanOffer): OfferVerdict => {
        if (!views.get(o.mappingId)?.available) return "provider_unavailable";
        if (!input.languages.includes(o.language)) return "other_language";
        if (blocked.has(`${o.mappingId}:${o.externalId}`)) return "blocked_degraded";
        if (blockedByOperator.has(`${o.mappingId}:${o.externalId}`)) return "blocked_by_operator";
        if (failedHere.has(o.mappingId)) return "source_failed_here";
        if (picked.has(`${o.mappingId}:${o.externalId}`)) return "chosen";
        if (choice.reason === "parts_incomplete" && o.part !== null) return "parts_incomplete";
        return "ranked_lower";
      };
      const order: OfferVerdict[] = [
        "chosen",
        "ranked_lower",
        "parts_incomplete",
        "source_failed_here",
        "blocked_degraded",
        "blocked_by_operator",
        "other_language",
        "provider_unavailable",
      ];
      const out = mine.map((o) => {
        const m = views.get(o.mappingId);
        const verdict = verdictOf(o);
        return {
          mappingId: o.mappingId,
          provider: m?.provider ?? "",
          providerName: m?.displayName ?? "",
          externalId: o.externalId,
          title: o.title ?? null,
          label: offerLabel(o),
          chapter: o.chapter,
          volume: o.volume,
          part: o.part,
          language: o.language,
          scanlator: o.scanlator,
          pageCount: o.pageCount,
          uploadedAt: o.uploadedAt === null ? null : new Date(o.uploadedAt),
          health: m?.health.status ?? "unknown",
          verdict,
          why: WHY[verdict],
        };
      });
      out.sort(
        (a, b) =>
          order.indexOf(a.verdict) - order.indexOf(b.verdict) ||
          a.mappingId - b.mappingId ||
          (a.part ?? 0) - (b.part ?? 0),
      );
      // Owned by a sound file: the ranking stands, but nothing is fetched for the slot.
      if (ownedSound(slot, input.degradedFiles)) {
        for (const o of out) if (o.verdict === "chosen") o.why = OWNED_WHY;
        return { seriesId, kind, number, reason: "owned", offers: out };
      }
      return { seriesId, kind, number, reason: choice.pick ? null : choice.reason, offers: out };
    },

    /** Queues the offer the operator picked (a split part comes with every part of its source and scanlator). */
    async download(
      seriesId: number,
      kindText: string,
      numberText: string,
      pick: OfferPickInput,
    ): Promise<{ downloadIds: number[] }> {
      const kind = asKind(kindText);
      const number = asNumber(numberText);
      const { mappingId, externalId } = pick;
      if (!Number.isInteger(mappingId) || !externalId)
        throw new AppError("invalid_field", "mapping_id and external_id name the offer to fetch", {
          field: "external_id",
        });
      const { input, slot } = await slotOf(seriesId, kind, number);
      if (ownedSound(slot, input.degradedFiles))
        throw new AppError("slot_owned", `${kind} ${number} is owned: another copy would be a duplicate`, {
          kind,
          number,
        });
      if (activeFor(slot, input.active))
        throw new AppError(
          "slot_download_active",
          `a download of ${kind} ${number} is under way: cancel it to fetch another release`,
          { kind, number },
        );
      const mine = input.offers.filter(offerOf(kind, number));
      const offer = mine.find((x) => x.mappingId === mappingId && x.externalId === externalId);
      if (!offer)
        throw new AppError("not_found", `no offer ${externalId} of mapping ${mappingId} for ${kind} ${number}`);
      const batch =
        offer.part === null
          ? [offer]
          : mine.filter(
              (x) =>
                x.mappingId === offer.mappingId &&
                x.scanlator === offer.scanlator &&
                x.part !== null &&
                !(fillsIn(slot, x.mappingId, x.scanlator) && slot.partsOnDisk.includes(x.part)),
            );
      // From another source than the parts on disk: every part, replacing those files together.
      const replacing = partsReplacement(slot, batch);
      const planned: PlannedDownload[] = batch.map((x) => ({
        slot: { kind, number },
        mappingId: x.mappingId,
        externalId: x.externalId,
        kind: x.kind,
        chapter: x.chapter,
        volume: x.volume,
        part: x.part,
        language: x.language,
        scanlator: x.scanlator,
        pageCount: x.pageCount,
        ...replacing,
      }));
      return { downloadIds: await wanted.queueByHand(seriesId, planned) };
    },

    /** Search: the linked sources' lists refreshed, then the best release of this slot queued (on request: extras too). */
    async search(
      seriesId: number,
      kindText: string,
      numberText: string,
    ): Promise<{ downloadIds: number[]; reason: string | null }> {
      const kind = asKind(kindText);
      const number = asNumber(numberText);
      await sources.refreshForPass(seriesId);
      const { input, slot } = await slotOf(seriesId, kind, number);
      if (ownedSound(slot, input.degradedFiles)) return { downloadIds: [], reason: "owned" };
      if (activeFor(slot, input.active)) return { downloadIds: [], reason: "already_queued" };
      const choice = chooseForSlot({ ...slot, monitored: true }, input);
      if (!choice.pick) return { downloadIds: [], reason: choice.reason };
      const first = choice.pick[0]!;
      return {
        ...(await this.download(seriesId, kind, number, { mappingId: first.mappingId, externalId: first.externalId })),
        reason: null,
      };
    },
  };
}

export type SlotSearchService = ReturnType<typeof slotSearchService>;
