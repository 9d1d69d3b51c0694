/**
 * The Wanted pass's planning (docs/rules.md, "Coverage"): which monitored slots are wanted, which
 * offered release fills each one, and why a slot stays wanted. Pure: the service loads the facts.
 *
 * Rules, each one a decision:
 * - Which slots are wanted is not decided here: each slot carries `wanted` from the coverage index
 *   (coverage.ts `chapterWanted`/`bookWanted`), the one definition the map dry run and the units view
 *   read too (covered, held, on disk, unmonitored, and in a books-form series chapters without an
 *   explicit assignment to a wanted book are never wanted). Estimates never reach this module (the
 *   slots carry no estimate), so an estimate cannot make anything wanted or unwanted.
 * - Chapter slots take chapter offers of the same exact number; book slots take volume offers.
 * - Only the preferred languages count (the series language first); a slot offered only in other
 *   languages is `only_other_languages` (the translation fallback's business, not a download).
 * - A candidate is one source mapping + one scanlator. A split chapter comes whole from ONE candidate:
 *   it must offer every part 1..n (n = the slot's parts or the highest part any source offers); the parts not
 *   on disk are queued together, and a chapter no candidate offers completely waits (`parts_incomplete`).
 * - A degraded download blocks its (mapping, externalId) for good, and the mapping that delivered it is
 *   not asked again for that slot: the replacement comes from ANOTHER source.
 * - A release the operator blocked (`blocked`: a download cancelled with "block") is never chosen
 *   again; other releases of the same source still are (another scanlator, a re-upload).
 * - Ranking: preferred-language order, then releases whose download failed lately last (`failed`), then
 *   priority (higher first: the provider's, then the mapping's, as the sources list orders them), then health (degraded × 2 + failed, recent), then newest upload, then ids (stable).
 * - At most `maxDownloads` rows per pass; a split chapter's parts are never split by the limit. Slots
 *   whose pick was never tried go first (reading order), then retries of releases that failed lately
 *   (any part of a split chapter), so chapters that keep failing never hold the rest back.
 * - Back-off, per series: a pass where something is wanted but nothing is queued, in flight or held back
 *   by the limit grows the back-off (1 h × 2^n, n = earlier empty passes, capped at 24 h); so does a pass
 *   that only queues again releases whose download failed lately and holds back only such retries (a
 *   failing source is retried at the back-off's pace). Any other queued or in-flight download, or nothing
 *   wanted, resets it. While backing off (and not forced) nothing is queued and the wanted slots say
 *   `backing_off`.
 */
import { compareLabels, labelEquals, type Label } from "./labels.ts";
import { fillsIn, partsReplacement } from "./slot-holdings.ts";
import {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  type DegradedFile,
  type LedgerDetail,
  type LedgerEntry,
  type PlanActive,
  type PlanBlocked,
  type PlanInput,
  type PlanMapping,
  type PlannedDownload,
  type PlanOffer,
  type PlanOutput,
  type WantedReason,
  type WantedSlot,
} from "./wanted-types.ts";

export * from "./wanted-types.ts";

export function isWanted(s: WantedSlot): boolean {
  return s.wanted;
}

/** The back-off after `emptyPasses` earlier empty passes: 1 h, 2 h, 4 h … capped at 24 h. */
export function backoffDelay(emptyPasses: number): number {
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(Math.max(0, emptyPasses), 16));
}

const sameLabel = (a: Label | null, b: Label): boolean => a !== null && labelEquals(a, b);

/** A release as a key: its source mapping and the source's id of it. */
const releaseKey = (r: { mappingId: number; externalId: string }) => `${r.mappingId}\u0000${r.externalId}`;

/** Whether a release's download failed lately (`PlanInput.failed`). */
function failedLately(failed: readonly PlanBlocked[] = []): (r: { mappingId: number; externalId: string }) => boolean {
  const keys = new Set(failed.map(releaseKey));
  return (r) => keys.has(releaseKey(r));
}

