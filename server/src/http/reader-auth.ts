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
 * with `ADMIN_PASSWORD` the MD5 is that password's and nothing is stored.
 */
import { createHash, randomBytes, scryptSync, timingSafeEqual, createHmac } from "node:crypto";
import { READER_KEY_SECRET, type Secrets } from "../secrets.ts";
import { ADMIN_USER } from "../services/reading-service.ts";

export const BASIC_REALM = 'Basic realm="Manga library", charset="UTF-8"';

const md5 = (s: string) => createHash("md5").update(s, "utf8").digest("hex");

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function scryptHash(value: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString("hex")}$${scryptSync(value, salt, 32).toString("hex")}`;
}

function scryptCheck(stored: string, value: string): boolean {
  const [scheme, saltHex, hashHex] = stored.split("$");
  if (scheme !== "scrypt" || !saltHex || !hashHex) return false;
  const expected = Buffer.from(hashHex, "hex");
  return timingSafeEqual(expected, scryptSync(value, Buffer.from(saltHex, "hex"), expected.length));
}

export interface ReaderAuth {
  /** The reading user for these request headers, or null. */
  authenticate(headers: { get(name: string): string | null | undefined }): string | null;
}

/**
 * Installs the reader apps' authentication on the secrets: from now on every successful password
 * check also keeps KOReader's key current. `adminPasswordOverride` is `ADMIN_PASSWORD` when set.
 */
export function readerAuth(secrets: Secrets, adminPasswordOverride: string | null): ReaderAuth {
  // Successful checks are remembered in memory (an HMAC of the credential), so that a reader
  // streaming pages does not pay scrypt on every request. Failures are never cached.
  const verified = new Set<string>();
  const tag = (kind: string, value: string) =>
    createHmac("sha256", secrets.signingKey).update(`${kind}:${value}`).digest("base64url");

  const rememberKey = (password: string) => {
    if (adminPasswordOverride !== null) return;
    const stored = secrets.getIntegrationSecret(READER_KEY_SECRET);
    const key = md5(password);
    if (stored && scryptCheck(stored, key)) return;
    void secrets.setIntegrationSecret(READER_KEY_SECRET, scryptHash(key)).catch(() => undefined);
  };
  const check = secrets.checkAdminPassword.bind(secrets);
  secrets.checkAdminPassword = (password: string) => {
    const ok = check(password);
    if (ok) rememberKey(password);
    return ok;
  };

  const passwordOk = (password: string): boolean => {
    const t = tag("password", password);
    if (verified.has(t)) return true;
    const ok = secrets.checkAdminPassword(password);
    if (ok) verified.add(t);
    return ok;
  };
  const koreaderKeyOk = (key: string): boolean => {
    const k = key.trim().toLowerCase();
    if (!/^[0-9a-f]{32}$/.test(k)) return false;
    if (adminPasswordOverride !== null) return safeEqual(k, md5(adminPasswordOverride));
    const t = tag("koreader", k);
    if (verified.has(t)) return true;
    const stored = secrets.getIntegrationSecret(READER_KEY_SECRET);
    const ok = stored !== null && scryptCheck(stored, k);
    if (ok) verified.add(t);
    return ok;
  };
  const apiKeyOk = (key: string) => safeEqual(key, secrets.apiKey);

  return {
    authenticate(headers) {
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
        if (user === ADMIN_USER && password && passwordOk(password)) return ADMIN_USER;
        return null;
      }
      const koUser = headers.get("x-auth-user");
      if (koUser) {
        if (apiKeyOk(koUser)) return ADMIN_USER;
        const key = headers.get("x-auth-key");
        if (koUser === ADMIN_USER && key && koreaderKeyOk(key)) return ADMIN_USER;
        return null;
      }
      return null;
    },
  };
}
