/**
 * Cross-site request forgery: a page of another application on the same host (another port: the
 * same "site", so SameSite=Strict lets the cookie through) tries to change the library with the
 * browser's session cookie — a form post, a text/plain "JSON" post, a multipart or form-encoded
 * GraphQL mutation, a fetch with its own Origin, a logout, a login of its choosing. Every change
 * ridden on the cookie is refused with 403 `csrf_refused` unless it proves it comes from the
 * service's own pages (Origin, or Sec-Fetch-Site without one); a cookie of no session is 401 before
 * any such check; REST bodies are JSON only (415); no foreign origin may read an answer (no
 * credentialed CORS); the API key is not affected. Nothing changes.
 */
import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { expectProblem } from "./fixtures.ts";
import { createTestApp, TEST_API_KEY, TEST_PASSWORD, type TestApp } from "./utils.ts";

let app: TestApp;
let cookie: string;
let own: string;
/** Another application on the same host: same site, another origin. */
const foreign = () => `http://127.0.0.1:${Number(new URL(app.baseUrl).port) + 1}`;

async function login(): Promise<string> {
  const res = await fetch(`${app.baseUrl}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: TEST_PASSWORD }),
  });
  expect(res.status).toBe(204);
  return (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}

function send(method: string, url: string, headers: Record<string, string>, body?: string | FormData) {
  return fetch(`${app.baseUrl}${url}`, { method, headers, body });
}

const json = (v: unknown) => JSON.stringify(v);
const seriesTitles = async () =>
  ((await (await app.api("/api/manga")).json()) as { title: string }[]).map((s) => s.title).sort();

beforeAll(async () => {
  app = await createTestApp();
  own = app.baseUrl;
  expect((await app.api("/api/manga", { method: "POST", json: { title: "Kept" } })).status).toBe(201);
  cookie = await login();
});
afterAll(async () => {
  await app.dispose();
});

describe("REST changes with the session cookie", () => {
  const attacks: { name: string; method: string; url: string; headers: () => Record<string, string>; body?: string }[] =
    [
      {
        name: "a fetch from another origin",
        method: "POST",
        url: "/api/manga",
        headers: () => ({ cookie, origin: foreign(), "content-type": "application/json" }),
        body: json({ title: "Forged" }),
      },
      {
        name: "a PATCH from another origin",
        method: "PATCH",
        url: "/api/manga/1",
        headers: () => ({ cookie, origin: foreign(), "content-type": "application/json" }),
        body: json({ title: "Forged" }),
      },
      {
        name: "a DELETE from another origin",
        method: "DELETE",
        url: "/api/manga/1/chapter-map",
        headers: () => ({ cookie, origin: foreign(), "content-type": "application/json" }),
        body: json({ revision: 0 }),
      },
      {
        name: "a text/plain form post (no preflight) from another origin",
        method: "POST",
        url: "/api/manga",
        headers: () => ({ cookie, origin: foreign(), "content-type": "text/plain" }),
        body: json({ title: "Forged" }),
      },
      {
        name: "an opaque origin (sandboxed frame)",
        method: "POST",
        url: "/api/library/scan",
        headers: () => ({ cookie, origin: "null" }),
      },
      {
        name: "no Origin and a same-site Sec-Fetch-Site",
        method: "POST",
        url: "/api/manga",
        headers: () => ({ cookie, "sec-fetch-site": "same-site", "content-type": "application/json" }),
        body: json({ title: "Forged" }),
      },
      {
        name: "no Origin and no Sec-Fetch-Site",
        method: "POST",
        url: "/api/manga",
        headers: () => ({ cookie, "content-type": "application/json" }),
        body: json({ title: "Forged" }),
      },
      {
        name: "an Origin naming another scheme's host with our port in the path",
        method: "POST",
        url: "/api/manga",
        headers: () => ({
          cookie,
          origin: `http://evil.example/${new URL(own).host}`,
          "content-type": "application/json",
        }),
        body: json({ title: "Forged" }),
      },
    ];

  it.each(attacks)("refuse $name with 403 csrf_refused, changing nothing", async (a) => {
    const p = await expectProblem(await send(a.method, a.url, a.headers(), a.body), 403, "csrf_refused");
    expect(p.detail).toMatch(/another site or port/);
    expect(await seriesTitles()).toEqual(["Kept"]);
  });

  it("accept the same change from the service's own page (Origin, or Sec-Fetch-Site without one)", async () => {
    const body = json({ title: "Mine" });
    const ct = { "content-type": "application/json" };
    expect((await send("POST", "/api/manga", { cookie, origin: own, ...ct }, body)).status).toBe(201);
    const viaFetchMetadata = await send(
      "PATCH",
      "/api/manga/2",
      { cookie, "sec-fetch-site": "same-origin", ...ct },
      json({ title: "Mine too" }),
    );
    expect(viaFetchMetadata.status).toBe(200);
    // Behind a reverse proxy that keeps the public host in X-Forwarded-Host.
    const proxied = await send(
      "PATCH",
      "/api/manga/2",
      { cookie, origin: "https://manga.example.org", "x-forwarded-host": "manga.example.org", ...ct },
      json({ title: "Mine" }),
    );
    expect(proxied.status).toBe(200);
    expect(await seriesTitles()).toEqual(["Kept", "Mine"]);
  });

  it("read with the cookie from anywhere, as a page's <img> or a link does (reads change nothing)", async () => {
    expect((await send("GET", "/api/manga", { cookie, origin: foreign() })).status).toBe(200);
  });

  it("answer a cookie of no session with 401 before any cross-site check", async () => {
    await expectProblem(
      await send("POST", "/api/manga", { cookie: `mls_session=${"B".repeat(43)}`, origin: foreign() }, json({})),
      401,
      "unauthenticated",
    );
  });

  it("take REST bodies only as application/json: a form post is 415 even from our own page", async () => {
    const form = new URLSearchParams({ title: "Form" }).toString();
    const headers = { cookie, origin: own, "content-type": "application/x-www-form-urlencoded" };
    await expectProblem(await send("POST", "/api/manga", headers, form), 415, "unsupported_media_type");
    await expectProblem(
      await app.api("/api/manga", {
        method: "POST",
        body: json({ title: "Plain" }),
        headers: { "content-type": "text/plain" },
      }),
      415,
      "unsupported_media_type",
    );
    expect(await seriesTitles()).toEqual(["Kept", "Mine"]);
  });

  it("leave the API key unaffected: no Origin needed, and another origin's does not matter", async () => {
    const res = await app.api("/api/manga", {
      method: "POST",
      json: { title: "By key" },
      headers: { origin: foreign() },
    });
    expect(res.status).toBe(201);
    expect(await seriesTitles()).toEqual(["By key", "Kept", "Mine"]);
  });

  it("refuse a foreign page's logout (the session stays) and a foreign page's login", async () => {
    await expectProblem(await send("DELETE", "/api/session", { cookie, origin: foreign() }), 403, "csrf_refused");
    expect((await send("GET", "/api/session", { cookie })).status).toBe(200);
    await expectProblem(
      await send(
        "POST",
        "/api/session",
        { origin: foreign(), "content-type": "application/json" },
        json({ username: "admin", password: TEST_PASSWORD }),
      ),
      403,
      "csrf_refused",
    );
  });
});

