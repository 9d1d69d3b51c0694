/** The numbered-lines prompt: bounds, think-tag stripping and the index check, as pure functions. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildBatches,
  DEFAULT_LIMITS,
  languageName,
  parseNumberedAnswer,
  stripThinking,
  systemPrompt,
} from "./chat-prompt.ts";
import { LocalTranslationError } from "./types.ts";

const malformed = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(LocalTranslationError);
    expect((e as LocalTranslationError).code).toBe("ai_answer_malformed");
    return (e as Error).message;
  }
  throw new Error("expected ai_answer_malformed");
};

describe("language names", () => {
  it("names known languages and keeps unknown codes", () => {
    expect(languageName("ja")).toBe("Japanese");
    expect(languageName("EN")).toBe("English");
    expect(languageName("pt-BR")).toBe("Portuguese (pt-BR)");
    expect(languageName("tlh")).toBe("tlh");
    expect(systemPrompt("ja", "ru")).toContain("from Japanese to Russian");
    expect(systemPrompt("ja", "en")).toContain("<|1|>");
  });
});

describe("stripThinking", () => {
  it.each([
    ["<think>a <|1|> b</think>\n<|1|> x", "\n<|1|> x"],
    ["<think>one</think><|1|> x<THINK>two</THINK>", "<|1|> x"],
    ["reasoning without its opening tag</think>\n<|1|> x", "\n<|1|> x"],
    ["<think>never closed <|1|> guess", ""],
    ["<|1|> x", "<|1|> x"],
  ])("%j → %j", (input, output) => {
    expect(stripThinking(input)).toBe(output);
  });
});

describe("parseNumberedAnswer", () => {
  it("reads the texts in index order, whatever the order of the lines", () => {
    expect(parseNumberedAnswer("Here you go:\n<|2|> b\n<|1|>  a \n", 2)).toEqual(["a", "b"]);
  });

  it("keeps continuation lines and stray markers inside a region's text", () => {
    expect(parseNumberedAnswer("<|1|> a\nstill a <|2|>\n<|2|> b\n```", 2)).toEqual(["a\nstill a <|2|>", "b\n```"]);
  });

  it("tolerates spaces inside the markers and keeps empty texts", () => {
    expect(parseNumberedAnswer("<| 1 |> a\n<|2|>", 2)).toEqual(["a", ""]);
  });

  it("refuses missing, repeated and unexpected indexes, naming them", () => {
    expect(malformed(() => parseNumberedAnswer("<|1|> a", 2))).toContain("missing 2");
    expect(malformed(() => parseNumberedAnswer("<|1|> a\n<|1|> b\n<|2|> c", 2))).toContain("repeated 1");
    expect(malformed(() => parseNumberedAnswer("<|1|> a\n<|2|> b\n<|3|> c", 2))).toContain("unexpected 3");
    expect(malformed(() => parseNumberedAnswer("<|0|> a\n<|1|> b", 1))).toContain("unexpected 0");
    expect(malformed(() => parseNumberedAnswer("", 1))).toContain("missing 1");
    expect(malformed(() => parseNumberedAnswer("<think>unterminated\n<|1|> a", 1))).toContain("missing 1");
  });

  it("round-trips any texts through the numbered format (property)", () => {
    const text = fc.string({ maxLength: 30 }).map((s) => s.replace(/[\r\n\u2028\u2029]|<\|/g, " ").trim());
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 20 }), (texts) => {
        const answer = texts.map((t, i) => `<|${i + 1}|> ${t}`).join("\n");
        expect(parseNumberedAnswer(answer, texts.length)).toEqual(texts.map((t) => t.trim()));
      }),
    );
  });
});

describe("buildBatches", () => {
  it("flattens layout line breaks and caps a region's text", () => {
    const [batch] = buildBatches(["a\n b", "x".repeat(2_000)]);
    expect(batch?.content).toBe(`<|1|> a b\n<|2|> ${"x".repeat(DEFAULT_LIMITS.maxCharsPerRegion)}`);
  });

  it("covers every text once, in order, within the bounds (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1, maxLength: 40 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 8 }),
        (texts, maxCharsPerRequest, maxRegionsPerRequest) => {
          const limits = { maxCharsPerRegion: 30, maxCharsPerRequest, maxRegionsPerRequest };
          const batches = buildBatches(texts, limits);
          expect(batches.flatMap((b) => b.positions)).toEqual(texts.map((_, i) => i));
          for (const b of batches) {
            expect(b.positions.length).toBeLessThanOrEqual(maxRegionsPerRequest);
            const chars = b.content
              .split("\n")
              .map((l) => l.replace(/^<\|\d+\|> /, ""))
              .join("").length;
            // A single region may exceed the request bound on its own (it is capped per region instead).
            if (b.positions.length > 1) expect(chars).toBeLessThanOrEqual(maxCharsPerRequest);
          }
        },
      ),
    );
  });
});
