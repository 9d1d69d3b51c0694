/**
 * The service's normal authentication (README, docs/api.md): X-Api-Key or the web
 * session cookie on every /api route and /graphql (HTTP and WebSocket), the secrets file, and the
 * RFC 9457 problem bodies errors answer with.
 */
import { createHmac, scryptSync } from "node:crypto";
import { chmodSync, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { createClient } from "graphql-ws";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { createApp } from "../src/app.ts";
import { problemOf } from "./fixtures.ts";
import { createTestApp, TEST_API_KEY, TEST_PASSWORD, type TestApp } from "./utils.ts";

const DAY = 86_400_000;

const UNAUTHENTICATED = {
  type: "about:blank#unauthenticated",
  title: "Authentication required",
  status: 401,
  detail: "send the API key as X-Api-Key, or log in",
  code: "unauthenticated",
};
/** GET /api/session without a session: the same problem, with the title as detail. */
const NO_SESSION = { ...UNAUTHENTICATED, detail: "Authentication required" };

/** Every route behind authentication, with a body it would accept. Series 1 exists. */
const ROUTES: { method: string; path: string; json?: unknown }[] = [
  { method: "GET", path: "/api/manga" },
  { method: "POST", path: "/api/manga", json: { title: "Intruder" } },
  { method: "GET", path: "/api/manga/1" },
  { method: "PATCH", path: "/api/manga/1", json: { title: "Renamed" } },
  { method: "GET", path: "/api/manga/1/units" },
  { method: "GET", path: "/api/manga/1/chapter-map" },
  {
    method: "PUT",
    path: "/api/manga/1/chapter-map",
    json: { revision: 0, entries: [{ volume: "1", chapters: ["1"] }] },
  },
  {
    method: "PUT",
    path: "/api/manga/1/chapter-map?dry_run=true",
    json: { revision: 0, entries: [{ volume: "1", chapters: ["1"] }] },
  },
  { method: "DELETE", path: "/api/manga/1/chapter-map", json: { revision: 0 } },
  { method: "POST", path: "/api/manga/1/chapter-map/readings", json: { volume: "1", chapters: ["1"] } },
  {
    method: "POST",
    path: "/api/manga/1/chapter-map/suggestions",
    json: { source: "catalogue:x", entries: [{ volume: "1", chapters: ["1"] }] },
  },
  { method: "POST", path: "/api/library/scan" },
  { method: "GET", path: "/api/no-such-route" },
  { method: "POST", path: "/graphql", json: { query: "{ seriesList { id } }" } },
  {
    method: "POST",
    path: "/graphql",
    json: { query: 'mutation { createSeries(input: { title: "Intruder" }) { id } }' },
  },
  { method: "GET", path: `/graphql?query=${encodeURIComponent("{ seriesList { id } }")}` },
];

/** Plain fetch: no API key unless the headers carry one. */
function send(
  app: TestApp,
  route: { method: string; path: string; json?: unknown },
  headers: Record<string, string>,
): Promise<Response> {
  const h = new Headers(headers);
  if (route.json !== undefined) h.set("content-type", "application/json");
  return fetch(`${app.baseUrl}${route.path}`, {
    method: route.method,
    headers: h,
    body: route.json === undefined ? undefined : JSON.stringify(route.json),
  });
}

async function login(app: TestApp, password = TEST_PASSWORD): Promise<string> {
  const res = await fetch(`${app.baseUrl}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password }),
  });
  expect(res.status).toBe(204);
  const setCookie = res.headers.get("set-cookie") ?? "";
  return setCookie.split(";")[0] ?? "";
}

function readSecrets(app: TestApp): { raw: string; json: Record<string, string>; mode: number } {
  const file = path.join(app.config.dataDir, "secrets.json");
  const raw = readFileSync(file, "utf8");
  return { raw, json: JSON.parse(raw) as Record<string, string>, mode: statSync(file).mode & 0o777 };
}

function scryptMatches(stored: string, password: string): boolean {
  const [scheme, salt, hash] = stored.split("$");
  return scheme === "scrypt" && scryptSync(password, Buffer.from(salt ?? "", "hex"), 32).toString("hex") === hash;
}

describe("requests without a valid credential", () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp();
    expect((await app.api("/api/manga", { method: "POST", json: { title: "Guarded" } })).status).toBe(201);
  });
  afterAll(async () => {
    await app.dispose();
  });

  const now = Date.now();
  /** A real session's cookie whose row is then made to expire, or deleted by a logout. */
  async function endedSession(a: TestApp, how: "expired" | "logged-out"): Promise<string> {
    const cookie = await login(a);
    if (how === "expired") await a.ctx.db.session.updateMany({ data: { expiresAt: new Date(now - DAY) } });
    else {
      const origin = a.baseUrl;
      expect((await fetch(`${a.baseUrl}/api/session`, { method: "DELETE", headers: { cookie, origin } })).status).toBe(
        204,
      );
    }
    return cookie;
  }
  const credentials: {
    name: string;
    headers: (app: TestApp) => Record<string, string> | Promise<Record<string, string>>;
  }[] = [
    { name: "no credential", headers: () => ({}) },
    { name: "a wrong API key", headers: () => ({ "x-api-key": "wrong-key" }) },
    { name: "a wrong API key of the right length", headers: () => ({ "x-api-key": TEST_API_KEY.replace(/.$/, "X") }) },
    { name: "an empty API key", headers: () => ({ "x-api-key": "" }) },
    { name: "a forged session cookie", headers: () => ({ cookie: `mls_session=admin.${now + DAY}.not-a-signature` }) },
    {
      name: "a session cookie signed with another key",
      headers: () => {
        const payload = `admin.${now + DAY}`;
        const mac = createHmac("sha256", "another-server").update(`session:${payload}`).digest("base64url");
        return { cookie: `mls_session=${encodeURIComponent(`${payload}.${mac}`)}` };
      },
    },
    { name: "a well-formed token of no session", headers: () => ({ cookie: `mls_session=${"A".repeat(43)}` }) },
    { name: "an expired session's cookie", headers: async (a) => ({ cookie: await endedSession(a, "expired") }) },
    { name: "a logged-out session's cookie", headers: async (a) => ({ cookie: await endedSession(a, "logged-out") }) },
  ];

  it.each(credentials)("answer 401 unauthenticated problem+json with $name", async ({ headers }) => {
    const answers = [];
    const sent = await headers(app);
    for (const route of ROUTES) {
      const p = await problemOf(await send(app, route, sent));
      answers.push({ route: `${route.method} ${route.path}`, ...p });
    }
    expect(answers).toEqual(
      ROUTES.map((r) => ({
        route: `${r.method} ${r.path}`,
        status: 401,
        contentType: "application/problem+json",
        body: UNAUTHENTICATED,
      })),
    );
    // Nothing happened behind the refusals.
    expect((await app.ctx.db.series.findMany()).map((s) => s.title)).toEqual(["Guarded"]);
    expect(await app.ctx.db.mapSource.count()).toBe(0);
  });

  it("leave /api/health and the session endpoints open", async () => {
    expect(await (await fetch(`${app.baseUrl}/api/health`)).json()).toEqual({ ok: true });
    expect((await fetch(`${app.baseUrl}/api/session`, { method: "DELETE" })).status).toBe(204);
    expect(await problemOf(await fetch(`${app.baseUrl}/api/session`))).toEqual({
      status: 401,
      contentType: "application/problem+json",
      body: NO_SESSION,
    });
  });

  it("are served with the right API key (the table above is reachable)", async () => {
    const statuses = [];
    for (const route of ROUTES.filter((r) => r.method === "GET"))
      statuses.push([route.path, (await send(app, route, { "x-api-key": TEST_API_KEY })).status]);
    expect(statuses).toEqual([
      ["/api/manga", 200],
      ["/api/manga/1", 200],
      ["/api/manga/1/units", 200],
      ["/api/manga/1/chapter-map", 200],
      ["/api/no-such-route", 404],
      [`/graphql?query=${encodeURIComponent("{ seriesList { id } }")}`, 200],
    ]);
  });
});

describe("web session", () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app.dispose();
  });

  it("logs in with the admin password: an HttpOnly SameSite cookie that authenticates REST and GraphQL", async () => {
    const res = await fetch(`${app.baseUrl}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: TEST_PASSWORD }),
    });
    expect(res.status).toBe(204);
    const setCookie = res.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^mls_session=[\w-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Strict$/);
    const cookie = setCookie.split(";")[0] ?? "";

    const rest = await fetch(`${app.baseUrl}/api/manga`, { headers: { cookie } });
    expect(rest.status).toBe(200);
    expect(await rest.json()).toEqual([]);

    // A POST with the cookie says it comes from the service's own page (as a browser does).
    const gql = await fetch(`${app.baseUrl}/graphql`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", origin: app.baseUrl },
      body: JSON.stringify({ query: "{ seriesList { id } }" }),
    });
    expect(await gql.json()).toEqual({ data: { seriesList: [] } });

    const session = await fetch(`${app.baseUrl}/api/session`, { headers: { cookie } });
    expect(session.status).toBe(200);
    expect(await session.json()).toEqual({ username: "admin" });
  });

  it("refuses a wrong password or user with 401 bad_credentials and sets no cookie", async () => {
    const attempts = [
      { username: "admin", password: "wrong" },
      { username: "admin", password: `${TEST_PASSWORD} ` },
      { username: "root", password: TEST_PASSWORD },
      { username: "admin" },
      { username: "admin", password: 12345 },
      {},
    ];
    for (const body of attempts) {
      const res = await fetch(`${app.baseUrl}/api/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(await problemOf(res)).toEqual({
        status: 401,
        contentType: "application/problem+json",
        body: {
          type: "about:blank#bad_credentials",
          title: "Wrong user name or password",
          status: 401,
          detail: "Wrong user name or password",
          code: "bad_credentials",
        },
      });
    }
  });

  it("logs out: DELETE /api/session clears the cookie", async () => {
    const cookie = await login(app);
    const res = await fetch(`${app.baseUrl}/api/session`, {
      method: "DELETE",
      headers: { cookie, origin: app.baseUrl },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("set-cookie")).toBe("mls_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict");
    // What the browser sends after honouring it: an empty cookie, which authenticates nothing.
    const after = await fetch(`${app.baseUrl}/api/session`, { headers: { cookie: "mls_session=" } });
    expect(await problemOf(after)).toEqual({ status: 401, contentType: "application/problem+json", body: NO_SESSION });
    expect((await fetch(`${app.baseUrl}/api/manga`, { headers: { cookie: "mls_session=" } })).status).toBe(401);
  });
});

describe("secrets file", () => {
  let app: TestApp | null = null;
  afterEach(async () => {
    await app?.dispose();
    app = null;
  });

  it("is created with mode 0600 and holds a generated API key when API_KEY is unset; that key works", async () => {
    app = await createTestApp({ env: { API_KEY: "" } });
    const secrets = readSecrets(app);
    expect(secrets.mode).toBe(0o600);
    expect(Object.keys(secrets.json).sort()).toEqual(["adminPasswordHash", "apiKey", "signingKey"]);
    expect(secrets.json.apiKey).toMatch(/^[0-9a-f]{48}$/);
    expect(secrets.json.signingKey).toMatch(/^[0-9a-f]{64}$/);
    expect(app.ctx.secrets.apiKey).toBe(secrets.json.apiKey);

    expect((await app.api("/api/manga", { headers: { "x-api-key": secrets.json.apiKey ?? "" } })).status).toBe(200);
    expect((await app.api("/api/manga", { headers: { "x-api-key": TEST_API_KEY } })).status).toBe(401);

    // A restart keeps the key, and tightens a loosened mode again.
    chmodSync(path.join(app.config.dataDir, "secrets.json"), 0o644);
    const again = await createApp(app.config, { migrate: false });
    try {
      expect(again.ctx.secrets.apiKey).toBe(secrets.json.apiKey);
      expect(readSecrets(app)).toEqual(secrets);
    } finally {
      await again.close();
    }
  });

  it("never holds API_KEY or ADMIN_PASSWORD given in the environment; the password only as a scrypt hash", async () => {
    app = await createTestApp();
    const secrets = readSecrets(app);
    expect(app.ctx.secrets.apiKey).toBe(TEST_API_KEY);
    expect(secrets.raw).not.toContain(TEST_API_KEY);
    expect(secrets.raw).not.toContain(TEST_PASSWORD);
    expect(secrets.json.adminPasswordHash).toMatch(/^scrypt\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(scryptMatches(secrets.json.adminPasswordHash ?? "", TEST_PASSWORD)).toBe(true);
    expect(scryptMatches(secrets.json.adminPasswordHash ?? "", "wrong")).toBe(false);

    // Nor does the database, after a login and some traffic.
    await login(app);
    await app.api("/api/manga", { method: "POST", json: { title: "Some Series" } });
    await app.close();
    for (const name of ["library.db", "library.db-wal"]) {
      const file = path.join(app.config.dataDir, name);
      if (!existsSync(file)) continue;
      const bytes = readFileSync(file);
      expect(bytes.includes(TEST_PASSWORD)).toBe(false);
      expect(bytes.includes(TEST_API_KEY)).toBe(false);
      expect(bytes.includes(secrets.json.signingKey ?? "")).toBe(false);
    }
    rmSync(app.dir, { recursive: true, force: true });
    app = null;
  });

  it("generates the admin password when ADMIN_PASSWORD is unset, stores only its hash, and it logs in across restarts", async () => {
    app = await createTestApp({ env: { ADMIN_PASSWORD: "" } });
    const password = app.ctx.secrets.generatedPassword;
    expect(password).toMatch(/^[\w-]{12}$/);
    const secrets = readSecrets(app);
    expect(secrets.raw).not.toContain(password);
    expect(scryptMatches(secrets.json.adminPasswordHash ?? "", password ?? "")).toBe(true);
    expect(await login(app, password ?? "")).toMatch(/^mls_session=[\w-]{43}$/);
    expect(
      (
        await fetch(`${app.baseUrl}/api/session`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ username: "admin", password: TEST_PASSWORD }),
        })
      ).status,
    ).toBe(401);

    const again = await createApp(app.config, { migrate: false });
    try {
      // Printed once: a restart generates nothing and checks against the stored hash.
      expect(again.ctx.secrets.generatedPassword).toBeNull();
      expect(await again.ctx.secrets.checkAdminPassword(password ?? "")).toBe(true);
      expect(await again.ctx.secrets.checkAdminPassword("wrong")).toBe(false);
      expect(readSecrets(app).raw).toBe(secrets.raw);
    } finally {
      await again.close();
    }
  });
});

describe("error bodies", () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app.dispose();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("are RFC 9457 problem+json with type, title, status, detail and code", async () => {
    const cases: [RequestInit & { json?: unknown }, string, unknown][] = [
      [
        {},
        "/api/manga/999",
        {
          type: "about:blank#series_not_found",
          title: "No such series",
          status: 404,
          detail: "series 999 does not exist",
          code: "series_not_found",
        },
      ],
      [
        {},
        "/api/manga/abc",
        {
          type: "about:blank#bad_request",
          title: "Malformed request",
          status: 400,
          detail: "id must be a positive integer",
          code: "bad_request",
        },
      ],
      [
        { method: "POST", body: "{", headers: { "content-type": "application/json" } },
        "/api/manga",
        {
          type: "about:blank#bad_request",
          title: "Malformed request",
          status: 400,
          detail: "the body is not valid JSON",
          code: "bad_request",
        },
      ],
      [
        { method: "POST", json: { title: "X", status: "done" } },
        "/api/manga",
        {
          type: "about:blank#invalid_field",
          title: "A field has an invalid value",
          status: 400,
          detail: "status must be one of running, finished, paused",
          code: "invalid_field",
          field: "status",
        },
      ],
      [
        { method: "DELETE" },
        "/api/nope",
        {
          type: "about:blank#not_found",
          title: "Not found",
          status: 404,
          detail: "no route for DELETE /api/nope",
          code: "not_found",
        },
      ],
      [
        { method: "DELETE" },
        "/api/manga/1/units",
        {
          type: "about:blank#method_not_allowed",
          title: "The path does not take that method",
          status: 405,
          detail: "DELETE is not allowed on /api/manga/1/units",
          code: "method_not_allowed",
          allow: ["GET", "HEAD"],
        },
      ],
      [
        { method: "GET" },
        "/api/library/scan",
        {
          type: "about:blank#method_not_allowed",
          title: "The path does not take that method",
          status: 405,
          detail: "GET is not allowed on /api/library/scan",
          code: "method_not_allowed",
          allow: ["POST"],
        },
      ],
    ];
    for (const [init, url, body] of cases) {
      expect({ url, ...(await problemOf(await app.api(url, init))) }).toEqual({
        url,
        status: (body as { status: number }).status,
        contentType: "application/problem+json",
        body,
      });
    }
  });

  it("name the methods a path takes in Allow (405), after the credential check", async () => {
    const res = await app.api("/api/manga/1/chapter-map", { method: "POST", json: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, PUT, DELETE");
    // Paths with parameters, and ones no method takes.
    expect((await app.api("/api/manga/7/volumes/2/verification", { method: "POST" })).headers.get("allow")).toBe(
      "PUT, DELETE",
    );
    expect((await app.api("/api/manga/1/nothing-here", { method: "POST" })).status).toBe(404);
    const anonymous = await fetch(`${app.baseUrl}/api/manga/1/chapter-map`, { method: "POST" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("allow")).toBeNull();
  });

  it("never leak the message of an internal error (REST and GraphQL); it goes to the log only", async () => {
    const secret = "EACCES open /srv/private/vault token=hunter2";
    const log = vi.spyOn(app.ctx, "log");
    vi.spyOn(app.services.series, "list").mockRejectedValueOnce(new Error(secret));
    const res = await app.api("/api/manga");
    const text = await res.text();
    expect({ status: res.status, contentType: res.headers.get("content-type") }).toEqual({
      status: 500,
      contentType: "application/problem+json",
    });
    expect(JSON.parse(text)).toEqual({
      type: "about:blank#internal",
      title: "Internal error",
      status: 500,
      detail: "The service failed unexpectedly; see its log.",
      code: "internal",
    });
    expect(text).not.toContain("hunter2");
    expect(log.mock.calls.some(([m]) => m.includes("hunter2"))).toBe(true);

    vi.spyOn(app.services.units, "units").mockRejectedValueOnce(new Error(secret));
    const gqlRes = await app.api("/graphql", {
      method: "POST",
      json: { query: "{ units(seriesId: 1) { seriesId } }" },
    });
    const gqlText = await gqlRes.text();
    expect(gqlText).not.toContain("hunter2");
    expect(JSON.parse(gqlText)).toEqual({
      data: null,
      errors: [
        { message: "The service failed unexpectedly; see its log.", extensions: { code: "internal", status: 500 } },
      ],
    });
  });

  it("carry the same code in GraphQL extensions as in REST", async () => {
    expect(await app.gql("{ units(seriesId: 999) { seriesId } }")).toMatchObject({
      data: null,
      errors: [
        {
          message: "series 999 does not exist",
          path: ["units"],
          extensions: { code: "series_not_found", status: 404 },
        },
      ],
    });
  });
});

describe("GraphQL over WebSocket", () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp();
    await app.api("/api/manga", { method: "POST", json: { title: "Over The Wire" } });
  });
  afterAll(async () => {
    await app.dispose();
  });

  const wsUrl = () => `ws://127.0.0.1:${new URL(app.baseUrl).port}/graphql`;

  /** A WebSocket class that sends extra headers on the upgrade request (as a browser sends its cookie). */
  function socketWith(headers: Record<string, string>) {
    return class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    };
  }

  /** Runs one query over a fresh graphql-ws client; the result, or the close event that refused it. */
  async function wsQuery(options: {
    connectionParams?: Record<string, unknown>;
    webSocketImpl?: unknown;
  }): Promise<unknown> {
    const client = createClient({
      url: wsUrl(),
      webSocketImpl: options.webSocketImpl ?? WebSocket,
      connectionParams: options.connectionParams,
      retryAttempts: 0,
      lazy: true,
    });
    try {
      return await new Promise((resolve) => {
        let last: unknown;
        client.subscribe(
          { query: "{ seriesList { title } }" },
          {
            next: (value) => (last = value),
            error: (e) =>
              resolve({ closed: { code: (e as { code?: number }).code, reason: (e as { reason?: string }).reason } }),
            complete: () => resolve(last),
          },
        );
      });
    } finally {
      await client.dispose();
    }
  }

  const REFUSED = { closed: { code: 4403, reason: "Forbidden" } };
  const ANSWER = { data: { seriesList: [{ title: "Over The Wire" }] } };

  it("refuses a connection without credentials, with a wrong key or with a forged cookie", async () => {
    expect(await wsQuery({})).toEqual(REFUSED);
    expect(await wsQuery({ connectionParams: { apiKey: "wrong-key" } })).toEqual(REFUSED);
    expect(
      await wsQuery({ webSocketImpl: socketWith({ cookie: `mls_session=admin.${Date.now() + DAY}.forged` }) }),
    ).toEqual(REFUSED);
  });

  it("runs a query with connectionParams.apiKey", async () => {
    expect(await wsQuery({ connectionParams: { apiKey: TEST_API_KEY } })).toEqual(ANSWER);
  });

  it("runs a query with the session cookie from the same origin, and refuses it from another site", async () => {
    const cookie = await login(app);
    expect(await wsQuery({ webSocketImpl: socketWith({ cookie }) })).toEqual(ANSWER);
    expect(
      await wsQuery({ webSocketImpl: socketWith({ cookie, origin: `http://127.0.0.1:${new URL(app.baseUrl).port}` }) }),
    ).toEqual(ANSWER);
    expect(await wsQuery({ webSocketImpl: socketWith({ cookie, origin: "https://evil.example" }) })).toEqual(REFUSED);
  });
});
