/**
 * One download job, start to end: the provider's pages fetched with bounded concurrency and each
 * checked as an image, progress published, the conformity judgement (services.downloads.judge), then
 * degraded (kept out of the library, a replacement asked for) or packaged in staging and published.
 * Every state change goes through the job state machine (domain/download-jobs.ts) and is stored only
 * from the expected state. Nothing is written under the library except by the publication module.
 */
import { rm, rmdir } from "node:fs/promises";
import path from "node:path";
import { stateDirs } from "../../config.ts";
import { transition, type JobEvent, type JobState } from "../../domain/download-jobs.ts";
import { isWhole } from "../../domain/labels.ts";
import { replacementGroupComplete } from "../../domain/replacement-groups.ts";
import { safeName, safeNameWithTail } from "../../domain/safe-names.ts";
import { AppError, isAppError } from "../../errors.ts";
import type { DownloadRow as Download } from "../../repositories/download-repo.ts";
import type { Publication } from "../../library/publication.ts";
import type { KeyedLock } from "../../library/keyed-lock.ts";
import { limiter, mapConcurrent, pageStats } from "../../library/page-stats.ts";
import { ProviderError, type SourceProvider } from "../../providers/provider.ts";
import type { DownloadQueueRepo, QueueRowGuard } from "../../repositories/download-queue-repo.ts";
import type { AppContext } from "../context.ts";
import {
  chapterComicInfo,
  checkPage,
  paddedLabel,
  pageMeta,
  StreamingCbz,
  type PageMeta,
} from "./download-packaging.ts";
import type { DownloadService } from "./download-service.ts";
import { isLibraryFolderAway } from "../../library/library-root.ts";

export interface ProviderMapping {
  id: number;
  seriesId: number;
  providerId: number;
  /** The provider's work id. */
  sourceId: string;
  language: string;
}

/** Where the pipeline gets a provider for a source mapping (the registry, or a test's own). */
export interface ProviderLookup {
  forMapping(mappingId: number): Promise<{ provider: SourceProvider; mapping: ProviderMapping } | null>;
}

export interface JobDeps {
  ctx: AppContext;
  queue: DownloadQueueRepo;
  downloads: Pick<DownloadService, "judgeStats">;
  publication: Pick<Publication, "publish" | "retire">;
  lookup: ProviderLookup;
  /** A degraded download: the next candidate from another source is queued at once. */
  afterDegraded(row: Download): Promise<void>;
  /** Download `id` fetched its last page: its provider place is free for the next one. */
  fetchDone?(id: number): void;
}

/**
 * Why a job stops without an outcome of its own: a cancel, the service shutting down, or its claim
 * lost (the instance stalled past its lease and another one took the row over).
 */
export class JobStopped extends Error {
  constructor(readonly why: "cancel" | "shutdown" | "claim_lost") {
    super(why);
  }
}

const PROGRESS_WRITE_MS = 250;

/**
 * Throttled writes with a trailing one: `poke()` writes now when the last write is `everyMs` old (or
 * `now` is set), else once that time is up; `stop()` drops a pending write. One write at a time.
 */
export function trailingWrites(everyMs: number, write: () => Promise<void>) {
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = () => {
    clearTimeout(timer);
    timer = undefined;
    last = Date.now();
    running = running.then(write);
    return running;
  };
  return {
    poke(now = false): Promise<void> {
      if (stopped) return Promise.resolve();
      if (now || Date.now() - last >= everyMs) return run();
      timer ??= setTimeout(() => void run(), last + everyMs - Date.now());
      return Promise.resolve();
    },
    stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      return running;
    },
  };
}

/** The lease (library/cluster.ts) an instance holds on a download while a job of it runs. */
export const downloadClaimKey = (id: number) => `download:${id}`;

/** A download's staging folder: one subfolder per attempt. */
export const stagingDirOf = (ctx: AppContext, id: number) =>
  path.join(stateDirs(ctx.config).staging, "downloads", String(id));

/**
 * An attempt's own staging folder. An attempt of an instance that stalled past its lease may wake up
 * after another instance took the row over and started a later attempt: each has its own file, so
 * neither publishes nor removes the other's.
 */
