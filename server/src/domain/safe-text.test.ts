import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unsafeText } from "./safe-text.ts";

describe("safe text", () => {
  it("refuses lone surrogates, NUL and every control character but tab (line breaks only when multi-line)", () => {
    expect(unsafeText("Blue Harbor")).toBeNull();
    expect(unsafeText("Tab\there")).toBeNull();
    expect(unsafeText("日本語 😀 é")).toBeNull();
    expect(unsafeText("a\ud800b")).toBe("lone_surrogate");
    expect(unsafeText("a\udc00")).toBe("lone_surrogate");
    expect(unsafeText("\ud83d")).toBe("lone_surrogate");
    expect(unsafeText("Title\u0000cut")).toBe("control_character");
    expect(unsafeText("bell\u0007")).toBe("control_character");
    expect(unsafeText("del\u007f")).toBe("control_character");
    expect(unsafeText("next line\u0085")).toBe("control_character");
    expect(unsafeText("two\nlines")).toBe("control_character");
    expect(unsafeText("two\r\nlines", { multiline: true })).toBeNull();
    expect(unsafeText("nul\u0000", { multiline: true })).toBe("control_character");
  });

  it("accepts any well-formed text without control characters, and agrees with isWellFormed on surrogates", () => {
    const wellFormed = fc.string({ unit: "grapheme-composite" }).filter((s) => !/[\p{Cc}]/u.test(s.replace(/\t/g, "")));
    fc.assert(
      fc.property(wellFormed, (s) => {
        expect(unsafeText(s)).toBeNull();
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const lone = !(s as unknown as { isWellFormed(): boolean }).isWellFormed();
        if (lone) expect(unsafeText(s)).toBe("lone_surrogate");
        else expect(unsafeText(s)).toBe(/[\p{Cc}]/u.test(s.replace(/\t/g, "")) ? "control_character" : null);
      }),
      { numRuns: 300 },
    );
  });
});
