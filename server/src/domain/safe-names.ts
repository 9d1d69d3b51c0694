/**
 * Names that are safe on every filesystem people keep libraries on (ext4, NTFS, exFAT, SMB shares):
 * no reserved characters, no control characters, no trailing dots or spaces, no Windows device
 * names, bounded length in UTF-8 bytes.
 */
/** Separators become a space; other reserved characters are dropped ("What?!" → "What!"). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must go
const SEPARATORS = /[:/\\|\u0000-\u001f\u007f]/g;
const DROPPED = /[<>"?*]/g;
const DEVICE = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;

export function safeName(name: string, maxBytes = 180): string {
  // Leading dots and spaces go together: "../x" must not become " x", which a second pass would
  // change again (library paths refuse any segment that safeName would change).
  let s = edges(name.normalize("NFC").replace(SEPARATORS, " ").replace(DROPPED, "").replace(/\s+/g, " "));
  for (;;) {
    while (bytes(s) > maxBytes) s = edges([...s].slice(0, -1).join(""));
    if (!DEVICE.test(s)) break;
    s = `_${s}`;
  }
  return s.length > 0 ? s : "Untitled";
}

const edges = (s: string): string => s.replace(/^[. ]+/, "").replace(/[. ]+$/, "");
const bytes = (s: string): number => new TextEncoder().encode(s).length;

/**
 * `<head><sep><tail>` made safe within `maxBytes`, shortening only the head: the tail says which file
 * it is (a book or chapter number, a language), and two files cut to one name would say neither.
 * A name that fits comes out exactly as `safeName` of the whole would give it.
 */
export function safeNameWithTail(head: string, sep: string, tail: string, maxBytes: number): string {
  const end = `${sep}${safeName(tail, Math.floor(maxBytes / 2))}`;
  const whole = safeName(`${head}${end}`, 4 * maxBytes);
  if (whole.endsWith(end) && whole.length > end.length && bytes(whole) <= maxBytes) return whole;
  return `${safeName(head, maxBytes - bytes(end))}${end}`;
}
