/**
 * Exact chapter and book labels in the browser ("0", "7", "10.5"), for input handling and
 * display only: matching a typed "07" to the server's "7", sorting a list for display, folding a
 * list into ranges. Never floats: 10.05 is not 10.5. The server decides what a label means.
 */

const LABEL_RE = /^(\d+)(?:\.(\d+))?$/;

/** Canonical form ("007" → "7", "10.50" → "10.5"), or null when the text is not an exact decimal. */
export function canonicalLabel(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  const m = LABEL_RE.exec(text.trim());
  if (!m) return null;
  const whole = (m[1] ?? "0").replace(/^0+(?=\d)/, "");
  const frac = (m[2] ?? "").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : whole;
}

function split(label: string): [string, string] {
  const dot = label.indexOf(".");
  return dot < 0 ? [label, ""] : [label.slice(0, dot), label.slice(dot + 1)];
}

/** Order of two labels (canonical or not); text that is not a label sorts last, as text. */
export function compareLabels(a: string, b: string): number {
  const ca = canonicalLabel(a);
  const cb = canonicalLabel(b);
  if (ca === null || cb === null) return ca === cb ? a.localeCompare(b) : ca === null ? 1 : -1;
  const [ai, af] = split(ca);
  const [bi, bf] = split(cb);
  if (ai.length !== bi.length) return ai.length - bi.length;
  if (ai !== bi) return ai < bi ? -1 : 1;
  const n = Math.max(af.length, bf.length);
  const ap = af.padEnd(n, "0");
  const bp = bf.padEnd(n, "0");
  return ap === bp ? 0 : ap < bp ? -1 : 1;
}

export function sameLabel(a: string | null | undefined, b: string | null | undefined): boolean {
  const ca = canonicalLabel(a);
  return ca !== null && ca === canonicalLabel(b);
}

export function sortLabels(labels: readonly string[]): string[] {
  return [...labels].sort(compareLabels);
}

/** The whole number after a label's whole part ("6" → "7", "6.5" → "7"); "1" for no label. */
export function nextWhole(label: string | null | undefined): string {
  const c = canonicalLabel(label);
  if (c === null) return "1";
  return (BigInt(split(c)[0]) + 1n).toString();
}

/**
 * A list of labels as short ranges: consecutive whole numbers fold into "1–6", anything else
 * stays as it is: ["1","2","3","3.5","4","5"] → "1–3, 3.5, 4–5". Empty list → "".
 */
export function compactRanges(labels: readonly string[]): string {
  const sorted = sortLabels([...new Set(labels.map((l) => canonicalLabel(l) ?? l))]);
  const parts: string[] = [];
  let runStart: string | null = null;
  let runEnd: string | null = null;
  const flush = () => {
    if (runStart === null || runEnd === null) return;
    parts.push(runStart === runEnd ? runStart : `${runStart}–${runEnd}`);
    runStart = runEnd = null;
  };
  for (const l of sorted) {
    const whole = /^\d+$/.test(l);
    if (whole && runEnd !== null && BigInt(runEnd) + 1n === BigInt(l)) {
      runEnd = l;
      continue;
    }
    flush();
    if (whole) runStart = runEnd = l;
    else parts.push(l);
  }
  flush();
  return parts.join(", ");
}
