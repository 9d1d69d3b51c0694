/**
 * Server-side sessions: a copied session cookie stops working the moment its session ends — by
 * logout, by "sign out everywhere", by a password change, or by a restart with another
 * ADMIN_PASSWORD — over REST, GraphQL and WebSocket (an open live connection is closed too). The
 * database keeps only a hash of the cookie's token. The API key is never affected.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { dialectOf } from "../src/db/client.ts";
import { expectJson, expectProblem } from "./fixtures.ts";
import { CLOSED, fromPage, liveConnection, login, OPEN, works } from "./live-session.ts";
import { createTestApp, TEST_PASSWORD, type TestApp } from "./utils.ts";

let app: TestApp | null = null;
afterEach(async () => {
  await app?.dispose();
  app = null;
});

describe("logout", () => {
  it("ends the session: the same cookie, replayed, is refused everywhere and its live connection closes", async () => {
    app = await createTestApp();
    const cookie = await login(app);
    expect(await works(app, cookie)).toEqual(OPEN);
    const live = await liveConnection(app, cookie);

    const res = await fetch(`${app.baseUrl}/api/session`, { method: "DELETE", ...fromPage(app, cookie) });
    expect(res.status).toBe(204);
    expect(res.headers.get("set-cookie")).toMatch(/^mls_session=; Max-Age=0/);
    expect(await live.closed).toBe(4401);
    // An attacker who copied the cookie before the logout gets nothing.
    expect(await works(app, cookie)).toEqual(CLOSED);
    await expectProblem(await fetch(`${app.baseUrl}/api/session`, { headers: { cookie } }), 401, "unauthenticated");
    expect(await app.ctx.db.session.count()).toBe(0);
  });

  it("keeps only the sha256 of the token in the database", async () => {
    app = await createTestApp();
    const cookie = await login(app);
    const token = cookie.split("=")[1] ?? "";
    expect(token).toMatch(/^[\w-]{43}$/);
    const rows = await app.ctx.db.session.findMany();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    if (dialectOf(app.ctx.db) === "postgresql") {
      // Every column of every row as PostgreSQL writes it out.
      const text = await app.ctx.db.$queryRawUnsafe<{ t: string | null }[]>(
        `SELECT string_agg(s::text, '') AS t FROM "session" s`,
      );
      expect(text[0]?.t ?? "").not.toContain(token);
      await app.close();
    } else {
      await app.close();
      const db = readFileSync(path.join(app.config.dataDir, "library.db"));
      expect(db.includes(token)).toBe(false);
    }
    app = null;
  });
});

describe("sign out everywhere", () => {
  it("ends every session of the user, the caller's too; the API key keeps working", async () => {
    app = await createTestApp();
    const laptop = await login(app, TEST_PASSWORD, "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0");
    const phone = await login(
      app,
      TEST_PASSWORD,
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Safari/604.1",
    );
    const phoneLive = await liveConnection(app, phone);

    const listed = await expectJson<{ id: number; user_agent: string; address: string; current: boolean }[]>(
      await fetch(`${app.baseUrl}/api/sessions`, { headers: { cookie: laptop } }),
      200,
    );
    expect(listed.map((s) => [s.user_agent.includes("Firefox"), s.current, s.address])).toEqual(
      expect.arrayContaining([
        [true, true, "127.0.0.1"],
        [false, false, "127.0.0.1"],
      ]),
    );

    const res = await fetch(`${app.baseUrl}/api/sessions`, { method: "DELETE", ...fromPage(app, laptop) });
    expect(await expectJson(res, 200)).toEqual({ signed_out: 2 });
    expect(res.headers.get("set-cookie")).toMatch(/^mls_session=; Max-Age=0/);
    expect(await phoneLive.closed).toBe(4401);
    expect(await works(app, laptop)).toEqual(CLOSED);
    expect(await works(app, phone)).toEqual(CLOSED);
    expect((await app.api("/api/manga")).status).toBe(200);
  });

  it("can be done with the API key, and one browser can be signed out by its id", async () => {
    app = await createTestApp();
    const a = await login(app);
    const b = await login(app);
    const listed = await expectJson<{ id: number }[]>(await app.api("/api/sessions"), 200);
    expect(listed).toHaveLength(2);
    const [first] = listed;
    expect((await app.api(`/api/sessions/${first?.id}`, { method: "DELETE" })).status).toBe(204);
    await expectProblem(await app.api(`/api/sessions/${first?.id}`, { method: "DELETE" }), 404, "session_not_found");
    const still = [await works(app, a), await works(app, b)];
    expect(still).toEqual(expect.arrayContaining([OPEN, CLOSED]));
    expect(await expectJson(await app.api("/api/sessions", { method: "DELETE" }), 200)).toEqual({ signed_out: 1 });
    expect([await works(app, a), await works(app, b)]).toEqual([CLOSED, CLOSED]);
  });
});

describe("password change", () => {
  it("needs the current password; then every other session ends, the caller gets a new one, the old password is dead", async () => {
    app = await createTestApp({ env: { ADMIN_PASSWORD: "" } });
    const first = app.ctx.secrets.generatedPassword ?? "";
    const mine = await login(app, first);
    const other = await login(app, first);

    // A wrong current password changes nothing.
    await expectProblem(
      await fetch(`${app.baseUrl}/api/session/password`, {
        method: "PUT",
        ...fromPage(app, mine, { current_password: "wrong", new_password: "a new password" }),
      }),
      401,
      "bad_credentials",
    );
    await expectProblem(
      await fetch(`${app.baseUrl}/api/session/password`, {
        method: "PUT",
        ...fromPage(app, mine, { current_password: first, new_password: "short" }),
      }),
      400,
      "invalid_field",
    );
    expect([await works(app, mine), await works(app, other)]).toEqual([OPEN, OPEN]);

    const secretsBefore = readFileSync(path.join(app.config.dataDir, "secrets.json"), "utf8");
    const res = await fetch(`${app.baseUrl}/api/session/password`, {
      method: "PUT",
      ...fromPage(app, mine, { current_password: first, new_password: "a new password" }),
    });
    expect(await expectJson(res, 200)).toEqual({ signed_out: 2 });
    const renewed = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(renewed).toMatch(/^mls_session=[\w-]{43}$/);
    expect(await works(app, renewed)).toEqual(OPEN);
    expect([await works(app, mine), await works(app, other)]).toEqual([CLOSED, CLOSED]);

    const secretsAfter = readFileSync(path.join(app.config.dataDir, "secrets.json"), "utf8");
    expect(secretsAfter).not.toBe(secretsBefore);
    expect(secretsAfter).not.toContain("a new password");
    await expectProblem(
      await fetch(`${app.baseUrl}/api/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "admin", password: first }),
      }),
      401,
      "bad_credentials",
    );
    expect(await works(app, await login(app, "a new password"))).toEqual(OPEN);
  });

  it("ends the reader apps' old credentials too: the old password over Basic and KOReader's old key stop at once", async () => {
    app = await createTestApp({ env: { ADMIN_PASSWORD: "" } });
    const a = app;
    const first = a.ctx.secrets.generatedPassword ?? "";
    const md5 = (s: string) => createHash("md5").update(s).digest("hex");
    const basic = (p: string) => ({ authorization: `Basic ${Buffer.from(`admin:${p}`).toString("base64")}` });
    const opds = async (h: Record<string, string>) =>
      (await fetch(`${a.baseUrl}/opds/v1.2/catalog`, { headers: h })).status;
    const koreader = async (key: string) =>
      (
        await fetch(`${a.baseUrl}/koreader/users/auth`, {
          headers: { "x-auth-user": "admin", "x-auth-key": key, accept: "application/vnd.koreader.v1+json" },
        })
      ).status;
    // Both work (and are remembered, so a reader streaming pages pays no scrypt per request).
    expect([await opds(basic(first)), await koreader(md5(first))]).toEqual([200, 200]);

    const mine = await login(a, first);
    const res = await fetch(`${a.baseUrl}/api/session/password`, {
      method: "PUT",
      ...fromPage(a, mine, { current_password: first, new_password: "a new password" }),
    });
    expect(res.status).toBe(200);

    expect([await opds(basic(first)), await koreader(md5(first))]).toEqual([401, 401]);
    expect([await opds(basic("a new password")), await koreader(md5("a new password"))]).toEqual([200, 200]);
    // The API key is not a password: it keeps working for the apps.
    expect(await opds({ "x-api-key": a.ctx.secrets.apiKey })).toBe(200);
  });

  it("is refused when ADMIN_PASSWORD sets the password, and a restart with another ADMIN_PASSWORD ends the old sessions", async () => {
    app = await createTestApp();
    const cookie = await login(app);
    await expectProblem(
      await fetch(`${app.baseUrl}/api/session/password`, {
        method: "PUT",
        ...fromPage(app, cookie, { current_password: TEST_PASSWORD, new_password: "another password" }),
      }),
      409,
      "password_set_by_environment",
    );
    expect(await works(app, cookie)).toEqual(OPEN);
    const config = app.config;
    const dir = app.dir;
    await app.close();
    app = null;
    /** Starts the service again on the same folders; answers the status of a request with the cookie. */
    const restartWith = async (adminPassword: string): Promise<number> => {
      const again = await createApp({ ...config, adminPassword }, { migrate: false });
      try {
        const port = await again.listen();
        return (await fetch(`http://127.0.0.1:${port}/api/manga`, { headers: { cookie } })).status;
      } finally {
        await again.close();
      }
    };
    try {
      // Same password: the session survives a restart (it lives in the database).
      expect(await restartWith(TEST_PASSWORD)).toBe(200);
      // The operator changes ADMIN_PASSWORD and restarts: the old sessions are gone.
      expect(await restartWith("a changed password")).toBe(401);
      expect(await restartWith(TEST_PASSWORD)).toBe(401);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
