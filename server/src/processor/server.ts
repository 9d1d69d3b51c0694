/**
 * The processor's HTTP server (protocol v1, node:http): five routes under /jobs/{id}, bearer-token
 * auth, problem+json errors with a stable `code` (the service's client reads `code`).
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { pipeline } from "node:stream/promises";
import { JOB_ID_RE } from "../domain/translation-jobs.ts";
import { ProtocolError, type JobManager } from "./jobs.ts";

const MAX_JSON_BYTES = 64 * 1024;

function sendJson(res: ServerResponse, status: number, json: unknown, problem = false): void {
  const text = JSON.stringify(json);
  res.writeHead(status, {
    "content-type": problem ? "application/problem+json" : "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  res.end(text);
}

function sendProblem(res: ServerResponse, e: ProtocolError): void {
  sendJson(
    res,
    e.status,
    { type: "about:blank", title: e.message, status: e.status, code: e.code, message: e.message },
    true,
  );
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_JSON_BYTES) throw new ProtocolError(413, "body_too_large", "the request body is too large");
    chunks.push(c);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new ProtocolError(400, "invalid_body", "a JSON body is expected");
  }
}

/** The media type of a Content-Type header, without parameters, lower case ("" when absent). */
function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

function authorised(req: IncomingMessage, token: string | null): boolean {
  if (!token) return true;
  // The scheme is case-insensitive (RFC 9110 §11.1); the token itself is compared exactly.
  const m = /^bearer (.*)$/is.exec(req.headers.authorization ?? "");
  const got = Buffer.from(m?.[1] ?? "", "utf8");
  const want = Buffer.from(token, "utf8");
  return m !== null && got.length === want.length && timingSafeEqual(got, want);
}

/** The id segment of a job path, percent-decoded; an undecodable one is a malformed id. */
function decodeId(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ProtocolError(400, "invalid_id", "malformed job id");
  }
}

async function route(jobs: JobManager, token: string | null, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!authorised(req, token)) throw new ProtocolError(401, "unauthorized", "a valid bearer token is required");
  const url = new URL(req.url ?? "/", "http://processor");
  const m = /^\/jobs\/([^/]+)(\/source|\/result)?$/.exec(url.pathname);
  if (!m) throw new ProtocolError(404, "not_found", "no such path");
  const id = decodeId(m[1] ?? "");
  const sub = m[2] ?? "";
  if (!JOB_ID_RE.test(id)) throw new ProtocolError(400, "invalid_id", "malformed job id");
  const method = req.method ?? "GET";

  if (sub === "" && method === "GET") {
    const st = jobs.status(id);
    if (!st) throw new ProtocolError(404, "not_found", "submission needed");
    return sendJson(res, 200, st);
  }
  if (sub === "" && method === "POST") {
    // A submit is JSON: anything else is refused before its body is read, and nothing is submitted.
    if (mediaType(req.headers["content-type"]) !== "application/json")
      throw new ProtocolError(415, "unsupported_media_type", "a submit must be application/json");
    return sendJson(res, 202, await jobs.submit(id, await readJson(req)));
  }
  if (sub === "" && method === "DELETE") {
    req.resume();
    return sendJson(res, 202, await jobs.cancel(id));
  }
  if (sub === "/source" && method === "PUT") {
    const ack = await jobs.upload(id, req, {
      length: req.headers["content-length"],
      type: req.headers["content-type"],
    });
    return sendJson(res, 200, ack);
  }
  if (sub === "/result" && method === "GET") {
    const file = await jobs.resultFile(id);
    const { size } = await stat(file);
    res.writeHead(200, { "content-type": "application/zip", "content-length": size, "cache-control": "no-store" });
    await pipeline(createReadStream(file), res);
    return;
  }
  throw new ProtocolError(405, "method_not_allowed", `${method} is not allowed here`);
}

/** The HTTP server over a job manager; `token` null means no auth (loopback only, checked by main). */
export function createProcessorServer(
  jobs: JobManager,
  token: string | null,
  log: (line: string) => void = () => undefined,
): Server {
  return createServer((req, res) => {
    route(jobs, token, req, res).catch((e: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // A refusal before the body was read: drain it, then answer (the client gets the status).
      if (!req.complete) req.resume();
      if (e instanceof ProtocolError) return sendProblem(res, e);
      log(`internal error on ${req.method} ${(req.url ?? "").split("?")[0]}: ${(e as Error).message}`);
      sendProblem(res, new ProtocolError(500, "internal", "internal processor error"));
    });
  });
}
