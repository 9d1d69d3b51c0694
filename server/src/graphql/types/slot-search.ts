/** GraphQL of the series page's Search and Interactive search: the same service as REST (rest-slot-search.ts). */
import type { SlotOfferView, SlotOffersView } from "../../services/acquisition/slot-search-service.ts";
import { builder } from "../builder.ts";

const VerdictEnum = builder.enumType("OfferVerdict", {
  values: {
    CHOSEN: { value: "chosen" },
    RANKED_LOWER: { value: "ranked_lower" },
    OTHER_LANGUAGE: { value: "other_language" },
    BLOCKED_DEGRADED: { value: "blocked_degraded" },
    BLOCKED_BY_OPERATOR: { value: "blocked_by_operator", description: "The operator blocked this release." },
    SOURCE_FAILED_HERE: { value: "source_failed_here" },
    PARTS_INCOMPLETE: { value: "parts_incomplete" },
    PROVIDER_UNAVAILABLE: { value: "provider_unavailable" },
  } as const,
});

const OfferRef = builder.objectRef<SlotOfferView>("SlotOffer").implement({
  description: "One offer for a slot, and why the Wanted planner would or would not choose it.",
  fields: (t) => ({
    mappingId: t.exposeInt("mappingId"),
    provider: t.exposeString("provider"),
    providerName: t.exposeString("providerName"),
    externalId: t.exposeString("externalId"),
    title: t.string({
      nullable: true,
      description: "The release's name as its source lists it (names an unnumbered release).",
      resolve: (o) => o.title,
    }),
    label: t.exposeString("label", {
      description: 'The release in words: "Chapter 12 part 2", "Book 3", an unnumbered release by its name.',
    }),
    chapter: t.string({ nullable: true, resolve: (o) => o.chapter }),
    volume: t.string({ nullable: true, resolve: (o) => o.volume }),
    part: t.int({ nullable: true, resolve: (o) => o.part }),
    language: t.exposeString("language"),
    scanlator: t.string({ nullable: true, resolve: (o) => o.scanlator }),
    pageCount: t.int({ nullable: true, resolve: (o) => o.pageCount }),
    uploadedAt: t.string({ nullable: true, resolve: (o) => o.uploadedAt?.toISOString() ?? null }),
    health: t.exposeString("health", { description: "The source's health: unknown, ok, degraded or failing." }),
    verdict: t.field({ type: VerdictEnum, resolve: (o) => o.verdict }),
    why: t.exposeString("why"),
  }),
});

const OffersRef = builder.objectRef<SlotOffersView>("SlotOffers").implement({
  fields: (t) => ({
    seriesId: t.exposeInt("seriesId"),
    kind: t.exposeString("kind"),
    number: t.exposeString("number"),
    reason: t.string({
      nullable: true,
      description: "Why nothing would be chosen (a Wanted reason code, or owned: the slot is owned).",
      resolve: (v) => v.reason,
    }),
    offers: t.field({ type: [OfferRef], resolve: (v) => v.offers }),
  }),
});

const QueuedRef = builder.objectRef<{ downloadIds: number[]; reason?: string | null }>("SlotDownloads").implement({
  fields: (t) => ({
    downloadIds: t.exposeIntList("downloadIds"),
    reason: t.string({ nullable: true, resolve: (v) => v.reason ?? null }),
  }),
});

builder.queryField("slotOffers", (t) =>
  t.field({
    type: OffersRef,
    description: "Interactive search: every offer for one slot (kind chapter or book).",
    args: {
      seriesId: t.arg.int({ required: true }),
      kind: t.arg.string({ required: true }),
      number: t.arg.string({ required: true }),
    },
    resolve: (_r, a, { services }) => services.slotSearch.offers(a.seriesId, a.kind, a.number),
  }),
);

builder.mutationFields((t) => ({
  downloadOffer: t.field({
    type: QueuedRef,
    description: "Queues the offer picked by hand (a split part with the other parts of its source).",
    args: {
      seriesId: t.arg.int({ required: true }),
      kind: t.arg.string({ required: true }),
      number: t.arg.string({ required: true }),
      mappingId: t.arg.int({ required: true }),
      externalId: t.arg.string({ required: true }),
    },
    resolve: (_r, a, { services }) =>
      services.slotSearch.download(a.seriesId, a.kind, a.number, { mappingId: a.mappingId, externalId: a.externalId }),
  }),
  searchSlot: t.field({
    type: QueuedRef,
    description: "Search: the linked sources refreshed, then the best release of the slot queued (extras too).",
    args: {
      seriesId: t.arg.int({ required: true }),
      kind: t.arg.string({ required: true }),
      number: t.arg.string({ required: true }),
    },
    resolve: (_r, a, { services }) => services.slotSearch.search(a.seriesId, a.kind, a.number),
  }),
}));