function offersOf(slot: WantedSlot, offers: readonly PlanOffer[]): PlanOffer[] {
  return slot.kind === "chapter"
    ? offers.filter((o) => o.kind === "chapter" && sameLabel(o.chapter, slot.number))
    : offers.filter((o) => o.kind === "volume" && sameLabel(o.volume, slot.number));
}

/** The downloads of the slot under way (every part of a split chapter). */
export function activeOf(slot: Pick<WantedSlot, "kind" | "number">, active: readonly PlanActive[]): PlanActive[] {
  return active.filter((a) =>
    slot.kind === "chapter"
      ? a.kind === "chapter" && sameLabel(a.chapter, slot.number)
      : a.kind === "volume" && sameLabel(a.volume, slot.number),
  );
}

/** A download of the slot is under way (a pick or a search then queues nothing: it would be a second copy). */
export function activeFor(slot: Pick<WantedSlot, "kind" | "number">, active: readonly PlanActive[]): boolean {
  return activeOf(slot, active).length > 0;
}

interface Candidate {
  mappingId: number;
  scanlator: string | null;
  language: string;
  /** The offers to queue (the parts not on disk, or the whole release). */
  queue: PlanOffer[];
  /** Missing parts when incomplete; empty when complete. */
  missing: number[];
  newest: number;
}

/** One candidate per (mapping, scanlator, language): whole release, or every part of a split chapter. */
function candidatesOf(slot: WantedSlot, offers: readonly PlanOffer[]): Candidate[] {
  // Parts any source shows count: one source's "part 2" says the chapter has at least two.
  const knownParts = Math.max(slot.parts, ...offers.map((o) => o.part ?? 1));
  const groups = new Map<string, PlanOffer[]>();
  for (const o of offers) {
    const key = JSON.stringify([o.mappingId, o.scanlator, o.language]);
    groups.set(key, [...(groups.get(key) ?? []), o]);
  }
  const out: Candidate[] = [];
  for (const group of groups.values()) {
    const first = group[0]!;
    const newestOf = (xs: PlanOffer[]) => Math.max(...xs.map((o) => o.uploadedAt ?? -Infinity));
    const byNewest = (a: PlanOffer, b: PlanOffer) =>
      (b.uploadedAt ?? -Infinity) - (a.uploadedAt ?? -Infinity) || a.externalId.localeCompare(b.externalId);
    const whole = group.filter((o) => o.part === null).sort(byNewest);
    const base = { mappingId: first.mappingId, scanlator: first.scanlator, language: first.language };
    if (whole.length > 0) {
      out.push({ ...base, queue: [whole[0]!], missing: [], newest: newestOf(whole) });
      continue;
    }
    const byPart = new Map<number, PlanOffer>();
    for (const o of [...group].sort(byNewest)) if (!byPart.has(o.part!)) byPart.set(o.part!, o);
    const needed = Math.max(knownParts, ...byPart.keys());
    const onDisk = new Set(fillsIn(slot, first.mappingId, first.scanlator) ? slot.partsOnDisk : []);
    const missing: number[] = [];
    const queue: PlanOffer[] = [];
    for (let p = 1; p <= needed; p++) {
      const o = byPart.get(p);
      if (!o) missing.push(p);
      else if (!onDisk.has(p)) queue.push(o);
    }
    out.push({ ...base, queue, missing, newest: newestOf(group) });
  }
  return out;
}

function rank(
  languages: readonly string[],
  mappings: ReadonlyMap<number, PlanMapping>,
  failed: (c: Candidate) => boolean = () => false,
) {
  const health = (m: PlanMapping | undefined) => (m ? m.degraded * 2 + m.failed : 0);
  return (a: Candidate, b: Candidate): number =>
    languages.indexOf(a.language) - languages.indexOf(b.language) ||
    Number(failed(a)) - Number(failed(b)) ||
    (mappings.get(b.mappingId)?.priority ?? 0) - (mappings.get(a.mappingId)?.priority ?? 0) ||
    health(mappings.get(a.mappingId)) - health(mappings.get(b.mappingId)) ||
    (b.newest === a.newest ? 0 : b.newest > a.newest ? 1 : -1) ||
    a.mappingId - b.mappingId ||
    (a.queue[0]?.externalId ?? "").localeCompare(b.queue[0]?.externalId ?? "");
}

