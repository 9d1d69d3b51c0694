/**
 * A web session as a browser holds it, for the session tests: the login, the cookie sent from a
 * page of the service, and a live subscription opened with it.
 */
import { createClient } from "graphql-ws";
import { expect } from "vitest";
import WebSocket from "ws";
import { TEST_PASSWORD, type TestApp } from "./utils.ts";

export async function login(a: TestApp, password = TEST_PASSWORD, userAgent = "test-browser"): Promise<string> {
  const res = await fetch(`${a.baseUrl}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": userAgent },
    body: JSON.stringify({ username: "admin", password }),
  });
  expect(res.status).toBe(204);
  return (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}

/** What a browser page of the service sends with the cookie. */
export const fromPage = (a: TestApp, cookie: string, json?: unknown): RequestInit => ({
  headers: { cookie, origin: a.baseUrl, ...(json === undefined ? {} : { "content-type": "application/json" }) },
  body: json === undefined ? undefined : JSON.stringify(json),
});

/** Whether the cookie still opens REST, GraphQL and the session endpoint. */
export async function works(a: TestApp, cookie: string): Promise<{ rest: number; graphql: number; session: number }> {
  const rest = await fetch(`${a.baseUrl}/api/manga`, { headers: { cookie } });
  const graphql = await fetch(`${a.baseUrl}/graphql`, {
    method: "POST",
    ...fromPage(a, cookie, { query: "{ seriesList { id } }" }),
  });
  const session = await fetch(`${a.baseUrl}/api/session`, { headers: { cookie } });
  return { rest: rest.status, graphql: graphql.status, session: session.status };
}
export const OPEN = { rest: 200, graphql: 200, session: 200 };
export const CLOSED = { rest: 401, graphql: 401, session: 401 };

/** A live subscription opened with the cookie; resolves with the close code when the server ends it. */
export async function liveConnection(a: TestApp, cookie: string): Promise<{ closed: Promise<number | undefined> }> {
  const Socket = class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers: { cookie, origin: a.baseUrl } });
    }
  };
  let opened!: () => void;
  const ready = new Promise<void>((r) => (opened = r));
  const client = createClient({
    url: `${a.baseUrl.replace("http", "ws")}/graphql`,
    webSocketImpl: Socket,
    retryAttempts: 0,
    on: { connected: () => opened() },
  });
  const closed = new Promise<number | undefined>((resolve) => {
    client.subscribe(
      { query: "subscription { libraryEvents { kind } }" },
      {
        next: () => undefined,
        error: (e) => resolve((e as { code?: number }).code),
        complete: () => resolve(undefined),
      },
    );
  }).finally(() => void client.dispose());
  await ready;
  return { closed };
}
