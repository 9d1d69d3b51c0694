/**
 * The download pipeline's workers: a durable queue on Download rows (repositories/download-queue-repo.ts),
 * at most `perProvider` jobs fetching from one provider (a job that judges or publishes leaves its place
 * to the next) and `total` running overall (config), woken when a pass queues rows,
 * when a job ends, and by a timer at the earliest back-off end (idle, it runs no query at all).
 * One job's life: download-pipeline-job.ts.
 *
 * Restart: rows a previous process left in fetching/judging/publishing go back to queued with their
 * staging removed (only publication writes into the library, so nothing half-written is there), unless
 * the publication had committed (its journal recovery ran first): then the row is published.
 * Several instances: a worker claims a row (lease `download:<id>`, library/cluster.ts) before it
 * moves it out of queued, and gives the claim up when the job ends; `resume` takes over only rows
 * whose claim ran out (their instance died or stalled). A publishing row is taken over only while
 * no publication of it is in flight or committed: the publication's journal entry marks the row in
 * its own transaction, only while the row is still in the attempt that publishes, and its commit
 * records the file on the row (repositories/publication-repo.ts); the takeover's move is guarded by
 * both, so a publication that is being finished is never queued again, and an attempt taken over
 * publishes nothing. An instance that only stalled past its lease may wake up in the middle of a
 * job another instance took over: every write of a job names its attempt (`attempts`, counted up
 * by each claim), so the old attempt moves nothing, and its staged file is its own
 * (download-pipeline-job.ts).
 * Cancel: a queued or waiting row is cancelled at once; a running one is aborted between pages.
 */
import { readdir, rm, rmdir } from "node:fs/promises";
import path from "node:path";
import { stateDirs } from "../../config.ts";
import { LIVE_JOB_STATES, type JobState } from "../../domain/download-jobs.ts";
import { AppError } from "../../errors.ts";
import type { DownloadRow as Download } from "../../repositories/download-repo.ts";
import type { Publication } from "../../library/publication.ts";
import { libraryFolderState } from "../../library/library-root.ts";
import { downloadQueueRepo } from "../../repositories/download-queue-repo.ts";
import type { AppContext } from "../context.ts";
import {
  applyEvent,
  downloadClaimKey,
  finishReplacementGroup,
  JobStopped,
  runJob,
  type JobDeps,
  type ProviderLookup,
} from "./download-pipeline-job.ts";
import {
  downloadView,
  DOWNLOAD_STATES,
  type DownloadService,
  type DownloadState,
  type DownloadView,
} from "./download-service.ts";

export type { ProviderLookup, ProviderMapping } from "./download-pipeline-job.ts";

interface Running {
  controller: AbortController;
  providerId: number;
  /** Still fetching from its provider (a job that judges or publishes leaves its provider place). */
  fetching: boolean;
  done: Promise<void>;
}