export const attemptStagingDir = (ctx: AppContext, id: number, attempt: number) =>
  path.join(stagingDirOf(ctx, id), String(attempt));

/** Removes an attempt's staging, and the download's folder once no other attempt is in it. */
async function removeStaging(ctx: AppContext, id: number, attempt: number): Promise<void> {
  await rm(attemptStagingDir(ctx, id, attempt), { recursive: true, force: true });
  await rmdir(stagingDirOf(ctx, id)).catch(() => undefined); // not empty, or gone already
}

/**
 * Applies a job event: the state machine decides, the row moves only from `from` and only while
 * `row.attempts` is its attempt (a later attempt, another instance's, is never moved by this one),
 * and as `options.guard` allows. `options.keepStaging`: the staging is removed by the caller once
 * the move succeeded (a takeover: until then the attempt may still be another instance's).
 */
export async function applyEvent(
  deps: JobDeps,
  row: Download,
  from: JobState,
  event: JobEvent,
  extra: Record<string, unknown> = {},
  options: { guard?: QueueRowGuard; keepStaging?: boolean } = {},
): Promise<JobState | null> {
  const t = transition(from, event, {
    baseMs: deps.ctx.config.downloads.retryBaseMs,
    capMs: deps.ctx.config.downloads.retryCapMs,
  });
  if (!t) return null;
  const data: Record<string, unknown> = { state: t.next, ...extra };
  for (const e of t.effects) {
    if (e.type === "record_error") data.error = e.error;
    if (e.type === "record_file") data.fileId = e.fileId;
    if (e.type === "schedule_retry") data.nextAttemptAt = new Date(Date.now() + e.delayMs);
  }
  // Staging first: once the row says published/cancelled/queued, nothing of this attempt is left behind.
  if (!options.keepStaging && t.effects.some((e) => e.type === "remove_staging"))
    await removeStaging(deps.ctx, row.id, row.attempts);
  if (!(await deps.queue.move(row.id, from, data, row.attempts, options.guard))) return null;
  publishEvent(deps.ctx, { ...row, state: t.next, ...(data as Partial<Download>) });
  if (t.effects.some((e) => e.type === "queue_replacement")) {
    await deps
      .afterDegraded(row)
      .catch((err: unknown) =>
        deps.ctx.log(`download ${row.id}: queueing a replacement failed: ${(err as Error).message}`),
      );
  }
  return t.next;
}

export function publishEvent(
  ctx: AppContext,
  row: Pick<Download, "id" | "seriesId" | "state" | "pagesDone" | "pagesTotal" | "error">,
): void {
  ctx.events.downloads.publish({
    downloadId: row.id,
    seriesId: row.seriesId,
    state: row.state,
    pagesDone: row.pagesDone,
    pagesTotal: row.pagesTotal,
    error: row.error,
  });
  if (row.state !== "fetching") ctx.events.publish("series_changed", row.seriesId);
}

/** The library name of a downloaded release, as the file-name parser reads it back. */
export function downloadFileName(
  title: string,
  row: Pick<Download, "kind" | "volume" | "chapter" | "part" | "scanlator">,
): string {
  const number =
    row.kind === "volume" ? `v${paddedLabel(row.volume ?? "0", 2)}` : `c${paddedLabel(row.chapter ?? "0")}`;
  const part = row.part !== null ? ` (part ${row.part})` : "";
  const group = row.scanlator ? ` [${safeName(row.scanlator, 60).replace(/[[\]]/g, "")}]` : "";
  return `${safeNameWithTail(title, " - ", `${number}${part}${group}`, 180)}.cbz`;
}

