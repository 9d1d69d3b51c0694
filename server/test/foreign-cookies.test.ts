/**
 * Other applications on the same host set their own cookies, and the browser sends them all to
 * this service too. A malformed one (`other=%ZZ`, a bare name, a quote that never closes, bytes
 * that are not UTF-8) must never break a request: the session cookie is read with Hono's cookie
 * parser, which skips or keeps undecoded what it cannot decode. REST, GraphQL, the session
 * endpoint and the WebSocket keep working; without a session the answer stays 401, never 500.
 */
import { createClient } from "graphql-ws";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { readCookie, SESSION_COOKIE } from "../src/http/auth.ts";
import { expectProblem } from "./fixtures.ts";
import { shareTestApp, TEST_PASSWORD, type TestApp } from "./utils.ts";

const FOREIGN = [
  "other=%ZZ",
  "broken=%E0%A4%A",
  "bare",
  'quoted="never closed',
  "=nameless",
  "latin1=caf\u00e9",
  "  spaced  =  value  ",
  "dup=1; dup=2",
  "semi=;;;",
];

describe("foreign cookies beside the session cookie", () => {
  let app!: TestApp;
  let session = "";
  shareTestApp((a) => (app = a));

  it("log in first", async () => {
    const res = await fetch(`${app.baseUrl}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: TEST_PASSWORD }),
    });
    expect(res.status).toBe(204);
    session = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  });

  it.each(FOREIGN)("%s before or after it: REST, GraphQL and the session endpoint still work", async (foreign) => {
    for (const cookie of [`${foreign}; ${session}`, `${session}; ${foreign}`]) {
      expect((await fetch(`${app.baseUrl}/api/manga`, { headers: { cookie } })).status).toBe(200);
      expect(await (await fetch(`${app.baseUrl}/api/session`, { headers: { cookie } })).json()).toEqual({
        username: "admin",
      });
      const gql = await fetch(`${app.baseUrl}/graphql`, {
        method: "POST",
        headers: { cookie, origin: app.baseUrl, "content-type": "application/json" },
        body: JSON.stringify({ query: "{ seriesList { id } }" }),
      });
      expect(await gql.json()).toEqual({ data: { seriesList: [] } });
    }
  });

  it.each(FOREIGN)("%s alone: 401 unauthenticated, never 500", async (foreign) => {
    await expectProblem(
      await fetch(`${app.baseUrl}/api/manga`, { headers: { cookie: foreign } }),
      401,
      "unauthenticated",
    );
    await expectProblem(
      await fetch(`${app.baseUrl}/api/session`, { headers: { cookie: foreign } }),
      401,
      "unauthenticated",
    );
    expect((await fetch(`${app.baseUrl}/api/session`, { method: "DELETE", headers: { cookie: foreign } })).status).toBe(
      204,
    );
  });

  it("the reader apps answer their credentials whatever cookies come along", async () => {
    const basic = `Basic ${Buffer.from(`admin:${TEST_PASSWORD}`).toString("base64")}`;
    for (const foreign of FOREIGN) {
      const res = await fetch(`${app.baseUrl}/opds/v1.2/catalog`, {
        headers: { authorization: basic, cookie: `${foreign}; ${session}` },
      });
      expect(res.status, foreign).toBe(200);
    }
  });

  it("a session cookie whose own value is malformed is simply no session (401)", async () => {
    for (const value of ["%ZZ", "%", '"', "a b", "caf\u00e9"]) {
      await expectProblem(
        await fetch(`${app.baseUrl}/api/manga`, { headers: { cookie: `${SESSION_COOKIE}=${value}` } }),
        401,
        "unauthenticated",
      );
    }
  });

  it("the WebSocket opens with the session cookie among malformed ones (it closed with 4500 before)", async () => {
    const cookie = `other=%ZZ; ${session}; bare`;
    const Socket = class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { cookie, origin: app.baseUrl } });
      }
    };
    const client = createClient({
      url: `${app.baseUrl.replace("http", "ws")}/graphql`,
      webSocketImpl: Socket,
      retryAttempts: 0,
    });
    const result = await new Promise<unknown>((resolve) => {
      let last: unknown;
      client.subscribe(
        { query: "{ seriesList { id } }" },
        {
          next: (v) => (last = v),
          error: (e) => resolve({ error: (e as { code?: number }).code }),
          complete: () => resolve(last),
        },
      );
    });
    await client.dispose();
    expect(result).toEqual({ data: { seriesList: [] } });
  });

  it("the parser itself: the session's value is found whatever surrounds it", () => {
    expect(readCookie(`other=%ZZ; ${SESSION_COOKIE}=abc`, SESSION_COOKIE)).toBe("abc");
    expect(readCookie(`${SESSION_COOKIE}=abc; other=%ZZ`, SESSION_COOKIE)).toBe("abc");
    expect(readCookie("other=%ZZ", SESSION_COOKIE)).toBeUndefined();
    expect(readCookie(undefined, SESSION_COOKIE)).toBeUndefined();
    expect(readCookie(`${SESSION_COOKIE}=%ZZ`, SESSION_COOKIE)).toBe("%ZZ");
  });
});
