/**
 * Who is calling. An authentication scheme reads one kind of credential from a request; the
 * authenticator tries its schemes in order and the first that finds its credential decides. A
 * credential the browser sends on its own (the session cookie; HTTP Basic, which browsers cache)
 * is *ambient*: a state change authenticated by one must also prove it comes from this service's
 * own pages (http/csrf.ts). Another scheme plugs in by implementing AuthScheme.
 */
import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { parse } from "hono/utils/cookie";
import { AppError } from "../errors.ts";
import type { Secrets } from "../secrets.ts";
import { SESSION_DAYS, type SessionService } from "../services/accounts/session-service.ts";

export const SESSION_COOKIE = "mls_session";
export const SESSION_MAX_AGE = SESSION_DAYS * 86_400;

export interface Principal {
  /** "api-key" for the service key, otherwise the user's name. */
  user: string;
  /** The scheme that proved it ("api-key", "session", …). */
  scheme: string;
  /** Sent by the browser without the page asking (cookies, HTTP Basic): state changes need a same-origin proof. */
  ambient: boolean;
  /** The session's id for the "session" scheme. */
  sessionId?: number;
}

/** Read access to a request's headers (a fetch Request, Hono's request, or a WebSocket upgrade). */
export type HeaderReader = (name: string) => string | null | undefined;

export interface AuthScheme {
  name: string;
  /** undefined: the request holds no credential of this kind; null: it holds one that is not valid. */
  authenticate(header: HeaderReader): Promise<Principal | null | undefined>;
}

export type Authenticator = (header: HeaderReader) => Promise<Principal | null>;

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * One cookie's value from a Cookie header, with Hono's cookie parser: another application's
 * malformed cookie on the same host (`other=%ZZ`) is skipped or kept undecoded, never an error.
 */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  try {
    return parse(header, name)[name];
  } catch {
    return undefined;
  }
}

/** `X-Api-Key`: the service's key (the convention of self-hosted media managers). */
export function apiKeyScheme(secrets: Secrets): AuthScheme {
  return {
    name: "api-key",
    async authenticate(header) {
      const key = header("x-api-key");
      if (key === null || key === undefined) return undefined;
      return safeEqual(key, secrets.apiKey) ? { user: "api-key", scheme: "api-key", ambient: false } : null;
    },
  };
}

/** The web login's cookie: a token naming a server-side session. */
export function sessionCookieScheme(sessions: Pick<SessionService, "authenticate">): AuthScheme {
  return {
    name: "session",
    async authenticate(header) {
      const token = readCookie(header("cookie"), SESSION_COOKIE);
      if (!token) return undefined;
      const session = await sessions.authenticate(token);
      return session ? { user: session.username, scheme: "session", ambient: true, sessionId: session.id } : null;
    },
  };
}

export function createAuthenticator(schemes: AuthScheme[]): Authenticator {
  return async (header) => {
    for (const scheme of schemes) {
      const found = await scheme.authenticate(header);
      if (found !== undefined) return found;
    }
    return null;
  };
}

const PRINCIPAL = "principal";

/** The principal requireAuth found for this request. */
export function principalOf(c: Context): Principal | null {
  return ((c as Context<{ Variables: { [PRINCIPAL]: Principal } }>).get(PRINCIPAL) as Principal | undefined) ?? null;
}

/** Refuses (401 `unauthenticated`) a request that no scheme authenticates; keeps the principal for the handlers. */
export function requireAuth(authenticate: Authenticator): MiddlewareHandler {
  return async (c, next) => {
    const principal = await authenticate((name) => c.req.header(name));
    if (!principal) throw new AppError("unauthenticated", "send the API key as X-Api-Key, or log in");
    (c as Context<{ Variables: { [PRINCIPAL]: Principal } }>).set(PRINCIPAL, principal);
    await next();
  };
}
