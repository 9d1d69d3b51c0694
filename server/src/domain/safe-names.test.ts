import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeName, safeNameWithTail } from "./safe-names.ts";

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

describe("safeNameWithTail", () => {
  it("gives what safeName of the whole gives when it fits", () => {
    expect(safeNameWithTail("Re:Zero", " - ", "c012 [Group]", 180)).toBe("Re Zero - c012 [Group]");
  });

  it("shortens the head, never the tail that says which file it is", () => {
    const a = safeNameWithTail("漫".repeat(100), " - ", "c001 (part 2)", 180);
    const b = safeNameWithTail("漫".repeat(100), " - ", "c002 (part 2)", 180);
    expect(a).toMatch(/^漫+ - c001 \(part 2\)$/);
    expect(b).toMatch(/ - c002 \(part 2\)$/);
    expect(new TextEncoder().encode(a).length).toBeLessThanOrEqual(180);
  });

  it("ends with the safe tail, within the bound, as a name safeName leaves unchanged", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "é", "漫", ".", " ", "/", "?") }),
        fc.string({ unit: fc.constantFrom("v", "1", "0", ".", " ", "[", "]", "é") }),
        fc.integer({ min: 40, max: 200 }),
        (head, tail, max) => {
          const out = safeNameWithTail(head, " - ", tail, max);
          expect(out.endsWith(` - ${safeName(tail, Math.floor(max / 2))}`)).toBe(true);
          expect(new TextEncoder().encode(out).length).toBeLessThanOrEqual(max);
          expect(safeName(out, 255)).toBe(out);
        },
      ),
    );
  });
});
