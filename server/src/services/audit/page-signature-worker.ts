/**
 * The background worker that computes page signatures (library/page-signatures.ts), never on a
 * request's hot path: a request only enqueues what is missing and answers at once (the page
 * evidence endpoint with 202 and its progress, the audit without the flags that need pages).
 *
 * - One archive at a time (a queue of concurrency one; sharp's own thread pool decodes). Requests
 *   for a content already queued or running are shared; the queue holds each content once.
 * - Requests first: before each archive the worker waits until no HTTP request has run for
 *   QUIET_MS (request-activity.ts), at most MAX_WAIT_MS, so a page asked for meanwhile does not
 *   wait for a core behind a decode; under a steady load it still reads one archive per MAX_WAIT_MS.
 * - Cached by content: the result is stored under the file's recorded sha256, and only when the
 *   bytes read were the recorded ones (size and mtime on disk equal the record before and after
 *   the read), so a file changed since the last scan never stores signatures under the old hash.
 * - A content that cannot be read now (gone from disk, changed since the scan) is remembered for
 *   this process with its fingerprint and not tried again until the file changes (not while the
 *   whole library folder is away: then it is tried again on the next request); an archive the
 *   hardened reader refuses is stored as failed (it has no evidence).
 * - Idle, it holds no timer: the next request starts it.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { isAppError } from "../../errors.ts";
import { libraryFolderState } from "../../library/library-root.ts";
import { archiveSignatures, type ArchiveSignatures } from "../../library/page-signatures.ts";
import type { ArchiveLimitsConfig } from "../../config.ts";
import { pageSignatureRepo } from "../../repositories/page-signature-repo.ts";
import type { AppContext } from "../context.ts";

/** A file whose content needs signatures, as its record says it is. */
export interface SignatureRequest {
  sha256: string;
  /** Path relative to the library root. */
  path: string;
  size: number;
  mtimeMs: number;
}

export type SignatureComputer = (absPath: string, limits: ArchiveLimitsConfig) => Promise<ArchiveSignatures>;

/** No request for this long counts as a quiet moment. */
export const QUIET_MS = 25;
/** The longest the worker waits for one before it reads the next archive anyway. */
export const MAX_WAIT_MS = 500;

export function pageSignatureWorker(ctx: AppContext, options: { compute?: SignatureComputer } = {}) {
  const repo = pageSignatureRepo(ctx.db);
  const compute = options.compute ?? archiveSignatures;
  const queue = new Map<string, SignatureRequest>();
  /** Contents that could not be read, with the fingerprint they had. */
  const unavailable = new Map<string, string>();
  const idleWaiters: (() => void)[] = [];
  let running: string | null = null;
  let pump: Promise<void> | null = null;
  let stopped = false;
  let computed = 0;
  /** Archives read (each one open), stored or refused. */
  let read = 0;

  const fingerprint = (r: SignatureRequest) => `${r.path}|${r.size}|${r.mtimeMs}`;

  async function onDisk(r: SignatureRequest): Promise<boolean> {
    try {
      const s = await stat(path.join(ctx.config.libraryRoot, ...r.path.split("/")));
      return s.size === r.size && Math.trunc(s.mtimeMs) === r.mtimeMs;
    } catch {
      return false;
    }
  }

  /**
   * A content not readable now is remembered only while the library folder is there: with the
   * folder away (an unmounted disk) every file is absent, and each is read once it is back.
   */
  async function markUnavailable(r: SignatureRequest): Promise<void> {
    if ((await libraryFolderState(ctx)) === "present") unavailable.set(r.sha256, fingerprint(r));
  }

  async function run(r: SignatureRequest): Promise<void> {
    if (!(await onDisk(r))) return markUnavailable(r);
    let result: ArchiveSignatures;
    read += 1;
    try {
      result = await compute(path.join(ctx.config.libraryRoot, ...r.path.split("/")), ctx.config.archiveLimits);
    } catch (e) {
      // The hardened reader refused the archive (its bytes are the recorded ones): no evidence in it.
      const message = isAppError(e) ? `${e.code}: ${e.message}` : (e as Error).message;
      if (await onDisk(r)) await repo.save(r.sha256, { error: message.slice(0, 500) });
      else await markUnavailable(r);
      return;
    }
    if (!(await onDisk(r))) return markUnavailable(r);
    await repo.save(r.sha256, result);
    computed += 1;
  }

  async function drain(): Promise<void> {
    while (!stopped && queue.size > 0) {
      await ctx.activity.quiet(QUIET_MS, MAX_WAIT_MS);
      const next = queue.values().next();
      if (stopped || next.done) break;
      const r = next.value;
      running = r.sha256;
      try {
        await run(r);
      } catch (e) {
        ctx.log(`page signatures: ${r.path}: ${(e as Error).message}`);
        unavailable.set(r.sha256, fingerprint(r));
      } finally {
        queue.delete(r.sha256);
        running = null;
      }
    }
    pump = null;
    if (queue.size === 0) for (const w of idleWaiters.splice(0)) w();
  }

  return {
    /**
     * Enqueues the contents not computed yet (the caller passes those it found missing); returns at
     * once. A content known to be unreadable with the same fingerprint is not queued again.
     */
    request(files: readonly SignatureRequest[]): void {
      if (stopped) return;
      for (const f of files) {
        if (queue.has(f.sha256)) continue;
        if (unavailable.get(f.sha256) === fingerprint(f)) continue;
        unavailable.delete(f.sha256);
        queue.set(f.sha256, f);
      }
      if (queue.size > 0 && pump === null) pump = drain();
    },
    /** Whether a content is queued or being computed. */
    pending(sha256: string): boolean {
      return queue.has(sha256);
    },
    /** Whether a content could not be read (gone or changed since the scan): it gives no evidence. */
    unavailable(sha256: string): boolean {
      return unavailable.has(sha256);
    },
    /** Resolves when the queue is empty (tests, the benchmark). */
    idle(): Promise<void> {
      if (queue.size === 0 && pump === null) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    /** Stops taking work and waits for the archive being read. */
    async stop(): Promise<void> {
      stopped = true;
      queue.clear();
      await pump;
      for (const w of idleWaiters.splice(0)) w();
    },
    stats: () => ({ queued: queue.size, running, computed, read }),
  };
}

export type PageSignatureWorker = ReturnType<typeof pageSignatureWorker>;
