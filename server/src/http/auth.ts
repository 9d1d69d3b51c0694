import { timingSafeEqual } from "node:crypto";
import type { Secrets } from "../secrets.ts";

export const SESSION_COOKIE = "mls_session";
const SESSION_DAYS = 30;

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function parseCookies(header: string | null | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0) out.set(part.slice(0, i).trim(), decodeURIComponent(part.slice(i + 1).trim()));
  }
  return out;
}

/** A stateless session token: `<user>.<expiry ms>.<hmac>`. */
export function issueSession(secrets: Secrets, username: string, now = Date.now()): { token: string; cookie: string } {
  const expires = now + SESSION_DAYS * 86_400_000;
  const payload = `${username}.${expires}`;
  const token = `${payload}.${secrets.sign(`session:${payload}`)}`;
  const cookie = `${SESSION_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_DAYS * 86_400}`;
  return { token, cookie };
}

export const CLEAR_SESSION_COOKIE = `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;

export function sessionUser(secrets: Secrets, token: string | undefined, now = Date.now()): string | null {
  if (!token) return null;
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const [user, expiry, mac] = parts as [string, string, string];
  if (!safeEqual(mac, secrets.sign(`session:${user}.${expiry}`))) return null;
  if (!(Number(expiry) > now)) return null;
  return user;
}

/** The service's normal authentication: `X-Api-Key` or the web session cookie. */
export function authenticate(
  secrets: Secrets,
  headers: { apiKey?: string | null; cookie?: string | null },
): string | null {
  if (headers.apiKey) return safeEqual(headers.apiKey, secrets.apiKey) ? "api-key" : null;
  return sessionUser(secrets, parseCookies(headers.cookie).get(SESSION_COOKIE));
}
