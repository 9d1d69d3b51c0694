import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeName } from "./safe-names.ts";

describe("safeName", () => {
  it.each([
    ["One Piece", "One Piece"],
    ["Re:Zero", "Re Zero"],
    ["What?! / Why*", "What! Why"],
    ["trailing dots...", "trailing dots"],
    ["  spaced   out  ", "spaced out"],
    ["CON", "_CON"],
    ["nul.txt", "_nul.txt"],
    ["..hidden", "hidden"],
    ["", "Untitled"],
    ["???", "Untitled"],
    ["tab\there", "tab here"],
    ["ワンピース", "ワンピース"],
  ])("%j → %j", (input, expected) => {
    expect(safeName(input)).toBe(expected);
  });

  it("bounds the length in UTF-8 bytes without splitting a character", () => {
    const s = safeName("漫".repeat(200), 60);
    expect(new TextEncoder().encode(s).length).toBeLessThanOrEqual(60);
    expect(s).toBe("漫".repeat(20));
  });
});

describe("safeName is a fixed point", () => {
  it.each([
    ["../evil", "evil"],
    [". . hidden", "hidden"],
    ["/leading slash", "leading slash"],
    ["a".repeat(58) + ". b", "a".repeat(58)],
  ])("%j → %j", (input, expected) => {
    expect(safeName(input, 60)).toBe(expected);
  });

  it("gives a name that it leaves unchanged, within the bound, without reserved characters or edge dots", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "é", "漫", ".", " ", "/", ":", "?", "\t", "C", "O", "N") }),
        fc.integer({ min: 8, max: 80 }),
        (input, max) => {
          const out = safeName(input, max);
          expect(safeName(out, max)).toBe(out);
          expect(new TextEncoder().encode(out).length).toBeLessThanOrEqual(max);
          expect(out).not.toMatch(/^[. ]|[. ]$|[:/\\|<>"?*\t]/);
          expect(out).not.toMatch(/^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i);
        },
      ),
    );
  });
});
