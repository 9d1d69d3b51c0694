/**
 * KOReader's document hash, written in the test the way KOReader computes it (frontend/util.lua
 * `util.partialMD5`, used by the kosync plugin's "binary" document matching):
 *
 *   local step, size = 1024, 1024
 *   for i = -1, 10 do
 *     file:seek("set", lshift(step, 2*i))
 *     local sample = file:read(size)
 *     if sample then update(sample) else break end
 *   end
 *
 * `lshift` is LuaJIT's `bit.lshift`: 32-bit, the shift count taken modulo 32, so `lshift(1024, -2)`
 * shifts by 30 and overflows to 0 (JavaScript's `<<` has exactly these semantics). `file:read`
 * returns nil at the end of the file (the loop stops) and a shorter string near it.
 * The "file name" mode hashes the file's name: `md5(file_name)`.
 */
import { createHash } from "node:crypto";

const lshift = (x: number, n: number) => x << n;

export function koreaderPartialMd5(file: Buffer): string {
  const step = 1024;
  const size = 1024;
  const md5 = createHash("md5");
  for (let i = -1; i <= 10; i++) {
    const offset = lshift(step, 2 * i);
    if (offset >= file.length) break;
    md5.update(file.subarray(offset, offset + size));
  }
  return md5.digest("hex");
}

export const koreaderFileNameMd5 = (fileName: string) => createHash("md5").update(fileName, "utf8").digest("hex");
