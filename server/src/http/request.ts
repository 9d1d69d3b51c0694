/** Reading REST requests: the JSON body and the `dry_run` query parameter, shared by every route file. */
import type { Context } from "hono";
import { asId } from "../services/input.ts";
import { AppError } from "../errors.ts";

const MAX_JSON_BYTES = 4 * 1024 * 1024;

/** The request body as JSON; an empty body reads as `{}`. */
export async function jsonBody(c: Context): Promise<unknown> {
  const length = Number(c.req.header("content-length") ?? 0);
  if (length > MAX_JSON_BYTES) throw new AppError("bad_request", "the JSON body is too large");
  const text = await c.req.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError("bad_request", "the body is not valid JSON");
  }
}

/** `?dry_run`: absent, `false` or `0` is false; `true`, `1` or empty is true; anything else is refused. */
export function dryRun(c: Context): boolean {
  const v = c.req.query("dry_run");
  if (v === undefined || v === "false" || v === "0") return false;
  if (v === "true" || v === "1" || v === "") return true;
  throw new AppError("bad_request", "dry_run must be true or false");
}

/** The positive integer id in a path parameter (`/api/manga/:id/…`), or 400. */
export function pathId(c: Context, name = "id"): number {
  return asId(c.req.param(name), name);
}
