import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LOGIN_THROTTLE, afterFailure, forgettable, lockRemaining, type ThrottleEntry } from "./login-throttle.ts";

/** An attacker guessing at the given gaps (ms), trying only when the key is not locked. */
function simulate(gaps: number[]): { checked: number[]; locks: number[] } {
  let e: ThrottleEntry | undefined;
  let now = 0;
  const checked: number[] = [];
  const locks: number[] = [];
  for (const gap of gaps) {
    now += gap;
    if (lockRemaining(e, now) > 0) continue;
    const before = e?.lockouts ?? 0;
    e = afterFailure(e, now);
    checked.push(now);
    if (e.lockouts > before) locks.push(e.lockedUntil - now);
  }
  return { checked, locks };
}

describe("login throttle", () => {
  it("never lets more than 10 guesses be checked within any minute", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20_000 }), { maxLength: 400 }), (gaps) => {
        const { checked } = simulate(gaps);
        for (let i = 0; i < checked.length; i++) {
          const inWindow = checked.filter((t) => t >= (checked[i] as number) && t < (checked[i] as number) + 60_000);
          expect(inWindow.length).toBeLessThanOrEqual(LOGIN_THROTTLE.maxFailures);
        }
      }),
    );
  });

  it("makes each lock at least as long as the one before until the key is forgotten", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5_000 }), { maxLength: 400 }), (gaps) => {
        // Gaps under the forget time: the key is never forgotten, so locks only grow, up to an hour.
        const { locks } = simulate(gaps);
        for (let i = 1; i < locks.length; i++) expect(locks[i]).toBeGreaterThanOrEqual(locks[i - 1] as number);
        for (const l of locks) expect(l).toBeLessThanOrEqual(LOGIN_THROTTLE.maxLockMs);
      }),
    );
  });

  it("forgets a key only once its lock is over and it stayed quiet", () => {
    const locked = Array.from({ length: 10 }, () => 0).reduce<ThrottleEntry | undefined>(
      (e, t) => afterFailure(e, t),
      undefined,
    ) as ThrottleEntry;
    expect(forgettable(locked, 30_000)).toBe(false);
    expect(forgettable(locked, 60_000 + LOGIN_THROTTLE.forgetMs - 1)).toBe(false);
    expect(forgettable(locked, 60_000 + LOGIN_THROTTLE.forgetMs)).toBe(true);
  });
});
