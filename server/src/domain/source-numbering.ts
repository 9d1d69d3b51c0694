/**
 * What a series has from its sources: the numbering the linked sources list, reconciled across
 * sources before it creates any slot. Pure: the service loads the offers of the active mappings
 * (numbering overrides already applied) and writes what this decides.
 *
 * Rules, in the order they apply to one chapter release of source S numbered n:
 * 1. A release an override renumbered is taken as stated (never reinterpreted below).
 * 2. A part stated by the release itself ("Ch.10 part 2") is that part of chapter n.
 * 3. A whole n ≥ 1 is main chapter n. Chapter 0 is an extra.
 * 4. A decimal n = N.x:
 *    a. S lists N itself: n is an extra (a side chapter of a source that has the main one).
 *    b. S lists N.1 … N.k (k ≥ 2, one digit, contiguous from .1) and not N: n is part x of chapter N.
 *    c. another source splits N that way and x is one digit: n is part x of chapter N.
 *    d. n is S's only decimal of N and another source lists N: n is chapter N (the same chapter).
 *    e. otherwise n is an extra.
 * 5. An unnumbered release (−1, a one-shot or an extra the source did not number) is an extra of its
 *    own: it is placed under the label unnumberedLabel(source, release id), stable for as long as
 *    the source lists that release, so each unnumbered release makes exactly one extra slot (never
 *    counted, fetched only on request) and two of them never merge.
 * 6. A volume release (a number only for the volume) is volume n.
 *
 * One release per (source, number): several releases of one number in one source (another
 * scanlator, a re-upload) are alternatives of ONE release — they never count as parts, and a
 * number's decimals are looked at once per source.
 *
 * Slots: only releases in the series' languages create them (others stay offers for the translation
 * fallback). A main chapter slot's parts are the most parts any source splits it into. Extras (0,
 * decimals) are marked extra and created unmonitored: never counted, fetched only on request.
 *
 * Unlisted: a slot that only a source created, that no source lists any more and that nothing else
 * holds (no file, no map entry, no download) is kept and marked unlisted, so the ledger can say so;
 * a listed slot loses the mark. An extra a decimal made while it looked like a side chapter, whose
 * release now reads as (part of) another chapter because another source or another part arrived,
 * was never a chapter of the work: when nothing holds it, it is retired (its monitored flag holds
 * nothing: the Wanted pass never takes an extra).
 */
import { compareLabels, isWhole, labelEquals, parseLabel, wholePart, type Label } from "./labels.ts";

export interface SourceRelease {
  mappingId: number;
  externalId: string;
  kind: "chapter" | "volume";
  chapter: Label | null;
  volume: Label | null;
  part: number | null;
  language: string;
  /** A numbering override gave this release its numbers. */
  overridden?: boolean;
  /** The release's name as the source lists it (names an unnumbered release). */
  title?: string | null;
}

export type PlacementReason =
  | "main"
  | "stated_part"
  | "split_part"
  | "split_elsewhere"
  | "same_chapter"
  | "extra_decimal"
  | "chapter_zero"
  | "override"
  | "volume"
  | "unnumbered";

export type Placement =
  | { kind: "chapter"; number: Label; part: number | null; extra: boolean; reason: PlacementReason }
  | { kind: "volume"; number: Label; reason: "volume" }
  | { kind: "unplaced"; reason: "unnumbered_volume" };

export interface SlotClaim {
  number: Label;
  parts: number;
  extra: boolean;
  /** An unnumbered release's name, the only thing that tells a person which release it is. */
  title?: string | null;
}

export interface Reconciled<T extends SourceRelease> {
  /** Same order as the input. */
  releases: (T & { placement: Placement })[];
  /** Chapter slots the releases in the series' languages call for, by number. */
  chapters: SlotClaim[];
  /** Volume slots, by number. */
  volumes: Label[];
  /** Numbers of releases in the series' languages now read as (part of) another chapter (4.5 → 4). */
  reinterpreted: Label[];
}

/**
 * The label of an unnumbered chapter release of source `mappingId` with release id `externalId`:
 * "0.0000" then ten digits of the FNV-1a hash of both, then "1" (so the canonical form keeps every
 * digit). Chapter 0's own decimals never reach four zeros, so the label is no real chapter's; it
 * sorts with the extras right after chapter 0, and a downloaded file's name reads back to it.
 */
export function unnumberedLabel(mappingId: number, externalId: string): Label {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(`${mappingId}:${externalId}`)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `0.0000${String(h).padStart(10, "0")}1` as Label;
}

