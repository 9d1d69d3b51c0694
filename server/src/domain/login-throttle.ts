/**
 * Login throttling, per key (an address, a user name): after `maxFailures` failed logins within
 * `windowMs` the key is locked for `baseLockMs`; a failure soon after a lock ends (within
 * `forgetMs` of its end) locks again at once for twice as long, up to `maxLockMs`. A success, or
 * `forgetMs` without a failure after the last lock ended, forgets the key. Pure: time is an argument.
 */

export interface ThrottlePolicy {
  windowMs: number;
  maxFailures: number;
  baseLockMs: number;
  maxLockMs: number;
  forgetMs: number;
}

export const LOGIN_THROTTLE: ThrottlePolicy = {
  windowMs: 60_000,
  maxFailures: 10,
  baseLockMs: 60_000,
  maxLockMs: 60 * 60_000,
  forgetMs: 15 * 60_000,
};

export interface ThrottleEntry {
  /** Times of the failures inside the current window, oldest first. */
  failures: readonly number[];
  /** Locks so far (each one doubles the next). */
  lockouts: number;
  lockedUntil: number;
  lastFailure: number;
}

const quietSince = (e: ThrottleEntry) => Math.max(e.lastFailure, e.lockedUntil);

/** Milliseconds the key stays locked at `now` (0 = not locked). */
export function lockRemaining(entry: ThrottleEntry | undefined, now: number): number {
  return entry ? Math.max(0, entry.lockedUntil - now) : 0;
}

function lockFor(policy: ThrottlePolicy, lockouts: number): number {
  return Math.min(policy.maxLockMs, policy.baseLockMs * 2 ** Math.max(0, lockouts - 1));
}

/** The entry after one more failure at `now`. */
export function afterFailure(
  entry: ThrottleEntry | undefined,
  now: number,
  policy: ThrottlePolicy = LOGIN_THROTTLE,
): ThrottleEntry {
  const fresh = !entry || now - quietSince(entry) >= policy.forgetMs;
  const lockouts = fresh ? 0 : entry.lockouts;
  // On probation after a lock: the first new failure locks again, for longer.
  if (!fresh && lockouts > 0 && entry.lockedUntil <= now) {
    return { failures: [], lockouts: lockouts + 1, lockedUntil: now + lockFor(policy, lockouts + 1), lastFailure: now };
  }
  const failures = [...(fresh ? [] : entry.failures.filter((t) => now - t < policy.windowMs)), now];
  if (failures.length >= policy.maxFailures) {
    return { failures: [], lockouts: lockouts + 1, lockedUntil: now + lockFor(policy, lockouts + 1), lastFailure: now };
  }
  return { failures, lockouts, lockedUntil: fresh ? 0 : entry.lockedUntil, lastFailure: now };
}

/** Whether the entry can be dropped at `now` (nothing it remembers matters any more). */
export function forgettable(entry: ThrottleEntry, now: number, policy: ThrottlePolicy = LOGIN_THROTTLE): boolean {
  return entry.lockedUntil <= now && now - quietSince(entry) >= policy.forgetMs;
}
