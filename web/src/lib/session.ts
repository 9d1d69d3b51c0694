/**
 * The login API (`/api/session`). The session lives in an HttpOnly cookie the browser keeps;
 * these calls only ask the server to set, read or clear it. `fetchImpl` is injectable for tests
 * and for SvelteKit's `load` fetch.
 */

export const SESSION_PATH = "/api/session";

export type SessionState =
  | { state: "signed-in"; username: string }
  | { state: "anonymous" }
  /** The server could not be asked (down, restarting, unexpected answer). */
  | { state: "unknown"; message: string };

export type LoginResult = { ok: true } | { ok: false; message: string };

type Fetch = typeof fetch;

/** A readable sentence from an RFC 9457 problem body, or `fallback`. */
export async function problemMessage(response: Response, fallback: string): Promise<string> {
  try {
    const type = response.headers.get("content-type") ?? "";
    if (!/json/i.test(type)) return fallback;
    const body: unknown = await response.json();
    if (body && typeof body === "object") {
      const { detail, title } = body as { detail?: unknown; title?: unknown };
      if (typeof detail === "string" && detail.trim()) return detail.trim();
      if (typeof title === "string" && title.trim()) return title.trim();
    }
  } catch {
    /* not JSON after all */
  }
  return fallback;
}

export async function fetchSession(fetchImpl: Fetch = fetch): Promise<SessionState> {
  let response: Response;
  try {
    response = await fetchImpl(SESSION_PATH, {
      credentials: "same-origin",
      headers: { accept: "application/json" },
    });
  } catch {
    return { state: "unknown", message: "The server cannot be reached." };
  }
  if (response.status === 401) return { state: "anonymous" };
  if (!response.ok) {
    return { state: "unknown", message: await problemMessage(response, `The server answered ${response.status}.`) };
  }
  try {
    const body = (await response.json()) as { username?: unknown };
    if (typeof body.username === "string") return { state: "signed-in", username: body.username };
  } catch {
    /* fall through */
  }
  return { state: "unknown", message: "The server sent an unexpected session answer." };
}

export async function login(username: string, password: string, fetchImpl: Fetch = fetch): Promise<LoginResult> {
  if (!username.trim()) return { ok: false, message: "Enter the username." };
  if (!password) return { ok: false, message: "Enter the password." };
  let response: Response;
  try {
    response = await fetchImpl(SESSION_PATH, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ username: username.trim(), password }),
    });
  } catch {
    return { ok: false, message: "The server cannot be reached. Check that it is running and try again." };
  }
  if (response.ok) return { ok: true };
  switch (response.status) {
    case 401:
      return { ok: false, message: "Wrong username or password." };
    case 429:
      return { ok: false, message: await problemMessage(response, "Too many attempts. Wait a moment and try again.") };
    default:
      return {
        ok: false,
        message: await problemMessage(response, `Login failed (the server answered ${response.status}).`),
      };
  }
}

export async function logout(fetchImpl: Fetch = fetch): Promise<void> {
  try {
    await fetchImpl(SESSION_PATH, { method: "DELETE", credentials: "same-origin" });
  } catch {
    /* the cookie may outlive an unreachable server; the login page is still the right place */
  }
}
