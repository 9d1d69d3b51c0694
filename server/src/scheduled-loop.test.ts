import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { scheduledLoop, type LoopGuard, type RunRecord } from "./scheduled-loop.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A cycle the test finishes by hand. */
function controlledCycle() {
  const pending: { resolve: (n: number) => void; reject: (e: Error) => void }[] = [];
  let calls = 0;
  const cycle = () => {
    calls += 1;
    return new Promise<number>((resolve, reject) => pending.push({ resolve, reject }));
  };
  return { cycle, pending, calls: () => calls };
}

describe("scheduledLoop", () => {
  it("runs a cycle every interval, the next one only after the last ended", async () => {
    const c = controlledCycle();
    const loop = scheduledLoop("test", c.cycle, () => undefined);
    await loop.start(1000);
    expect(loop.status().nextRun).not.toBeNull();
    await vi.advanceTimersByTimeAsync(1000);
    expect(c.calls()).toBe(1);
    expect(loop.status().running).toBe(true);
    // A slow cycle: no second one starts while it runs.
    await vi.advanceTimersByTimeAsync(5000);
    expect(c.calls()).toBe(1);
    c.pending[0]!.resolve(7);
    await vi.advanceTimersByTimeAsync(0);
    expect(loop.status()).toMatchObject({ running: false, lastOutcome: 7 });
    expect(loop.status().lastRun).not.toBeNull();
    await vi.advanceTimersByTimeAsync(1000);
    expect(c.calls()).toBe(2);
    c.pending[1]!.resolve(8);
    await loop.stop();
    expect(loop.status().nextRun).toBeNull();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(c.calls()).toBe(2);
  });

  it("a run on request joins the cycle under way", async () => {
    const c = controlledCycle();
    const loop = scheduledLoop("test", c.cycle, () => undefined);
    const a = loop.runNow();
    const b = loop.runNow();
    expect(c.calls()).toBe(1);
    c.pending[0]!.resolve(3);
    expect(await a).toBe(3);
    expect(await b).toBe(3);
  });

  it("a run on request times the next cycle one interval after it", async () => {
    vi.setSystemTime(new Date("2026-11-30T10:00:00Z"));
    const c = controlledCycle();
    const loop = scheduledLoop("test", c.cycle, () => undefined);
    await loop.start(100_000);
    await vi.advanceTimersByTimeAsync(30_000);
    const asked = loop.runNow();
    c.pending[0]!.resolve(1);
    await asked;
    expect(loop.status().nextRun).toBe("2026-11-30T10:02:10.000Z");
    // Not at the first timing (100 s after the start), but 100 s after the run.
    await vi.advanceTimersByTimeAsync(70_000);
    expect(c.calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(c.calls()).toBe(2);
    c.pending[1]!.resolve(2);
    await vi.advanceTimersByTimeAsync(0);
    // A request joining a timed cycle under way leaves the timing to that cycle: one timer.
    await vi.advanceTimersByTimeAsync(100_000);
    expect(c.calls()).toBe(3);
    const joined = loop.runNow();
    c.pending[2]!.resolve(3);
    expect(await joined).toBe(3);
    await vi.advanceTimersByTimeAsync(100_000);
    expect(c.calls()).toBe(4);
    c.pending[3]!.resolve(4);
    await loop.stop();
  });

  it("logs a failed cycle and keeps the schedule", async () => {
    const c = controlledCycle();
    const log = vi.fn();
    const loop = scheduledLoop("purge", c.cycle, log);
    await loop.start(100);
    await vi.advanceTimersByTimeAsync(100);
    c.pending[0]!.reject(new Error("disk full"));
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toHaveBeenCalledWith("purge: cycle failed: disk full");
    await vi.advanceTimersByTimeAsync(100);
    expect(c.calls()).toBe(2);
    c.pending[1]!.resolve(1);
    await loop.stop();
  });

  it("stop waits for the cycle under way", async () => {
    const c = controlledCycle();
    const loop = scheduledLoop("test", c.cycle, () => undefined);
    await loop.start(10);
    await vi.advanceTimersByTimeAsync(10);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    c.pending[0]!.resolve(1);
    await stopping;
    expect(stopped).toBe(true);
  });

  describe("with a record of runs", () => {
    /** The table as a map; `writes` lists what was recorded. */
    function memoryRecord(initial: Record<string, Date> = {}) {
      const rows = new Map(Object.entries(initial));
      const writes: [string, string][] = [];
      const record: RunRecord = {
        last: async (name) => rows.get(name) ?? null,
        record: async (name, at) => {
          rows.set(name, at);
          writes.push([name, at.toISOString()]);
        },
      };
      return { record, rows, writes };
    }

    it("without a recorded cycle, the first comes one interval after the start, and each cycle is recorded", async () => {
      vi.setSystemTime(new Date("2026-11-30T10:00:00Z"));
      const c = controlledCycle();
      const m = memoryRecord();
      const loop = scheduledLoop("wanted", c.cycle, () => undefined, undefined, m.record);
      await loop.start(60_000);
      expect(loop.status()).toMatchObject({ lastRun: null, nextRun: "2026-11-30T10:01:00.000Z" });
      await vi.advanceTimersByTimeAsync(59_999);
      expect(c.calls()).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(c.calls()).toBe(1);
      c.pending[0]!.resolve(1);
      await vi.advanceTimersByTimeAsync(0);
      expect(m.writes).toEqual([["wanted", "2026-11-30T10:01:00.000Z"]]);
      await loop.stop();
    });

    it("after a restart the first cycle is one interval after the recorded one, and the status shows it", async () => {
      vi.setSystemTime(new Date("2026-11-30T10:00:00Z"));
      const c = controlledCycle();
      const m = memoryRecord({ wanted: new Date("2026-11-30T09:45:00Z") });
      const loop = scheduledLoop("wanted", c.cycle, () => undefined, undefined, m.record);
      await loop.start(3_600_000);
      expect(loop.status()).toMatchObject({ lastRun: "2026-11-30T09:45:00.000Z", nextRun: "2026-11-30T10:45:00.000Z" });
      await vi.advanceTimersByTimeAsync(45 * 60_000 - 1);
      expect(c.calls()).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(c.calls()).toBe(1);
      c.pending[0]!.resolve(1);
      await loop.stop();
    });

    it("an overdue pass runs at once after the start, then every interval", async () => {
      vi.setSystemTime(new Date("2026-11-30T10:00:00Z"));
      const c = controlledCycle();
      const m = memoryRecord({ scan: new Date("2026-11-29T10:00:00Z") });
      const loop = scheduledLoop("scan", c.cycle, () => undefined, undefined, m.record);
      await loop.start(3_600_000);
      await vi.advanceTimersByTimeAsync(0);
      expect(c.calls()).toBe(1);
      c.pending[0]!.resolve(5);
      await vi.advanceTimersByTimeAsync(0);
      expect(m.rows.get("scan")?.toISOString()).toBe("2026-11-30T10:00:00.000Z");
      expect(loop.status().nextRun).toBe("2026-11-30T11:00:00.000Z");
      await loop.stop();
    });

    it("a cycle another instance had the turn for is not recorded here; a failed one is", async () => {
      const c = controlledCycle();
      const m = memoryRecord();
      let turn = false;
      const guard: LoopGuard = async (_name, fn) => (turn ? { ran: true, value: await fn() } : { ran: false });
      const loop = scheduledLoop("refresh", c.cycle, () => undefined, guard, m.record);
      await loop.start(100);
      await vi.advanceTimersByTimeAsync(100);
      expect(c.calls()).toBe(0);
      expect(m.writes).toEqual([]);
      turn = true;
      await vi.advanceTimersByTimeAsync(100);
      c.pending[0]!.reject(new Error("catalogue down"));
      await vi.advanceTimersByTimeAsync(0);
      expect(m.writes).toHaveLength(1);
      await loop.stop();
    });

    it("a record that cannot be read or written is logged and the schedule goes on", async () => {
      const c = controlledCycle();
      const log = vi.fn();
      const broken: RunRecord = {
        last: () => Promise.reject(new Error("no such table")),
        record: () => Promise.reject(new Error("database closed")),
      };
      const loop = scheduledLoop("wanted", c.cycle, log, undefined, broken);
      await loop.start(100);
      expect(log).toHaveBeenCalledWith("wanted: the time of its last cycle could not be read: no such table");
      await vi.advanceTimersByTimeAsync(100);
      c.pending[0]!.resolve(1);
      await vi.advanceTimersByTimeAsync(0);
      expect(log).toHaveBeenCalledWith("wanted: the time of its last cycle was not kept: database closed");
      expect(loop.status().lastRun).not.toBeNull();
      await vi.advanceTimersByTimeAsync(100);
      expect(c.calls()).toBe(2);
      c.pending[1]!.resolve(2);
      await loop.stop();
    });

    it("work noted from outside is kept as a cycle and times the next one; a cycle under way keeps its own timing", async () => {
      vi.setSystemTime(new Date("2026-11-30T10:00:00Z"));
      const c = controlledCycle();
      const m = memoryRecord();
      const loop = scheduledLoop("scan", c.cycle, () => undefined, undefined, m.record);
      await loop.start(3_600_000);
      await vi.advanceTimersByTimeAsync(20 * 60_000);
      await loop.noteRun();
      expect(c.calls()).toBe(0);
      expect(m.writes).toEqual([["scan", "2026-11-30T10:20:00.000Z"]]);
      expect(loop.status()).toMatchObject({ lastRun: "2026-11-30T10:20:00.000Z", nextRun: "2026-11-30T11:20:00.000Z" });
      // No cycle at the first timing (11:00), one at 11:20.
      await vi.advanceTimersByTimeAsync(60 * 60_000 - 1);
      expect(c.calls()).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(c.calls()).toBe(1);
      // Noted while that cycle runs: kept, but the cycle times the next one when it ends.
      await vi.advanceTimersByTimeAsync(60_000);
      await loop.noteRun();
      expect(loop.status().nextRun).toBe("2026-11-30T11:20:00.000Z");
      c.pending[0]!.resolve(1);
      await vi.advanceTimersByTimeAsync(0);
      expect(loop.status().nextRun).toBe("2026-11-30T12:21:00.000Z");
      await loop.stop();
    });

    it("work noted on a loop that is not started is kept and schedules nothing", async () => {
      vi.setSystemTime(new Date("2026-11-30T10:00:00Z"));
      const c = controlledCycle();
      const m = memoryRecord();
      const loop = scheduledLoop("scan", c.cycle, () => undefined, undefined, m.record);
      await loop.noteRun();
      expect(m.writes).toEqual([["scan", "2026-11-30T10:00:00.000Z"]]);
      expect(loop.status()).toMatchObject({ lastRun: "2026-11-30T10:00:00.000Z", nextRun: null });
      await vi.advanceTimersByTimeAsync(10 * 3_600_000);
      expect(c.calls()).toBe(0);
    });

    it("stop before the record is read times nothing", async () => {
      const c = controlledCycle();
      const m = memoryRecord({ wanted: new Date(0) });
      const loop = scheduledLoop("wanted", c.cycle, () => undefined, undefined, m.record);
      const starting = loop.start(100);
      await loop.stop();
      await starting;
      await vi.advanceTimersByTimeAsync(1000);
      expect(c.calls()).toBe(0);
      expect(loop.status().nextRun).toBeNull();
    });
  });
});
