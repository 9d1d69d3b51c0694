/**
 * Numbering overrides (docs/rules.md, "Sources"): a reviewed correction of how a source numbers one
 * release, scoped to (source mapping, release id) AND the number the source showed when it was
 * reviewed. Applied to a provider's chapter list before anything else reads it (offers, planning,
 * book assignment).
 *
 * - Matching: an override applies to the chapter with its externalId only while the source still
 *   shows the observed number. When the source's number changed, the override is invalidated:
 *   ignored and reported (the stored row is kept for the operator to review; nothing is guessed).
 * - A correction replaces only the fields it names (chapter, volume, part); `chapter: null` makes
 *   the release unnumbered (e.g. an extra the source numbered as a main chapter).
 * - An empty correction (no field) withdraws the override: isWithdrawal().
 * - Unnumbered source chapters are observed as "" (never a label), so "" never equals "0".
 */
import { labelEquals, parseLabel, type Label } from "./labels.ts";

export interface NumberingCorrection {
  chapter?: Label | null;
  volume?: Label | null;
  part?: number | null;
}

export interface NumberingOverrideRule {
  externalId: string;
  /** The source's number when reviewed, canonical label, or "" for an unnumbered release. */
  observedNumber: string;
  correction: NumberingCorrection;
}

export interface SourceNumbering {
  externalId: string;
  number: Label | null;
  volume: Label | null;
  part: number | null;
}

export interface InvalidatedOverride {
  externalId: string;
  observedNumber: string;
  /** What the source shows now ("" when unnumbered). */
  sourceNumber: string;
}

export interface OverrideResult<T extends SourceNumbering> {
  /** Same order and length as the input; `overridden` says which were corrected. */
  chapters: (T & { overridden: boolean })[];
  /** externalIds whose override applied. */
  applied: string[];
  /** Overrides ignored because the source's number no longer matches. */
  invalidated: InvalidatedOverride[];
  /** Overrides whose release the source no longer lists (kept; it may come back). */
  unmatched: string[];
}

/** The observed-number key of a source number: its canonical label, or "" when unnumbered. */
export function observedKey(n: Label | string | null): string {
  if (n === null || n === "") return "";
  return parseLabel(n) ?? "";
}

function sameObserved(a: string, b: string): boolean {
  if (a === "" || b === "") return a === b;
  return labelEquals(a as Label, b as Label);
}

/** True when the correction names no field: it withdraws the override. */
export function isWithdrawal(c: NumberingCorrection | null | undefined): boolean {
  return c === null || c === undefined || (c.chapter === undefined && c.volume === undefined && c.part === undefined);
}

export type CorrectionParse = { ok: true; correction: NumberingCorrection } | { ok: false; error: string };

/** Validates untrusted JSON ({"chapter": "12", "part": 1}) into a correction; unknown keys are refused. */
export function parseCorrection(raw: unknown): CorrectionParse {
  if (raw === null || raw === undefined) return { ok: true, correction: {} };
  if (typeof raw !== "object" || Array.isArray(raw)) return { ok: false, error: "correction must be an object" };
  const o = raw as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => k !== "chapter" && k !== "volume" && k !== "part");
  if (extra.length > 0) return { ok: false, error: `unknown correction field ${extra[0]}` };
  const out: NumberingCorrection = {};
  for (const key of ["chapter", "volume"] as const) {
    const v = o[key];
    if (v === undefined) continue;
    if (v === null) out[key] = null;
    else if (typeof v === "string" && parseLabel(v) !== null) out[key] = parseLabel(v);
    else return { ok: false, error: `${key} must be an exact decimal string or null` };
  }
  if (o.part !== undefined) {
    const p = o.part;
    if (p === null) out.part = null;
    else if (typeof p === "number" && Number.isInteger(p) && p >= 1 && p <= 1000) out.part = p;
    else return { ok: false, error: "part must be a whole number from 1 or null" };
  }
  return { ok: true, correction: out };
}

/** Applies the overrides of one source mapping to the chapters that source lists. */
export function applyNumberingOverrides<T extends SourceNumbering>(
  chapters: readonly T[],
  overrides: readonly NumberingOverrideRule[],
): OverrideResult<T> {
  const byId = new Map<string, NumberingOverrideRule>();
  for (const o of overrides) if (!isWithdrawal(o.correction)) byId.set(o.externalId, o);
  const applied: string[] = [];
  const invalidated: InvalidatedOverride[] = [];
  const seen = new Set<string>();
  const out = chapters.map((ch) => {
    const o = byId.get(ch.externalId);
    if (!o || seen.has(ch.externalId)) return { ...ch, overridden: false };
    seen.add(ch.externalId);
    const sourceNumber = observedKey(ch.number);
    if (!sameObserved(observedKey(o.observedNumber), sourceNumber)) {
      invalidated.push({ externalId: ch.externalId, observedNumber: o.observedNumber, sourceNumber });
      return { ...ch, overridden: false };
    }
    applied.push(ch.externalId);
    const c = o.correction;
    return {
      ...ch,
      number: c.chapter !== undefined ? c.chapter : ch.number,
      volume: c.volume !== undefined ? c.volume : ch.volume,
      part: c.part !== undefined ? c.part : ch.part,
      overridden: true,
    };
  });
  const unmatched = [...byId.keys()].filter((id) => !seen.has(id));
  return { chapters: out, applied, invalidated, unmatched };
}