describe("GraphQL with the session cookie", () => {
  const mutation = 'mutation { createSeries(input: { title: "Forged" }) { id } }';

  async function gqlProblem(res: Response): Promise<{ status: number; code: unknown }> {
    const body = (await res.json()) as { errors?: { extensions?: { code?: unknown } }[]; code?: unknown };
    return { status: res.status, code: body.errors?.[0]?.extensions?.code ?? body.code };
  }

  it("refuse a form-encoded mutation, a multipart one and a JSON one from another origin", async () => {
    const form = new URLSearchParams({ query: mutation }).toString();
    expect(
      await gqlProblem(
        await send("POST", "/graphql", { cookie, "content-type": "application/x-www-form-urlencoded" }, form),
      ),
    ).toEqual({ status: 403, code: "csrf_refused" });
    const multipart = new FormData();
    multipart.set("operations", json({ query: mutation }));
    multipart.set("map", "{}");
    expect(await gqlProblem(await send("POST", "/graphql", { cookie }, multipart))).toEqual({
      status: 403,
      code: "csrf_refused",
    });
    expect(
      await gqlProblem(
        await send(
          "POST",
          "/graphql",
          { cookie, origin: foreign(), "content-type": "application/json" },
          json({ query: mutation }),
        ),
      ),
    ).toEqual({ status: 403, code: "csrf_refused" });
    expect(await seriesTitles()).toEqual(["By key", "Kept", "Mine"]);
  });

  it("refuse even from our own origin a form post without yoga's CSRF header (and say why)", async () => {
    const form = new URLSearchParams({ query: "{ seriesList { id } }" }).toString();
    const res = await send(
      "POST",
      "/graphql",
      { cookie, origin: own, "content-type": "application/x-www-form-urlencoded" },
      form,
    );
    expect(await gqlProblem(res)).toEqual({ status: 403, code: "csrf_refused" });
  });

  it("run mutations only as POST application/json, with the API key too", async () => {
    const form = new URLSearchParams({ query: mutation }).toString();
    const res = await app.api("/graphql", {
      method: "POST",
      body: form,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(await gqlProblem(res)).toMatchObject({ code: "unsupported_media_type" });
    const viaGet = await app.api(`/graphql?query=${encodeURIComponent(mutation)}`);
    expect(viaGet.status).toBe(405);
    expect(viaGet.headers.get("allow")).toBe("POST");
    expect(await gqlProblem(viaGet)).toEqual({ status: 405, code: "method_not_allowed" });
    expect(await seriesTitles()).toEqual(["By key", "Kept", "Mine"]);
  });

  it("accept the web client's own request: POST application/json with our Origin", async () => {
    const res = await send(
      "POST",
      "/graphql",
      { cookie, origin: own, "content-type": "application/json" },
      json({ query: "{ seriesList { title } }" }),
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { seriesList: unknown[] } }).data.seriesList).toHaveLength(3);
  });

  it("leave API-key GET queries unaffected (no CSRF header needed)", async () => {
    const res = await app.api(`/graphql?query=${encodeURIComponent("{ seriesList { id } }")}`);
    expect(res.status).toBe(200);
  });

  it("grant no cross-origin reads: no credentialed CORS for another origin", async () => {
    const preflight = await send("OPTIONS", "/graphql", {
      origin: foreign(),
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type",
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    expect(preflight.headers.get("access-control-allow-credentials")).toBeNull();
    const read = await send(
      "POST",
      "/graphql",
      { origin: foreign(), "x-api-key": TEST_API_KEY, "content-type": "application/json" },
      json({ query: "{ seriesList { id } }" }),
    );
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
    expect(read.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("refuse the cookie's WebSocket from another origin", async () => {
    const Socket = class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { cookie, origin: foreign() } });
      }
    };
    const client = createClient({
      url: `${own.replace("http", "ws")}/graphql`,
      webSocketImpl: Socket,
      retryAttempts: 0,
    });
    const closed = await new Promise<unknown>((resolve) =>
      client.subscribe({ query: mutation }, { next: () => undefined, error: resolve, complete: () => resolve(null) }),
    );
    await client.dispose();
    expect((closed as { code?: number }).code).toBe(4403);
    expect(await seriesTitles()).toEqual(["By key", "Kept", "Mine"]);
  });
});

describe("the reading, slot-search and torrent routes", () => {
  const changes: [string, string, string | undefined][] = [
    ["PUT", "/api/files/1/progress", json({ page: 2 })],
    ["DELETE", "/api/files/1/progress", undefined],
    ["POST", "/api/manga/1/slots/chapter/1/search", json({})],
    ["POST", "/api/manga/1/slots/chapter/1/download", json({})],
    ["POST", "/api/manga/1/sources/refresh", json({})],
    ["POST", "/api/torrents/1/retry", undefined],
    ["POST", "/api/torrents/1/dismiss", json({})],
  ];
  it.each(changes)("refuse %s %s with the cookie from another origin", async (method, url, body) => {
    const headers = { cookie, origin: foreign(), ...(body ? { "content-type": "application/json" } : {}) };
    await expectProblem(await send(method, url, headers, body), 403, "csrf_refused");
  });

  it("refuse the reading mutations over GraphQL from another origin; the place is unchanged", async () => {
    for (const query of [
      "mutation { setFileProgress(fileId: 1, page: 2) { page } }",
      "mutation { clearFileProgress(fileId: 1) { page } }",
    ]) {
      const headers = { cookie, origin: foreign(), "content-type": "application/json" };
      await expectProblem(await send("POST", "/graphql", headers, json({ query })), 403, "csrf_refused");
    }
    expect(await app.ctx.db.readProgress.count()).toBe(0);
  });
});

describe("the reader apps (OPDS, KOReader sync, the Komga-compatible API)", () => {
  const basic = { authorization: `Basic ${Buffer.from(`admin:${TEST_PASSWORD}`).toString("base64")}` };

  it("take no session cookie: a cookie alone is 401 with the Basic challenge, on reads and changes", async () => {
    for (const [method, url] of [
      ["GET", "/opds/v1.2/catalog"],
      ["PATCH", "/komga/api/v1/books/1/read-progress"],
      ["PUT", "/opds/v2/files/1/progression"],
    ] as const) {
      const res = await send(
        method,
        url,
        { cookie, origin: own, "content-type": "application/json" },
        method === "GET" ? undefined : json({ page: 2 }),
      );
      expect(res.status, `${method} ${url}`).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
    }
    const ko = await send("PUT", "/koreader/syncs/progress", { cookie, "content-type": "application/json" }, json({}));
    expect(ko.status).toBe(401);
  });

  it("need no Origin (apps send none) and are not refused for one: their credential is no cookie", async () => {
    // Past every guard, the route answers: no such document, no such book.
    const ko = await send(
      "PUT",
      "/koreader/syncs/progress",
      { "x-auth-user": TEST_API_KEY, "content-type": "application/json" },
      json({ document: "0".repeat(32), progress: "2", percentage: 0.5 }),
    );
    expect(ko.status).toBe(404);
    const komga = await send(
      "PATCH",
      "/komga/api/v1/books/999/read-progress",
      { ...basic, origin: foreign(), "content-type": "application/json; charset=utf-8" },
      json({ page: 2 }),
    );
    expect(komga.status).toBe(404);
  });

  it("read change bodies only as JSON: a form (what another site's page can send) is 415 and changes nothing", async () => {
    const form = new URLSearchParams({ document: "0".repeat(32), progress: "2" }).toString();
    await expectProblem(
      await send(
        "PUT",
        "/koreader/syncs/progress",
        { "x-auth-user": TEST_API_KEY, "content-type": "application/x-www-form-urlencoded" },
        form,
      ),
      415,
      "unsupported_media_type",
    );
    await expectProblem(
      await send("POST", "/komga/api/v1/series/list", { ...basic, "content-type": "text/plain" }, json({})),
      415,
      "unsupported_media_type",
    );
    expect(await app.ctx.db.readProgress.count()).toBe(0);
  });

  it("grant no cross-origin reads", async () => {
    const res = await send("GET", "/opds/v1.2/catalog", { ...basic, origin: foreign() });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });
});
