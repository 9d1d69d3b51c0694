/**
 * What a slot already holds, for the planner, Search and a pick by hand: a slot a sound file owns
 * takes no download, and a chapter partly on disk is filled in only by the source of its parts.
 */
import { labelEquals } from "./labels.ts";
import type { DegradedFile, PlannedDownload, PlanOffer, WantedSlot } from "./wanted.ts";

/**
 * Whether a source may fill in the missing parts of a chapter partly on disk: the parts on disk came
 * from it (same source and scanlator), or from no known source. Parts of two sources may cut or
 * repeat pages, so any other source brings the whole chapter.
 */
export function fillsIn(slot: WantedSlot, mappingId: number, scanlator: string | null): boolean {
  const from = slot.partsFrom;
  return !from || (from.mappingId === mappingId && from.scanlator === scanlator);
}

/**
 * The downloads of a chapter partly on disk that another source delivers whole replace the part
 * files on disk together: retired only once every new part is published (a replacement group).
 */
export function partsReplacement(
  slot: WantedSlot,
  pick: readonly PlanOffer[],
): Pick<PlannedDownload, "replacesFileId" | "replacementGroup" | "replacesFileIds"> {
  const from = slot.partsFrom;
  const first = pick[0];
  if (!from || !first || from.fileIds.length === 0 || fillsIn(slot, first.mappingId, first.scanlator)) return {};
  const ids = [...from.fileIds].sort((a, b) => a - b);
  return {
    replacesFileId: ids[0]!,
    replacementGroup: `${slot.kind}:${slot.number}#${ids.join(",")}`,
    replacesFileIds: ids,
  };
}

/**
 * A slot a sound file owns takes no download, neither from Search nor picked by hand: another copy
 * of what the library holds is a duplicate, never an improvement. A slot whose file was judged
 * degraded still may (its replacement), and so may a split chapter with parts missing (not owned).
 */
export function ownedSound(slot: WantedSlot, degradedFiles: readonly DegradedFile[] = []): boolean {
  return slot.owned && !degradedFiles.some((f) => f.slot.kind === slot.kind && labelEquals(f.slot.number, slot.number));
}
