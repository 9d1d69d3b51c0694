/** The download job's throttled progress writes: at most one per interval, the last count always written. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { trailingWrites } from "../src/services/acquisition/download-pipeline-job.ts";

describe("trailingWrites", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("writes the first poke at once, the skipped ones once the interval is up, and a forced one at once", async () => {
    let value = 0;
    const written: number[] = [];
    const w = trailingWrites(250, async () => void written.push(value));
    value = 1;
    await w.poke();
    value = 2;
    await w.poke();
    value = 3;
    await w.poke();
    expect(written).toEqual([1]);
    await vi.advanceTimersByTimeAsync(249);
    expect(written).toEqual([1]);
    await vi.advanceTimersByTimeAsync(1);
    expect(written).toEqual([1, 3]);
    value = 4;
    await w.poke(true);
    expect(written).toEqual([1, 3, 4]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(written).toEqual([1, 3, 4]);
  });

  it("a forced write takes the pending one's place, and stop drops a pending write", async () => {
    let value = 0;
    const written: number[] = [];
    const w = trailingWrites(250, async () => void written.push(value));
    value = 1;
    await w.poke();
    value = 2;
    await w.poke();
    value = 3;
    await w.poke(true);
    expect(written).toEqual([1, 3]);
    value = 4;
    await w.poke();
    await w.stop();
    value = 5;
    await w.poke(true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(written).toEqual([1, 3]);
  });

  it("runs one write at a time, in order", async () => {
    const order: string[] = [];
    let n = 0;
    const w = trailingWrites(0, async () => {
      const k = ++n;
      order.push(`start ${k}`);
      await new Promise((r) => setTimeout(r, k === 1 ? 50 : 1));
      order.push(`end ${k}`);
    });
    const first = w.poke();
    const second = w.poke();
    await vi.advanceTimersByTimeAsync(100);
    await Promise.all([first, second]);
    expect(order).toEqual(["start 1", "end 1", "start 2", "end 2"]);
  });
});
