/**
 * Exact numeric labels for chapters and volumes ("0", "7", "10.5").
 *
 * Labels are compared and ordered without floats: 10.5 and 10.50 are the same label, 10.05 is not
 * 10.5, and chapter zero is a real chapter. A label is always stored in its canonical form.
 */

export type Label = string & { readonly __label?: never };

const LABEL_RE = /^(\d+)(?:\.(\d+))?$/;
/** Text that is already a canonical label: no leading zero, no trailing zero after the point. */
const CANONICAL_RE = /^(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/;

/** Whether the text is a label in its canonical form already (one regular expression). */
export function isCanonicalLabel(text: string): text is Label {
  return CANONICAL_RE.test(text);
}

/** Canonical form of a non-negative decimal, or null when the text is not one. "007" → "7", "10.50" → "10.5". */
export function parseLabel(text: string | number | null | undefined): Label | null {
  if (text === null || text === undefined) return null;
  // Stored and validated labels are canonical already: one test instead of the full parse.
  if (typeof text === "string" && CANONICAL_RE.test(text)) return text as Label;
  let raw: string;
  if (typeof text === "number") {
    // Numbers come from outside (e.g. a float chapterNumber); -1 and NaN mean "unnumbered".
    if (!Number.isFinite(text) || text < 0) return null;
    raw = String(text);
    if (/e/i.test(raw)) return null;
  } else {
    raw = text.trim();
  }
  const m = LABEL_RE.exec(raw);
  if (!m) return null;
  const int = (m[1] ?? "0").replace(/^0+(?=\d)/, "");
  const frac = (m[2] ?? "").replace(/0+$/, "");
  return (frac ? `${int}.${frac}` : int) as Label;
}

/** Like parseLabel but throws: for values that were validated on the way in. */
export function label(text: string | number): Label {
  const l = parseLabel(text);
  if (l === null) throw new RangeError(`not an exact decimal label: ${JSON.stringify(text)}`);
  return l;
}

function split(l: Label): [string, string] {
  const dot = l.indexOf(".");
  return dot < 0 ? [l, ""] : [l.slice(0, dot), l.slice(dot + 1)];
}

/** Digits before the point (a loop: faster than indexOf on labels a few characters long). */
function intLength(l: Label): number {
  for (let i = 0; i < l.length; i++) if (l.charCodeAt(i) === 46) return i;
  return l.length;
}

/** A fraction written with a trailing zero or an empty one ("10.50", "10."): not canonical. */
function looseFraction(l: Label, int: number): boolean {
  if (int === l.length) return false;
  const last = l.charCodeAt(l.length - 1);
  return last === 48 || last === 46;
}

/**
 * The sort key of a canonical label: its number of whole digits (fixed width) and the label
 * itself. Plain string order on keys is label order: with as many whole digits, the digits
 * compare as text, a whole label is a prefix of its decimals ("10" < "10.5"), and fractions
 * compare digit by digit ("10.05" < "10.5" < "10.55"). A label carries its key within itself,
 * so compareLabels compares keys without building them.
 */
export function labelKey(l: Label): string {
  return intLength(l).toString(36).padStart(4, "0") + l;
}

/** Total order on canonical labels: negative when a < b (the order of their keys). */
export function compareLabels(a: Label, b: Label): number {
  if (a === b) return 0;
  const ai = intLength(a);
  const bi = intLength(b);
  if (ai !== bi) return ai - bi;
  if (looseFraction(a, ai) || looseFraction(b, bi)) return compareLoose(a, b);
  return a < b ? -1 : 1;
}

/** The order of labels given with a loose fraction: "10.50" is "10.5". */
function compareLoose(a: Label, b: Label): number {
  const [ai, af] = split(a);
  const [bi, bf] = split(b);
  if (ai !== bi) return ai < bi ? -1 : 1;
  const n = Math.max(af.length, bf.length);
  const ap = af.padEnd(n, "0");
  const bp = bf.padEnd(n, "0");
  return ap === bp ? 0 : ap < bp ? -1 : 1;
}

export function labelEquals(a: Label, b: Label): boolean {
  return compareLabels(a, b) === 0;
}

export function sortLabels<T extends Label>(labels: readonly T[]): T[] {
  return [...labels].sort(compareLabels);
}

/**
 * The labels of several lists, each once, in label order. Lists already in strict label order (the
 * usual case: slots and map claims are kept sorted) are merged in one linear pass without hashing;
 * any other input is sorted. The result may be one of the lists itself: read it, do not change it.
 */
export function unionLabels(...lists: readonly (readonly Label[])[]): Label[] {
  let out: Label[] = [];
  for (const list of lists) {
    const merged = mergeSorted(out, list);
    if (merged === null) return sortLabels([...new Set(lists.flat())]);
    out = merged;
  }
  return out;
}

/** Union of two lists in strict label order, or null when `b` is not in strict label order. */
function mergeSorted(a: readonly Label[], b: readonly Label[]): Label[] | null {
  for (let j = 1; j < b.length; j++) if (compareLabels(b[j - 1]!, b[j]!) >= 0) return null;
  if (b.length === 0) return a as Label[];
  if (a.length === 0) return b as Label[];
  // Often every label of `b` is in `a` already (map claims on chapter slots): `a` is the union.
  let k = 0;
  for (let j = 0; j < b.length; j++) {
    while (k < a.length && compareLabels(a[k]!, b[j]!) < 0) k++;
    if (k === a.length || a[k] !== b[j]) return mergeNew(a, b);
  }
  return a as Label[];
}

function mergeNew(a: readonly Label[], b: readonly Label[]): Label[] {
  const out: Label[] = [];
  let i = 0;
  let j = 0;
  while (j < b.length) {
    const y = b[j]!;
    while (i < a.length && compareLabels(a[i]!, y) < 0) out.push(a[i++]!);
    if (i < a.length && compareLabels(a[i]!, y) === 0) i++;
    out.push(y);
    j++;
  }
  while (i < a.length) out.push(a[i++]!);
  return out;
}

/** Integer part of a label ("10.5" → "10"). */
export function wholePart(l: Label): Label {
  return split(l)[0] as Label;
}

export function isWhole(l: Label): boolean {
  return !l.includes(".");
}

/** a ≤ x ≤ b in label order. */
export function labelInRange(x: Label, a: Label, b: Label): boolean {
  return compareLabels(a, x) <= 0 && compareLabels(x, b) <= 0;
}

/**
 * Whole labels from a to b inclusive (for ranges such as "c001-003"). Decimal ends are kept as
 * they are; the range never invents decimals in between. Bounded so a hostile name cannot
 * allocate millions of labels.
 */
export function expandRange(a: Label, b: Label, max = 1000): Label[] {
  if (compareLabels(a, b) > 0) return [a];
  const out: Label[] = [a];
  let i = BigInt(wholePart(a)) + 1n;
  const endWhole = BigInt(wholePart(b));
  while (i <= endWhole && out.length < max) {
    const l = i.toString() as Label;
    if (compareLabels(l, b) <= 0) out.push(l);
    i += 1n;
  }
  if (!out.some((x) => labelEquals(x, b)) && out.length < max) out.push(b);
  return out;
}

/** Numeric value for display or arithmetic where exactness does not matter (never for identity). */
export function approxValue(l: Label): number {
  return Number(l);
}

/** The canonical label n as a whole number. */
export function wholeLabel(n: number | bigint): Label {
  return BigInt(n).toString() as Label;
}

/** The most labels one ordering request may hold (a map editor or a reading lists far fewer). */
export const MAX_ORDERED_LABELS = 5000;

/** Labels in the service's order, for clients that must not re-derive it. */
export interface LabelOrder {
  /** The canonical labels, each once, in label order. */
  labels: Label[];
  /** The texts that are not exact labels, as given, in the order given. */
  rejected: string[];
  /** The whole number after the highest label ("6" and "6.5" → "7"); "1" when there is none. */
  nextWhole: Label;
}

/** Canonical forms, label order and the next whole number of a list of typed labels. */
export function orderLabels(texts: readonly string[]): LabelOrder {
  const seen = new Set<Label>();
  const rejected: string[] = [];
  for (const text of texts) {
    const l = parseLabel(text);
    if (l === null) rejected.push(text);
    else seen.add(l);
  }
  const labels = sortLabels([...seen]);
  const top = labels.at(-1);
  return { labels, rejected, nextWhole: top === undefined ? ("1" as Label) : wholeLabel(BigInt(wholePart(top)) + 1n) };
}
