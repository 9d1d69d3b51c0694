import { describe, expect, it } from "vitest";
import { browserName, passwordProblem } from "./sessions";

describe("sessions", () => {
  it("names the browser and its system from the User-Agent", () => {
    const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
    const chrome =
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";
    const edge = `${chrome} Edg/126.0`;
    const safari =
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
    expect(browserName(firefox)).toBe("Firefox on Linux");
    expect(browserName(chrome)).toBe("Chrome on Windows");
    expect(browserName(edge)).toBe("Edge on Windows");
    expect(browserName(safari)).toBe("Safari on iOS");
    expect(browserName("curl/8.5.0")).toBe("Unknown browser");
    expect(browserName(null)).toBe("Unknown browser");
  });

  it("checks a new password before it is sent", () => {
    expect(passwordProblem("short", "short")).toMatch(/at least 8/);
    expect(passwordProblem("long enough", "long enougH")).toMatch(/differ/);
    expect(passwordProblem("long enough", "long enough")).toBeNull();
  });
});
