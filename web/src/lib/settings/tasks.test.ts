import { describe, expect, it } from "vitest";
import { intervalWords, lastRunWords, nextRunWords, ranMessage, taskDoes, taskTitle, type TaskName } from "./tasks";

const now = new Date("2026-11-30T12:00:00Z");

describe("scheduled task words", () => {
  it("names every task and says what it does", () => {
    const names: TaskName[] = ["WANTED", "ASSEMBLY", "CATALOGUE_REFRESH", "LIBRARY_SCAN", "RECYCLE_BIN_PURGE"];
    expect(names.map(taskTitle)).toEqual([
      "Wanted pass",
      "Automatic assembly",
      "Catalogue refresh",
      "Library scan",
      "Recycle bin purge",
    ]);
    for (const n of names) expect(taskDoes(n)).toMatch(/\.$/);
    expect(ranMessage({ name: "WANTED" })).toBe("Wanted pass ran.");
  });

  it.each([
    [0, "on request only"],
    [900, "every 15 minutes"],
    [3600, "every hour"],
    [21_600, "every 6 hours"],
    [43_200, "every 12 hours"],
    [86_400, "every day"],
    [172_800, "every 2 days"],
    [90, "every 90 seconds"],
    [1, "every second"],
  ])("an interval of %i s reads %s", (seconds, words) => {
    expect(intervalWords(seconds)).toBe(words);
  });

  it("says when a task last ran and runs next", () => {
    expect(lastRunWords({ lastRun: null }, now)).toBe("never");
    expect(lastRunWords({ lastRun: "2026-11-30T09:00:00Z" }, now)).toBe("3 hours ago");
    expect(nextRunWords({ nextRun: "2026-11-30T12:40:00Z", running: false }, now)).toBe("in 40 minutes");
    expect(nextRunWords({ nextRun: "2026-11-30T12:40:00Z", running: true }, now)).toBe("running now");
    expect(nextRunWords({ nextRun: null, running: false }, now)).toBe("not scheduled");
    expect(nextRunWords({ nextRun: "2026-11-30T11:59:00Z", running: false }, now)).toBe("due now");
  });
});
