/**
 * Preview and confirmation tokens (docs/rules.md, "Assembly" and "The audit"). A preview signs exactly the
 * state it saw — the snapshot: file identities and hashes, release ids, mappings, map revision —
 * together with the operation, the series and an expiry. The confirm verifies the token, re-reads
 * the same state and compares it with the signed snapshot (`requireSameSnapshot`).
 *
 * Format: `c1.<base64url JSON payload>.<base64url HMAC-SHA256>`. The MAC covers a
 * "confirmation:c1:" prefix, so a session cookie (signed with the same key under "session:") can
 * never pass as a token, nor a token as a cookie. The payload is readable by the client; it holds
 * nothing secret, only what the client was shown.
 *
 * Errors: a malformed or forged token, or one issued for another operation or series, is 400
 * `confirmation_invalid`; an expired one is 409 `snapshot_stale` (it was genuine: preview again).
 */
import { timingSafeEqual } from "node:crypto";
import { AppError } from "../errors.ts";
import type { Secrets } from "../secrets.ts";

export const CONFIRMATION_TTL_MS = 15 * 60_000;
/** A token binds at most a selection of files; anything longer was not issued here. */
const MAX_TOKEN_LENGTH = 2 * 1024 * 1024;
const PREFIX = "c1";
const TOKEN_RE = /^c1\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;

interface Payload {
  kind: string;
  seriesId: number;
  expiresAt: number;
  snapshot: unknown;
}

/** JSON with object keys sorted at every level, so equal states give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return v.toString();
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, o[k]]),
    );
  });
}

/** 409 snapshot_stale unless the current state equals the signed one. */
export function requireSameSnapshot(
  signed: unknown,
  current: unknown,
  what = "the reviewed files, releases or mappings",
): void {
  if (canonicalJson(signed) !== canonicalJson(current)) {
    throw new AppError("snapshot_stale", `${what} changed since the preview: preview again`);
  }
}

function invalid(detail: string): AppError {
  return new AppError("confirmation_invalid", detail);
}

/** What a confirming call takes: the token its preview returned. */
export interface ConfirmationInput {
  confirmation: string;
}

export interface Confirmations {
  /** A token for `kind` on `seriesId` binding `snapshot`, and when it expires. */
  sign(kind: string, seriesId: number, snapshot: unknown): { token: string; expiresAt: Date };
  /** The snapshot a genuine, unexpired token for exactly this operation and series binds. */
  verify<T>(token: unknown, kind: string, seriesId: number): T;
}

export function createConfirmations(
  secrets: Pick<Secrets, "sign">,
  options: { ttlMs?: number; now?: () => number } = {},
): Confirmations {
  const ttl = options.ttlMs ?? CONFIRMATION_TTL_MS;
  const now = options.now ?? Date.now;
  const mac = (body: string) => secrets.sign(`confirmation:${PREFIX}:${body}`);

  return {
    sign(kind, seriesId, snapshot) {
      const expiresAt = now() + ttl;
      const payload: Payload = { kind, seriesId, expiresAt, snapshot };
      const body = Buffer.from(canonicalJson(payload)).toString("base64url");
      return { token: `${PREFIX}.${body}.${mac(body)}`, expiresAt: new Date(expiresAt) };
    },

    verify<T>(token: unknown, kind: string, seriesId: number): T {
      if (typeof token !== "string" || token.length > MAX_TOKEN_LENGTH)
        throw invalid("confirmation must be the token a preview returned");
      const m = TOKEN_RE.exec(token);
      if (!m) throw invalid("the confirmation token is malformed");
      const [, body, given] = m as unknown as [string, string, string];
      const expected = Buffer.from(mac(body));
      const actual = Buffer.from(given);
      if (expected.length !== actual.length || !timingSafeEqual(expected, actual))
        throw invalid("the confirmation token was not issued by this service");
      let payload: Payload;
      try {
        payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Payload;
      } catch {
        throw invalid("the confirmation token is malformed");
      }
      if (payload.kind !== kind)
        throw invalid(`the confirmation token is for another operation (${String(payload.kind)})`);
      if (payload.seriesId !== seriesId) throw invalid("the confirmation token is for another series");
      if (!(typeof payload.expiresAt === "number" && payload.expiresAt > now())) {
        throw new AppError("snapshot_stale", "the confirmation expired: preview again");
      }
      return payload.snapshot as T;
    },
  };
}
