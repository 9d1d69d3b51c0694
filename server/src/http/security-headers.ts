/**
 * Security headers on every response (web pages, their assets, the API). Pages get their
 * Content-Security-Policy from SvelteKit (web/svelte.config.js: nonces for its inline start-up
 * script), which replaces the strict default set here; everything else keeps the default, so a
 * JSON answer or a page image opened on its own can run nothing and be framed by nobody.
 */
import type { ServerResponse } from "node:http";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}
