import type { Hono } from "hono";
import { TrieRouter } from "hono/router/trie-router";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/**
 * The methods the app's routes answer at a path, for a 405 with its `Allow` header where a path
 * exists but not for the method asked. Middleware (registered for every method) is left out. The
 * routes are read once, at the first question: every route is registered before the first request.
 */
export function allowedMethods(app: Hono): (path: string) => string[] {
  let router: TrieRouter<string> | null = null;
  const build = () => {
    const r = new TrieRouter<string>();
    for (const route of app.routes) {
      if ((METHODS as readonly string[]).includes(route.method)) r.add(route.method, route.path, route.method);
    }
    return r;
  };
  return (path) => {
    router ??= build();
    const allowed: string[] = METHODS.filter((m) => router!.match(m, path)[0].length > 0);
    // A GET route answers HEAD as well (the framework runs it and drops the body).
    return allowed.includes("GET") ? ["GET", "HEAD", ...allowed.filter((m) => m !== "GET")] : allowed;
  };
}
