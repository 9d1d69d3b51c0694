/** What the reader apps' transports share: their authentication hook, file and page responses. */
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import type { Context, Hono, Next } from "hono";
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
      // KOReader reads a JSON message; every other client waits for the Basic challenge.
      if (c.req.path.startsWith("/koreader/"))
        return c.json({ message: "Unauthorized" }, 401, { "www-authenticate": BASIC_REALM });
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

/** The file's bytes as they are on disk (streamed, never read whole). */
export function sendFile(c: Context, d: { file: ReaderFileRow; absPath: string; size: number; mtime: Date }): Response {
  const stream = Readable.toWeb(createReadStream(d.absPath)) as ReadableStream<Uint8Array>;
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": fileMediaType(d.file),
      "content-length": String(d.size),
      "content-disposition": contentDisposition(fileName(d.file)),
      "last-modified": d.mtime.toUTCString(),
      "cache-control": "private, no-cache",
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
