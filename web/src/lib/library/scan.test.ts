import { describe, expect, it } from "vitest";
import { scanWords, type ScanSummary } from "./scan";

const none: ScanSummary = { added: 0, changed: 0, moved: 0, removed: 0, unchanged: 12, seriesCreated: 0, errors: [] };

describe("scanWords", () => {
  it("says when nothing changed", () => {
    expect(scanWords(none)).toBe("Scan finished: nothing changed.");
  });

  it("lists what the scan found", () => {
    expect(scanWords({ ...none, added: 3, seriesCreated: 1 })).toBe("Scan finished: 3 new files, 1 new series.");
    expect(
      scanWords({ ...none, removed: 1, errors: [{ path: "a.cbz", code: "archive_unreadable", message: "" }] }),
    ).toBe("Scan finished: 1 file gone from disk, 1 file could not be read.");
  });
});