/** Is this the label of an unnumbered release (see unnumberedLabel)? */
export function isUnnumberedLabel(l: Label): boolean {
  return /^0\.0000\d{10}1$/.test(l);
}

/** The decimal digits of a label ("10.25" → "25"; "10" → ""). */
function fraction(l: Label): string {
  const dot = l.indexOf(".");
  return dot < 0 ? "" : l.slice(dot + 1);
}

/** x of N.x when it is one digit 1..9, else null. */
function digit(l: Label): number | null {
  const f = fraction(l);
  return /^[1-9]$/.test(f) ? Number(f) : null;
}

interface SourceShape {
  /** Whole numbers the source lists (whole releases and stated parts alike). */
  wholes: Set<string>;
  /** Per whole N: the decimals of N the source lists (one entry per distinct number). */
  decimals: Map<string, Set<string>>;
  /** Per whole N: k when the source lists N.1 … N.k (k ≥ 2) and not N. */
  splits: Map<string, number>;
}

function shapeOf(releases: readonly SourceRelease[]): SourceShape {
  const wholes = new Set<string>();
  const decimals = new Map<string, Set<string>>();
  for (const r of releases) {
    if (r.kind !== "chapter" || r.chapter === null || r.overridden) continue;
    if (isWhole(r.chapter)) wholes.add(r.chapter);
    else if (r.part === null) {
      const n = wholePart(r.chapter);
      const set = decimals.get(n) ?? new Set<string>();
      set.add(r.chapter);
      decimals.set(n, set);
    }
  }
  const splits = new Map<string, number>();
  for (const [n, set] of decimals) {
    if (wholes.has(n)) continue;
    const digits = new Set([...set].map((d) => digit(d as Label)).filter((x): x is number => x !== null));
    let k = 0;
    while (digits.has(k + 1)) k += 1;
    if (k >= 2) splits.set(n, k);
  }
  return { wholes, decimals, splits };
}

function place(r: SourceRelease, own: SourceShape, others: readonly SourceShape[]): Placement {
  if (r.kind === "volume") {
    return r.volume === null
      ? { kind: "unplaced", reason: "unnumbered_volume" }
      : { kind: "volume", number: r.volume, reason: "volume" };
  }
  const n = r.chapter;
  if (n === null)
    return {
      kind: "chapter",
      number: unnumberedLabel(r.mappingId, r.externalId),
      part: null,
      extra: true,
      reason: "unnumbered",
    };
  const extraNumber = n === "0" || !isWhole(n);
  if (r.overridden) return { kind: "chapter", number: n, part: r.part, extra: extraNumber, reason: "override" };
  if (r.part !== null) return { kind: "chapter", number: n, part: r.part, extra: extraNumber, reason: "stated_part" };
  if (isWhole(n)) {
    return n === "0"
      ? { kind: "chapter", number: n, part: null, extra: true, reason: "chapter_zero" }
      : { kind: "chapter", number: n, part: null, extra: false, reason: "main" };
  }
  const whole = wholePart(n);
  const extra: Placement = { kind: "chapter", number: n, part: null, extra: true, reason: "extra_decimal" };
  if (own.wholes.has(whole)) return extra;
  const x = digit(n);
  const k = own.splits.get(whole);
  if (x !== null && k !== undefined && x <= k)
    return { kind: "chapter", number: whole, part: x, extra: whole === "0", reason: "split_part" };
  if (x !== null && others.some((o) => x <= (o.splits.get(whole) ?? 0)))
    return { kind: "chapter", number: whole, part: x, extra: whole === "0", reason: "split_elsewhere" };
  const lone = (own.decimals.get(whole)?.size ?? 0) === 1;
  if (lone && others.some((o) => o.wholes.has(whole)))
    return { kind: "chapter", number: whole, part: null, extra: whole === "0", reason: "same_chapter" };
  return extra;
}

