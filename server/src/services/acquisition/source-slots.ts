/**
 * What a series has from its sources (domain/source-numbering.ts): the offers of its active,
 * non-rejected mappings are reconciled across sources and become slots — chapter slots for chapter
 * offers in the series' languages, volume slots for volume offers — with the series' monitored flag
 * (extras unmonitored: fetched on request). Run after every refresh (link, manual, scheduled) and at
 * the start of every Wanted pass, so units, the series page, the library counts and the pass all see
 * the same slots. The caller publishes one `series_changed` for the whole change.
 */
import type { Label } from "../../domain/labels.ts";
import { parseLabel } from "../../domain/labels.ts";
import {
  reconcileSourceNumbering,
  slotChanges,
  type Reconciled,
  type SourceRelease,
} from "../../domain/source-numbering.ts";
import type { KeyedLock } from "../../library/keyed-lock.ts";
import { sourceSlotRepo } from "../../repositories/source-slot-repo.ts";
import type { AppContext } from "../context.ts";
import { DOWNLOAD_LANGUAGES_KEY, getSetting } from "./source-settings.ts";

export { DOWNLOAD_LANGUAGES_KEY } from "./source-settings.ts";

export interface SlotSync {
  added: number;
  raised: number;
  unlisted: number;
  relisted: number;
  /** Source extras whose release now reads as another chapter, removed (nothing held them). */
  retired: number;
}

export type PlacedOffer = SourceRelease & {
  scanlator: string | null;
  pageCount: number | null;
  uploadedAt: Date | null;
  providerId: number;
  /** False when the provider row is disabled (its offers count for numbering, not for fetching). */
  providerEnabled: boolean;
};

const locks = new WeakMap<AppContext, KeyedLock>();
const lockOf = (ctx: AppContext) => {
  let l = locks.get(ctx);
  if (!l) locks.set(ctx, (l = ctx.cluster.keyedLock("source-slots")));
  return l;
};

/** The series language first, then the operator's extra download languages (a damaged setting adds none). */
export async function downloadLanguages(ctx: Pick<AppContext, "db">, seriesLanguage: string): Promise<string[]> {
  const extra = await getSetting<unknown>(ctx, DOWNLOAD_LANGUAGES_KEY, []);
  const list = Array.isArray(extra) ? extra.filter((x): x is string => typeof x === "string") : [];
  return [...new Set([seriesLanguage, ...list])];
}

const lab = (v: string | null): Label | null => (v === null ? null : parseLabel(v));

/** The active offers of a series, placed by the reconciliation. */
export async function reconciledOffers(
  ctx: AppContext,
  seriesId: number,
  languages: readonly string[],
): Promise<Reconciled<PlacedOffer>> {
  const offers = await sourceSlotRepo(ctx.db).activeOffers(seriesId);
  return reconcileSourceNumbering(
    offers.map((o) => ({
      mappingId: o.sourceMappingId,
      providerId: o.sourceMapping.providerId,
      providerEnabled: o.sourceMapping.provider.enabled,
      externalId: o.externalId,
      kind: o.kind === "volume" ? ("volume" as const) : ("chapter" as const),
      chapter: lab(o.chapter),
      volume: lab(o.volume),
      part: o.part,
      language: o.language,
      overridden: o.overridden,
      title: o.title,
      scanlator: o.scanlator,
      pageCount: o.pageCount,
      uploadedAt: o.uploadedAt,
    })),
    languages,
  );
}

/** Brings the series' slots in line with what its sources list now (never removes one). */
export async function syncSourceSlots(ctx: AppContext, seriesId: number): Promise<SlotSync> {
  return lockOf(ctx).run([`source-slots:${seriesId}`], async () => {
    const series = await ctx.repos.series.get(seriesId);
    if (!series) return { added: 0, raised: 0, unlisted: 0, relisted: 0, retired: 0 };
    const repo = sourceSlotRepo(ctx.db);
    const languages = await downloadLanguages(ctx, series.language);
    const listed = await reconciledOffers(ctx, seriesId, languages);
    const changes = slotChanges(await repo.existing(seriesId), listed, await repo.holds(seriesId));
    await repo.apply(seriesId, changes, series.monitored, new Date());
    const out = {
      added: changes.addChapters.length + changes.addVolumes.length,
      raised: changes.raiseChapters.length,
      unlisted: changes.markUnlisted.length,
      relisted: changes.clearUnlisted.length,
      retired: changes.retireChapters.length,
    };
    if (slotSyncChanged(out))
      ctx.log(
        `series ${seriesId}: slots from sources: ${out.added} new, ${out.raised} learnt parts or extras, ${out.unlisted} no longer listed, ${out.relisted} listed again, ${out.retired} extras read as another chapter`,
      );
    return out;
  });
}

export const slotSyncChanged = (s: SlotSync) => s.added + s.raised + s.unlisted + s.relisted + s.retired > 0;
