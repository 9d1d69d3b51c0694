/**
 * Exact chapter and book labels in the browser ("0", "7", "10.5"), for input handling and
 * display only: matching a typed "07" to the server's "7", folding a list into ranges. The order
 * of labels is the service's (label-order.ts asks for it); the web never compares them.
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

export function sameLabel(a: string | null | undefined, b: string | null | undefined): boolean {
  const ca = canonicalLabel(a);
  return ca !== null && ca === canonicalLabel(b);
}

/**
 * A list of labels, in the order the service gave it, as short ranges: consecutive whole numbers
 * fold into "1–6", anything else stays as it is: ["1","2","3","3.5","4","5"] → "1–3, 3.5, 4–5".
 * Repeats are shown once. Empty list → "".
 */
export function compactRanges(labels: readonly string[]): string {
  const given = [...new Set(labels.map((l) => canonicalLabel(l) ?? l))];
  const parts: string[] = [];
  let runStart: string | null = null;
  let runEnd: string | null = null;
  const flush = () => {
    if (runStart === null || runEnd === null) return;
    parts.push(runStart === runEnd ? runStart : `${runStart}–${runEnd}`);
    runStart = runEnd = null;
  };
  for (const l of given) {
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
