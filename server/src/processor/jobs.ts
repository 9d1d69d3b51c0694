/**
 * The processor's job manager: protocol v1 semantics over the durable store, and the queue that
 * runs one job at a time on the engine.
 *
 * Credentials: the AI key and endpoint of a queued or running job are kept in memory only. After a
 * restart a queued or running job has its record (and checkpoints) but no key, so GET answers 404
 * ("submission needed"): the service's worker re-POSTs the same request on 404, which supplies the
 * key again, and the job resumes from its checkpoints. Completed, failed and cancelled jobs need no
 * key and answer their status as before.
 */
import { createHash } from "node:crypto";
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { parseJobId } from "../domain/translation-jobs.ts";
import { openArchive, type ArchiveOpenOptions } from "../library/archive-reader.ts";
import { statOrNull } from "../library/durable-fs.ts";
import { LocalTranslationError, type AiSettings } from "../translation/types.ts";
import { newRecord, SourceTooLarge, type ProcessorStore } from "./store.ts";
import { EngineError, type JobRecord, type ProcessorEngine } from "./types.ts";

/** A refusal the HTTP layer answers as problem+json with this status and stable code. */
export class ProtocolError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface StatusBody {
  id: string;
  status: string;
  progress: { pages_done: number; pages_total: number } | null;
  error: { code: string; message: string } | null;
}

export interface SubmitRequest {
  source_sha256: string;
  source_language: string;
  target_language: string;
  ai: { base_url: string; model: string; api_key: string };
}

const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z0-9]{1,8})?$/;
const SHA = /^[0-9a-f]{64}$/;

/** Validates a submit body; throws 400 invalid_body naming the field (never its value). */
export function parseSubmit(json: unknown): SubmitRequest {
  const bad = (field: string): never => {
    throw new ProtocolError(400, "invalid_body", `field ${field} is missing or invalid`);
  };
  const o = (json && typeof json === "object" ? json : bad("body")) as Record<string, unknown>;
  const ai = (o.ai && typeof o.ai === "object" ? o.ai : bad("ai")) as Record<string, unknown>;
  if (typeof o.source_sha256 !== "string" || !SHA.test(o.source_sha256)) bad("source_sha256");
  for (const f of ["source_language", "target_language"] as const)
    if (typeof o[f] !== "string" || !LANGUAGE.test(o[f] as string)) bad(f);
  let url: URL | null;
  try {
    url = typeof ai.base_url === "string" ? new URL(ai.base_url) : null;
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) bad("ai.base_url");
  if (typeof ai.model !== "string" || ai.model.trim() === "" || ai.model.length > 200) bad("ai.model");
  if (typeof ai.api_key !== "string" || ai.api_key === "" || ai.api_key.length > 4096) bad("ai.api_key");
  return {
    source_sha256: o.source_sha256 as string,
    source_language: o.source_language as string,
    target_language: o.target_language as string,
    ai: { base_url: ai.base_url as string, model: ai.model as string, api_key: ai.api_key as string },
  };
}

/**
 * The request identity (docs/rules.md, "External processor"): everything that changes the output, never the
 * API key.
 */
export function requestIdentity(r: SubmitRequest, engineFingerprint: string): string {
  const parts = [
    "v1",
    r.source_sha256,
    r.source_language,
    r.target_language,
    r.ai.base_url,
    r.ai.model,
    engineFingerprint,
  ];
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}

/** Removes every occurrence of the key from a text that may leave the process (errors, logs). */
export function redact(text: string, secret: string | undefined): string {
  return secret && secret.length >= 4 ? text.split(secret).join("<redacted>") : text;
}

