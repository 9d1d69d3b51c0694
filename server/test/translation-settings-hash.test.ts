import fc from "fast-check";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../src/domain/translation-sha256.ts";

// The rule core hashes job keys without node:crypto; this checks it against node:crypto.
describe("pure sha256 (translation job keys)", () => {
  it("equals node:crypto for any string, across block boundaries", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: "binary" }), (s) => {
        expect(sha256Hex(s)).toBe(createHash("sha256").update(s).digest("hex"));
      }),
      { numRuns: 400 },
    );
    for (let n = 50; n < 140; n++)
      expect(sha256Hex("a".repeat(n))).toBe(createHash("sha256").update("a".repeat(n)).digest("hex"));
  });
});
