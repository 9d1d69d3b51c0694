/**
 * A session ended through one instance closes its live connections on the others (PostgreSQL, where
 * several instances serve one library): with Redis the ended sessions' ids travel as an event and
 * the connection closes at once; without it, the other instance's next lease renewal finds the
 * session gone. Each case is two apps on one database and one data dir, a browser's cookie, a live
 * subscription on B and the logout (or "sign out everywhere") through A.
 */
import { afterEach, beforeAll, afterAll, describe, expect, it } from "vitest";
import { dialectOf } from "../src/db/client.ts";
import { startRedis, type RedisServer } from "./instances.ts";
import { CLOSED, fromPage, liveConnection, login, works } from "./live-session.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.reverse()) await app.dispose();
  apps = [];
});

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

async function twoInstances(env: Record<string, string>): Promise<[TestApp, TestApp]> {
  const a = await createTestApp({ env });
  apps.push(a);
  expect(dialectOf(a.ctx.db)).toBe("postgresql");
  const b = await createTestApp({ env: { ...env, DATA_DIR: a.config.dataDir, DATABASE_URL: a.config.databaseUrl } });
  apps.push(b);
  return [a, b];
}

describe("a session ended through another instance", () => {
  it("with Redis: the live connection on B closes at once after a logout through A", async () => {
    // Leases far longer than the test: only the event can close the connection in time.
    const [a, b] = await twoInstances({ REDIS_URL: redis.url, LEASE_SECONDS: "3600" });
    const cookie = await login(a);
    const live = await liveConnection(b, cookie);
    expect((await fetch(`${a.baseUrl}/api/session`, { method: "DELETE", ...fromPage(a, cookie) })).status).toBe(204);
    expect(await live.closed).toBe(4401);
    expect(await works(b, cookie)).toEqual(CLOSED);
  });

  it("without Redis: B's next lease renewal closes the live connections of sessions signed out through A", async () => {
    const [a, b] = await twoInstances({ LEASE_SECONDS: "2" });
    const laptop = await login(a);
    const phone = await login(b);
    const [laptopLive, phoneLive] = [await liveConnection(b, laptop), await liveConnection(b, phone)];
    const out = await fetch(`${a.baseUrl}/api/sessions`, { method: "DELETE", ...fromPage(a, laptop) });
    expect(out.status).toBe(200);
    expect(await Promise.all([laptopLive.closed, phoneLive.closed])).toEqual([4401, 4401]);
    expect(await works(b, phone)).toEqual(CLOSED);
  });
});
