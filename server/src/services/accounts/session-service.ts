/**
 * Web logins as server-side sessions: the cookie carries a random token, the database its sha256.
 * Logout, "sign out everywhere" and a password change delete rows, so a copied cookie stops
 * working at once; open live connections of a revoked session are told (`onRevoked`), on every
 * instance: the ids of ended sessions travel on the event bus (through Redis), and each lease
 * renewal looks for connections whose session is gone without word (`endedSince`).
 *
 * Logins are throttled per address and per user name (domain/login-throttle.ts), checked with the
 * asynchronous scrypt (one check costs the same for an unknown user), and at most a few checks run
 * at a time so that a flood of guesses cannot take libuv's whole thread pool from file work.
 */
import { createHash, randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import { afterFailure, forgettable, lockRemaining, type ThrottleEntry } from "../../domain/login-throttle.ts";
import { AppError } from "../../errors.ts";
import { verifyPassword } from "../../password-hash.ts";
import { sessionRepo, type SessionRow } from "../../repositories/session-repo.ts";
import type { AppContext } from "../context.ts";

export const SESSION_DAYS = 30;
/** The only web user. */
export const ADMIN_USER = "admin";
/** Sessions kept per user (the oldest go first). */
const MAX_SESSIONS = 50;
/** lastSeenAt is written at most this often per session. */
const TOUCH_EVERY_MS = 5 * 60_000;
/**
 * Password checks running at once, and waiting; beyond that a login is refused with 429 at once.
 * One core is left to the event loop: a scrypt keeps a core busy for its whole run, and on a
 * two-core machine two of them at once delayed every other request (measured by the hardening
 * benchmark's health-under-flood figure).
 */
const CHECKS_AT_ONCE = Math.max(1, Math.min(2, availableParallelism() - 1));
const CHECKS_WAITING = 32;
/** Throttle keys remembered at most (the oldest are dropped first). */
const MAX_THROTTLE_KEYS = 10_000;
export const MIN_PASSWORD = 8;
const MAX_PASSWORD = 1024;
const MAX_USERNAME = 100;

export interface SessionPrincipal {
  id: number;
  username: string;
}

export interface SessionView {
  id: number;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  userAgent: string | null;
  address: string | null;
  current: boolean;
}

export interface LoginFacts {
  address: string | null;
  userAgent: string | null;
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

/** A small counting semaphore with a bounded queue. */
function gate(limit: number, waiting: number) {
  let running = 0;
  const queue: (() => void)[] = [];
  return {
    /** Runs `fn` when a place is free; null when too many wait already. */
    async run<T>(fn: () => Promise<T>): Promise<T | null> {
      if (running >= limit) {
        if (queue.length >= waiting) return null;
        await new Promise<void>((resolve) => queue.push(resolve));
      } else running += 1;
      try {
        return await fn();
      } finally {
        const next = queue.shift();
        if (next) next();
        else running -= 1;
      }
    },
  };
}

function throttled(retryAfterMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError("login_throttled", `too many failed logins: try again in ${seconds} s`, {
    retry_after: seconds,
  });
}

export function passwordField(v: unknown, field: string, min = 1): string {
  if (typeof v !== "string" || v.length < min || v.length > MAX_PASSWORD) {
    throw new AppError("invalid_field", `${field} must be a string of ${min} to ${MAX_PASSWORD} characters`, {
      field,
    });
  }
  return v;
}

export interface LoginInput {
  username: string;
  password: string;
}

/** Changing the admin password: the current one (checked, throttled like a login) and the new one. */
export interface PasswordChangeInput {
  currentPassword: string;
  newPassword: string;
}

export function sessionService(ctx: AppContext) {
  const repo = sessionRepo(ctx.db);
  const throttle = new Map<string, ThrottleEntry>();
  const checks = gate(CHECKS_AT_ONCE, CHECKS_WAITING);
  const revokedListeners = new Set<(ids: number[]) => void>();

  const tell = (ids: number[]) => {
    for (const l of revokedListeners) l(ids);
  };
  const revoked = (ids: number[]) => {
    if (ids.length === 0) return;
    tell(ids);
    if (!ctx.cluster.exclusive) ctx.events.publishSessionsEnded(ctx.cluster.instanceId, ids);
  };

  function remember(key: string, entry: ThrottleEntry, now: number): void {
    throttle.delete(key);
    throttle.set(key, entry);
    if (throttle.size <= MAX_THROTTLE_KEYS) return;
    for (const [k, e] of throttle) {
      if (throttle.size <= MAX_THROTTLE_KEYS) break;
      if (forgettable(e, now) || throttle.size > MAX_THROTTLE_KEYS * 1.1) throttle.delete(k);
    }
  }

  async function open(username: string, facts: LoginFacts, now: Date): Promise<{ token: string; row: SessionRow }> {
    const token = randomBytes(32).toString("base64url");
    const row = await repo.create({
      tokenHash: tokenHash(token),
      username,
      passwordStamp: ctx.secrets.passwordStamp(),
      userAgent: facts.userAgent?.slice(0, 300) ?? null,
      address: facts.address?.slice(0, 100) ?? null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + SESSION_DAYS * 86_400_000),
    });
    revoked(await repo.trim(username, MAX_SESSIONS));
    return { token, row };
  }

  /** Runs a credential check under the throttle of `keys`: throws 429, or returns whether it passed. */
  async function throttledCheck(keys: string[], check: () => Promise<boolean>): Promise<boolean> {
    const now = Date.now();
    const locked = Math.max(...keys.map((k) => lockRemaining(throttle.get(k), now)));
    if (locked > 0) throw throttled(locked);
    // Counted before the check, so that concurrent guesses cannot overtake the limit.
    for (const k of keys) remember(k, afterFailure(throttle.get(k), now), now);
    const ok = await checks.run(check);
    if (ok === null) throw throttled(1000);
    if (ok) for (const k of keys) throttle.delete(k);
    return ok;
  }

  /** Checks a password under the throttle of `keys`; throws 429 or 401. */
  async function checkThrottled(username: string, password: string, keys: string[]): Promise<void> {
    const known = username === ADMIN_USER;
    const ok = await throttledCheck(keys, async () =>
      known ? await ctx.secrets.checkAdminPassword(password) : (await verifyPassword(null, password)) && false,
    );
    if (!ok) throw new AppError("bad_credentials");
  }

  /** The session a cookie's token opens, or null (unknown, expired, revoked, or another password's). */
  async function authenticate(token: string): Promise<SessionPrincipal | null> {
    if (!TOKEN.test(token)) return null;
    const now = new Date();
    const row = await repo.byTokenHash(tokenHash(token), now);
    if (!row || row.username !== ADMIN_USER || row.passwordStamp !== ctx.secrets.passwordStamp()) return null;
    if (now.getTime() - row.lastSeenAt.getTime() > TOUCH_EVERY_MS) await repo.touch(row.id, now);
    return { id: row.id, username: row.username };
  }

  return {
    /** Drops sessions that expired or were opened under another password (run at start-up). */
    async sweep(now = new Date()): Promise<number> {
      const ids = await repo.removeStale(now, ctx.secrets.passwordStamp());
      revoked(ids);
      return ids.length;
    },

    async login(input: LoginInput, facts: LoginFacts): Promise<{ token: string; expiresAt: Date }> {
      // Too long a name or password is answered like a wrong password (no hint which part was wrong).
      const { username, password } = input;
      if (username.length > MAX_USERNAME) throw new AppError("bad_credentials");
      if (password.length > MAX_PASSWORD) throw new AppError("bad_credentials");
      const keys = [`user:${username.toLowerCase()}`, ...(facts.address ? [`address:${facts.address}`] : [])];
      await checkThrottled(username, password, keys);
      const { token, row } = await open(username, facts, new Date());
      return { token, expiresAt: row.expiresAt };
    },

    authenticate,

    /**
     * A reader app's credential check (HTTP Basic, KOReader's key) under the login throttle: the
     * caller's address shares the web login's count, the user name has a count of its own (an app
     * left with an old password locks itself out, not the web login). Throws 429 when locked.
     */
    checkReaderCredential(username: string, address: string | null, check: () => Promise<boolean>): Promise<boolean> {
      const keys = [`reader:${username.toLowerCase()}`, ...(address ? [`address:${address}`] : [])];
      return throttledCheck(keys, check);
    },

    /** Logout: the session of this token ends (nothing happens for an unknown token). */
    async logout(token: string): Promise<void> {
      const who = await authenticate(token);
      if (who) revoked(await repo.remove(who.username, [who.id]));
    },

    async list(username: string, currentId: number | null): Promise<SessionView[]> {
      const rows = await repo.listLive(username, new Date());
      const stamp = ctx.secrets.passwordStamp();
      return rows
        .filter((r) => r.passwordStamp === stamp)
        .map((r) => ({
          id: r.id,
          createdAt: r.createdAt,
          lastSeenAt: r.lastSeenAt,
          expiresAt: r.expiresAt,
          userAgent: r.userAgent,
          address: r.address,
          current: r.id === currentId,
        }));
    },

    /** Ends one session of `username` (404 `session_not_found` when it has none with that id). */
    async revoke(username: string, id: number): Promise<void> {
      const ids = await repo.remove(username, [id]);
      if (ids.length === 0) throw new AppError("session_not_found", `there is no session ${id}`);
      revoked(ids);
    },

    /** "Sign out everywhere": every session of `username` ends, the caller's too. */
    async revokeAll(username: string): Promise<number> {
      const ids = await repo.removeAllOf(username);
      revoked(ids);
      return ids.length;
    },

    /**
     * Changes the admin password after checking the current one (throttled like a login). Every
     * session ends; a caller signed in with a session gets a new one.
     */
    async changePassword(
      input: PasswordChangeInput,
      caller: { sessionId: number | null; facts: LoginFacts },
    ): Promise<{ signedOut: number; token: string | null; expiresAt: Date | null }> {
      const current = passwordField(input.currentPassword, "current_password");
      const next = passwordField(input.newPassword, "new_password", MIN_PASSWORD);
      if (ctx.secrets.passwordFromEnvironment) throw new AppError("password_set_by_environment");
      const keys = [`user:${ADMIN_USER}`, ...(caller.facts.address ? [`address:${caller.facts.address}`] : [])];
      await checkThrottled(ADMIN_USER, current, keys);
      await ctx.secrets.setAdminPassword(next);
      const ids = await repo.removeAllOf(ADMIN_USER);
      revoked(ids);
      if (caller.sessionId === null) return { signedOut: ids.length, token: null, expiresAt: null };
      const { token, row } = await open(ADMIN_USER, caller.facts, new Date());
      return { signedOut: ids.length, token, expiresAt: row.expiresAt };
    },

    /** Sessions another instance ended (its event): this instance's listeners hear of them. */
    endedElsewhere(ids: number[]): void {
      if (ids.length > 0) tell(ids);
    },

    /**
     * Of the sessions this instance holds live connections of, those that no longer exist (ended
     * on an instance whose event did not reach this one): the listeners hear of them.
     */
    async endedSince(ids: readonly number[]): Promise<void> {
      if (ids.length === 0) return;
      const live = await repo.existing(ids);
      const gone = ids.filter((id) => !live.has(id));
      if (gone.length > 0) tell(gone);
    },

    /** Called with the ids of sessions that ended (live connections opened with them close). */
    onRevoked(listener: (ids: number[]) => void): () => void {
      revokedListeners.add(listener);
      return () => revokedListeners.delete(listener);
    },
  };
}

export type SessionService = ReturnType<typeof sessionService>;
