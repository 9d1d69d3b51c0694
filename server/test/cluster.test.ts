/**
 * Leases between instances (library/cluster.ts): two cluster members on one database, as two
 * processes would be. The lease rows work on SQLite as on PostgreSQL (test/instances.test.ts runs
 * the real processes on PostgreSQL).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCluster, type Cluster } from "../src/library/cluster.ts";
import { insertLease, leaseRepo } from "../src/repositories/lease-repo.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let app: TestApp;
const members: Cluster[] = [];

function member(name: string, leaseMs = 60_000): Cluster {
  const c = createCluster(leaseRepo(app.ctx.db), { exclusive: false, leaseMs, log: () => {}, instanceId: name });
  members.push(c);
  return c;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  app = await createTestApp();
});

afterAll(async () => {
  await Promise.all(members.map((m) => m.stop()));
  await app.close();
});

describe("cluster leases", () => {
  it("a key locked by one instance waits for it on another; callers never overlap", async () => {
    const [a, b] = [member("a"), member("b")];
    const inside: string[] = [];
    let overlap = false;
    const work = (who: string) => async () => {
      if (inside.length > 0) overlap = true;
      inside.push(who);
      await sleep(80);
      inside.pop();
      return who;
    };
    const runs = [
      a.keyedLock("publication").run(["path:x", "file:1"], work("a1")),
      b.keyedLock("publication").run(["file:1"], work("b1")),
      a.keyedLock("publication").run(["file:1"], work("a2")),
      b.keyedLock("publication").run(["path:x", "file:1"], work("b2")),
    ];
    expect((await Promise.all(runs)).sort()).toEqual(["a1", "a2", "b1", "b2"]);
    expect(overlap).toBe(false);
    // Different namespaces and keys do not wait for each other.
    let bothInside = false;
    let first = false;
    await Promise.all([
      a.keyedLock("assembly").run(["assembly-series:1"], async () => {
        first = true;
        await sleep(100);
      }),
      b.keyedLock("assembly").run(["assembly-series:2"], async () => {
        await sleep(30);
        bothInside = first;
      }),
    ]);
    expect(bothInside).toBe(true);
    expect(await app.ctx.db.lease.count({ where: { key: { startsWith: "lock:" } } })).toBe(0);
  });

  it("a timed turn is skipped while another instance has it; a requested one waits", async () => {
    const [a, b] = [member("turn-a"), member("turn-b")];
    let release = () => {};
    const held = a.turn("wanted", () => new Promise<string>((r) => (release = () => r("a"))), false);
    await sleep(50);
    expect(await b.turn("wanted", async () => "b", false)).toEqual({ ran: false });
    const waiting = b.turn("wanted", async () => "b", true);
    await sleep(100);
    release();
    expect(await held).toEqual({ ran: true, value: "a" });
    expect(await waiting).toEqual({ ran: true, value: "b" });
  });

  it("a claim is another instance's only once its lease ran out; renewals keep it", async () => {
    const a = member("claim-a", 400);
    const b = member("claim-b", 400);
    a.start({ sweep: false });
    expect(await a.claim("download:7")).toBe(true);
    await sleep(700); // a renews every 100 ms
    expect(await b.claim("download:7")).toBe(false);
    expect(await b.heldElsewhere(["download:7", "download:8"])).toEqual(new Set(["download:7"]));
    // a dies: nothing renews its lease any more (no clean stop, which would give it up).
    const dead = member("claim-c", 300);
    expect(await dead.claim("download:9")).toBe(true);
    expect(await b.claim("download:9")).toBe(false);
    await sleep(400);
    expect(await b.claim("download:9")).toBe(true);
    expect(b.holds("download:9")).toBe(true);
    // A clean stop gives every lease up at once.
    await a.stop();
    expect(await b.claim("download:7")).toBe(true);
  });

  it("a claim lost while the instance stalled is noticed at its next renewal, whatever journal entries it holds", async () => {
    const a = member("stalled-a", 300);
    const b = member("stalled-b");
    expect(await a.claim("download:51")).toBe(true);
    // A journal entry of a's: its lease is born with the entry and renewed with a's others, but it is not a claim.
    const journal = a.journalLease()!;
    await insertLease(app.ctx.db, "journal:9051", journal.owner, new Date(Date.now() + 60_000));
    await sleep(400); // a stalled: nothing renewed its claim, b takes it
    expect(await b.claim("download:51")).toBe(true);
    expect(a.holds("download:51")).toBe(true); // nothing told a yet
    a.start({ sweep: false });
    for (let i = 0; i < 40 && a.holds("download:51"); i++) await sleep(25);
    expect(a.holds("download:51")).toBe(false);
    expect(await app.ctx.db.lease.findUnique({ where: { key: "download:51" } })).toMatchObject({ owner: "stalled-b" });
  });

  it("a key taken, or given up and taken again, while a renewal checks what it holds stays held and is released", async () => {
    // The renewal's check answers as of before those takings: it is held back until they happened.
    const real = leaseRepo(app.ctx.db);
    let answered!: () => void;
    const checked = new Promise<void>((r) => (answered = r));
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const repo = {
      ...real,
      async owned(owner: string, keys: readonly string[]) {
        const mine = await real.owned(owner, keys);
        answered();
        await gate;
        return mine;
      },
    };
    const lost: string[] = [];
    const a = createCluster(repo, {
      exclusive: false,
      leaseMs: 60_000,
      log: (m) => lost.push(m),
      instanceId: "race-a",
    });
    members.push(a);
    const b = member("race-b");
    expect(await a.claim("download:60")).toBe(true);
    expect(await a.claim("download:62")).toBe(true);
    a.start({ sweep: false });
    await checked;
    // Meanwhile: a new claim, and a claim given up and taken again.
    expect(await a.claim("download:61")).toBe(true);
    await a.release(["download:62"]);
    expect(await a.claim("download:62")).toBe(true);
    open();
    await sleep(50);
    expect(lost).toEqual([]);
    expect(["download:60", "download:61", "download:62"].map((k) => a.holds(k))).toEqual([true, true, true]);
    // Released for real: another instance takes them at once.
    await a.release(["download:61", "download:62"]);
    expect(await b.claim("download:61")).toBe(true);
    expect(await b.claim("download:62")).toBe(true);
  });

  it("claimAlone gives a claim to one caller of the instance: not to a second one, nor to the holder again", async () => {
    for (const exclusive of [false, true]) {
      const c = exclusive
        ? createCluster(leaseRepo(app.ctx.db), { exclusive: true, leaseMs: 60_000, log: () => {} })
        : member("alone-a");
      const key = `download:alone-${exclusive}`;
      // Two callers at once (a recovery sweep and a judgement): exactly one has it.
      expect((await Promise.all([c.claimAlone(key), c.claimAlone(key)])).sort()).toEqual([false, true]);
      expect(await c.claimAlone(key)).toBe(false);
      await c.release([key]);
      expect(await c.claimAlone(key)).toBe(true);
      await c.release([key]);
      // A claim taken by `claim` (a download job) is not given to claimAlone either.
      if (!exclusive) {
        expect(await c.claim(key)).toBe(true);
        expect(await c.claimAlone(key)).toBe(false);
        expect(await c.claim(key)).toBe(true);
        await c.release([key]);
      }
    }
  });

  it("with several instances a journal entry is born claimed; alone on the database no lease is written", async () => {
    const a = member("journal-a");
    const lease = a.journalLease();
    expect(lease?.owner).toBe("journal-a");
    expect(lease && lease.expiresAt.getTime() > Date.now()).toBe(true);
    const alone = createCluster(leaseRepo(app.ctx.db), { exclusive: true, leaseMs: 1000, log: () => {} });
    expect(alone.journalLease()).toBe(null);
    expect(await alone.claim("download:1")).toBe(true);
    expect(await app.ctx.db.lease.count({ where: { key: "download:1" } })).toBe(0);
  });
});
