import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { requestActivity } from "./request-activity.ts";

describe("requestActivity", () => {
  let clock = 0;
  beforeEach(() => {
    clock = 1000;
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const advance = async (ms: number) => {
    clock += ms;
    await vi.advanceTimersByTimeAsync(ms);
  };

  it("is quiet at once when no request has run", async () => {
    const a = requestActivity(() => clock);
    let done = false;
    void a.quiet(25, 500).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
  });

  it("waits while a request is in flight and for the idle time after it ended", async () => {
    const a = requestActivity(() => clock);
    a.began();
    a.began();
    expect(a.inFlight()).toBe(2);
    let done = false;
    void a.quiet(25, 500).then(() => (done = true));
    await advance(100);
    a.ended();
    await advance(100);
    expect(done).toBe(false);
    a.ended();
    expect(a.inFlight()).toBe(0);
    await advance(10);
    expect(done).toBe(false);
    await advance(30);
    expect(done).toBe(true);
  });

  it("gives up waiting after maxWaitMs under a steady load", async () => {
    const a = requestActivity(() => clock);
    a.began();
    let done = false;
    void a.quiet(25, 500).then(() => (done = true));
    await advance(450);
    expect(done).toBe(false);
    await advance(60);
    expect(done).toBe(true);
  });

  it("never counts below zero", () => {
    const a = requestActivity(() => clock);
    a.ended();
    expect(a.inFlight()).toBe(0);
  });
});
