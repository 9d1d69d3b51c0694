/**
 * Login throttling: after 10 failed logins within a minute, per address and per user name, the
 * next attempt — even with the right password — is refused with 429 `login_throttled` and a
 * Retry-After that grows with each lock; no password is checked while locked and no session is
 * opened. Each check is one asynchronous scrypt (libuv's pool, never the event loop) and an
 * unknown user costs exactly what the admin costs. Addresses are real: the test connects from
 * 127.0.0.2, 127.0.0.3… to the service on 127.0.0.1.
 */
import crypto from "node:crypto";
import http from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LOGIN_THROTTLE, afterFailure, lockRemaining, type ThrottleEntry } from "../src/domain/login-throttle.ts";
import { createTestApp, TEST_PASSWORD, type TestApp } from "./utils.ts";

interface Answer {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown> | null;
  cookie: string | null;
}

/** POST /api/session from a given loopback address. */
function loginFrom(app: TestApp, address: string, username: string, password: string): Promise<Answer> {
  const body = JSON.stringify({ username, password });
  const { port } = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/api/session",
        method: "POST",
        localAddress: address,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: (res.headers["retry-after"] as string | undefined) ?? null,
            body: text ? (JSON.parse(text) as Record<string, unknown>) : null,
            cookie: res.headers["set-cookie"]?.[0] ?? null,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** GET a reader app's path from a given loopback address with these headers. */
function getFrom(app: TestApp, address: string, pathname: string, headers: Record<string, string>): Promise<Answer> {
  const { port } = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path: pathname, method: "GET", localAddress: address, headers },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: (res.headers["retry-after"] as string | undefined) ?? null,
            body:
              /json/.test(res.headers["content-type"] ?? "") && text
                ? (JSON.parse(text) as Record<string, unknown>)
                : null,
            cookie: null,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
});
const md5 = (s: string) => crypto.createHash("md5").update(s).digest("hex");

async function fail(app: TestApp, address: string, username: string, times: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push((await loginFrom(app, address, username, `wrong ${i}`)).status);
  return statuses;
}

let app: TestApp | null = null;
afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await app?.dispose();
  app = null;
});

describe("per user name", () => {
  it("locks the name after 10 failures: the right password is refused too, from any address, and nothing opens", async () => {
    app = await createTestApp();
    expect(await fail(app, "127.0.0.2", "admin", 10)).toEqual(Array(10).fill(401));
    const scrypt = vi.spyOn(crypto, "scrypt");
    const locked = await loginFrom(app, "127.0.0.2", "admin", TEST_PASSWORD);
    expect(locked).toMatchObject({ status: 429, cookie: null, body: { code: "login_throttled", retry_after: 60 } });
    expect(locked.retryAfter).toBe("60");
    // Another address, same name: still locked; no password was even checked.
    expect((await loginFrom(app, "127.0.0.3", "admin", TEST_PASSWORD)).status).toBe(429);
    expect(scrypt).not.toHaveBeenCalled();
    expect(await app.ctx.db.session.count()).toBe(0);
    // Another name from another address is not locked by the name's lock.
    expect((await loginFrom(app, "127.0.0.4", "somebody", "guess")).status).toBe(401);
  });

  it("grows the lock: a failure right after a lock ends locks again, twice as long", async () => {
    app = await createTestApp();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    expect(await fail(app, "127.0.0.2", "admin", 10)).toEqual(Array(10).fill(401));
    expect((await loginFrom(app, "127.0.0.3", "admin", "x")).retryAfter).toBe("60");
    vi.setSystemTime(Date.now() + 61_000);
    expect((await loginFrom(app, "127.0.0.3", "admin", "still wrong")).status).toBe(401);
    const second = await loginFrom(app, "127.0.0.3", "admin", TEST_PASSWORD);
    expect(second).toMatchObject({ status: 429, retryAfter: "120", body: { retry_after: 120 } });
    vi.setSystemTime(Date.now() + 121_000);
    expect((await loginFrom(app, "127.0.0.3", "admin", "wrong again")).status).toBe(401);
    expect((await loginFrom(app, "127.0.0.3", "admin", TEST_PASSWORD)).retryAfter).toBe("240");
    // Once the lock is over, the right password opens a session and the name is forgiven.
    vi.setSystemTime(Date.now() + 241_000);
    const ok = await loginFrom(app, "127.0.0.5", "admin", TEST_PASSWORD);
    expect(ok.status).toBe(204);
    expect(ok.cookie).toMatch(/^mls_session=/);
    expect((await loginFrom(app, "127.0.0.5", "admin", "one wrong")).status).toBe(401);
  });
});

describe("per address", () => {
  it("locks an address that tried 10 names, whatever name it tries next; other addresses log in", async () => {
    app = await createTestApp();
    const names = Array.from({ length: 10 }, (_, i) => `user${i}`);
    for (const n of names) expect((await loginFrom(app, "127.0.0.6", n, "guess")).status).toBe(401);
    const locked = await loginFrom(app, "127.0.0.6", "admin", TEST_PASSWORD);
    expect(locked).toMatchObject({ status: 429, retryAfter: "60", cookie: null });
    expect(await app.ctx.db.session.count()).toBe(0);
    expect((await loginFrom(app, "127.0.0.7", "admin", TEST_PASSWORD)).status).toBe(204);
  });

  it("counts concurrent guesses before they are checked: 30 at once check at most 10 passwords", async () => {
    app = await createTestApp();
    const scrypt = vi.spyOn(crypto, "scrypt");
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => loginFrom(app as TestApp, "127.0.0.8", `name${i}`, "guess")),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect(scrypt).toHaveBeenCalledTimes(10);
  });
});

