/**
 * Authentication of the reader apps (OPDS 1.2 and 2, KOReader sync, the Komga-compatible API).
 * Reader apps cannot log in through the web form, so these paths accept:
 *
 * - HTTP Basic: user `admin` with the web password, or any user name with the API key as password;
 * - `X-Api-Key` (the service's normal key);
 * - KOReader's own headers: `x-auth-user: admin` with `x-auth-key` = the MD5 of the web password
 *   (what KOReader sends), or the API key as `x-auth-user` (Komga's convention for KOReader).
 *
 * The session cookie is not accepted here: these paths answer apps, never the browser's web client,
 * so no request on them is cookie-authenticated and cross-site request forgery has nothing to ride
 * on. Without valid credentials the answer is 401 with `WWW-Authenticate: Basic` (the challenge
 * Mihon's and Komelia's HTTP clients wait for before sending credentials).
 *
 * The web password is stored only as a scrypt hash, so the MD5 KOReader sends cannot be derived
 * from it: a scrypt hash of the password's MD5 is kept in the secrets file beside it, written when
 * the password is known: with the secrets file on the start that generates the password
 * (secrets.ts), and on a successful password check (web login or Basic) when it is missing or stale;
 * with `ADMIN_PASSWORD` the MD5 is that password's and nothing is stored. A password change
 * rewrites it (secrets.ts), and remembered checks are bound to the password's fingerprint, so the
 * old password and key stop working at once.
 *
 * Password and key checks run the asynchronous scrypt (never on the event loop) under the login
 * throttle (services/accounts/session-service.ts): repeated failures answer 429 with `Retry-After`.
 */
import { createHash, timingSafeEqual, createHmac } from "node:crypto";
import { hashPassword, verifyPassword } from "../password-hash.ts";
import { READER_KEY_SECRET, type Secrets } from "../secrets.ts";
import { ADMIN_USER } from "../services/reading/reading-service.ts";

export const BASIC_REALM = 'Basic realm="Manga library", charset="UTF-8"';

const md5 = (s: string) => createHash("md5").update(s, "utf8").digest("hex");

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Runs a credential check under the login throttle (throws 429 when the caller is locked out). */
export type ThrottledCheck = (
  username: string,
  address: string | null,
  check: () => Promise<boolean>,
) => Promise<boolean>;

export interface ReaderAuth {
  /** The reading user for these request headers, or null; throws 429 while the caller is throttled. */
  authenticate(
    headers: { get(name: string): string | null | undefined },
    address?: string | null,
  ): Promise<string | null>;
}

/**
 * Installs the reader apps' authentication on the secrets: from now on every successful password
 * check also keeps KOReader's key current. `adminPasswordOverride` is `ADMIN_PASSWORD` when set.
 */
export function readerAuth(
  secrets: Secrets,
  adminPasswordOverride: string | null,
  throttled: ThrottledCheck,
): ReaderAuth {
  // Successful checks are remembered in memory (an HMAC of the credential and of the password's
  // fingerprint), so that a reader streaming pages does not pay scrypt on every request. Failures
  // are never remembered; a password change makes every remembered check stale.
  const verified = new Set<string>();
  const tag = (kind: string, value: string) =>
    createHmac("sha256", secrets.signingKey).update(`${kind}:${secrets.passwordStamp()}:${value}`).digest("base64url");

  const rememberKey = async (password: string) => {
    if (adminPasswordOverride !== null) return;
    const stored = secrets.getIntegrationSecret(READER_KEY_SECRET);
    const key = md5(password);
    if (stored && (await verifyPassword(stored, key))) return;
    await secrets.setIntegrationSecret(READER_KEY_SECRET, await hashPassword(key)).catch(() => undefined);
  };
  const check = secrets.checkAdminPassword.bind(secrets);
  secrets.checkAdminPassword = async (password: string) => {
    const ok = await check(password);
    if (ok) await rememberKey(password);
    return ok;
  };

  const passwordOk = async (user: string, password: string, address: string | null): Promise<boolean> => {
    // Another instance may have changed the password: a remembered check of the old one goes stale (one stat).
    await secrets.refresh();
    const t = tag("password", password);
    if (user === ADMIN_USER && verified.has(t)) return true;
    // An unknown user costs one scrypt too, and counts as a failure.
    const ok = await throttled(user, address, async () =>
      user === ADMIN_USER ? secrets.checkAdminPassword(password) : (await verifyPassword(null, password)) && false,
    );
    if (ok) verified.add(t);
    return ok;
  };
  const koreaderKeyOk = async (key: string, address: string | null): Promise<boolean> => {
    const k = key.trim().toLowerCase();
    if (!/^[0-9a-f]{32}$/.test(k)) return false;
    await secrets.refresh();
    const t = tag("koreader", k);
    if (verified.has(t)) return true;
    // Guessing the key is guessing the password: throttled alike, whether it is stored or set by ADMIN_PASSWORD.
    const ok = await throttled(ADMIN_USER, address, async () =>
      adminPasswordOverride !== null
        ? safeEqual(k, md5(adminPasswordOverride))
        : verifyPassword(secrets.getIntegrationSecret(READER_KEY_SECRET), k),
    );
    if (ok) verified.add(t);
    return ok;
  };
  const apiKeyOk = (key: string) => safeEqual(key, secrets.apiKey);

  return {
    async authenticate(headers, address = null) {
      const apiKey = headers.get("x-api-key");
      if (apiKey) return apiKeyOk(apiKey) ? ADMIN_USER : null;
      const authorization = headers.get("authorization");
      if (authorization) {
        const m = /^basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(authorization);
        if (!m) return null;
        const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
        const colon = decoded.indexOf(":");
        if (colon < 0) return null;
        const user = decoded.slice(0, colon);
        const password = decoded.slice(colon + 1);
        if (password && apiKeyOk(password)) return ADMIN_USER;
        if (password && (await passwordOk(user, password, address))) return ADMIN_USER;
        return null;
      }
      const koUser = headers.get("x-auth-user");
      if (koUser) {
        if (apiKeyOk(koUser)) return ADMIN_USER;
        const key = headers.get("x-auth-key");
        if (koUser === ADMIN_USER && key && (await koreaderKeyOk(key, address))) return ADMIN_USER;
        return null;
      }
      return null;
    },
  };
}
