/**
 * The app renders in the browser only (`ssr = false`): every call to the API is a same-origin
 * request from the browser carrying the session cookie, and the SvelteKit server never holds a
 * credential or calls the API on anyone's behalf.
 */
import { redirect } from "@sveltejs/kit";
import { LOGIN_PATH, loginHref } from "$lib/auth";
import { fetchSession } from "$lib/session";
import type { LayoutLoad } from "./$types";

export const ssr = false;
export const prerender = false;

export const load: LayoutLoad = async ({ fetch, url, untrack }) => {
  // Checked once per full load (and after login/logout, which invalidate): not on every click.
  const { pathname, search } = untrack(() => ({ pathname: url.pathname, search: url.search }));
  if (pathname === LOGIN_PATH) return { username: null, sessionProblem: null };
  const session = await fetchSession(fetch);
  if (session.state === "anonymous") redirect(307, loginHref(pathname + search));
  if (session.state === "signed-in") return { username: session.username, sessionProblem: null };
  return { username: null, sessionProblem: session.message };
};
