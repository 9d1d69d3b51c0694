/**
 * Pure helpers around the browser session: where to go after login, how to recognise an
 * unauthenticated answer. No SvelteKit imports, so they run under vitest as they are.
 */
import type { CombinedError } from "@urql/core";

export const LOGIN_PATH = "/login";

/**
 * The path to return to after login, or "/" when `next` is missing or could leave the site.
 * Only same-origin absolute paths are accepted: "/series/3?x=1" yes; "//evil.example",
 * "/\\evil.example", "https://…", "javascript:…" and the login page itself no.
 */
export function safeNext(next: string | null | undefined): string {
  if (!next) return "/";
  if (!next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  // Control characters (tabs and newlines are dropped by URL parsers) could hide a "//".
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(next)) return "/";
  let url: URL;
  try {
    url = new URL(next, "http://same.origin");
  } catch {
    return "/";
  }
  if (url.origin !== "http://same.origin") return "/";
  if (url.pathname === LOGIN_PATH || url.pathname.startsWith(`${LOGIN_PATH}/`)) return "/";
  return url.pathname + url.search + url.hash;
}

/** "/login?next=%2Fseries%2F3" for the page the user was on; plain "/login" for the library. */
export function loginHref(current: string | null | undefined): string {
  const next = safeNext(current);
  return next === "/" ? LOGIN_PATH : `${LOGIN_PATH}?next=${encodeURIComponent(next)}`;
}

/** True when a GraphQL result says the session is missing or expired. */
export function isUnauthenticated(error: CombinedError | null | undefined): boolean {
  if (!error) return false;
  const status = (error.response as { status?: unknown } | undefined)?.status;
  if (status === 401) return true;
  return error.graphQLErrors.some((e) => {
    const code = e.extensions?.code;
    return typeof code === "string" && code.toLowerCase() === "unauthenticated";
  });
}

/**
 * WebSocket close codes that mean "log in again": graphql-ws's Unauthorized (4401) and
 * Forbidden (4403, what `useServer` sends when `onConnect` refuses the connection).
 */
export const UNAUTHENTICATED_CLOSE_CODES: ReadonlySet<number> = new Set([4401, 4403]);