/** Runs a claimed job (state fetching) to its end; `signal` aborts it for a cancel or a shutdown. */
export async function runJob(deps: JobDeps, claimed: Download, signal: AbortSignal): Promise<void> {
  const { ctx } = deps;
  let state: JobState = "fetching";
  const attempt = claimed.attempts;
  // With several instances the claim is renewed with the instance's other leases; once a renewal
  // found it lost, the row may be another instance's already.
  const stopped = () =>
    signal.aborted
      ? (signal.reason as JobStopped)
      : ctx.cluster.holds(downloadClaimKey(claimed.id))
        ? null
        : new JobStopped("claim_lost");
  try {
    const found = await deps.lookup.forMapping(claimed.sourceMappingId!);
    if (!found)
      throw new AppError(
        "mapping_not_found",
        `source mapping ${claimed.sourceMappingId} is gone or its provider is not configured`,
      );
    const chapter = await found.provider.pages(found.mapping.sourceId, claimed.externalId!, { signal });
    if (chapter.count <= 0) throw new ProviderError("the provider lists no page for this chapter", false);
    await deps.queue.move(claimed.id, "fetching", { pagesTotal: chapter.count, pagesDone: 0 }, attempt);
    const progress = { ...claimed, pagesTotal: chapter.count, pagesDone: 0 };
    publishEvent(ctx, progress);

    // Each page is measured for the judgement and written into the staged CBZ as it arrives: the
    // judgement of fetched pages overlaps the fetch of the rest, and what is held in memory is the
    // pages in flight (at most the page concurrency, plus those waiting for a slower earlier page),
    // never the chapter. Progress goes to subscribers on every page, to the row at most every
    // PROGRESS_WRITE_MS (a write per page was a commit, an fsync, per page).
    const series = await ctx.repos.series.get(claimed.seriesId);
    if (!series) throw new AppError("series_not_found", `series ${claimed.seriesId} does not exist`);
    const name = downloadFileName(series.title, claimed);
    const stagedPath = path.join(attemptStagingDir(ctx, claimed.id, attempt), name);
    // Only this attempt's folder: another attempt's may still be in use (what a crash left is the
    // recovery's to remove).
    await rm(attemptStagingDir(ctx, claimed.id, attempt), { recursive: true, force: true });
    const cbz = await StreamingCbz.create(stagedPath, chapter.count);
    let verdict: Awaited<ReturnType<JobDeps["downloads"]["judgeStats"]>>;
    const metas: PageMeta[] = new Array<PageMeta>(chapter.count);
    try {
      // The row's count is written at most every PROGRESS_WRITE_MS, and a skipped count later on
      // (trailing): a list read while a slow page is fetched shows the pages done, not an old count.
      const progressWrites = trailingWrites(PROGRESS_WRITE_MS, () =>
        deps.queue.progress(claimed.id, attempt, progress.pagesDone).then(
          () => undefined,
          (err: unknown) => ctx.log(`download ${claimed.id}: progress not written: ${(err as Error).message}`),
        ),
      );
      const indexes = Array.from({ length: chapter.count }, (_, i) => i + 1);
      // At most `pageConcurrency` pages are being fetched; a fetched page leaves its fetch place for
      // the next one while it is measured and written, and at most twice that many pages are held.
      const fetching = limiter(ctx.config.downloads.pageConcurrency);
      const stats = await mapConcurrent(indexes, 2 * ctx.config.downloads.pageConcurrency, async (index) => {
        const s = stopped();
        if (s) throw s;
        const page = await fetching.run(() => chapter.fetch(index, signal));
        const type = checkPage(page.bytes, index);
        const measured = await pageStats(page.bytes, ctx.config.archiveLimits).catch((e: unknown) => {
          const err = isAppError(e) ? e : new AppError("image_unreadable", "a page could not be measured");
          throw new AppError(err.code, `page ${index}: ${err.message}`, { ...err.extra, page: index });
        });
        metas[index - 1] = pageMeta(page.bytes);
        await cbz.put(index, page.bytes, type);
        // Written: nothing reads the bytes any more, so their buffer goes to the next page.
        page.release?.();
        progress.pagesDone += 1;
        await progressWrites.poke(progress.pagesDone === chapter.count);
        publishEvent(ctx, progress);
        return measured;
      }).finally(() => progressWrites.stop());
      // The provider is not used any more: its place goes to the next download while this one ends.
      deps.fetchDone?.(claimed.id);
      const s = stopped();
      if (s) throw s;
      const fresh = await deps.queue.get(claimed.id);
      if (fresh?.cancelRequested) throw new JobStopped("cancel");

      // The judgement from the statistics: fetching → judging → degraded | publishing.
      state = "judging";
      verdict = await deps.downloads.judgeStats(claimed.id, stats, attempt);
      if (verdict.verdict !== "degraded")
        await cbz.finish(chapterComicInfo(comicInfoFields(series.title, claimed, found), metas));
    } finally {
      await cbz.close();
    }
    if (verdict.verdict === "degraded") {
      // The row is degraded already (judge wrote it): run the machine's effects for it.
      await removeStaging(ctx, claimed.id, attempt);
      publishEvent(ctx, { ...claimed, state: "degraded", pagesDone: chapter.count, pagesTotal: chapter.count });
      await deps
        .afterDegraded(claimed)
        .catch((err: unknown) =>
          ctx.log(`download ${claimed.id}: queueing a replacement failed: ${(err as Error).message}`),
        );
      return;
    }
    state = "publishing";
    publishEvent(ctx, { ...claimed, state, pagesDone: chapter.count, pagesTotal: chapter.count });
    const fileId = await publishStaged(
      deps,
      claimed,
      series,
      name,
      stagedPath,
      chapter.count,
      found.provider.name,
      found.mapping,
    );
    await applyEvent(deps, claimed, "publishing", { type: "published", fileId }, { needsReplacement: false });
    await finishReplacementGroup(deps, claimed);
  } catch (caught) {
    // An abort surfaces as whatever the provider throws for it: the signal's reason says why.
    const e = signal.aborted && signal.reason instanceof JobStopped ? signal.reason : caught;
    if (isAppError(e) && (e.code === "attempt_superseded" || e.code === "journal_entry_taken_over")) {
      // This instance stalled past its claim: another one took the row (attempt_superseded: its
      // publication was refused, nothing of this attempt is journalled) or this attempt's journal
      // entry over (its recovery finishes the publication, from the staged file it names).
      ctx.log(`download ${claimed.id}: attempt ${attempt} was taken over while publishing (${e.code}); stopped`);
      if (e.code === "attempt_superseded") await removeStaging(ctx, claimed.id, attempt);
      return;
    }
    if (e instanceof JobStopped) {
      // A shutdown leaves the row as it is: the next start resumes it (and clears its staging). So
      // does a lost claim: the instance that took the row over has it.
      if (e.why === "cancel") await applyEvent(deps, claimed, state, { type: "cancel" }, { cancelRequested: true });
      if (e.why === "claim_lost") {
        ctx.log(`download ${claimed.id}: the claim of attempt ${attempt} ran out (this instance stalled); stopped`);
        await removeStaging(ctx, claimed.id, attempt);
      }
      return;
    }
    const fresh = await deps.queue.get(claimed.id);
    if (fresh && fresh.attempts !== attempt) {
      // This instance stalled past its claim and another took the row over: its outcome is not ours.
      ctx.log(`download ${claimed.id}: attempt ${attempt} was taken over (now attempt ${fresh.attempts}); stopped`);
      await removeStaging(ctx, claimed.id, attempt);
      return;
    }
    const current = fresh?.state as JobState | undefined;
    // judge() records its own failure (image_unreadable) and the row is failed already.
    if (current === "failed" || current === undefined) {
      publishEvent(ctx, { ...claimed, state: "failed", error: isAppError(e) ? `${e.code}: ${e.message}` : String(e) });
      return;
    }
    const text =
      e instanceof ProviderError
        ? `provider: ${e.message}`
        : isAppError(e)
          ? `${e.code}: ${e.message}`
          : `internal: ${(e as Error).message}`;
    if (!isAppError(e) && !(e instanceof ProviderError))
      ctx.log(`download ${claimed.id}: ${(e as Error).stack ?? String(e)}`);
    // The library folder gone meanwhile (an unmounted disk) is not the source's failure: retried
    // while fetching (the machine retries from there only; later it fails as before).
    const event: JobEvent =
      (e instanceof ProviderError && e.transient) || (isLibraryFolderAway(e) && current === "fetching")
        ? { type: "transient", attempts: claimed.attempts, error: text }
        : { type: "permanent", error: text };
    await applyEvent(deps, claimed, current, event);
  }
}

