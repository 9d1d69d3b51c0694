/**
 * Torrents decoded with the maintained `bencode` package. The info-hash is the SHA-1 of the exact
 * bytes of the `info` dictionary as the .torrent holds them (re-encoding could reorder or normalise
 * and give another hash): the top-level dictionary is walked key by key with the package's decoder,
 * whose `decode.position` says where each value ends, so the info value's byte span is known. Or the
 * btih of a magnet link. The torrent client's word is only checked against it, never trusted
 * instead of it.
 *
 * A client built on libtorrent 2 (qBittorrent 4.4 and later) keys a v2 or hybrid torrent not by
 * the v1 hash but by its v2 hash (SHA-256 of the same bytes) cut to 20 bytes: its `hash` field,
 * `added_torrent_ids` and the `hashes` filter all use that id, so it is computed here too.
 */
import { createHash } from "node:crypto";
import bencodePackage from "bencode";

export type BValue = number | Buffer | BValue[] | { [key: string]: BValue };

export class BencodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BencodeError";
  }
}

/** The package's values with byte strings as Buffers (it answers Uint8Array). */
function toBValue(v: unknown): BValue {
  if (typeof v === "number") return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  if (Array.isArray(v)) return v.map(toBValue);
  if (v !== null && typeof v === "object") {
    const out = Object.create(null) as { [key: string]: BValue };
    for (const [k, x] of Object.entries(v)) out[k] = toBValue(x);
    return out;
  }
  throw new BencodeError("not a bencoded value");
}

/** One value at `start`, and where it ends; any decoder failure (a hostile nesting too) is a BencodeError. */
function decodeAt(buf: Buffer, start: number): { value: BValue; end: number } {
  if (start >= buf.length) throw new BencodeError(`unexpected end at byte ${start}`);
  let raw: unknown;
  try {
    raw = bencodePackage.decode(buf, start);
  } catch (e) {
    throw new BencodeError(`malformed at byte ${start}: ${e instanceof Error ? e.message : String(e)}`.slice(0, 200));
  }
  const end = start + bencodePackage.decode.position;
  if (raw === null || raw === undefined || end > buf.length) throw new BencodeError(`truncated at byte ${start}`);
  return { value: toBValue(raw), end };
}

/** Decodes one complete bencoded value; trailing bytes are an error. */
export function bdecode(buf: Buffer): BValue {
  const d = decodeAt(buf, 0);
  if (d.end !== buf.length) throw new BencodeError(`${buf.length - d.end} trailing bytes`);
  return d.value;
}

export function bencode(value: BValue): Buffer {
  return Buffer.from(bencodePackage.encode(value));
}

export interface TorrentMeta {
  /** Lower-case hex SHA-1 of the info dictionary's bytes. */
  infoHash: string;
  /** The id a libtorrent-2 client keys it by: the v2 hash cut to 40 hex for `meta version` 2, else `infoHash`. */
  clientId: string;
  name: string;
  /** Paths inside the torrent (for a multi-file torrent: relative to its root folder `name`). */
  files: { path: string; length: number }[];
}

/** Reads a .torrent file: the info-hash over the exact info bytes, its name and file list. */
export function parseTorrent(bytes: Buffer): TorrentMeta {
  if (bytes[0] !== 0x64 /* d */) throw new BencodeError("a torrent is a dictionary");
  // The top-level dictionary, key by key, to know the byte span of the info value.
  let pos = 1;
  let span: [number, number] | null = null;
  let info: BValue | undefined;
  while (bytes[pos] !== 0x65 /* e */) {
    if (pos >= bytes.length) throw new BencodeError("unterminated dictionary");
    const key = decodeAt(bytes, pos);
    if (!Buffer.isBuffer(key.value)) throw new BencodeError(`dictionary key at byte ${pos} is not a string`);
    const value = decodeAt(bytes, key.end);
    if (key.value.toString("latin1") === "info") {
      span = [key.end, value.end];
      info = value.value;
    }
    pos = value.end;
  }
  if (pos + 1 !== bytes.length) throw new BencodeError(`${bytes.length - pos - 1} trailing bytes`);
  if (!span || typeof info !== "object" || Buffer.isBuffer(info) || Array.isArray(info))
    throw new BencodeError("no info dictionary");
  const infoBytes = bytes.subarray(span[0], span[1]);
  const infoHash = createHash("sha1").update(infoBytes).digest("hex");
  const clientId =
    info["meta version"] === 2 ? createHash("sha256").update(infoBytes).digest("hex").slice(0, 40) : infoHash;
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
  return { infoHash, clientId, name, files };
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

/** The exact topics (`xt=`) of a magnet link, decoded; none when it is not a magnet link. */
function magnetTopics(uri: string): string[] {
  if (!uri.toLowerCase().startsWith("magnet:?")) return [];
  const out: string[] = [];
  for (const part of uri.slice(8).split("&")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).toLowerCase() !== "xt") continue;
    try {
      out.push(decodeURIComponent(part.slice(eq + 1)));
    } catch {
      // A topic that does not decode names nothing.
    }
  }
  return out;
}

/** The v1 info-hash of a magnet link (`xt=urn:btih:` in 40 hex or 32 base32 characters), lower-case hex; null otherwise. */
export function magnetInfoHash(uri: string): string | null {
  for (const value of magnetTopics(uri)) {
    const m = /^urn:btih:([0-9a-z]+)$/i.exec(value);
    if (!m?.[1]) continue;
    if (/^[0-9a-f]{40}$/i.test(m[1])) return m[1].toLowerCase();
    if (m[1].length === 32) return base32ToHex(m[1]);
  }
  return null;
}

/**
 * The id a libtorrent-2 client keys a magnet's torrent by: the v2 hash of `xt=urn:btmh:` (a sha2-256
 * multihash, `1220` + 64 hex) cut to 40 hex, else the btih. Null when it names neither.
 */
export function magnetClientId(uri: string): string | null {
  for (const value of magnetTopics(uri)) {
    const m = /^urn:btmh:1220([0-9a-f]{64})$/i.exec(value);
    if (m?.[1]) return m[1].slice(0, 40).toLowerCase();
  }
  return magnetInfoHash(uri);
}
