/**
 * A translation processor speaking protocol v1 (docs/rules.md, "External processor"; docs/api.md,
 * "Reference processor") on 127.0.0.1, with fault injection. Its "work" asks the chat server named in the job's
 * `ai` once per page, then answers a result ZIP holding the source pages (same names, same order,
 * same geometry) and `translation.json`. It records every request so tests can assert what the
 * service sent; the AI key it receives is kept apart (`aiKeysSeen`) and never in the log.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import sharp from "sharp";
import unzipper from "unzipper";
import { ZipFile } from "yazl";

const ID = /^[0-9a-f]{32}-(0|[1-9][0-9]{0,8})$/;
const IMAGE = /\.(jpe?g|png|gif|webp|avif)$/i;

export type BadReceipt =
  | "wrong_sha"
  | "wrong_languages"
  | "page_count"
  | "translated_zero"
  | "untranslated"
  | "unconfirmed"
  | "detected_language"
  | "missing_model"
  | "extra_entry"
  | "geometry"
  | "missing_page_count";
export const BAD_RECEIPTS: readonly BadReceipt[] = [
  "wrong_sha",
  "wrong_languages",
  "page_count",
  "translated_zero",
  "untranslated",
  "unconfirmed",
  "detected_language",
  "missing_model",
  "extra_entry",
  "geometry",
  "missing_page_count",
];

/**
 * Valid receipts protocol v1 allows in other shapes: without the optional unconfirmed_regions
 * list, with it null, or with extra fields (a processor's own evidence and notes).
 */
export type ReceiptShape = "without_unconfirmed" | "null_unconfirmed" | "extra_fields";
export const RECEIPT_SHAPES: readonly ReceiptShape[] = ["without_unconfirmed", "null_unconfirmed", "extra_fields"];

export interface ProcessorRequestRecord {
  method: string;
  /** Path and query exactly as received. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  bodyBytes: number;
  /** The JSON body with `ai.api_key` replaced by "<redacted>" (POST only). */
  json: unknown;
  status: number | "dropped";
  at: number;
}

export interface ProcessorFaults {
  /** Drop the connection of the next n source uploads (after part of the body arrived). */
  dropUpload: number;
  /** Drop the connection of the next n submits (the submit is not recorded). */
  dropSubmit: number;
  /** Drop the connection of the next n DELETEs (the cancellation is not remembered). */
  dropDelete: number;
  /** Milliseconds of pretend work per page. */
  pageMs: number;
  /** Every job ends failed with this error. */
  fail: { code: string; message: string } | null;
  /** The receipt (or result) of every completed job is spoiled this way. */
  badReceipt: BadReceipt | null;
  /** The receipt of every completed job takes this valid shape. */
  receiptShape: ReceiptShape | null;
  /** Status answers of these ids are held this long (a late answer). */
  delayStatusMs: Map<string, number>;
  /**
   * A DELETE of a queued or running job answers `cancelling` and the job stays so this long before
   * it is `cancelled` (the reference processor's engine stops between pages); 0: cancelled at once.
   */
  cancelMs: number;
}

interface FakeJob {
  id: string;
  status: "queued" | "running" | "completed" | "failed" | "cancelling" | "cancelled";
  identity: string;
  sourceSha: string;
  sourceLanguage: string;
  targetLanguage: string;
  model: string;
  pagesDone: number;
  pagesTotal: number;
  error: { code: string; message: string } | null;
  result: Buffer | null;
  timer: NodeJS.Timeout | null;
}

export interface FakeProcessor {
  url: string;
  requests: ProcessorRequestRecord[];
  faults: ProcessorFaults;
  jobs: Map<string, FakeJob>;
  sources: Map<string, Buffer>;
  cancelled: Set<string>;
  /** AI keys received in POST bodies (only there). */
  aiKeysSeen: string[];
  /** Jobs submitted and not yet terminal-and-fetched, most seen at once. */
  maxOutstanding: number;
  /** Makes a job completed now (a late result, e.g. of a failed or cancelled attempt). */
  completeNow(id: string): Promise<void>;
  close(): Promise<void>;
}

export interface FakeProcessorOptions {
  token?: string;
  maxSourceBytes?: number;
  faults?: Partial<ProcessorFaults>;
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | "too_large"> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > limit) return "too_large";
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

