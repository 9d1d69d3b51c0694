import { describe, expect, it } from "vitest";
import { healthSummary, levelBadge, navHealthBadge, type SystemHealth } from "./health";

const check = (level: "ERROR" | "WARNING") => ({ code: "DISK_SPACE_LOW" as const, level, message: "…" });

describe("health words", () => {
  it("sums the checks up", () => {
    expect(healthSummary({ status: "OK", checks: [] })).toBe("No problems found.");
    expect(healthSummary({ status: "WARNING", checks: [check("WARNING")] } as SystemHealth)).toBe(
      "1 warning to look at.",
    );
    expect(
      healthSummary({
        status: "ERROR",
        checks: [check("ERROR"), check("WARNING"), check("ERROR"), check("WARNING")],
      } as SystemHealth),
    ).toBe("2 errors and 2 warnings to look at.");
    expect(healthSummary({ status: "ERROR", checks: [check("ERROR")] } as SystemHealth)).toBe("1 error to look at.");
  });

  it("badges each level", () => {
    expect(levelBadge("ERROR")).toEqual({ words: "Error", className: "bad" });
    expect(levelBadge("WARNING")).toEqual({ words: "Warning", className: "warn" });
  });

  it("puts a count on the navigation's Settings link, coloured by the server's status", () => {
    expect(navHealthBadge({ status: "OK", checks: [] })).toBeNull();
    expect(navHealthBadge({ status: "WARNING", checks: [check("WARNING")] } as SystemHealth)).toEqual({
      count: 1,
      className: "warn",
      label: "Health: 1 warning to look at.",
    });
    expect(navHealthBadge({ status: "ERROR", checks: [check("WARNING"), check("ERROR")] } as SystemHealth)).toEqual({
      count: 2,
      className: "bad",
      label: "Health: 1 error and 1 warning to look at.",
    });
  });
});
