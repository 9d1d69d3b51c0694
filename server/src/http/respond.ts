import type { Context } from "hono";

/**
 * A JSON answer sent as its UTF-8 bytes. For large answers (the units of a long series are
 * hundreds of KB): `c.json` hands the server a string, which is scanned once for its byte length
 * and joined to the headers before it is encoded; the bytes are encoded once and written as they
 * are (docs/benchmarks.md, "Units endpoint").
 */
export function jsonBytes(c: Context, value: unknown, status: 200 | 201 = 200): Response {
  return c.body(Buffer.from(JSON.stringify(value)), status, { "content-type": "application/json" });
}
