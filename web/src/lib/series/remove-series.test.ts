import { describe, expect, it } from "vitest";
import { toProblem } from "$lib/errors";

const graphQLError = (code: string, message: string) => ({ graphQLErrors: [{ message, extensions: { code } }] });

describe("removing a series: refusals in words", () => {
  it.each([
    ["series_has_files", "Delete or move its folder first, then scan the library"],
    ["series_busy", "Cancel it or wait for it to end"],
    ["scan_in_progress", "A scan is running"],
  ])("%s says what to do", (code, words) => {
    const p = toProblem(graphQLError(code, "refused"));
    expect(p.code).toBe(code);
    expect(p.next).toContain(words);
  });
});
