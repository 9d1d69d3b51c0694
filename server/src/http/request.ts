/** Reading REST requests: the JSON body and the `dry_run` query parameter, shared by every route file. */
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context, MiddlewareHandler } from "hono";
import { asId, refuseUnsafeString, refuseUnsafeText } from "../services/input.ts";
import { AppError } from "../errors.ts";

/** `application/json`, or a `+json` type, with any parameters (`; charset=utf-8`). */
export function isJsonType(contentType: string | null | undefined): boolean {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || /^application\/[\w.-]+\+json$/.test(type);
}

/**
 * The request body as JSON; an empty body reads as `{}`. A body in another content type is 415
 * `unsupported_media_type` (a form post from another site is never read as JSON); its size is
 * bounded by the body limit (http/body-limits.ts) before it gets here. Every string in it must be
 * well-formed text (services/input.ts refuseUnsafeText).
 */
export async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  if (!isJsonType(c.req.header("content-type"))) {
    throw new AppError("unsupported_media_type", "send the body as application/json", {
      content_type: c.req.header("content-type")?.slice(0, 100) ?? null,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new AppError("bad_request", "the body is not valid JSON");
  }
  refuseUnsafeText(value);
  return value;
}

/** Query parameters are text too: a lone surrogate or a control character in one is 400 `invalid_field`. */
export function refuseUnsafeQuery(): MiddlewareHandler {
  return async (c, next) => {
    for (const [key, values] of Object.entries(c.req.queries())) {
      for (const v of [key, ...values]) refuseUnsafeString(v, key);
    }
    await next();
  };
}

/** A yes/no query parameter: absent, `false` or `0` is false; `true`, `1` or empty is true; anything else is refused. */
export function queryFlag(c: Context, name: string): boolean {
  const v = c.req.query(name);
  if (v === undefined || v === "false" || v === "0") return false;
  if (v === "true" || v === "1" || v === "") return true;
  throw new AppError("bad_request", `${name} must be true or false`);
}

/** `?dry_run` (queryFlag). */
export const dryRun = (c: Context): boolean => queryFlag(c, "dry_run");

/** The positive integer id in a path parameter (`/api/manga/:id/…`), or 400. */
export function pathId(c: Context, name = "id"): number {
  return asId(c.req.param(name), name);
}

/** The caller's address (the socket's peer), or null when the transport does not say. */
export function remoteAddress(c: Context): string | null {
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null;
  }
}