const groupLocks = new WeakMap<AppContext, KeyedLock>();
const groupLockOf = (ctx: AppContext) => {
  let l = groupLocks.get(ctx);
  if (!l) groupLocks.set(ctx, (l = ctx.cluster.keyedLock("replacement-group")));
  return l;
};

/**
 * A replacement group (the parts of a split chapter from one other source) retires the old files
 * only once every download of the group is published; the last one to publish does it. Also run at
 * start-up for a group whose last publication committed before a crash.
 */
export async function finishReplacementGroup(
  deps: Pick<JobDeps, "ctx" | "queue" | "publication">,
  row: Pick<Download, "seriesId" | "replacementGroup">,
): Promise<void> {
  const group = row.replacementGroup;
  if (!group) return;
  await groupLockOf(deps.ctx).run([`group:${row.seriesId}:${group}`], async () => {
    const members = await deps.queue.groupMembers(row.seriesId, group);
    if (!replacementGroupComplete(members)) return;
    const ids = (() => {
      try {
        return (JSON.parse(members[0]!.replacesFileIds ?? "[]") as unknown[]).filter(
          (x): x is number => typeof x === "number",
        );
      } catch {
        return [];
      }
    })();
    const active = await deps.queue.activeFileIds(ids);
    if (active.length === 0) return;
    await deps.publication.retire(
      active,
      `replaced by downloads ${members.map((m) => m.id).join(", ")} (every part from one other source; the old file was degraded)`,
    );
  });
}

