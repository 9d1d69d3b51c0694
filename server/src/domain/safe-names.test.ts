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