export interface SlotChoice {
  /** The best complete, unblocked candidate's offers to queue; null when none. */
  pick: PlanOffer[] | null;
  reason: Exclude<WantedReason, "queued" | "already_queued" | "limit_reached" | "backing_off"> | null;
  detail: LedgerDetail;
}

/**
 * The best release for one slot, or why there is none. Also used by recovery (a degraded library
 * file): `excludeMappings` are the sources that must not deliver this slot again.
 */
export function chooseForSlot(
  slot: WantedSlot,
  input: Pick<PlanInput, "offers" | "mappings" | "degraded" | "blocked" | "failed" | "languages">,
  excludeMappings: ReadonlySet<number> = new Set(),
): SlotChoice {
  const all = offersOf(slot, input.offers);
  const usable = all.filter((o) => input.languages.includes(o.language));
  const blockedKeys = new Set([...input.degraded, ...(input.blocked ?? [])].map(releaseKey));
  const degradedHere = new Set(excludeMappings);
  for (const d of input.degraded) {
    if (
      slot.kind === "chapter"
        ? d.kind === "chapter" && sameLabel(d.chapter, slot.number)
        : d.kind === "volume" && sameLabel(d.volume, slot.number)
    )
      degradedHere.add(d.mappingId);
  }
  const isBlocked = (o: PlanOffer) => blockedKeys.has(releaseKey(o)) || degradedHere.has(o.mappingId);
  const detail: LedgerDetail = {
    offers: all.length,
    usable: usable.length,
    blocked: usable.filter(isBlocked).length,
    languages: [...new Set(all.map((o) => o.language))].sort(),
  };
  if (all.length === 0) return { pick: null, reason: slot.unlisted ? "no_longer_listed" : "no_offer", detail };
  if (usable.length === 0) return { pick: null, reason: "only_other_languages", detail };
  const mappings = new Map(input.mappings.map((m) => [m.id, m]));
  const failedRelease = failedLately(input.failed);
  const failed = (c: Candidate) => c.queue.some(failedRelease);
  const candidates = candidatesOf(slot, usable).sort(rank(input.languages, mappings, failed));
  // A candidate with any blocked release is out as a whole: a split chapter comes from one source.
  const open = candidates.filter((c) => !c.queue.some(isBlocked) && !degradedHere.has(c.mappingId));
  if (open.length === 0) return { pick: null, reason: "all_offers_blocked", detail };
  const complete = open.find((c) => c.missing.length === 0 && c.queue.length > 0);
  if (!complete) {
    const best = open[0]!;
    return {
      pick: null,
      reason: "parts_incomplete",
      detail: { ...detail, parts: best.missing, candidate: candidateDetail(best) },
    };
  }
  return { pick: complete.queue, reason: null, detail: { ...detail, candidate: candidateDetail(complete) } };
}

function candidateDetail(c: Candidate): LedgerDetail["candidate"] {
  return {
    mappingId: c.mappingId,
    externalId: c.queue[0]?.externalId ?? "",
    scanlator: c.scanlator,
    language: c.language,
  };
}

const slotOrder = (a: WantedSlot, b: WantedSlot): number =>
  a.kind === b.kind ? compareLabels(a.number, b.number) : a.kind === "chapter" ? -1 : 1;

