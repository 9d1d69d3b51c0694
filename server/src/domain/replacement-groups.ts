/**
 * Replacement groups: the parts of a split chapter that one other source delivers to replace the
 * chapter's part files together (see `wanted.ts`, recovery). The old files are retired only once
 * the group is complete; a group whose part failed is resumed by that source later, its published
 * parts kept, so they are never fetched (and published) a second time.
 */
import { LIVE_JOB_STATES } from "./download-jobs.ts";
import { labelEquals, type Label } from "./labels.ts";

/** A download of a replacement group, as the store holds it. */
export interface GroupMember {
  id: number;
  state: string;
  part: number | null;
}

/**
 * Complete when the latest download of every part is published: a part that failed and was
 * fetched again by a later download of the same group counts by that later one.
 */
export function replacementGroupComplete(members: readonly GroupMember[]): boolean {
  if (members.length === 0) return false;
  const latest = new Map<number | null, GroupMember>();
  for (const m of members) {
    const seen = latest.get(m.part);
    if (!seen || m.id > seen.id) latest.set(m.part, m);
  }
  return [...latest.values()].every((m) => m.state === "published");
}

export interface GroupDownload extends GroupMember {
  kind: string;
  chapter: string | null;
  sourceMappingId: number | null;
  scanlator: string | null;
  fileId: number | null;
  replacementGroup: string | null;
  replacesFileIds: string | null;
}

/** An unfinished replacement of a chapter that its source may fill in (`DegradedFile.resume`). */
export interface ResumableReplacement {
  group: string;
  replacesFileIds: number[];
  mappingId: number;
  scanlator: string | null;
  /** Parts whose latest download is published and whose file is still active. */
  parts: number[];
}

function fileIdsOf(text: string | null): number[] {
  try {
    const ids: unknown = JSON.parse(text ?? "[]");
    return Array.isArray(ids) ? ids.filter((x): x is number => typeof x === "number") : [];
  } catch {
    return [];
  }
}

/**
 * The latest unfinished replacement group of chapter `number`: none of its downloads under way,
 * every one from one source (and scanlator), at least one part published with its file active.
 * Null when there is none: a replacement then brings every part again.
 */
export function resumableReplacement(
  number: Label,
  downloads: readonly GroupDownload[],
  activeFileIds: ReadonlySet<number>,
): ResumableReplacement | null {
  const groups = new Map<string, GroupDownload[]>();
  for (const d of downloads) {
    if (d.replacementGroup === null || d.kind === "volume" || d.part === null) continue;
    if (d.chapter === null || !labelEquals(d.chapter, number)) continue;
    groups.set(d.replacementGroup, [...(groups.get(d.replacementGroup) ?? []), d]);
  }
  let best: (ResumableReplacement & { newest: number }) | null = null;
  for (const [group, members] of groups) {
    const first = members[0]!;
    if (first.sourceMappingId === null) continue;
    if (members.some((m) => m.sourceMappingId !== first.sourceMappingId || m.scanlator !== first.scanlator)) continue;
    if (members.some((m) => (LIVE_JOB_STATES as readonly string[]).includes(m.state))) continue;
    if (replacementGroupComplete(members)) continue;
    const latest = new Map<number, GroupDownload>();
    for (const m of members) if ((latest.get(m.part!)?.id ?? -1) < m.id) latest.set(m.part!, m);
    const parts = [...latest.entries()]
      .filter(([, m]) => m.state === "published" && m.fileId !== null && activeFileIds.has(m.fileId))
      .map(([p]) => p)
      .sort((a, b) => a - b);
    if (parts.length === 0) continue;
    const newest = Math.max(...members.map((m) => m.id));
    if (best && best.newest > newest) continue;
    best = {
      group,
      replacesFileIds: fileIdsOf(first.replacesFileIds),
      mappingId: first.sourceMappingId,
      scanlator: first.scanlator,
      parts,
      newest,
    };
  }
  if (!best) return null;
  const { newest: _newest, ...out } = best;
  return out;
}
