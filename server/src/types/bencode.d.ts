/** The maintained `bencode` package (4.x) ships no type declarations: the part this service uses. */
declare module "bencode" {
  type Value = number | Uint8Array | string | Value[] | { [key: string]: Value };
  interface Decode {
    (data: Uint8Array, start?: number, end?: number): unknown;
    /** Where the last decode stopped, relative to `start`. */
    position: number;
  }
  const bencode: {
    encode(value: Value): Uint8Array;
    decode: Decode;
    byteLength(value: unknown): number;
  };
  export default bencode;
}