function toDownload(slot: WantedSlot, o: PlanOffer): PlannedDownload {
  return {
    slot: { kind: slot.kind, number: slot.number },
    mappingId: o.mappingId,
    externalId: o.externalId,
    kind: o.kind,
    chapter: o.chapter,
    volume: o.volume,
    part: o.part,
    language: o.language,
    scanlator: o.scanlator,
    pageCount: o.pageCount,
  };
}

/** One Wanted pass: the downloads to queue, a ledger entry per wanted slot, the next back-off. */
export function planWanted(input: PlanInput): PlanOutput {
  const wanted = input.slots.filter(isWanted).sort(slotOrder);
  const limit = Math.max(0, Math.floor(input.maxDownloads));
  const backingOff = !input.force && input.backoff.nextPassAt !== null && input.now < input.backoff.nextPassAt;
  const downloads: PlannedDownload[] = [];
  const ledger: LedgerEntry[] = [];
  let inFlight = 0;
  let heldBack = 0;
  // Picks that try again a release whose download failed lately (for a split chapter: any of its
  // parts): queued, but the pass counts as empty for the back-off, so a series whose only source
  // keeps failing is not asked every pass. Under the download limit they come after the picks that
  // were never tried, so chapters that keep failing never hold back the rest of the series.
  const failedRelease = failedLately(input.failed);
  const isRetry = (pick: readonly PlanOffer[]) => pick.some(failedRelease);
  let retries = 0;
  /** The main entries by slot, in reading order once every slot is decided. */
  const entries = new Map<WantedSlot, LedgerEntry>();
  const picks: { slot: WantedSlot; choice: SlotChoice & { pick: PlanOffer[] }; retry: boolean }[] = [];

  for (const slot of wanted) {
    if (activeFor(slot, input.active)) {
      inFlight += 1;
      entries.set(slot, {
        kind: slot.kind,
        number: slot.number,
        reason: "already_queued",
        detail: chooseForSlot(slot, input).detail,
      });
      continue;
    }
    const choice = chooseForSlot(slot, input);
    if (backingOff) {
      entries.set(slot, {
        kind: slot.kind,
        number: slot.number,
        reason: "backing_off",
        detail: { ...choice.detail, nextPassAt: new Date(input.backoff.nextPassAt!).toISOString() },
      });
      continue;
    }
    if (choice.pick === null) {
      entries.set(slot, { kind: slot.kind, number: slot.number, reason: choice.reason!, detail: choice.detail });
      continue;
    }
    picks.push({ slot, choice: { ...choice, pick: choice.pick }, retry: isRetry(choice.pick) });
  }
  for (const { slot, choice, retry } of [...picks.filter((p) => !p.retry), ...picks.filter((p) => p.retry)]) {
    if (downloads.length + choice.pick.length > limit) {
      // Held back for the next pass; only a pick never tried keeps the series out of the back-off.
      if (!retry) heldBack += 1;
      entries.set(slot, { kind: slot.kind, number: slot.number, reason: "limit_reached", detail: choice.detail });
      continue;
    }
    const replacing = partsReplacement(slot, choice.pick);
    downloads.push(...choice.pick.map((o) => ({ ...toDownload(slot, o), ...replacing })));
    if (retry) retries += choice.pick.length;
    const parts = choice.pick.map((o) => o.part).filter((p): p is number => p !== null);
    entries.set(slot, {
      kind: slot.kind,
      number: slot.number,
      reason: "queued",
      detail: parts.length > 0 ? { ...choice.detail, parts } : choice.detail,
    });
  }
  for (const slot of wanted) {
    const e = entries.get(slot);
    if (e) ledger.push(e);
  }

  // Recovery after the wanted slots, within the same limit: a degraded file is still readable. The
  // degraded files of one slot (the parts of a split chapter) are replaced together.
  const bySlot = new Map<string, DegradedFile[]>();
  for (const f of input.degradedFiles ?? []) {
    const key = `${f.slot.kind}:${f.slot.number}`;
    bySlot.set(key, [...(bySlot.get(key) ?? []), f]);
  }
  for (const [key, files] of bySlot) {
    const f = files[0]!;
    const replaces = [...new Set(files.flatMap((x) => [x.fileId, ...(x.siblingFileIds ?? [])]))].sort((a, b) => a - b);
    const entry = (reason: WantedReason, detail: LedgerDetail): LedgerEntry => ({
      kind: f.slot.kind,
      number: f.slot.number,
      reason,
      detail: { ...detail, replacesFileId: f.fileId },
    });
    const excluded = new Set(files.flatMap((x) => (x.mappingId === null ? [] : [x.mappingId])));
    // An unfinished replacement's source fills in only the parts it has not published; any other
    // source brings every part and replaces those too.
    const resume = files.find((x) => x.resume)?.resume ?? null;
    const slot: WantedSlot = resume
      ? {
          ...f.slot,
          partsOnDisk: resume.parts,
          partsFrom: { mappingId: resume.mappingId, scanlator: resume.scanlator, fileIds: [] },
        }
      : { ...f.slot, partsOnDisk: [] };
    const choice = chooseForSlot(slot, input, excluded);
    if (files.some((x) => x.replacing)) ledger.push(entry("replacing", choice.detail));
    else if (choice.pick === null) ledger.push(entry("no_other_source", choice.detail));
    else if (backingOff) ledger.push(entry("backing_off", choice.detail));
    else if (downloads.length + choice.pick.length > limit) ledger.push(entry("limit_reached", choice.detail));
    else {
      // A replacement that tries again a release whose download failed lately counts as a retry
      // for the back-off too: a replacement that keeps failing is not asked for every pass.
      if (isRetry(choice.pick)) retries += choice.pick.length;
      const first = choice.pick[0]!;
      // A whole release from that source is not a part of the group: it replaces the new parts too.
      const resumed =
        resume !== null && fillsIn(slot, first.mappingId, first.scanlator) && choice.pick.every((o) => o.part !== null);
      const grouped = choice.pick.length > 1 || replaces.length > 1;
      const group = resumed
        ? { replacementGroup: resume.group, replacesFileIds: resume.replacesFileIds }
        : grouped
          ? { replacementGroup: `${key}#${replaces.join(",")}`, replacesFileIds: replaces }
          : {};
      for (const o of choice.pick) downloads.push({ ...toDownload(f.slot, o), replacesFileId: f.fileId, ...group });
      ledger.push(entry("replacing", choice.detail));
    }
  }

  let backoff = input.backoff;
  if (!backingOff) {
    const obtainable = downloads.length > retries || inFlight > 0 || heldBack > 0;
    // Nothing sought: no wanted slot and no replacement tried again.
    const nothingSought = wanted.length === 0 && retries === 0;
    backoff =
      nothingSought || obtainable
        ? { emptyPasses: 0, nextPassAt: null }
        : {
            emptyPasses: input.backoff.emptyPasses + 1,
            nextPassAt: input.now + backoffDelay(input.backoff.emptyPasses),
          };
  }
  return { downloads, ledger, backoff };
}

/**
 * Whether a plan queues a release that has not failed lately for some slot: a pick (every part of a
 * split chapter, or a replacement group) none of whose releases is in `failed`. After a download
 * fails for good, the pass is brought forward only when it would try another release; a plan that
 * could only try the failed ones again waits for the scheduled pass, so a failing source is never
 * asked at once, and the parts a split replacement already has are not fetched again and again.
 */
export function queuesUntried(plan: Pick<PlanOutput, "downloads">, failed: readonly PlanBlocked[]): boolean {
  const failedRelease = failedLately(failed);
  const picks = new Map<string, PlannedDownload[]>();
  for (const d of plan.downloads) {
    const key = d.replacementGroup ?? `${d.slot.kind}:${d.slot.number}`;
    picks.set(key, [...(picks.get(key) ?? []), d]);
  }
  return [...picks.values()].some((pick) => !pick.some(failedRelease));
}
