/**
 * The web login: `/api/session` (log in, who am I, log out) and `/api/sessions` (the signed-in
 * browsers, "sign out everywhere", the password change). Cookies are read and written with
 * Hono's cookie helpers. Translation only: sessions live in services/accounts/session-service.ts.
 */
import { loginBody, passwordChangeBody } from "./bodies/sessions.ts";
import type { Context, Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { AppError } from "../errors.ts";
import { ADMIN_USER, type LoginFacts, type SessionView } from "../services/accounts/session-service.ts";
import type { Services } from "../services/index.ts";
import { principalOf, readCookie, SESSION_COOKIE, SESSION_MAX_AGE, type Principal } from "./auth.ts";
import { csrfRefused, fromOwnPages, isOwnOrigin } from "./csrf.ts";
import { jsonBody, pathId, remoteAddress } from "./request.ts";

function facts(c: Context): LoginFacts {
  return { address: remoteAddress(c), userAgent: c.req.header("user-agent") ?? null };
}

function writeSession(c: Context, token: string): void {
  setCookie(c, SESSION_COOKIE, token, {
    path: "/",
    httpOnly: true,
    sameSite: "Strict",
    maxAge: SESSION_MAX_AGE,
  });
}

function clearSession(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "Strict" });
}

/** Whose sessions a request manages: the session's user, or the admin for the API key. */
const owner = (p: Principal) => (p.scheme === "session" ? p.user : ADMIN_USER);

export function restSessionView(s: SessionView) {
  return {
    id: s.id,
    created_at: s.createdAt.toISOString(),
    last_seen_at: s.lastSeenAt.toISOString(),
    expires_at: s.expiresAt.toISOString(),
    user_agent: s.userAgent,
    address: s.address,
    current: s.current,
  };
}

/** The routes reachable without a credential (registered before requireAuth). */
export function openSessionRoutes(app: Hono, services: Services): void {
  app.post("/api/session", async (c) => {
    // A login posted by another site's page would sign this browser in to the attacker's choice.
    const origin = c.req.header("origin");
    if (origin !== undefined && !isOwnOrigin(origin, (n) => c.req.header(n))) throw csrfRefused();
    const { token } = await services.sessions.login(loginBody(await jsonBody(c)), facts(c));
    writeSession(c, token);
    return c.body(null, 204);
  });
  app.get("/api/session", async (c) => {
    const token = readCookie(c.req.header("cookie"), SESSION_COOKIE);
    const session = token ? await services.sessions.authenticate(token) : null;
    if (!session) throw new AppError("unauthenticated");
    return c.json({ username: session.username });
  });
  // Logout with a cookie that opens no session only clears it: there is nothing to end.
  app.delete("/api/session", async (c) => {
    const token = readCookie(c.req.header("cookie"), SESSION_COOKIE);
    const session = token ? await services.sessions.authenticate(token) : null;
    if (session && token) {
      // A live session ends only from the service's own pages (a foreign page must not log it out).
      if (!fromOwnPages((n) => c.req.header(n))) throw csrfRefused();
      await services.sessions.logout(token);
    }
    clearSession(c);
    return c.body(null, 204);
  });
}

/** The routes that need a credential (registered after requireAuth and the cross-site guard). */
export function sessionRoutes(app: Hono, services: Services): void {
  app.get("/api/sessions", async (c) => {
    const p = principalOf(c) as Principal;
    return c.json((await services.sessions.list(owner(p), p.sessionId ?? null)).map(restSessionView));
  });
  app.delete("/api/sessions", async (c) => {
    const p = principalOf(c) as Principal;
    const signedOut = await services.sessions.revokeAll(owner(p));
    if (p.scheme === "session") clearSession(c);
    return c.json({ signed_out: signedOut });
  });
  app.delete("/api/sessions/:id", async (c) => {
    const p = principalOf(c) as Principal;
    const id = pathId(c);
    await services.sessions.revoke(owner(p), id);
    if (p.sessionId === id) clearSession(c);
    return c.body(null, 204);
  });
  app.put("/api/session/password", async (c) => {
    const p = principalOf(c) as Principal;
    const r = await services.sessions.changePassword(passwordChangeBody(await jsonBody(c)), {
      sessionId: p.scheme === "session" ? (p.sessionId ?? null) : null,
      facts: facts(c),
    });
    if (r.token) writeSession(c, r.token);
    return c.json({ signed_out: r.signedOut });
  });
}