describe("reader apps (HTTP Basic, KOReader's key)", () => {
  it("are throttled like the web login: 10 wrong passwords lock the name for the apps, the right one too, no scrypt while locked", async () => {
    app = await createTestApp();
    const catalog = "/opds/v1.2/catalog";
    // A phone that already signed in keeps reading: its good credential is remembered.
    expect((await getFrom(app, "127.0.0.20", catalog, basic("admin", TEST_PASSWORD))).status).toBe(200);
    for (let i = 0; i < 10; i++)
      expect((await getFrom(app, "127.0.0.21", catalog, basic("admin", `wrong ${i}`))).status).toBe(401);
    const scrypt = vi.spyOn(crypto, "scrypt");
    const locked = await getFrom(app, "127.0.0.22", "/komga/api/v1/series", basic("admin", "another guess"));
    expect(locked).toMatchObject({ status: 429, retryAfter: "60", body: { code: "login_throttled", retry_after: 60 } });
    // KOReader's key is the same password: guessing it is locked too.
    const ko = await getFrom(app, "127.0.0.23", "/koreader/users/auth", {
      "x-auth-user": "admin",
      "x-auth-key": md5("a guess"),
    });
    expect(ko.status).toBe(429);
    expect(scrypt).not.toHaveBeenCalled();
    expect((await getFrom(app, "127.0.0.20", catalog, basic("admin", TEST_PASSWORD))).status).toBe(200);
    // The API key is no password: it is not throttled.
    expect((await getFrom(app, "127.0.0.21", catalog, { "x-api-key": app.ctx.secrets.apiKey })).status).toBe(200);
    // The apps' count is their own: the web login from another address still opens a session.
    expect((await loginFrom(app, "127.0.0.24", "admin", TEST_PASSWORD)).status).toBe(204);
  });

  it("count the address with the web login: an address that guessed on the apps cannot guess on the login", async () => {
    app = await createTestApp();
    for (let i = 0; i < 10; i++)
      expect((await getFrom(app, "127.0.0.25", "/opds/v2/catalog", basic(`user${i}`, "guess"))).status).toBe(401);
    expect((await loginFrom(app, "127.0.0.25", "admin", TEST_PASSWORD)).status).toBe(429);
    expect((await loginFrom(app, "127.0.0.26", "admin", TEST_PASSWORD)).status).toBe(204);
  });
});

describe("the cost of a check", () => {
  it("is one asynchronous scrypt with the same parameters for the admin and for an unknown user", async () => {
    app = await createTestApp();
    const scrypt = vi.spyOn(crypto, "scrypt");
    const scryptSync = vi.spyOn(crypto, "scryptSync");
    expect((await loginFrom(app, "127.0.0.9", "admin", "wrong")).status).toBe(401);
    expect((await loginFrom(app, "127.0.0.10", "nobody", "wrong")).status).toBe(401);
    expect((await loginFrom(app, "127.0.0.11", "admin", TEST_PASSWORD)).status).toBe(204);
    expect(scryptSync).not.toHaveBeenCalled();
    expect(scrypt).toHaveBeenCalledTimes(3);
    // Same key length, same salt length, same (default) cost parameters each time.
    const shapes = scrypt.mock.calls.map(([password, salt, keylen, options]) => [
      typeof password,
      (salt as Buffer).length,
      keylen,
      typeof options === "function" ? "defaults" : options,
    ]);
    expect(shapes).toEqual([
      ["string", 16, 32, "defaults"],
      ["string", 16, 32, "defaults"],
      ["string", 16, 32, "defaults"],
    ]);
  });
});

describe("the rule itself", () => {
  const at = (entry: ThrottleEntry | undefined, times: number[]) =>
    times.reduce<ThrottleEntry | undefined>((e, t) => afterFailure(e, t), entry);

  it("locks on the 10th failure within the window, not on 10 spread wider", () => {
    const nine = at(
      undefined,
      Array.from({ length: 9 }, (_, i) => i * 1000),
    );
    expect(lockRemaining(nine, 9000)).toBe(0);
    expect(lockRemaining(at(nine, [9000]), 9000)).toBe(LOGIN_THROTTLE.baseLockMs);
    const spread = at(
      undefined,
      Array.from({ length: 10 }, (_, i) => i * 7000),
    );
    expect(lockRemaining(spread, 63_000)).toBe(0);
  });

  it("doubles each lock up to an hour, and forgets after a quiet quarter of an hour", () => {
    let e = at(
      undefined,
      Array.from({ length: 10 }, () => 0),
    );
    let now = 0;
    const locks: number[] = [];
    for (let i = 0; i < 8; i++) {
      locks.push(lockRemaining(e, now));
      now += lockRemaining(e, now) + 1;
      e = afterFailure(e, now);
    }
    expect(locks).toEqual([60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000]);
    const quiet = afterFailure(e, now + LOGIN_THROTTLE.maxLockMs + LOGIN_THROTTLE.forgetMs);
    expect(quiet.lockouts).toBe(0);
    expect(quiet.failures).toHaveLength(1);
  });
});
