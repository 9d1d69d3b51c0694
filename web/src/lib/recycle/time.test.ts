import { describe, expect, it } from "vitest";
import { formatDateTime, isExpired, relativeTime } from "./time";

const now = new Date("2025-03-12T12:00:00Z");

describe("relative time", () => {
  it("words past and future times", () => {
    expect(relativeTime("2025-04-11T12:00:00Z", now)).toBe("in 30 days");
    expect(relativeTime("2025-06-12T12:00:00Z", now)).toBe("in 3 months");
    expect(relativeTime("2025-03-15T12:00:00Z", now)).toBe("in 3 days");
    expect(relativeTime("2025-03-13T12:00:00Z", now)).toBe("tomorrow");
    expect(relativeTime("2025-03-12T11:57:00Z", now)).toBe("3 minutes ago");
    expect(relativeTime("2025-03-12T12:14:59Z", now)).toBe("in 15 minutes");
    expect(relativeTime("2025-04-11T11:59:00Z", now)).toBe("in 30 days");
    expect(relativeTime("2025-03-12T11:59:50Z", now)).toBe("just now");
    expect(relativeTime("not a time", now)).toBe("");
  });

  it("formats a date in the given zone", () => {
    expect(formatDateTime("2025-03-12T14:05:00Z", "en-GB", "UTC")).toBe("12 Mar 2025, 14:05");
    expect(formatDateTime("garbage")).toBe("garbage");
  });
});

describe("retention", () => {
  it("knows when an entry expired", () => {
    expect(isExpired("2025-03-12T11:00:00Z", now)).toBe(true);
    expect(isExpired("2025-03-13T11:00:00Z", now)).toBe(false);
  });
});
