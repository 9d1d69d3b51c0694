/**
 * The client of an external translation processor, protocol v1 (docs/rules.md,
 * "External processor"; docs/api.md, "Reference processor"). Every call is one HTTP request with a timeout.
 * Connection errors, timeouts and 5xx are transient (the worker retries with the same id); other 4xx are
 * permanent, except 404 on GET /jobs/{id}, which means "submit needed" (status() answers null).
 *
 * The bearer token travels only in the Authorization header and the AI key only in the submit body;
 * neither is ever part of a URL, an error message or a log line (messages name the method, the path
 * below the processor URL and the status, never the URL itself, which could carry user info).
 */
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rm, stat } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { AppError } from "../../errors.ts";

export interface ProcessorConfig {
  /** The processor's base URL, e.g. http://127.0.0.1:8095 (a path prefix is kept). */
  url: string;
  token: string | null;
  /** Per request (upload and result: per idle period of the socket). */
  timeoutMs?: number;
  /** Largest result ZIP accepted. */
  maxResultBytes?: number;
}

export interface ProcessorStatus {
  id: string;
  status: "queued" | "running" | "completed" | "failed" | "cancelling" | "cancelled";
  progress: { pagesDone: number; pagesTotal: number } | null;
  error: { code: string; message: string } | null;
}

export interface SubmitBody {
  source_sha256: string;
  source_language: string;
  target_language: string;
  ai: { base_url: string; model: string; api_key: string };
}

const ERROR_CODES = { transient: { code: "processor_unavailable" }, permanent: { code: "processor_refused" } } as const;

/** A processor call that failed: `transient` ones are retried with the same id. */
export class ProcessorError extends AppError {
  constructor(
    readonly transient: boolean,
    detail: string,
    readonly httpStatus: number | null = null,
    /** The processor's own `code` (e.g. cancelled, request_changed, source_missing). */
    readonly processorCode: string | null = null,
  ) {
    super(transient ? ERROR_CODES.transient.code : ERROR_CODES.permanent.code, detail, { processorCode, httpStatus });
  }
}

const STATUSES = new Set(["queued", "running", "completed", "failed", "cancelling", "cancelled"]);
const ID = /^[0-9a-f]{32}-(0|[1-9][0-9]{0,8})$/;
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESULT_BYTES = 2 * 1024 * 1024 * 1024;

interface Sent {
  method: string;
  sub: string;
  headers?: Record<string, string>;
  body?: Buffer | { file: string; size: number };
}

function parseStatus(id: string, json: unknown): ProcessorStatus {
  const o = (json ?? {}) as Record<string, unknown>;
  const status = String(o.status ?? "");
  if (!STATUSES.has(status)) throw new ProcessorError(true, `processor answered an unknown status for ${id}`);
  const p = o.progress as { pages_done?: unknown; pages_total?: unknown } | null | undefined;
  const e = o.error as { code?: unknown; message?: unknown } | null | undefined;
  const progress =
    p && Number.isInteger(p.pages_done) && Number.isInteger(p.pages_total)
      ? { pagesDone: p.pages_done as number, pagesTotal: p.pages_total as number }
      : null;
  return {
    id,
    status: status as ProcessorStatus["status"],
    progress,
    error: e ? { code: String(e.code ?? "processor_failed"), message: String(e.message ?? "") } : null,
  };
}

