/**
 * Cross-site request forgery: a state change authenticated by an ambient credential (the session
 * cookie, which the browser attaches on its own) must come from this service's own pages. Browsers
 * say where a request comes from in `Origin` (sent with every POST, PUT, PATCH and DELETE) and in
 * `Sec-Fetch-Site`; a page on another site, or another port of the same host, cannot forge either.
 * SameSite=Strict alone does not suffice: another application on the same host is "same-site".
 *
 * Same origin means the Origin's host (with its port) is the request's Host, or the host a reverse
 * proxy names in X-Forwarded-Host (a browser cannot set that header on a cross-site request
 * without a preflight, which this service never grants).
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../errors.ts";
import { principalOf, type HeaderReader } from "./auth.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Whether `origin` (an Origin header's value) names the host this request was sent to. */
export function isOwnOrigin(origin: string, header: HeaderReader): boolean {
  let host: string;
  try {
    const url = new URL(origin);
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    host = url.host.toLowerCase();
  } catch {
    return false;
  }
  const own = [header("host"), header("x-forwarded-host")?.split(",")[0]]
    .map((h) => h?.trim().toLowerCase())
    .filter((h): h is string => !!h);
  return own.some((h) => h === host || h === defaultPortless(host, h));
}

/** "example.org:80" in Host and "http://example.org" in Origin name the same host. */
function defaultPortless(originHost: string, hostHeader: string): string | null {
  const m = /^(.*):(80|443)$/.exec(hostHeader);
  return m && m[1] === originHost ? hostHeader : null;
}

/**
 * Whether the request proves it comes from this service's own pages: a same-origin `Origin`, or
 * without an Origin, `Sec-Fetch-Site: same-origin`.
 */
export function fromOwnPages(header: HeaderReader): boolean {
  const origin = header("origin");
  if (origin !== null && origin !== undefined) return isOwnOrigin(origin, header);
  return header("sec-fetch-site") === "same-origin";
}

/** The refusal, in words that say what to do instead. */
export function csrfRefused(): AppError {
  return new AppError(
    "csrf_refused",
    "this change was sent with the session cookie from another site or port: use the service's own pages, or send the API key as X-Api-Key",
  );
}

/**
 * After requireAuth: refuses (403 `csrf_refused`) a state-changing request authenticated by an
 * ambient credential that does not come from the service's own pages. Reading requests, and
 * requests with a non-ambient credential (the API key), pass.
 */
export function refuseCrossSite(): MiddlewareHandler {
  return async (c, next) => {
    const principal = principalOf(c);
    if (principal?.ambient && !SAFE_METHODS.has(c.req.method) && !fromOwnPages((n) => c.req.header(n))) {
      throw csrfRefused();
    }
    await next();
  };
}
