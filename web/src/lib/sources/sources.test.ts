import { describe, expect, it } from "vitest";
import {
  clampPriority,
  healthWords,
  mappingStateWords,
  movedPriority,
  problemReason,
  problemsHeadline,
  providerLabel,
  refreshSentence,
} from "./sources";

describe("sources helpers", () => {
  it("words health and state", () => {
    expect(healthWords("OK")).toEqual({ label: "Healthy", tone: "good" });
    expect(healthWords("FAILING").tone).toBe("bad");
    expect(healthWords("UNKNOWN").label).toBe("No downloads yet");
    expect(mappingStateWords("rejected")).toEqual({ label: "Rejected", tone: "bad" });
    expect(mappingStateWords("active").label).toBe("Active");
    expect(mappingStateWords("paused_by_x").label).toBe("Paused by x");
  });

  it("moves a priority past its neighbour, within bounds", () => {
    // The range the API gives (rules.sourcePriorityMin/Max).
    const RANGE = { min: -1000, max: 1000 };
    expect(movedPriority([10, 0, -5], 1, "up", RANGE)).toBe(11);
    expect(movedPriority([10, 0, -5], 1, "down", RANGE)).toBe(-6);
    expect(movedPriority([10, 0], 0, "up", RANGE)).toBeNull();
    expect(movedPriority([10, 0], 1, "down", RANGE)).toBeNull();
    expect(movedPriority([0, 0], 1, "up", RANGE)).toBe(1);
    expect(movedPriority([1000, 1000], 1, "up", RANGE)).toBeNull();
    expect(clampPriority(5000, RANGE)).toBe(1000);
    expect(clampPriority(-2000.4, RANGE)).toBe(-1000);
  });

  it("names providers", () => {
    expect(providerLabel("drop-folder")).toBe("Drop folder");
    expect(providerLabel("suwayomi:42", "MangaDex (en)")).toBe("MangaDex (en)");
    expect(providerLabel("suwayomi:42")).toBe("Suwayomi source 42");
  });

  it("words a refresh", () => {
    const ok = { status: "OK", error: null, offers: 3, added: 3, updated: 0, removed: 0 };
    expect(refreshSentence(ok, "A")).toBe("A: 3 offers (3 new, 0 changed, 0 gone).");
    expect(refreshSentence({ ...ok, status: "FAILED", error: "provider_failed" }, "A")).toMatch(
      /failed \(provider_failed\)/,
    );
    expect(refreshSentence({ ...ok, status: "UNAVAILABLE" }, "A")).toMatch(/not available/);
  });

  it("words what the drop folder could not offer", () => {
    expect(problemsHeadline(1)).toBe("1 file could not be offered");
    expect(problemsHeadline(2)).toBe("2 files could not be offered");
    expect(problemReason({ code: "archive_truncated", detail: "The archive is truncated." })).toBe(
      "The archive is truncated (still being copied?).",
    );
    expect(problemReason({ code: "number_range", detail: "Names a range." })).toBe("Names a range.");
    expect(problemReason({ code: "archive_entry_unsafe", detail: "An entry name points outside the archive." })).toBe(
      "An entry name points outside the archive.",
    );
  });
});
