/** What the reader apps' transports share: their authentication hook, file and page responses. */
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import type { Context, Hono, Next } from "hono";
import parseRange from "range-parser";
import { unsafeText } from "../../domain/safe-text.ts";
import { AppError } from "../../errors.ts";
import type { PageBytes } from "../../services/series/file-pages-service.ts";
import { fileMediaType, fileName, type ReaderFileRow } from "../../services/reading/reader-apps.ts";
import { BASIC_REALM, type ReaderAuth } from "../reader-auth.ts";
import { problemResponse } from "../problem.ts";
import { refuseUnsafeQuery, remoteAddress } from "../request.ts";

/** Path prefixes of the reader apps' APIs (served by the API router, never by the web client). */
export const READER_PREFIXES = ["/opds", "/koreader", "/komga"] as const;

export function isReaderAppPath(url: string): boolean {
  return READER_PREFIXES.some((p) => url === p || url.startsWith(`${p}/`) || url.startsWith(`${p}?`));
}

const users = new WeakMap<Request, string>();

/** A device name or id as an app sent it (KOReader, OPDS 2): bounded single-line text, or null. */
export const deviceText = (v: unknown): string | null =>
  typeof v === "string" && v.length > 0 && v.length <= 200 && unsafeText(v) === null ? v : null;

/** The reading user the reader-auth hook found for this request. */
export function readerUser(c: Context): string {
  const u = users.get(c.req.raw);
  if (!u) throw new AppError("unauthenticated");
  return u;
}

/** A 401 that reader apps understand: problem+json with `WWW-Authenticate: Basic`. */
export function challenge(
  detail = "send HTTP Basic credentials (admin and the web password, or the API key as password)",
): Response {
  const res = problemResponse(new AppError("unauthenticated", detail));
  res.headers.set("www-authenticate", BASIC_REALM);
  return res;
}

/** Authenticates every request under the reader apps' prefixes (the KOReader paths answer in KOReader's own way). */
export function installReaderAuth(app: Hono, auth: ReaderAuth): void {
  const hook = async (c: Context, next: Next) => {
    const user = await auth.authenticate({ get: (n: string) => c.req.header(n) }, remoteAddress(c));
    if (!user) {
      // KOReader shows the sync server's JSON message (code 2001); every other client waits for the Basic challenge.
      if (c.req.path.startsWith("/koreader/"))
        return c.body(JSON.stringify({ code: 2001, message: "Unauthorized" }), 401, {
          "content-type": "application/vnd.koreader.v1+json; charset=utf-8",
          "www-authenticate": BASIC_REALM,
        });
      return challenge();
    }
    users.set(c.req.raw, user);
    await next();
  };
  // Query parameters (searches, paging) are text like everywhere else: well-formed, no control characters.
  for (const p of ["/opds/*", "/komga/*", "/koreader/*"]) app.use(p, hook, refuseUnsafeQuery());
}

function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * The file's bytes as they are on disk (streamed, never read whole). One byte range (`Range:
 * bytes=…`) is answered 206 with that part, so readers resume a broken download; several ranges,
 * a malformed header or an `If-Range` that no longer matches get the whole file (as HTTP allows),
 * a range past the end is 416 `range_not_satisfiable`.
 */
export function sendFile(c: Context, d: { file: ReaderFileRow; absPath: string; size: number; mtime: Date }): Response {
  const lastModified = d.mtime.toUTCString();
  const headers: Record<string, string> = {
    "content-type": fileMediaType(d.file),
    "content-disposition": contentDisposition(fileName(d.file)),
    "last-modified": lastModified,
    "accept-ranges": "bytes",
    "cache-control": "private, no-cache",
  };
  const range = c.req.header("range");
  const ifRange = c.req.header("if-range");
  const parsed = range && (!ifRange || ifRange === lastModified) ? parseRange(d.size, range) : -2;
  if (parsed === -1) {
    const res = problemResponse(
      new AppError("range_not_satisfiable", `the file holds ${d.size} bytes: no byte of ${range} is in it`),
    );
    res.headers.set("content-range", `bytes */${d.size}`);
    return res;
  }
  const part = parsed !== -2 && parsed.type === "bytes" && parsed.length === 1 ? parsed[0]! : null;
  const stream = Readable.toWeb(
    createReadStream(d.absPath, part ? { start: part.start, end: part.end } : {}),
  ) as ReadableStream<Uint8Array>;
  if (!part) return new Response(stream, { status: 200, headers: { ...headers, "content-length": String(d.size) } });
  return new Response(stream, {
    status: 206,
    headers: {
      ...headers,
      "content-length": String(part.end - part.start + 1),
      "content-range": `bytes ${part.start}-${part.end}/${d.size}`,
    },
  });
}

export function sendPage(c: Context, p: PageBytes): Response {
  if (p.notModified) return c.body(null, 304, { etag: p.etag, "cache-control": "private, max-age=3600" });
  const headers: Record<string, string> = {
    "content-type": p.contentType,
    "content-length": String(p.data.length),
    "cache-control": p.etag ? "private, max-age=3600" : "no-store",
    "x-content-type-options": "nosniff",
  };
  if (p.etag) headers.etag = p.etag;
  return c.body(new Uint8Array(p.data.buffer as ArrayBuffer, p.data.byteOffset, p.data.length), 200, headers);
}

export function sendThumbnail(
  c: Context,
  t:
    | { notModified: true; etag: string }
    | { notModified: false; etag: string | null; data: Buffer; contentType: string },
): Response {
  if (t.notModified) return c.body(null, 304, { etag: t.etag, "cache-control": "private, no-cache" });
  const headers: Record<string, string> = {
    "content-type": t.contentType,
    "cache-control": t.etag ? "private, no-cache" : "no-store",
  };
  if (t.etag) headers.etag = t.etag;
  return c.body(new Uint8Array(t.data), 200, headers);
}