/** Places every release of the series' active sources and says which slots they call for. */
export function reconcileSourceNumbering<T extends SourceRelease>(
  releases: readonly T[],
  languages: readonly string[],
): Reconciled<T> {
  const byMapping = new Map<number, T[]>();
  for (const r of releases) byMapping.set(r.mappingId, [...(byMapping.get(r.mappingId) ?? []), r]);
  const shapes = new Map([...byMapping].map(([id, rs]) => [id, shapeOf(rs)]));
  const placed = releases.map((r) => {
    const own = shapes.get(r.mappingId)!;
    const others = [...shapes].filter(([id]) => id !== r.mappingId).map(([, s]) => s);
    return { ...r, placement: place(r, own, others) };
  });

  const chapters = new Map<string, SlotClaim>();
  const volumes = new Set<Label>();
  const reinterpreted = new Set<Label>();
  for (const r of placed) {
    if (!languages.includes(r.language)) continue;
    const p = r.placement;
    if (p.kind === "volume") volumes.add(p.number);
    if (p.kind !== "chapter") continue;
    if (r.chapter !== null && !labelEquals(r.chapter, p.number)) reinterpreted.add(r.chapter);
    const prev = chapters.get(p.number);
    chapters.set(p.number, {
      number: p.number,
      parts: Math.max(prev?.parts ?? 1, p.part ?? 1),
      extra: p.extra,
      ...(p.reason === "unnumbered" ? { title: r.title ?? null } : {}),
    });
  }
  const byNumber = (a: { number: Label }, b: { number: Label }) => compareLabels(a.number, b.number);
  return {
    releases: placed,
    chapters: [...chapters.values()].sort(byNumber),
    volumes: [...volumes].sort(compareLabels),
    reinterpreted: [...reinterpreted].sort(compareLabels),
  };
}

/* ------------------------------------------------------------------------------------------ */
/* Slot changes                                                                                */
/* ------------------------------------------------------------------------------------------ */

export interface ExistingSlot {
  kind: "chapter" | "volume";
  number: Label;
  parts: number;
  extra: boolean;
  /** "source" when a source refresh created it. */
  origin: string | null;
  unlisted: boolean;
}

export interface SlotHolds {
  /** Chapter numbers an active file, an operator map entry or a download holds. */
  chapters: readonly Label[];
  /** Volume numbers likewise. */
  volumes: readonly Label[];
}

export interface SlotChanges {
  addChapters: SlotClaim[];
  addVolumes: Label[];
  /** Existing chapter slots that learn more parts or that they are extras (never the reverse). */
  raiseChapters: SlotClaim[];
  markUnlisted: { kind: "chapter" | "volume"; number: Label }[];
  clearUnlisted: { kind: "chapter" | "volume"; number: Label }[];
  /** Unheld source extras whose release now reads as another chapter (removed). */
  retireChapters: Label[];
}

/**
 * What the slots of a series must become for what its sources list now: new slots for new numbers,
 * more parts or the extra mark learnt, and the unlisted marks (history is never rewritten: no slot
 * is removed).
 */
export function slotChanges(
  existing: readonly ExistingSlot[],
  listed: Pick<Reconciled<SourceRelease>, "chapters" | "volumes"> &
    Partial<Pick<Reconciled<SourceRelease>, "reinterpreted">>,
  holds: SlotHolds,
): SlotChanges {
  const key = (kind: string, n: Label) => `${kind}:${parseLabel(n) ?? n}`;
  const have = new Map(existing.map((s) => [key(s.kind, s.number), s]));
  const out: SlotChanges = {
    addChapters: [],
    addVolumes: [],
    raiseChapters: [],
    markUnlisted: [],
    clearUnlisted: [],
    retireChapters: [],
  };
  const reread = (s: ExistingSlot) =>
    s.kind === "chapter" &&
    s.origin === "source" &&
    s.extra &&
    (listed.reinterpreted ?? []).some((n) => labelEquals(n, s.number));
  for (const c of listed.chapters) {
    const s = have.get(key("chapter", c.number));
    if (!s) out.addChapters.push(c);
    else if (c.parts > s.parts || (c.extra && !s.extra))
      out.raiseChapters.push({ number: s.number, parts: Math.max(c.parts, s.parts), extra: s.extra || c.extra });
  }
  for (const v of listed.volumes) if (!have.has(key("volume", v))) out.addVolumes.push(v);

  const listedKeys = new Set([
    ...listed.chapters.map((c) => key("chapter", c.number)),
    ...listed.volumes.map((v) => key("volume", v)),
  ]);
  const held = (s: ExistingSlot) =>
    (s.kind === "chapter" ? holds.chapters : holds.volumes).some((h) => labelEquals(h, s.number));
  for (const s of existing) {
    const k = key(s.kind, s.number);
    if (listedKeys.has(k)) {
      if (s.unlisted) out.clearUnlisted.push({ kind: s.kind, number: s.number });
    } else if (reread(s) && !held(s)) {
      out.retireChapters.push(s.number);
    } else if (s.origin === "source" && !s.unlisted && !held(s)) {
      out.markUnlisted.push({ kind: s.kind, number: s.number });
    } else if (s.unlisted && held(s)) {
      out.clearUnlisted.push({ kind: s.kind, number: s.number });
    }
  }
  return out;
}