/** ComicInfo of a downloaded release (the Pages list comes from the page metadata). */
function comicInfoFields(
  title: string,
  row: Download,
  found: { provider: SourceProvider; mapping: ProviderMapping },
): Parameters<typeof chapterComicInfo>[0] {
  const volume = row.volume !== null && isWhole(row.volume) && row.volume.length < 10 ? Number(row.volume) : undefined;
  return {
    Series: title,
    ...(row.kind === "chapter" && row.chapter !== null ? { Number: row.chapter } : {}),
    ...(volume !== undefined ? { Volume: volume } : {}),
    Notes: `Downloaded from ${found.provider.name} (work ${found.mapping.sourceId}, release ${row.externalId ?? "?"})${row.part !== null ? `, part ${row.part}` : ""}.`,
    LanguageISO: row.language,
    ...(row.scanlator ? { ScanInformation: row.scanlator } : {}),
  };
}

async function publishStaged(
  deps: JobDeps,
  row: Download,
  series: { folder: string },
  name: string,
  stagedPath: string,
  pageCount: number,
  providerName: string,
  mapping: ProviderMapping,
): Promise<number> {
  const { ctx } = deps;
  const replaces = row.replacesFileId === null ? null : await ctx.repos.files.activeId(row.replacesFileId);
  const result = await deps.publication.publish({
    seriesId: row.seriesId,
    // With several instances the publication goes ahead only while this attempt is the row's.
    claim: { kind: "download", id: row.id, attempt: row.attempts },
    stagedPath,
    targetRelPath: `${series.folder}/${name}`,
    file: {
      kind: row.kind === "volume" ? "book" : "chapter",
      volume: row.volume,
      chapter: row.kind === "volume" ? null : row.chapter,
      chapterEnd: row.kind === "volume" ? null : row.chapter,
      part: row.part,
      pageCount,
      language: row.language,
      origin: "download",
      tagSource: "comicinfo",
    },
    release: {
      kind: row.kind === "volume" ? "volume" : "chapter",
      volume: row.volume,
      chapter: row.chapter,
      part: row.part,
      language: row.language,
      assembledFrom: null,
      providerId: mapping.providerId,
      sourceMappingId: mapping.id,
      externalId: row.externalId,
      scanlator: row.scanlator,
    },
    ...(replaces && row.replacementGroup === null
      ? {
          retireAfter: {
            fileIds: [replaces.id],
            reason: `replaced by download ${row.id} from ${providerName} (the old file was degraded)`,
          },
        }
      : {}),
  });
  return result.fileId;
}