export function processorClient(cfg: ProcessorConfig) {
  const base = new URL(cfg.url.endsWith("/") ? cfg.url : `${cfg.url}/`);
  const timeoutMs = cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResultBytes = cfg.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const transport = base.protocol === "https:" ? https : http;

  const checkId = (id: string) => {
    if (!ID.test(id)) throw new AppError("invalid_field", "malformed processor job id", { field: "id" });
  };

  /** One request; resolves with the response (body not read yet) or rejects with a transient error. */
  function send(s: Sent): Promise<http.IncomingMessage> {
    const url = new URL(`jobs/${s.sub}`, base);
    const what = `${s.method} /jobs/${s.sub}`;
    const headers: Record<string, string> = { accept: "application/json, application/zip", ...s.headers };
    if (cfg.token) headers.authorization = `Bearer ${cfg.token}`;
    if (s.body) headers["content-length"] = String(Buffer.isBuffer(s.body) ? s.body.length : s.body.size);
    return new Promise((resolve, reject) => {
      const req = transport.request(url, { method: s.method, headers, timeout: timeoutMs }, resolve);
      req.on("timeout", () => req.destroy(new ProcessorError(true, `${what}: no answer within ${timeoutMs} ms`)));
      req.on("error", (e: NodeJS.ErrnoException) =>
        reject(e instanceof ProcessorError ? e : new ProcessorError(true, `${what}: ${e.code ?? "connection failed"}`)),
      );
      if (!s.body) req.end();
      else if (Buffer.isBuffer(s.body)) req.end(s.body);
      else pipeline(createReadStream(s.body.file), req).catch((e: NodeJS.ErrnoException) => req.destroy(e));
    });
  }

  async function readJson(res: http.IncomingMessage, what: string): Promise<unknown> {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const c of res as AsyncIterable<Buffer>) {
        size += c.length;
        if (size > 1024 * 1024) throw new ProcessorError(true, `${what}: answer too large`);
        chunks.push(c);
      }
    } catch (e) {
      throw e instanceof ProcessorError
        ? e
        : new ProcessorError(true, `${what}: connection lost while reading the answer`);
    }
    const text = Buffer.concat(chunks).toString("utf8");
    try {
      return text ? JSON.parse(text) : null;
    } catch {
      return null;
    }
  }

  /** Throws the classified error of a non-2xx answer. */
  async function fail(res: http.IncomingMessage, what: string): Promise<never> {
    const json = (await readJson(res, what).catch(() => null)) as { code?: unknown; message?: unknown } | null;
    const status = res.statusCode ?? 0;
    const code = typeof json?.code === "string" ? json.code.slice(0, 64) : null;
    throw new ProcessorError(
      status >= 500 || status === 408 || status === 429,
      `${what}: processor answered ${status}${code ? ` (${code})` : ""}`,
      status,
      code,
    );
  }

  return {
    /** GET /jobs/{id}: the status, or null when the processor needs a submit (404). */
    async status(id: string): Promise<ProcessorStatus | null> {
      checkId(id);
      const what = `GET /jobs/${id}`;
      const res = await send({ method: "GET", sub: id });
      if (res.statusCode === 404) {
        res.resume();
        return null;
      }
      if (res.statusCode !== 200) return fail(res, what);
      return parseStatus(id, await readJson(res, what));
    },

    /** PUT /jobs/{id}/source: streams the archive with its Content-Length as application/zip. */
    async uploadSource(id: string, file: string): Promise<void> {
      checkId(id);
      const what = `PUT /jobs/${id}/source`;
      const size = (await stat(file)).size;
      const res = await send({
        method: "PUT",
        sub: `${id}/source`,
        headers: { "content-type": "application/zip" },
        body: { file, size },
      });
      if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return fail(res, what);
      await readJson(res, what);
    },

    /** POST /jobs/{id}: the request (the AI key only in this body); answers the current status. */
    async submit(id: string, body: SubmitBody): Promise<ProcessorStatus> {
      checkId(id);
      const what = `POST /jobs/${id}`;
      const res = await send({
        method: "POST",
        sub: id,
        headers: { "content-type": "application/json" },
        body: Buffer.from(JSON.stringify(body), "utf8"),
      });
      if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return fail(res, what);
      return parseStatus(id, await readJson(res, what));
    },

    /** GET /jobs/{id}/result into `dest` (created; removed again on any failure), at most maxResultBytes. */
    async result(id: string, dest: string): Promise<string> {
      checkId(id);
      const what = `GET /jobs/${id}/result`;
      const res = await send({ method: "GET", sub: `${id}/result` });
      if (res.statusCode !== 200) return fail(res, what);
      const declared = Number(res.headers["content-length"] ?? NaN);
      if (Number.isFinite(declared) && declared > maxResultBytes) {
        res.destroy();
        throw new ProcessorError(
          false,
          `${what}: result of ${declared} bytes exceeds the limit of ${maxResultBytes}`,
          200,
          "result_too_large",
        );
      }
      await mkdir(path.dirname(dest), { recursive: true });
      let size = 0;
      try {
        await pipeline(
          res,
          async function* (source: AsyncIterable<Buffer>) {
            for await (const c of source) {
              size += c.length;
              if (size > maxResultBytes)
                throw new ProcessorError(
                  false,
                  `${what}: result exceeds the limit of ${maxResultBytes} bytes`,
                  200,
                  "result_too_large",
                );
              yield c;
            }
          },
          createWriteStream(dest, { flags: "wx" }),
        );
        if (Number.isFinite(declared) && size !== declared)
          throw new ProcessorError(true, `${what}: result ended after ${size} of ${declared} bytes`);
      } catch (e) {
        await rm(dest, { force: true });
        throw e instanceof ProcessorError
          ? e
          : new ProcessorError(true, `${what}: connection lost while reading the result`);
      }
      return dest;
    },

    /**
     * DELETE /jobs/{id}: resolves once the processor acknowledged (202 or any 2xx), with `cancelling`
     * when its status body says the job is still stopping, `cancelled` otherwise (also without a body).
     */
    async cancel(id: string): Promise<"cancelling" | "cancelled"> {
      checkId(id);
      const what = `DELETE /jobs/${id}`;
      const res = await send({ method: "DELETE", sub: id });
      if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return fail(res, what);
      const body: unknown = await readJson(res, what).catch(() => null);
      return (body as { status?: unknown } | null)?.status === "cancelling" ? "cancelling" : "cancelled";
    },
  };
}

export type ProcessorClient = ReturnType<typeof processorClient>;
