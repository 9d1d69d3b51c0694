/**
 * Entry names: decoding, the safety rule, the duplicate key, what counts as a page, and page order.
 * Pure string functions (no I/O), shared by the reader and its tests.
 */
import { naturalCompare } from "../../domain/scan-diff.ts";

export const IMAGE_RE = /\.(jpe?g|png|webp|gif|avif)$/i;

/** Code points 0x80–0xFF of IBM code page 437, the ZIP default when the UTF-8 flag is not set. */
const CP437_HIGH =
  "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0";
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * UTF-8 when the entry says so (flag bit 11) or its bytes are valid UTF-8 (many tools write UTF-8
 * without the flag); otherwise CP437, as the ZIP specification says.
 */
export function decodeEntryName(raw: Buffer, flags: number): string {
  if (flags & 0x800) return raw.toString("utf8");
  try {
    return utf8.decode(raw);
  } catch {
    let s = "";
    for (const b of raw) s += b < 0x80 ? String.fromCharCode(b) : (CP437_HIGH[b - 0x80] ?? "\ufffd");
    return s;
  }
}

/**
 * `..` segments, absolute paths and drive letters would escape any later extraction; NUL and
 * undecodable bytes make the name mean different things to different tools.
 */
export function isUnsafeName(name: string): boolean {
  if (name === "" || name.includes("\0") || name.includes("\ufffd")) return true;
  if (/^[/\\]/.test(name) || /^[a-zA-Z]:/.test(name)) return true;
  return name.split(/[/\\]/).some((s) => s === "..");
}

export function isDirectoryName(name: string): boolean {
  return /[/\\]$/.test(name);
}

/**
 * The key two entries collide on: separators unified, empty and `.` segments dropped, Unicode NFC
 * (macOS writes decomposed names). Case is kept: nothing is ever extracted by name, so `Page1.jpg`
 * and `page1.jpg` are two readable entries, and refusing them would refuse archives made on Linux.
 */
export function duplicateKey(name: string): string {
  const segments = name
    .normalize("NFC")
    .split(/[/\\]/)
    .filter((s) => s !== "" && s !== ".");
  return segments.join("/") + (isDirectoryName(name) ? "/" : "");
}

export type EntryRole = "comicinfo" | "page" | "ignored";

/**
 * A page is an image outside hidden folders, dot-files and __MACOSX; the ComicInfo is the
 * top-level ComicInfo.xml (any case). Everything else is ignored and reported.
 */
export function entryRole(name: string): EntryRole {
  const segments = name.split(/[/\\]/).filter((s) => s !== "" && s !== ".");
  const hidden = segments.some((s) => s.startsWith(".") || s === "__MACOSX");
  if (hidden) return "ignored";
  if (segments.length === 1 && segments[0]?.toLowerCase() === "comicinfo.xml") return "comicinfo";
  return IMAGE_RE.test(name) ? "page" : "ignored";
}

/** Natural page order lives in the rule core; re-exported for this module's callers. */
export { naturalCompare };

/** Folder by folder, so "ch1/…" comes before "ch1 extra/…" whatever the separator's code point. */
export function naturalComparePaths(a: string, b: string): number {
  const sa = a.split(/[/\\]/);
  const sb = b.split(/[/\\]/);
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const c = naturalCompare(sa[i] ?? "", sb[i] ?? "");
    if (c !== 0) return c;
  }
  return sa.length - sb.length || (a === b ? 0 : a < b ? -1 : 1);
}