export function downloadPipeline(
  ctx: AppContext,
  deps: {
    downloads: Pick<DownloadService, "judgeStats">;
    publication: Pick<Publication, "publish" | "retire">;
    lookup: ProviderLookup;
  },
) {
  const queue = downloadQueueRepo(ctx.db);
  const running = new Map<number, Running>();
  let lookup = deps.lookup;
  let afterDegraded: (row: Download) => Promise<void> = async () => {};
  let afterEnded: (row: Download) => Promise<void> = async () => {};
  let started = false;
  let timer: NodeJS.Timeout | null = null;
  // The library folder was missing at the last look (logged once per absence).
  let rootMissing = false;
  let ticking: Promise<void> | null = null;
  let again = false;

  const jobDeps = (): JobDeps => ({
    ctx,
    queue,
    downloads: deps.downloads,
    publication: deps.publication,
    lookup,
    afterDegraded: (r) => afterDegraded(r),
    fetchDone: (id) => {
      const r = running.get(id);
      if (!r || !r.fetching) return;
      r.fetching = false;
      kick();
    },
  });

  const claimKey = downloadClaimKey;

  async function resume(): Promise<{ requeued: number; published: number; cancelled: number }> {
    const out = { requeued: 0, published: 0, cancelled: 0 };
    const { cluster } = ctx;
    /** Rows taken over here, with the attempt each was in. */
    const takenOver = new Map<number, number>();
    // Alone on the database the previous process is gone: its staging goes before the row moves
    // (as a crash leaves nothing behind). With several instances the attempt may still be a
    // stalled instance's until the move succeeded: its staging goes after it, below.
    const keepStaging = !cluster.exclusive;
    for (const row of await queue.interrupted()) {
      // A claim this instance holds already is live work of its own (a job, a judgement).
      if (running.has(row.id) || !(await cluster.claimAlone(claimKey(row.id)))) continue;
      try {
        const fresh = await queue.get(row.id);
        if (!fresh || fresh.state !== row.state) continue; // moved on by its instance before its claim ran out
        const from = row.state as JobState;
        // Its publication is in flight: the entry's instance, or the recovery sweep once that one's
        // lease ran out, commits it (the row then has its file) or gives it up (the row is free again).
        if (from === "publishing" && fresh.journalId !== null) continue;
        if (fresh.cancelRequested && from !== "publishing") {
          if (await applyEvent(jobDeps(), fresh, from, { type: "cancel" }, {}, { keepStaging })) {
            takenOver.set(row.id, fresh.attempts);
            out.cancelled += 1;
          }
          continue;
        }
        const publishedFileId = from === "publishing" ? (fresh.fileId ?? (await queue.publishedFileOf(fresh))) : null;
        // The move is guarded by what was read: a publication that began (or committed) meanwhile keeps the row.
        const next = await applyEvent(
          jobDeps(),
          fresh,
          from,
          { type: "interrupted", publishedFileId },
          { pagesDone: 0 },
          { guard: publishedFileId === null ? { journalId: null, fileId: null } : { journalId: null }, keepStaging },
        );
        if (next !== null) takenOver.set(row.id, fresh.attempts);
        if (next === "published") out.published += 1;
        else if (next === "queued") out.requeued += 1;
      } finally {
        await cluster.release([claimKey(row.id)]);
      }
    }
    // Staging folders of downloads that are not running any more (a crash between two steps). With
    // several instances, only those of rows taken over here or no longer live: the others may be
    // another instance's running downloads.
    const dir = path.join(stateDirs(ctx.config).staging, "downloads");
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const row = /^\d+$/.test(name) ? await queue.get(Number(name)) : null;
      if (row && running.has(row.id)) continue;
      const idle =
        !row || (cluster.exclusive ? row.state !== "publishing" : !LIVE_JOB_STATES.includes(row.state as JobState));
      const taken = row && row.state !== "publishing" ? takenOver.get(row.id) : undefined;
      if (idle) await rm(path.join(dir, name), { recursive: true, force: true });
      else if (taken !== undefined) {
        // Only the attempts taken over here: a later one may be another instance's, running now.
        for (const attempt of await readdir(path.join(dir, name)).catch(() => [] as string[]))
          if (/^\d+$/.test(attempt) && Number(attempt) <= taken)
            await rm(path.join(dir, name, attempt), { recursive: true, force: true });
        await rmdir(path.join(dir, name)).catch(() => undefined); // a later attempt's folder is in it
      }
    }
    // Replacement groups whose last part published just before a crash: retire the old parts now.
    for (const row of await queue.openReplacementGroups())
      await finishReplacementGroup(jobDeps(), row).catch((e: unknown) =>
        ctx.log(`downloads: finishing replacement group ${row.replacementGroup}: ${(e as Error).message}`),
      );
    if (out.requeued + out.published + out.cancelled > 0)
      ctx.log(`downloads: resumed ${out.requeued}, found published ${out.published}, cancelled ${out.cancelled}`);
    return out;
  }

  /**
   * Nothing starts while the library folder is missing or an empty mount point (an unmounted disk):
   * the queued downloads wait for it, looked for again every DOWNLOAD_POLL_MS (library-root.ts).
   */
  async function rootPresent(): Promise<boolean> {
    const state = await libraryFolderState(ctx);
    if (state === "present") {
      if (rootMissing) ctx.log("downloads: the library folder is back");
      rootMissing = false;
      return true;
    }
    if (!rootMissing)
      ctx.log(
        `downloads: waiting: the library folder ${ctx.config.libraryRoot} ${state === "missing" ? "is missing" : "holds no series folder (is its disk mounted?)"}`,
      );
    rootMissing = true;
    if (started) {
      if (timer) clearTimeout(timer);
      timer = setTimeout(kick, ctx.config.downloads.pollMs);
      timer.unref();
    }
    return false;
  }

  /** Wakes at the earliest back-off end (no timer, and no query, while nothing waits). */
  async function scheduleWake(): Promise<void> {
    const at = await queue.nextWake();
    if (timer) clearTimeout(timer);
    timer = null;
    if (!at || !started) return;
    timer = setTimeout(kick, Math.max(ctx.config.downloads.pollMs, at.getTime() - Date.now()));
    timer.unref();
  }

  async function tickOnce(): Promise<void> {
    const cfg = ctx.config.downloads;
    await queue.releaseDue(new Date());
    await scheduleWake();
    if (running.size >= cfg.total) return;
    const perProvider = new Map<number, number>();
    for (const r of running.values())
      if (r.fetching) perProvider.set(r.providerId, (perProvider.get(r.providerId) ?? 0) + 1);
    const claimable = await queue.claimable(200);
    if (claimable.length > 0 && !(await rootPresent())) return;
    for (const row of claimable) {
      if (!started || running.size >= cfg.total) break;
      const providerId = row.sourceMapping?.providerId ?? 0;
      if ((perProvider.get(providerId) ?? 0) >= cfg.perProvider || running.has(row.id)) continue;
      const attempts = row.attempts + 1;
      if (!(await ctx.cluster.claim(claimKey(row.id)))) continue;
      if (!(await queue.move(row.id, "queued", { state: "fetching", attempts, pagesDone: 0, nextAttemptAt: null }))) {
        await ctx.cluster.release([claimKey(row.id)]);
        continue;
      }
      perProvider.set(providerId, (perProvider.get(providerId) ?? 0) + 1);
      const { sourceMapping: _m, ...plain } = row;
      const claimed: Download = { ...plain, state: "fetching", attempts, pagesDone: 0 };
      const controller = new AbortController();
      const done = runJob(jobDeps(), claimed, controller.signal)
        .catch((e: unknown) => ctx.log(`download ${row.id}: ${(e as Error).message}`))
        .finally(async () => {
          running.delete(row.id);
          await ctx.cluster.release([claimKey(row.id)]).catch(() => undefined);
          kick();
          // Not awaited: whoever waits for this job (a cancel, the stop) does not wait for a pass.
          if (started)
            void afterEnded(claimed).catch((e: unknown) =>
              ctx.log(`download ${row.id}: after its end: ${(e as Error).message}`),
            );
        });
      running.set(row.id, { controller, providerId, fetching: true, done });
    }
  }

  /** Looks for work now (joins a look under way, then looks once more). */
  function kick(): void {
    if (!started) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = tickOnce()
      .catch((e: unknown) => ctx.log(`downloads: ${(e as Error).message}`))
      .finally(() => {
        ticking = null;
        if (again) {
          again = false;
          kick();
        }
      });
  }

  async function requireRow(id: number) {
    const row = await queue.get(id);
    if (!row) throw new AppError("download_not_found", `download ${id} does not exist`);
    return row;
  }

  async function view(id: number): Promise<DownloadView> {
    return downloadView(await ctx.repos.downloads.viewRow(id));
  }

  return {
    /** Resumes what a previous process left, then starts the workers. */
    async start(): Promise<void> {
      await resume();
      started = true;
      kick();
    },
    /** Stops taking work and aborts running jobs; their rows stay as they are for the next start. */
    async stop(): Promise<void> {
      started = false;
      if (timer) clearTimeout(timer);
      timer = null;
      for (const r of running.values()) r.controller.abort(new JobStopped("shutdown"));
      await ticking;
      await Promise.all([...running.values()].map((r) => r.done));
    },
    kick,
    resume,
    /** The tests' and the registry's seam: where providers come from. */
    useLookup(next: ProviderLookup): void {
      lookup = next;
    },
    onDegraded(fn: (row: Download) => Promise<void>): void {
      afterDegraded = fn;
    },
    /** A job of this instance stopped running (whatever its state: it may be waiting for a retry). */
    onJobEnded(fn: (row: Download) => Promise<void>): void {
      afterEnded = fn;
    },
    /** Started and not stopping. */
    isStarted: (): boolean => started,
    /** Jobs running in this process. */
    runningIds: (): number[] => [...running.keys()],

    /** The queue across series, newest first, optionally only some states. */
    async list(states?: readonly DownloadState[]): Promise<DownloadView[]> {
      for (const s of states ?? []) {
        if (!(DOWNLOAD_STATES as readonly string[]).includes(s))
          throw new AppError("invalid_field", `unknown download state ${JSON.stringify(s)}`, { field: "state" });
      }
      return (await queue.list({ states: states && states.length > 0 ? states : undefined })).map(downloadView);
    },

    /**
     * Cancels a download: queued or waiting at once; fetching or judging between two pages (the row
     * says cancelRequested until the job stops). Publishing or finished: 409 download_not_cancellable.
     */
    async cancel(id: number): Promise<DownloadView> {
      const row = await requireRow(id);
      const state = row.state as JobState;
      if (state === "queued" || state === "waiting") {
        if (await applyEvent(jobDeps(), row, state, { type: "cancel" }, { cancelRequested: true })) return view(id);
        return this.cancel(id);
      }
      if (state === "fetching" || state === "judging") {
        await queue.move(id, state, { cancelRequested: true });
        const job = running.get(id);
        if (job) {
          job.controller.abort(new JobStopped("cancel"));
          await job.done;
        } else if (ctx.cluster.exclusive ? !started : await ctx.cluster.claim(claimKey(id))) {
          // Nobody runs it (with several instances: no live instance holds its claim).
          try {
            await applyEvent(jobDeps(), row, state, { type: "cancel" }, { cancelRequested: true });
          } finally {
            if (!ctx.cluster.exclusive) await ctx.cluster.release([claimKey(id)]);
          }
        }
        // Otherwise the instance running it sees cancelRequested at its next page.
        return view(id);
      }
      throw new AppError("download_not_cancellable", `download ${id} is ${state}`, { state });
    },
    liveStates: LIVE_JOB_STATES,
  };
}

export type DownloadPipeline = ReturnType<typeof downloadPipeline>;
