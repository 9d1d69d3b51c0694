/**
 * Two instances on one data dir share the secrets file (server/src/secrets.ts). Without Redis an
 * instance notices a file another one rewrote by a stat before it uses a secret or checks a
 * password: a Suwayomi password or the admin password changed through A is B's at once, and the
 * sessions opened under the old password end on B too. Non-secret settings are rows read on every
 * use, so a change through A is B's as well. And the Redis channels carry REDIS_PREFIX: two
 * libraries on one Redis do not hear each other.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisTransport, createEventBus } from "../src/events.ts";
import { startFakeSuwayomi, type FakeSuwayomi } from "./fakes/suwayomi-server.ts";
import { startRedis, type RedisServer } from "./instances.ts";
import { expectJson, expectProblem } from "./fixtures.ts";
import { createTestApp, type TestApp } from "./utils.ts";

let a: TestApp;
let b: TestApp;
let fake: FakeSuwayomi;

beforeAll(async () => {
  fake = await startFakeSuwayomi({ works: [], auth: { username: "reader", password: "second secret" } });
  // The password lives in the secrets file (no ADMIN_PASSWORD), so it can be changed through the API.
  a = await createTestApp({ env: { ADMIN_PASSWORD: "" } });
  b = await createTestApp({
    env: { ADMIN_PASSWORD: "", DATA_DIR: a.config.dataDir, DATABASE_URL: a.config.databaseUrl },
  });
});

afterAll(async () => {
  await b?.dispose();
  await a?.dispose();
  await fake?.close();
});

const login = (app: TestApp, password: string) =>
  fetch(`${app.baseUrl}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password }),
  });

describe("two instances on one data dir, without Redis", () => {
  it("a Suwayomi password set through A is the one B sends at once; the connection settings too", async () => {
    const settings = (password: string) => ({
      method: "PUT",
      json: { suwayomi: { enabled: true, url: fake.url, auth: "basic", username: "reader", password } },
    });
    await expectJson(await a.api("/api/settings/sources", settings("first secret")), 200);
    expect((await b.api("/api/providers/suwayomi/sources?lang=en")).status).not.toBe(200);
    await expectJson(await a.api("/api/settings/sources", settings("second secret")), 200);
    expect(await expectJson<unknown[]>(await b.api("/api/providers/suwayomi/sources?lang=en"), 200)).not.toHaveLength(
      0,
    );
    // A non-secret setting is a row: B reads what A wrote.
    await expectJson(await a.api("/api/settings/downloads", { method: "PUT", json: { languages: ["fr", "de"] } }), 200);
    expect(await expectJson(await b.api("/api/settings/downloads"), 200)).toEqual({ languages: ["fr", "de"] });
    // A cleared password is gone on B too.
    await expectJson(
      await a.api("/api/settings/sources", {
        method: "PUT",
        json: { suwayomi: { enabled: false, auth: "none", password: null } },
      }),
      200,
    );
    const onB = await expectJson<{ suwayomi: { password_set: boolean } }>(await b.api("/api/settings/sources"), 200);
    expect(onB.suwayomi.password_set).toBe(false);
  });

  it("the admin password changed through A: B takes the new one, refuses the old one, ends the old sessions", async () => {
    const first = a.ctx.secrets.generatedPassword as string;
    expect(first).toMatch(/\S{8,}/);
    const before = await login(b, first);
    expect(before.status).toBe(204);
    const cookie = (before.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect((await fetch(`${b.baseUrl}/api/session`, { headers: { cookie } })).status).toBe(200);

    await expectJson(
      await a.api("/api/session/password", {
        method: "PUT",
        json: { current_password: first, new_password: "a new password for both" },
      }),
      200,
    );
    await expectProblem(await login(b, first), 401, "bad_credentials");
    expect((await login(b, "a new password for both")).status).toBe(204);
    expect((await fetch(`${b.baseUrl}/api/session`, { headers: { cookie } })).status).toBe(401);
    expect(b.ctx.secrets.passwordStamp()).toBe(a.ctx.secrets.passwordStamp());
  });
});

describe("REDIS_PREFIX", () => {
  let redis: RedisServer;
  const closers: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.allSettled(closers.map((c) => c()));
    await redis?.stop();
  });

  async function bus(prefix: string) {
    const transport = await redisTransport(redis.url, prefix);
    closers.push(transport.close);
    return createEventBus(transport.target);
  }

  it("two libraries on one Redis hear only their own events; every channel carries the prefix", async () => {
    const watcher = new Redis(redis.url);
    closers.push(async () => void (await watcher.quit()));
    const channels: string[] = [];
    watcher.on("pmessage", (_pattern: string, channel: string) => channels.push(channel));
    await watcher.psubscribe("*");
    const [one, oneAgain, two] = await Promise.all([bus("shelf-one:"), bus("shelf-one:"), bus("shelf-two:")]);
    const heardByOne = oneAgain.subscribeWork();
    const heardByTwo = two.subscribeWork();
    const library = two.subscribe();
    // The Redis target subscribes without waiting for the answer: give the subscriptions a moment.
    await new Promise((r) => setTimeout(r, 300));
    one.publishWork("downloads");
    expect((await heardByOne.next()).value).toEqual({ queue: "downloads" });
    // Published after the first was delivered: had the first reached the other library, it would come first.
    two.publishWork("translations");
    expect((await heardByTwo.next()).value).toEqual({ queue: "translations" });
    one.publish("scan_finished", null);
    two.publish("series_changed", 7);
    expect((await library.next()).value).toMatchObject({ kind: "series_changed", seriesId: 7 });
    one.publishSecretsChanged("instance-1");
    await expect.poll(() => channels.length).toBe(5);
    // The two libraries publish on separate connections: Redis orders each connection's messages, not
    // the two together, so compare the channels heard without their order.
    expect([...channels].sort()).toEqual([
      "shelf-one:library",
      "shelf-one:secrets",
      "shelf-one:work",
      "shelf-two:library",
      "shelf-two:work",
    ]);
    await Promise.all([heardByOne.return(), heardByTwo.return(), library.return()]);
  });
});
