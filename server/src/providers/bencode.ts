/**
 * Just enough bencode to identify a torrent ourselves: the info-hash is the SHA-1 of the exact bytes
 * of the `info` dictionary as the .torrent holds them (re-encoding could reorder or normalise and
 * give another hash), or the btih of a magnet link. The torrent client's word is only checked
 * against it, never trusted instead of it.
 */
import { createHash } from "node:crypto";

export type BValue = number | Buffer | BValue[] | { [key: string]: BValue };

export class BencodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BencodeError";
  }
}

/** Nesting deeper than this is no torrent file; the cap keeps a hostile file from exhausting the stack. */
const MAX_DEPTH = 64;

interface Decoded {
  value: BValue;
  end: number;
  /** Byte spans of the top-level dictionary's values, by key (only for the outermost dictionary). */
  spans?: Map<string, [number, number]>;
}

function digitsAt(buf: Buffer, start: number, stop: number): { n: number; end: number } {
  const end = buf.indexOf(stop, start);
  if (end < 0) throw new BencodeError(`unterminated number at byte ${start}`);
  const text = buf.toString("latin1", start, end);
  if (!/^(0|-?[1-9]\d{0,15})$/.test(text))
    throw new BencodeError(`malformed number ${JSON.stringify(text.slice(0, 20))} at byte ${start}`);
  return { n: Number(text), end };
}

function decodeAt(buf: Buffer, pos: number, depth: number, wantSpans: boolean): Decoded {
  if (depth > MAX_DEPTH) throw new BencodeError("nested too deeply");
  const c = buf[pos];
  if (c === undefined) throw new BencodeError(`unexpected end at byte ${pos}`);
  if (c === 0x69 /* i */) {
    const { n, end } = digitsAt(buf, pos + 1, 0x65);
    return { value: n, end: end + 1 };
  }
  if (c >= 0x30 && c <= 0x39) {
    const { n: len, end } = digitsAt(buf, pos, 0x3a);
    if (len < 0 || end + 1 + len > buf.length)
      throw new BencodeError(`string of ${len} bytes at byte ${pos} runs past the end`);
    return { value: buf.subarray(end + 1, end + 1 + len), end: end + 1 + len };
  }
  if (c === 0x6c /* l */) {
    const list: BValue[] = [];
    let p = pos + 1;
    while (buf[p] !== 0x65) {
      const item = decodeAt(buf, p, depth + 1, false);
      list.push(item.value);
      p = item.end;
    }
    return { value: list, end: p + 1 };
  }
  if (c === 0x64 /* d */) {
    const dict: { [key: string]: BValue } = Object.create(null) as { [key: string]: BValue };
    const spans = new Map<string, [number, number]>();
    let p = pos + 1;
    while (buf[p] !== 0x65) {
      const key = decodeAt(buf, p, depth + 1, false);
      if (!Buffer.isBuffer(key.value)) throw new BencodeError(`dictionary key at byte ${p} is not a string`);
      const name = key.value.toString("latin1");
      const item = decodeAt(buf, key.end, depth + 1, false);
      dict[name] = item.value;
      if (wantSpans) spans.set(name, [key.end, item.end]);
      p = item.end;
    }
    return wantSpans ? { value: dict, end: p + 1, spans } : { value: dict, end: p + 1 };
  }
  throw new BencodeError(`unexpected byte 0x${c.toString(16)} at byte ${pos}`);
}

/** Decodes one complete bencoded value; trailing bytes are an error. */
export function bdecode(buf: Buffer): BValue {
  const d = decodeAt(buf, 0, 0, false);
  if (d.end !== buf.length) throw new BencodeError(`${buf.length - d.end} trailing bytes`);
  return d.value;
}

export function bencode(value: BValue): Buffer {
  const parts: Buffer[] = [];
  const walk = (v: BValue): void => {
    if (typeof v === "number") {
      if (!Number.isSafeInteger(v)) throw new BencodeError(`not an integer: ${v}`);
      parts.push(Buffer.from(`i${v}e`));
    } else if (Buffer.isBuffer(v)) {
      parts.push(Buffer.from(`${v.length}:`), v);
    } else if (Array.isArray(v)) {
      parts.push(Buffer.from("l"));
      v.forEach(walk);
      parts.push(Buffer.from("e"));
    } else {
      parts.push(Buffer.from("d"));
      // Keys sorted as raw bytes, as the format requires.
      for (const k of Object.keys(v).sort((a, b) =>
        Buffer.compare(Buffer.from(a, "latin1"), Buffer.from(b, "latin1")),
      )) {
        walk(Buffer.from(k, "latin1"));
        walk(v[k] as BValue);
      }
      parts.push(Buffer.from("e"));
    }
  };
  walk(value);
  return Buffer.concat(parts);
}

export interface TorrentMeta {
  /** Lower-case hex SHA-1 of the info dictionary's bytes. */
  infoHash: string;
  name: string;
  /** Paths inside the torrent (for a multi-file torrent: relative to its root folder `name`). */
  files: { path: string; length: number }[];
}

/** Reads a .torrent file: the info-hash over the exact info bytes, its name and file list. */
export function parseTorrent(bytes: Buffer): TorrentMeta {
  const top = decodeAt(bytes, 0, 0, true);
  if (top.end !== bytes.length) throw new BencodeError(`${bytes.length - top.end} trailing bytes`);
  const span = top.spans?.get("info");
  const root = top.value as { [key: string]: BValue };
  const info = span ? root.info : undefined;
  if (!span || typeof info !== "object" || Buffer.isBuffer(info) || Array.isArray(info))
    throw new BencodeError("no info dictionary");
  const infoHash = createHash("sha1").update(bytes.subarray(span[0], span[1])).digest("hex");
  const name = Buffer.isBuffer(info.name) ? info.name.toString("utf8") : "";
  const files: TorrentMeta["files"] = [];
  if (Array.isArray(info.files)) {
    for (const f of info.files) {
      if (typeof f !== "object" || Buffer.isBuffer(f) || Array.isArray(f) || !Array.isArray(f.path)) continue;
      files.push({
        path: f.path.map((p) => (Buffer.isBuffer(p) ? p.toString("utf8") : "")).join("/"),
        length: typeof f.length === "number" ? f.length : 0,
      });
    }
  } else {
    files.push({ path: name, length: typeof info.length === "number" ? info.length : 0 });
  }
  return { infoHash, name, files };
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32ToHex(text: string): string | null {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of text.toUpperCase()) {
    const v = BASE32.indexOf(ch);
    if (v < 0) return null;
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return out.length === 20 ? Buffer.from(out).toString("hex") : null;
}

/** The v1 info-hash of a magnet link (`xt=urn:btih:` in 40 hex or 32 base32 characters), lower-case hex; null otherwise. */
export function magnetInfoHash(uri: string): string | null {
  if (!uri.toLowerCase().startsWith("magnet:?")) return null;
  for (const part of uri.slice(8).split("&")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).toLowerCase() !== "xt") continue;
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1));
    } catch {
      continue;
    }
    const m = /^urn:btih:([0-9a-z]+)$/i.exec(value);
    if (!m?.[1]) continue;
    if (/^[0-9a-f]{40}$/i.test(m[1])) return m[1].toLowerCase();
    if (m[1].length === 32) return base32ToHex(m[1]);
  }
  return null;
}
