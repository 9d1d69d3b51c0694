/**
 * Several instances of the service on one database (PostgreSQL): who holds what, for how long.
 *
 * Every instance has a random id. What one instance must do alone is a lease (repositories/lease-repo.ts)
 * under a key, held by that id until an expiry the instance renews every quarter of LEASE_SECONDS
 * while it lives:
 * - locks (`lock:<namespace>/<key>`): `keyedLock(namespace)` holds a key in the process (callers
 *   of one instance queue in memory) and in the database (other instances poll until it is free);
 * - the turn of a scheduled pass (`turn:<name>`): one instance runs a cycle, the others skip it;
 * - claims on background work (`download:<id>`, `translation:<id>`, `journal:<id>`): the work is
 *   this instance's while its claim lives; a claim whose lease ran out belonged to an instance that
 *   died, and the recovery sweep (`onSweep`) of a live one takes the work over.
 * A clean stop gives every lease up, so that another instance resumes at once.
 *
 * With SQLite only one instance runs (`exclusive`): locks stay in memory, a turn is always this
 * instance's, claims cost nothing, and start-up recovery may take whatever it finds (the previous
 * process is gone) — the single-instance service works exactly as it did before there were leases.
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import type { LeaseRepo } from "../repositories/lease-repo.ts";
import type { LoopGuard } from "../scheduled-loop.ts";
import { createKeyedLock, type KeyedLock } from "./keyed-lock.ts";

export interface Cluster {
  /** This process's id: host, pid and random bytes (shown in logs, stored as the lease owner). */
  readonly instanceId: string;
  /** The only instance on its database (SQLite): leases are not written. */
  readonly exclusive: boolean;
  readonly leaseMs: number;
  /** A keyed lock shared by every instance (in memory only when exclusive). */
  keyedLock(namespace: string): KeyedLock;
  /** Runs `fn` in the turn `name`, waiting for it or skipping when another instance has it. */
  turn: LoopGuard;
  /** Claims a piece of work for this instance; false when a live instance holds it. */
  claim(key: string): Promise<boolean>;
  /**
   * Claims a piece of work for one caller: false also when this instance holds or is taking the
   * claim already (`claim` answers true to its holder again). Two callers of one instance, such as
   * a recovery sweep and a judgement, cannot both have it.
   */
  claimAlone(key: string): Promise<boolean>;
  /** Gives claims up (the work ended or went back to its queue). */
  release(keys: readonly string[]): Promise<void>;
  /** Whether this instance holds the claim. */
  holds(key: string): boolean;
  /** Of these keys, the ones a live other instance holds. */
  heldElsewhere(keys: readonly string[]): Promise<Set<string>>;
  /** The lease a journal entry is born with (null when exclusive: nothing to write). */
  journalLease(): { owner: string; expiresAt: Date } | null;
  /** Adds work to the recovery sweep that runs after each renewal (workers only). */
  onSweep(fn: () => Promise<void>): void;
  /** Adds a cheap check that runs after each renewal, on every instance (errors are logged). */
  onRenew(fn: () => Promise<void>): void;
  /** Starts renewing (and sweeping, when `sweep`); a no-op when exclusive. */
  start(options: { sweep: boolean }): void;
  /** Stops renewing and gives every lease up. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function newInstanceId(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
}

export function createCluster(
  repo: LeaseRepo,
  options: { exclusive: boolean; leaseMs: number; log: (m: string) => void; instanceId?: string },
): Cluster {
  const instanceId = options.instanceId ?? newInstanceId();
  const { exclusive, leaseMs, log } = options;
  // Each key this instance holds, with the number of the taking that got it (see `beat`).
  const held = new Map<string, number>();
  let takings = 0;
  // Keys being taken by claimAlone (the database answer is awaited).
  const taking = new Set<string>();
  const sweeps: (() => Promise<void>)[] = [];
  const renewals: (() => Promise<void>)[] = [];
  const locals = new Map<string, KeyedLock>();
  let timer: NodeJS.Timeout | null = null;
  let beating: Promise<void> | null = null;
  let sweeping = false;
  const until = () => new Date(Date.now() + leaseMs);

  async function take(key: string): Promise<boolean> {
    if (held.has(key)) return true;
    const ok = await repo.take(key, instanceId, until(), new Date());
    if (ok) held.set(key, ++takings);
    return ok;
  }

  async function give(keys: readonly string[]): Promise<void> {
    const mine = keys.filter((k) => held.has(k));
    for (const k of mine) held.delete(k);
    await repo.release(instanceId, mine);
  }

  function localLock(namespace: string): KeyedLock {
    let l = locals.get(namespace);
    if (!l) locals.set(namespace, (l = createKeyedLock()));
    return l;
  }

  /** The database half of a lock: polls (20 ms doubling to 250 ms) until the key is free. */
  async function acquire(key: string): Promise<void> {
    for (let wait = 20; !(await take(key)); wait = Math.min(250, wait * 2)) await sleep(wait);
  }

  async function beat(sweep: boolean): Promise<void> {
    await repo.renew(instanceId, until());
    if (held.size > 0) {
      // A lease ran out before this renewal (the process stalled for longer than LEASE_SECONDS) and
      // another instance may have taken it: only the ones still ours are trusted from now on. The
      // renewal's count cannot tell: it also counts the journal entries' leases, which `held` does not name.
      // Only the holdings seen before the question are judged by its answer: a key taken while it
      // was asked (or given up and taken again) is not in it, yet is ours. Forgetting such a key
      // would leave its lease unreleased and renewed for good, and every other instance waiting.
      const asked = [...held];
      const mine = await repo.owned(
        instanceId,
        asked.map(([k]) => k),
      );
      const lost = asked.filter(([k, taking]) => !mine.has(k) && held.get(k) === taking).map(([k]) => k);
      for (const k of lost) held.delete(k);
      if (lost.length > 0)
        log(`cluster: lease(s) ${lost.join(", ")} of ${instanceId} ran out before they were renewed`);
    }
    for (const fn of renewals)
      await fn().catch((e: unknown) => log(`cluster: a check after the renewal failed: ${(e as Error).message}`));
    if (!sweep || sweeping) return;
    sweeping = true;
    try {
      for (const fn of sweeps)
        await fn().catch((e: unknown) => log(`cluster: recovery sweep failed: ${(e as Error).message}`));
      // Leases that ran out long ago name nothing any sweep still needs (a missing lease is an expired one).
      await repo.dropExpired(new Date(Date.now() - 10 * leaseMs));
    } finally {
      sweeping = false;
    }
  }

  return {
    instanceId,
    exclusive,
    leaseMs,
    keyedLock(namespace) {
      const local = localLock(namespace);
      if (exclusive) return local;
      return {
        async run(keys, fn) {
          const names = [...new Set(keys)].sort().map((k) => `lock:${namespace}/${k}`);
          // In memory first: callers of this instance wait for each other without polling the database.
          return local.run(keys, async () => {
            const taken: string[] = [];
            try {
              for (const name of names) {
                await acquire(name);
                taken.push(name);
              }
              return await fn();
            } finally {
              await give(taken).catch((e: unknown) => log(`cluster: releasing ${taken.join(", ")}: ${String(e)}`));
            }
          });
        },
        get size() {
          return local.size;
        },
      };
    },
    async turn(name, fn, wait) {
      if (exclusive) return { ran: true, value: await fn() };
      const key = `turn:${name}`;
      if (wait) await acquire(key);
      else if (!(await take(key))) return { ran: false };
      try {
        return { ran: true, value: await fn() };
      } finally {
        await give([key]).catch(() => undefined);
      }
    },
    claim: (key) => (exclusive ? Promise.resolve(true) : take(key)),
    async claimAlone(key) {
      if (held.has(key) || taking.has(key)) return false;
      if (exclusive) {
        held.set(key, ++takings);
        return true;
      }
      taking.add(key);
      try {
        return await take(key);
      } finally {
        taking.delete(key);
      }
    },
    release(keys) {
      if (!exclusive) return give(keys);
      for (const k of keys) held.delete(k);
      return Promise.resolve();
    },
    holds: (key) => exclusive || held.has(key),
    heldElsewhere: (keys) => (exclusive ? Promise.resolve(new Set()) : repo.heldByOthers(instanceId, keys, new Date())),
    journalLease: () => (exclusive ? null : { owner: instanceId, expiresAt: until() }),
    onSweep(fn) {
      sweeps.push(fn);
    },
    onRenew(fn) {
      renewals.push(fn);
    },
    start({ sweep }) {
      if (exclusive || timer) return;
      const every = Math.max(250, Math.floor(leaseMs / 4));
      const tick = () => {
        beating = beat(sweep)
          .catch((e: unknown) => log(`cluster: renewing the leases of ${instanceId} failed: ${(e as Error).message}`))
          .finally(() => {
            beating = null;
            if (timer) timer = setTimeout(tick, every).unref();
          });
      };
      timer = setTimeout(tick, 0).unref();
    },
    async stop() {
      if (timer) clearTimeout(timer);
      timer = null;
      await beating;
      if (exclusive) return;
      held.clear();
      await repo.releaseAll(instanceId);
    },
  };
}