export interface JobManagerOptions {
  store: ProcessorStore;
  engine: ProcessorEngine;
  checkpointRoot: string;
  maxSourceBytes: number;
  archiveLimits?: ArchiveOpenOptions;
  /** Jobs run at once (the built-in local engine: one). */
  concurrency?: number;
  log?: (line: string) => void;
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

export function createJobManager(o: JobManagerOptions) {
  const { store, engine } = o;
  const log = o.log ?? (() => undefined);
  const concurrency = o.concurrency ?? 1;
  /** In memory only: the credential and endpoint of each queued or running job. */
  const credentials = new Map<string, AiSettings>();
  const running = new Map<string, { controller: AbortController; done: Promise<void>; cancelled: boolean }>();
  let stopping = false;

  const body = (r: JobRecord): StatusBody => ({
    id: r.id,
    status: r.status,
    progress: r.progress ? { pages_done: r.progress.pagesDone, pages_total: r.progress.pagesTotal } : null,
    error: r.error,
  });
  const submitted = (r: JobRecord | undefined): r is JobRecord & { request: NonNullable<JobRecord["request"]> } =>
    !!r && r.request !== null && r.status !== "new" && r.status !== "uploaded";

  function pump(): void {
    if (stopping) return;
    const waiting = store
      .all()
      .filter((r) => r.status === "queued" && credentials.has(r.id) && !running.has(r.id))
      .sort((a, b) => (a.submittedAt ?? 0) - (b.submittedAt ?? 0));
    for (const r of waiting) {
      if (running.size >= concurrency) break;
      start(r);
    }
  }

  function start(record: JobRecord): void {
    const controller = new AbortController();
    const entry = { controller, cancelled: false, done: Promise.resolve() };
    running.set(record.id, entry);
    entry.done = execute(record, controller.signal, () => entry.cancelled)
      .catch((e: unknown) =>
        log(`job ${record.id}: ${redact((e as Error).message, credentials.get(record.id)?.apiKey)}`),
      )
      .finally(() => {
        running.delete(record.id);
        pump();
      });
  }

  async function execute(record: JobRecord, signal: AbortSignal, wasCancelled: () => boolean): Promise<void> {
    const req = record.request;
    const ai = credentials.get(record.id);
    if (!req || !ai || !record.sourceSha256) return;
    const output = store.outputPath(req.identity);
    const finish = async (patch: Partial<JobRecord>) => {
      credentials.delete(record.id);
      await store.save(Object.assign(record, patch));
    };
    if (await store.hasOutput(req.identity)) return finish({ status: "completed", error: null });
    if (signal.aborted) return wasCancelled() ? finish({ status: "cancelled" }) : undefined;
    await store.save(Object.assign(record, { status: "running" }));
    try {
      const job = {
        id: record.id,
        source: store.inputPath(record.sourceSha256),
        sourceSha256: record.sourceSha256,
        sourceLanguage: req.sourceLanguage,
        targetLanguage: req.targetLanguage,
        ai,
        identity: req.identity,
        checkpointDir: path.join(o.checkpointRoot, parseJobId(record.id)?.key ?? record.id),
        output,
      };
      const written = await engine.run(job, signal, (pagesDone, pagesTotal) => {
        if (signal.aborted || record.status !== "running") return;
        record.progress = { pagesDone, pagesTotal };
        store.save(record).catch(() => undefined);
      });
      if (path.resolve(written) !== path.resolve(output))
        throw new EngineError("engine_failed", "the engine wrote its result elsewhere");
      if (signal.aborted && wasCancelled()) {
        await rm(output, { force: true }).catch(() => undefined);
        return finish({ status: "cancelled" });
      }
      const total = record.progress?.pagesTotal ?? null;
      await finish({
        status: "completed",
        error: null,
        progress: total === null ? record.progress : { pagesDone: total, pagesTotal: total },
      });
      log(`job ${record.id}: completed`);
    } catch (e) {
      if (wasCancelled()) return finish({ status: "cancelled" });
      // Shutdown: the record stays running on disk and resumes at the next start; the key is gone.
      if (stopping) return;
      const code = e instanceof EngineError || e instanceof LocalTranslationError ? e.code : "engine_failed";
      const message = redact(e instanceof Error ? e.message : String(e), ai.apiKey).slice(0, 2000);
      log(`job ${record.id}: failed (${code})`);
      await finish({ status: "failed", error: { code, message } });
    }
  }

  return {
    /** GET /jobs/{id}: null means 404 (never submitted, or submitted before a restart and needing its key again). */
    status(id: string): StatusBody | null {
      const r = store.get(id);
      if (r?.status === "cancelled" || r?.status === "cancelling") return body(r);
      if (!submitted(r)) return null;
      if ((r.status === "queued" || r.status === "running") && !credentials.has(id)) return null;
      return body(r);
    },

    /** PUT /jobs/{id}/source: persisted and verified before the acknowledgement. */
    async upload(id: string, stream: Readable, headers: { length: string | undefined; type: string | undefined }) {
      const r = store.get(id);
      if (r?.status === "cancelled" || r?.status === "cancelling")
        throw new ProtocolError(409, "cancelled", "the job was cancelled; use the next retry number");
      if (headers.length === undefined) throw new ProtocolError(411, "length_required", "Content-Length is required");
      if ((headers.type ?? "").split(";")[0]?.trim().toLowerCase() !== "application/zip")
        throw new ProtocolError(415, "unsupported_media_type", "the source must be application/zip");
      const declared = Number(headers.length);
      if (!Number.isSafeInteger(declared) || declared < 0)
        throw new ProtocolError(400, "invalid_length", "Content-Length is not a byte count");
      if (declared > o.maxSourceBytes)
        throw new ProtocolError(413, "source_too_large", `the source exceeds ${o.maxSourceBytes} bytes`);
      let got: { sha256: string; size: number; path: string };
      try {
        got = await store.receiveSource(stream, o.maxSourceBytes);
      } catch (e) {
        if (e instanceof SourceTooLarge) throw new ProtocolError(413, "source_too_large", e.message);
        throw new ProtocolError(400, "upload_incomplete", "the upload ended before its Content-Length");
      }
      if (got.size !== declared)
        throw new ProtocolError(400, "upload_incomplete", `received ${got.size} of ${declared} bytes`);
      try {
        const a = await openArchive(got.path, o.archiveLimits);
        const pages = a.pages.length;
        await a.close();
        if (pages === 0) throw new ProtocolError(422, "source_unreadable", "the archive holds no image pages");
      } catch (e) {
        // Unreadable bytes are never referenced by a record (a referenced input was verified).
        if (!store.all().some((x) => x.sourceSha256 === got.sha256)) await rm(got.path, { force: true });
        if (e instanceof ProtocolError) throw e;
        const code = (e as { code?: unknown }).code;
        throw new ProtocolError(
          422,
          "source_unreadable",
          `the source is not a readable CBZ (${typeof code === "string" ? code : "unreadable"})`,
        );
      }
      const cur = store.get(id) ?? newRecord(id);
      if (cur.status === "cancelled" || cur.status === "cancelling")
        throw new ProtocolError(409, "cancelled", "the job was cancelled; use the next retry number");
      if (cur.request && cur.sourceSha256 !== got.sha256)
        throw new ProtocolError(409, "request_changed", "the job was submitted with another source");
      cur.sourceSha256 = got.sha256;
      if (cur.status === "new") cur.status = "uploaded";
      await store.save(cur);
      return { id, source_sha256: got.sha256, size: got.size };
    },

    /** POST /jobs/{id}: the record is on disk before the answer; the work runs in the background. */
    async submit(id: string, json: unknown): Promise<StatusBody> {
      const r = store.get(id);
      if (r?.status === "cancelled" || r?.status === "cancelling")
        throw new ProtocolError(409, "cancelled", "the job was cancelled; use the next retry number");
      const req = parseSubmit(json);
      if (!r?.sourceSha256 || !(await statOrNull(store.inputPath(r.sourceSha256))))
        throw new ProtocolError(409, "source_missing", "upload the source first");
      if (req.source_sha256 !== r.sourceSha256)
        throw new ProtocolError(409, "source_mismatch", "source_sha256 differs from the uploaded source");
      const identity = requestIdentity(req, engine.fingerprint);
      const ai: AiSettings = { baseUrl: req.ai.base_url, model: req.ai.model, apiKey: req.ai.api_key };
      if (submitted(r)) {
        if (r.request.identity !== identity)
          throw new ProtocolError(409, "request_changed", "another request was submitted under this id");
        // Same request again: after a restart this brings the key back and the job resumes.
        if (!TERMINAL.has(r.status) && !credentials.has(id)) {
          credentials.set(id, ai);
          pump();
        }
        return body(r);
      }
      r.request = {
        identity,
        sourceLanguage: req.source_language,
        targetLanguage: req.target_language,
        model: req.ai.model,
      };
      r.submittedAt = Date.now();
      r.error = null;
      r.progress = null;
      r.status = (await store.hasOutput(identity)) ? "completed" : "queued";
      await store.save(r);
      if (r.status === "queued") {
        credentials.set(id, ai);
        pump();
      } else log(`job ${id}: answered from the result cache`);
      return body(r);
    },

    /** DELETE /jobs/{id}: remembered (also for unknown ids) before the 202. */
    async cancel(id: string): Promise<StatusBody> {
      const r = store.get(id) ?? newRecord(id);
      credentials.delete(id);
      const run = running.get(id);
      if (r.status === "cancelled" || r.status === "cancelling") return body(r);
      if (run) {
        run.cancelled = true;
        r.status = "cancelling";
        await store.save(r);
        run.controller.abort(new Error("cancelled"));
      } else {
        r.status = "cancelled";
        await store.save(r);
      }
      return body(r);
    },

    /** GET /jobs/{id}/result: the result file of a completed job. */
    async resultFile(id: string): Promise<string> {
      const r = store.get(id);
      if (!submitted(r)) throw new ProtocolError(404, "not_found", "no such job");
      if (r.status !== "completed") throw new ProtocolError(409, "not_completed", `the job is ${r.status}`);
      const file = store.outputPath(r.request.identity);
      if (!(await statOrNull(file))) throw new ProtocolError(410, "result_gone", "the result is no longer stored");
      return file;
    },

    /** Stops the queue: running work is aborted between pages and stays resumable. */
    async stop(): Promise<void> {
      stopping = true;
      for (const run of running.values()) run.controller.abort(new Error("shutting down"));
      await Promise.all([...running.values()].map((r) => r.done));
      await store.flush();
      if (engine.close) await engine.close();
    },

    /** Ids of jobs running now (tests). */
    runningIds: () => [...running.keys()],
  };
}

export type JobManager = ReturnType<typeof createJobManager>;