async function zipOf(entries: { name: string; data: Buffer }[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const e of entries) zip.addBuffer(e.data, e.name, { compress: false, mtime: new Date(Date.UTC(2024, 0, 1)) });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

async function sourcePages(source: Buffer): Promise<{ name: string; data: Buffer }[]> {
  const dir = await unzipper.Open.buffer(source);
  const files = dir.files.filter((f) => f.type === "File" && IMAGE.test(f.path) && !f.path.includes("/"));
  files.sort((a, b) => a.path.localeCompare(b.path, "en", { numeric: true }));
  return Promise.all(files.map(async (f) => ({ name: f.path, data: await f.buffer() })));
}

async function buildResult(
  job: FakeJob,
  source: Buffer,
  bad: BadReceipt | null,
  shape: ReceiptShape | null = null,
): Promise<Buffer> {
  const pages = await sourcePages(source);
  if (bad === "geometry" && pages[0]) {
    const meta = await sharp(pages[0].data).metadata();
    pages[0] = {
      name: pages[0].name,
      data: await sharp(pages[0].data)
        .resize((meta.width ?? 100) + 8, meta.height ?? 100, { fit: "fill" })
        .jpeg()
        .toBuffer(),
    };
  }
  const receipt: Record<string, unknown> = {
    source_sha256: bad === "wrong_sha" ? "0".repeat(64) : job.sourceSha,
    source_language: job.sourceLanguage,
    target_language: bad === "wrong_languages" ? "de" : job.targetLanguage,
    page_count: bad === "page_count" ? pages.length + 1 : pages.length,
    translated_regions: bad === "translated_zero" ? 0 : pages.length * 3,
    untranslated_regions: bad === "untranslated" ? 2 : 0,
    unconfirmed_regions: bad === "unconfirmed" ? [{ page: 1, region: 2, reason: "language not confirmed" }] : [],
    detected_source_language: job.sourceLanguage,
    detected_target_language: bad === "detected_language" ? "fr" : job.targetLanguage,
    model: job.model,
  };
  if (bad === "missing_model") delete receipt.model;
  if (bad === "missing_page_count") delete receipt.page_count;
  if (shape === "without_unconfirmed") delete receipt.unconfirmed_regions;
  if (shape === "null_unconfirmed") receipt.unconfirmed_regions = null;
  if (shape === "extra_fields")
    Object.assign(receipt, {
      evidence: { target: { judgement: { verdict: "confirmed", language: job.targetLanguage } } },
      processor_version: "9.9",
      notes: ["lettered with a test font"],
    });
  const entries = [...pages, { name: "translation.json", data: Buffer.from(JSON.stringify(receipt, null, 2)) }];
  if (bad === "extra_entry") entries.push({ name: "notes.txt", data: Buffer.from("debug output") });
  return zipOf(entries);
}

export async function startFakeProcessor(options: FakeProcessorOptions = {}): Promise<FakeProcessor> {
  const faults: ProcessorFaults = {
    dropUpload: 0,
    dropSubmit: 0,
    dropDelete: 0,
    pageMs: 20,
    fail: null,
    badReceipt: null,
    receiptShape: null,
    delayStatusMs: new Map(),
    cancelMs: 0,
    ...options.faults,
  };
  const maxSourceBytes = options.maxSourceBytes ?? 64 * 1024 * 1024;
  const requests: ProcessorRequestRecord[] = [];
  const jobs = new Map<string, FakeJob>();
  const sources = new Map<string, Buffer>();
  const cancelled = new Set<string>();
  const fetched = new Set<string>();
  const aiKeysSeen: string[] = [];
  const state = { maxOutstanding: 0 };

  // A job is outstanding until it is terminal (cancelling is not) and, when completed, its result fetched.
  const outstanding = () =>
    [...jobs.values()].filter(
      (j) =>
        j.status === "cancelling" ||
        (!cancelled.has(j.id) && !(j.status === "failed" || (j.status === "completed" && fetched.has(j.id)))),
    ).length;
  const noteOutstanding = () => (state.maxOutstanding = Math.max(state.maxOutstanding, outstanding()));

  const statusBody = (j: FakeJob) => ({
    id: j.id,
    status: j.status,
    progress: j.pagesTotal > 0 ? { pages_done: j.pagesDone, pages_total: j.pagesTotal } : null,
    error: j.error,
  });

  async function complete(job: FakeJob): Promise<void> {
    const src = sources.get(job.id);
    if (!src || job.status === "cancelled") return;
    job.result = await buildResult(job, src, faults.badReceipt, faults.receiptShape);
    job.pagesDone = job.pagesTotal;
    job.status = "completed";
  }

  function work(job: FakeJob, ai: { base_url: string; model: string; api_key: string }): void {
    const step = () => {
      job.timer = null;
      if (job.status !== "queued" && job.status !== "running") return;
      job.status = "running";
      if (faults.fail) {
        job.status = "failed";
        job.error = { ...faults.fail };
        return;
      }
      if (job.pagesDone >= job.pagesTotal) {
        void complete(job);
        return;
      }
      // Pretend work: one chat call per page; the key travels in the provider's header only.
      fetch(`${ai.base_url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${ai.api_key}` },
        body: JSON.stringify({
          model: ai.model,
          messages: [{ role: "user", content: `page ${job.pagesDone + 1} text` }],
        }),
      })
        .then(async (r) => {
          if (!r.ok) throw new Error(`provider ${r.status}`);
          await r.json();
          job.pagesDone += 1;
        })
        .catch((e: unknown) => {
          job.status = "failed";
          job.error = { code: "provider_error", message: (e as Error).message };
        })
        .finally(() => {
          if (job.status === "running") job.timer = setTimeout(step, faults.pageMs);
        });
    };
    job.timer = setTimeout(step, faults.pageMs);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, rec: ProcessorRequestRecord): Promise<void> {
    const send = (status: number, json: unknown) => {
      rec.status = status;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(json));
    };
    const drop = () => {
      rec.status = "dropped";
      req.socket.destroy();
    };
    const url = new URL(req.url ?? "/", "http://x");
    const m = /^\/jobs\/([^/]+)(\/source|\/result)?$/.exec(url.pathname);
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`)
      return send(401, { code: "unauthorized", message: "bearer token required" });
    if (!m) return send(404, { code: "not_found", message: "no such path" });
    const id = m[1] ?? "";
    const sub = m[2] ?? "";
    if (!ID.test(id)) return send(400, { code: "invalid_id", message: "malformed job id" });
    const job = jobs.get(id);

    if (req.method === "PUT" && sub === "/source") {
      if (cancelled.has(id)) return send(409, { code: "cancelled", message: "job was cancelled" });
      if (req.headers["content-length"] === undefined)
        return send(411, { code: "length_required", message: "Content-Length required" });
      if ((req.headers["content-type"] ?? "").split(";")[0]?.trim() !== "application/zip")
        return send(415, { code: "unsupported_media_type", message: "application/zip required" });
      if (Number(req.headers["content-length"]) > maxSourceBytes)
        return send(413, { code: "too_large", message: "source too large" });
      if (faults.dropUpload > 0) {
        faults.dropUpload -= 1;
        // Take part of the body, then cut the connection.
        await new Promise<void>((resolve) => req.once("data", () => resolve()));
        return drop();
      }
      const body = await readBody(req, maxSourceBytes);
      if (body === "too_large") return send(413, { code: "too_large", message: "source too large" });
      rec.bodyBytes = body.length;
      sources.set(id, body);
      return send(200, { id, source_sha256: createHash("sha256").update(body).digest("hex"), size: body.length });
    }
    if (req.method === "POST" && sub === "") {
      const raw = await readBody(req, 1024 * 1024);
      const text = raw === "too_large" ? "" : raw.toString("utf8");
      rec.bodyBytes = raw === "too_large" ? 0 : raw.length;
      let b: {
        source_sha256?: string;
        source_language?: string;
        target_language?: string;
        ai?: { base_url?: string; model?: string; api_key?: string };
      };
      try {
        b = JSON.parse(text) as typeof b;
      } catch {
        return send(400, { code: "invalid_body", message: "JSON expected" });
      }
      rec.json = { ...b, ai: b.ai ? { ...b.ai, api_key: "<redacted>" } : undefined };
      if (faults.dropSubmit > 0) {
        faults.dropSubmit -= 1;
        return drop();
      }
      if (cancelled.has(id))
        return send(409, { code: "cancelled", message: "job was cancelled; use the next retry number" });
      const src = sources.get(id);
      if (!src) return send(409, { code: "source_missing", message: "upload the source first" });
      if (
        !b.source_sha256 ||
        !b.source_language ||
        !b.target_language ||
        !b.ai?.base_url ||
        !b.ai.model ||
        !b.ai.api_key
      )
        return send(400, { code: "invalid_body", message: "missing fields" });
      aiKeysSeen.push(b.ai.api_key);
      const identity = JSON.stringify([
        b.source_sha256,
        b.source_language,
        b.target_language,
        b.ai.base_url,
        b.ai.model,
      ]);
      if (job)
        return job.identity === identity
          ? send(202, statusBody(job))
          : send(409, { code: "request_changed", message: "another request was submitted under this id" });
      if (createHash("sha256").update(src).digest("hex") !== b.source_sha256)
        return send(409, { code: "source_mismatch", message: "source_sha256 differs from the uploaded source" });
      const pagesTotal = (await sourcePages(src)).length;
      const created: FakeJob = {
        id,
        status: "queued",
        identity,
        sourceSha: b.source_sha256,
        sourceLanguage: b.source_language,
        targetLanguage: b.target_language,
        model: b.ai.model,
        pagesDone: 0,
        pagesTotal,
        error: null,
        result: null,
        timer: null,
      };
      jobs.set(id, created);
      noteOutstanding();
      work(created, { base_url: b.ai.base_url, model: b.ai.model, api_key: b.ai.api_key });
      return send(202, statusBody(created));
    }
    if (req.method === "GET" && sub === "") {
      const delay = faults.delayStatusMs.get(id);
      if (delay) await new Promise((r) => setTimeout(r, delay));
      if (job?.status === "cancelling") return send(200, statusBody(job));
      if (cancelled.has(id)) return send(200, { id, status: "cancelled", progress: null, error: null });
      if (!job) return send(404, { code: "not_found", message: "submission needed" });
      return send(200, statusBody(job));
    }
    if (req.method === "GET" && sub === "/result") {
      if (!job || job.status !== "completed" || !job.result)
        return send(409, { code: "not_completed", message: "no result yet" });
      fetched.add(id);
      rec.status = 200;
      res.writeHead(200, { "content-type": "application/zip", "content-length": String(job.result.length) });
      res.end(job.result);
      return;
    }
    if (req.method === "DELETE" && sub === "") {
      if (faults.dropDelete > 0) {
        faults.dropDelete -= 1;
        return drop();
      }
      cancelled.add(id);
      if (job?.status === "cancelling") return send(202, statusBody(job));
      if (job) {
        if (job.timer) clearTimeout(job.timer);
        job.timer = null;
        if (faults.cancelMs > 0 && (job.status === "queued" || job.status === "running")) {
          job.status = "cancelling";
          setTimeout(() => {
            job.status = "cancelled";
          }, faults.cancelMs).unref();
          return send(202, statusBody(job));
        }
        job.status = "cancelled";
      }
      return send(202, { id, status: "cancelled", progress: null, error: null });
    }
    return send(405, { code: "method_not_allowed", message: "not allowed" });
  }

  const server: Server = createServer((req, res) => {
    const rec: ProcessorRequestRecord = {
      method: req.method ?? "",
      url: req.url ?? "",
      headers: { ...req.headers },
      bodyBytes: 0,
      json: null,
      status: 0,
      at: Date.now(),
    };
    requests.push(rec);
    handle(req, res, rec).catch((e: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ code: "internal", message: (e as Error).message }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    faults,
    jobs,
    sources,
    cancelled,
    aiKeysSeen,
    get maxOutstanding() {
      return state.maxOutstanding;
    },
    async completeNow(id) {
      const job = jobs.get(id);
      if (!job) throw new Error(`fake processor: no job ${id}`);
      if (job.timer) clearTimeout(job.timer);
      job.error = null;
      job.status = "running";
      await complete(job);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const j of jobs.values()) if (j.timer) clearTimeout(j.timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
