/**
 * Request body limits, enforced while the body streams in (Hono's bodyLimit counts the bytes of a
 * chunked body and stops at the limit; a declared Content-Length over it is refused before any
 * byte is read). The answer is 413 `payload_too_large`. Uploads (raw archives) have their own, larger limit and
 * require a Content-Length; every other route and /graphql take at most JSON_BODY_LIMIT. What the
 * client still sends after the answer is drained by @hono/node-server for at most half a second
 * (and 64 MB), then the connection is closed: memory never holds more than the limit.
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../errors.ts";
import { problemResponse } from "./problem.ts";

/** Every JSON body (REST and GraphQL over HTTP), and one WebSocket message. */
export const JSON_BODY_LIMIT = 4 * 1024 * 1024;

/** Routes that take a raw upload and check its size themselves (path pattern, method). */
const UPLOAD_ROUTES: { method: string; path: RegExp }[] = [
  { method: "POST", path: /^\/api\/manga\/\d+\/translations\/upload$/ },
];

export function isUploadRoute(method: string, path: string): boolean {
  return UPLOAD_ROUTES.some((r) => r.method === method && r.path.test(path));
}

function tooLarge(limit: number): Response {
  return problemResponse(
    new AppError("payload_too_large", `the request body is larger than ${limit} bytes`, { limit_bytes: limit }),
  );
}

/** JSON_BODY_LIMIT for every request except the uploads. */
export function limitBodies(limit = JSON_BODY_LIMIT): MiddlewareHandler {
  const limited = bodyLimit({ maxSize: limit, onError: () => tooLarge(limit) });
  return async (c, next) => {
    // A GET or HEAD request reaches the app without a body; asking for it would only build a full
    // Request object for every read.
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || isUploadRoute(method, c.req.path)) return next();
    return limited(c, next);
  };
}
