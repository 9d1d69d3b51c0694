import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeTorrent } from "../../test/fakes/qbittorrent-server.ts";
import {
  bdecode,
  bencode,
  BencodeError,
  magnetClientId,
  magnetInfoHash,
  parseTorrent,
  type BValue,
} from "./bencode.ts";

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function toBase32(hex: string): string {
  let bits = "";
  for (const b of Buffer.from(hex, "hex")) bits += b.toString(2).padStart(8, "0");
  return bits.replace(/.{5}/g, (c) => BASE32[parseInt(c, 2)] ?? "");
}

describe("bencode", () => {
  it("hashes the exact bytes of the info dictionary of a torrent the fake made", () => {
    const t = makeTorrent("Series v01-05", [{ path: "Series v01.cbz", pages: 2 }, { path: "nfo.txt" }]);
    const meta = parseTorrent(t.bytes);
    expect(meta.infoHash).toBe(t.infoHash);
    expect(meta.name).toBe("Series v01-05");
    expect(meta.files.map((f) => f.path)).toEqual(["Series v01.cbz", "nfo.txt"]);
  });

  it("gives a hybrid torrent the id the client keys it by: the v2 hash (SHA-256 of the info bytes) cut to 20 bytes", () => {
    const t = makeTorrent("Series v01", [{ path: "Series v01.cbz", pages: 2 }], { hybrid: true });
    const meta = parseTorrent(t.bytes);
    expect(meta.infoHash).toBe(t.v1);
    expect(meta.clientId).toBe(t.infoHash);
    expect(meta.clientId).not.toBe(meta.infoHash);
    expect(magnetClientId(t.magnet)).toBe(t.infoHash);
    const v1Only = makeTorrent("Series v02", [{ path: "Series v02.cbz", pages: 2 }]);
    expect(parseTorrent(v1Only.bytes).clientId).toBe(v1Only.infoHash);
    expect(magnetClientId(v1Only.magnet)).toBe(v1Only.infoHash);
  });

  it("keeps the info bytes as written, even when their keys are out of order (re-encoding would change the hash)", () => {
    const info = Buffer.from("d4:name1:x6:lengthi3ee"); // "name" before "length": not canonical
    const bytes = Buffer.concat([Buffer.from("d4:info"), info, Buffer.from("e")]);
    expect(parseTorrent(bytes).infoHash).toBe(createHash("sha1").update(info).digest("hex"));
    expect(
      createHash("sha1")
        .update(bencode(bdecode(info)))
        .digest("hex"),
    ).not.toBe(parseTorrent(bytes).infoHash);
  });

  it("refuses malformed input", () => {
    for (const bad of ["", "i12", "i01e", "5:abc", "d3:keyi1e", "x", "di1ei2ee", "le trailing", "d4:infoi1ee"]) {
      expect(() => parseTorrent(Buffer.from(bad)), bad).toThrow(BencodeError);
    }
    expect(() => bdecode(Buffer.from("l".repeat(100_000) + "e".repeat(100_000)))).toThrow(BencodeError);
    for (const bad of ["i12", "5:abc", "le trailing"])
      expect(() => bdecode(Buffer.from(bad)), bad).toThrow(BencodeError);
  });

  it("round-trips any value (property)", () => {
    const value: fc.Arbitrary<BValue> = fc.letrec<{ v: BValue }>((tie) => ({
      v: fc.oneof(
        { depthSize: "small" },
        fc.integer(),
        fc.uint8Array({ maxLength: 20 }).map((a) => Buffer.from(a)),
        fc.array(tie("v"), { maxLength: 4 }),
        fc
          .dictionary(fc.string({ unit: "grapheme-ascii", maxLength: 6 }), tie("v"), { maxKeys: 4 })
          .map((d) => Object.assign(Object.create(null) as object, d) as { [k: string]: BValue }),
      ),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        expect(bencode(bdecode(bencode(v)))).toEqual(bencode(v));
      }),
    );
  });

  it("reads a magnet's btih in hex and in base32, and nothing else", () => {
    const hex = "c12fe1c06bba254a9dc9f519b335aa7c1367a88a";
    expect(magnetInfoHash(`magnet:?xt=urn:btih:${hex.toUpperCase()}&dn=x`)).toBe(hex);
    expect(magnetInfoHash(`magnet:?dn=x&xt=urn:btih:${toBase32(hex)}`)).toBe(hex);
    expect(magnetInfoHash(`magnet:?xt=urn%3Abtih%3A${hex}`)).toBe(hex);
    expect(magnetInfoHash("magnet:?xt=urn:btmh:1220abcd")).toBeNull();
    expect(magnetInfoHash(`http://x/?xt=urn:btih:${hex}`)).toBeNull();
    expect(magnetInfoHash("magnet:?xt=urn:btih:1234")).toBeNull();
  });
});
