/**
 * The reference processor's own types: the persisted job record (no credential, no endpoint: the
 * AI key and base URL live only in memory for the queued or running job) and the engine interface
 * both the built-in local path and the external manga-image-translator adapter implement.
 */
import type { AiSettings } from "../translation/types.ts";

export type ProcessorJobStatus = "queued" | "running" | "completed" | "failed" | "cancelling" | "cancelled";

/** One job id's durable record, `jobs/<id>.json`. */
export interface JobRecord {
  id: string;
  /** "uploaded": a source arrived but no submit yet (GET answers 404, as before any request). */
  status: ProcessorJobStatus | "uploaded" | "new";
  /** sha256 of the uploaded source (its input is `inputs/<sha>.cbz`); null before any upload. */
  sourceSha256: string | null;
  /** Set by the submit: everything needed to answer and resume, except the credential and endpoint. */
  request: null | {
    /** sha256 of the request identity (source, languages, endpoint, model, engine settings). */
    identity: string;
    sourceLanguage: string;
    targetLanguage: string;
    model: string;
  };
  progress: { pagesDone: number; pagesTotal: number } | null;
  error: { code: string; message: string } | null;
  /** Submission order, to resume the queue in the order jobs arrived. */
  submittedAt: number | null;
  updatedAt: number;
}

/** What an engine gets for one job. */
export interface EngineJob {
  id: string;
  /** Path of the source CBZ (hash-named input; read through the hardened archive reader). */
  source: string;
  sourceSha256: string;
  sourceLanguage: string;
  targetLanguage: string;
  ai: AiSettings;
  /** Request identity hash: checkpoints of another identity are not reused. */
  identity: string;
  /** `<checkpoints root>/<32-hex part of the id>`: an explicit retry (next number) finds them again. */
  checkpointDir: string;
  /** Where the result ZIP must be written (atomically, e.g. with writeResultZip). */
  output: string;
}

export type ProgressFn = (pagesDone: number, pagesTotal: number) => void;

/** A failure with a stable code for the job's `error` (never holding a credential). */
export class EngineError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ProcessorEngine {
  /** Part of the request identity: OCR/render settings that change the output (e.g. config hash). */
  readonly fingerprint: string;
  /**
   * Runs one job to its result ZIP and answers its path. Stops between pages when `signal` aborts
   * (rejecting with anything); throws EngineError (or LocalTranslationError) for a failed job.
   */
  run(job: EngineJob, signal: AbortSignal, onProgress: ProgressFn): Promise<string>;
  close?(): Promise<void>;
}
