/**
 * The signed-in browsers (`/api/sessions`), "sign out everywhere" and the password change. The
 * session lives in an HttpOnly cookie: these calls ask the server, they never read the cookie.
 */
import { rest } from "$lib/errors";

/** One signed-in browser, as the REST API answers it. */
export interface SessionEntry {
  id: number;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  user_agent: string | null;
  address: string | null;
  current: boolean;
}

export const listSessions = (): Promise<SessionEntry[]> => rest<SessionEntry[]>("GET", "/api/sessions");

/** Ends every session, this browser's too; answers how many ended. */
export const signOutEverywhere = async (): Promise<number> =>
  (await rest<{ signed_out: number }>("DELETE", "/api/sessions")).signed_out;

/** Changes the password; every other browser is signed out, this one gets a new session. */
export const changePassword = async (currentPassword: string, newPassword: string): Promise<number> =>
  (
    await rest<{ signed_out: number }>("PUT", "/api/session/password", {
      current_password: currentPassword,
      new_password: newPassword,
    })
  ).signed_out;

export const MIN_PASSWORD = 8;

/** What is wrong with a new password before it is sent, or null. */
export function passwordProblem(next: string, repeated: string): string | null {
  if (next.length < MIN_PASSWORD) return `The new password needs at least ${MIN_PASSWORD} characters.`;
  if (next !== repeated) return "The two new passwords differ.";
  return null;
}

/** "Firefox on Linux" from a User-Agent header; "Unknown browser" when it says nothing useful. */
export function browserName(userAgent: string | null): string {
  if (!userAgent) return "Unknown browser";
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /Firefox\//.test(userAgent)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(userAgent)
        ? "Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : null;
  const system = /Android/.test(userAgent)
    ? "Android"
    : /iPhone|iPad/.test(userAgent)
      ? "iOS"
      : /Windows/.test(userAgent)
        ? "Windows"
        : /Mac OS X|Macintosh/.test(userAgent)
          ? "macOS"
          : /Linux/.test(userAgent)
            ? "Linux"
            : null;
  if (!browser) return system ? `A browser on ${system}` : "Unknown browser";
  return system ? `${browser} on ${system}` : browser;
}
