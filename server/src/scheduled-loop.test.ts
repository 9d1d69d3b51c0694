import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { scheduledLoop } from "./scheduled-loop.ts";

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
    loop.start(1000);
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

  it("logs a failed cycle and keeps the schedule", async () => {
    const c = controlledCycle();
    const log = vi.fn();
    const loop = scheduledLoop("purge", c.cycle, log);
    loop.start(100);
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
    loop.start(10);
    await vi.advanceTimersByTimeAsync(10);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    c.pending[0]!.resolve(1);
    await stopping;
    expect(stopped).toBe(true);
  });
});
