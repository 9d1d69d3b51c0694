/**
 * Small helpers on sets of exact labels shared by the map and coverage rules (map-trust.ts,
 * map-suggestions.ts, map-editor.ts, estimates.ts, coverage*.ts). Labels are never floats.
 */
import { compareLabels, parseLabel, sortLabels, type Label } from "./labels.ts";

/** Largest operator map the service accepts (books, and chapter labels over all books). */
export const MAX_MAP_BOOKS = 10_000;
export const MAX_MAP_CHAPTERS = 10_000;

/** parseLabel of stored text (canonical already, the usual case: one test, labels.ts). */
export function toLabel(text: string | null | undefined): Label | null {
  return parseLabel(text);
}

/** Canonical, de-duplicated, sorted labels; text that is not a label is dropped. */
export function canonicalLabels(values: readonly string[]): Label[] {
  // Stored entries are canonical and in order already: one pass, no set and no sort.
  const out: Label[] = [];
  for (const v of values) {
    const l = toLabel(v);
    if (l === null) continue;
    const last = out[out.length - 1];
    if (last !== undefined && compareLabels(last, l) >= 0) return canonicalUnordered(values);
    out.push(l);
  }
  return out;
}

function canonicalUnordered(values: readonly string[]): Label[] {
  const seen = new Set<Label>();
  for (const v of values) {
    const l = toLabel(v);
    if (l !== null) seen.add(l);
  }
  return sortLabels([...seen]);
}

/** Same set of exact labels ("10.50" = "10.5"; order and repeats do not matter). */
export function sameLabelSet(a: readonly string[], b: readonly string[]): boolean {
  const x = canonicalLabels(a);
  const y = canonicalLabels(b);
  return x.length === y.length && x.every((l, i) => l === y[i]);
}

/** The largest label of a list (null when empty). */
export function maxLabel(values: readonly Label[]): Label | null {
  let best: Label | null = null;
  for (const v of values) if (best === null || compareLabels(v, best) > 0) best = v;
  return best;
}

/** The smallest label of a list (null when empty). */
export function minLabel(values: readonly Label[]): Label | null {
  let best: Label | null = null;
  for (const v of values) if (best === null || compareLabels(v, best) < 0) best = v;
  return best;
}

/** Index of the first element of sorted `labels` not less than x. */
export function lowerBound(labels: readonly Label[], x: Label): number {
  let lo = 0;
  let hi = labels.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareLabels(labels[mid] as Label, x) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first element of sorted `labels` greater than x. */
export function upperBound(labels: readonly Label[], x: Label): number {
  let lo = 0;
  let hi = labels.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareLabels(labels[mid] as Label, x) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
